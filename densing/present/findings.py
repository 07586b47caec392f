"""The words of the trend's findings beside its rows, from their facts (:mod:`densing.states`): each validity
check's threshold and detail, a forecast cutoff's verdict and a fixed-size fit's status."""

from __future__ import annotations

import math

from densing.constants import (
    HETEROGENEITY_ALPHA,
    MAX_MEDIAN_CONDITIONING,
    MIN_SIZE_FAMILIES,
    SATURATION_STDERRS,
    SIZE_SLOPE_MARGIN,
)
from densing.numbers import counted_noun, format_number, signed
from densing.present.words import STATE_WORDS, heterogeneity_text, not_measured
from densing.states import (
    CALIBRATED,
    SIZE_FINDING,
    Conditioned,
    FewLater,
    Heterogeneity,
    NoFrontier,
    Outcome,
    Saturated,
    State,
    TooFew,
    TooFewScores,
    WideEarlyLine,
)

#: Why a calibrated check is a finding: its false-alarm rate where its threat is absent (docs/method.md, "Gates and
#: findings").
FINDING_WORDS = "it fires in more than 10% of planted worlds where the estimate is right: studies/gate_calibration.py"


def _threshold_of(check) -> str:
    """What one check tests against, before it is judged under several references or made a finding."""
    name, facts = check.name, check.facts
    if check.finding == SIZE_FINDING:
        return "a finding (not a gate)"
    if name == "saturation":
        return (
            "0 frontier models within 2 SE of the cap"
            if isinstance(facts, NoFrontier)
            else "a finding, not a gate: a target at the ceiling enters the frontier fit as a lower bound "
            "(densing.trend.pooling, step 3)"
        )
    if name == "conditioning":
        return f"median κ ≤ {MAX_MEDIAN_CONDITIONING:g}"
    if name == "size_dependence":
        return f"{facts.level:.0%} CI of the slope inside ±{facts.margin:g}"
    if name == "size_confounding":
        return f"fails where the 95% CI of the ln N coefficient excludes 0 and |coefficient| > {SIZE_SLOPE_MARGIN:g}"
    return f"one common slope not rejected at {HETEROGENEITY_ALPHA:g} (Cochran's Q with the paired draws' covariance)"


def check_threshold(check) -> str:
    """A :class:`densing.trend.checks.Check`'s threshold in words: what it tests against, "under every candidate
    reference" where it is judged under several, and, for a calibrated finding, why it is no gate."""
    text = _threshold_of(check) + (" under every candidate reference" if check.across else "")
    return (
        f"a finding, not a gate ({FINDING_WORDS}); it fires where it fails: {text}"
        if check.finding == CALIBRATED
        else text
    )


def _facts_words(check) -> str:
    """What one check found, from its facts (:mod:`densing.trend.checks`)."""
    facts, g = check.facts, (lambda v: format_number(v, ".3g"))
    if isinstance(facts, NoFrontier):
        return "no frontier model"
    if isinstance(facts, Saturated):
        shown = (
            format_number(facts.cap_low)
            if facts.cap_low == facts.cap_high
            else f"{format_number(facts.cap_low)} to {format_number(facts.cap_high)} by benchmark"
        )
        names = [f"{m} ({b}, cap {c:.3f})" if b else m for m, b, c in facts.near]
        return (
            f"{facts.n_near} of {facts.n_frontier} frontier models within {SATURATION_STDERRS:g} standard "
            f"errors of the highest score the reference expresses ({shown})"
            + (f": {', '.join(names)}" if names else "")
        )
    if isinstance(facts, Conditioned):
        return (
            f"median over {facts.n_frontier} frontier models: one standard error of the score moves ρ "
            f"{g(facts.median)}-fold (worst {facts.worst_model}: {g(facts.worst)}-fold)"
        )
    if isinstance(facts, TooFew):
        if facts.what == "exact densities":
            densities = counted_noun(facts.count, "exact density", "exact densities")
            return f"{densities} (need {facts.needed}) or one size only"
        return f"{counted_noun(facts.count, 'cluster')} of exact densities (need {facts.needed})"
    if isinstance(facts, Heterogeneity):
        return heterogeneity_text(
            facts.q,
            facts.df,
            facts.p,
            facts.i_squared,
            facts.tau_squared,
            facts.draws,
            facts.labs,
            facts.references or facts.df + 1,
        )
    if check.name == "size_dependence":
        if not math.isfinite(facts.slope):
            return (
                f"{counted_noun(facts.families, 'target family', 'target families')} with two or more sizes "
                f"(need {MIN_SIZE_FAMILIES}): the within-family slope cannot be estimated"
            )
        inside = -facts.margin <= facts.low and facts.high <= facts.margin
        return (
            f"within-family slope of ln ρ on ln N: {signed(facts.slope)} (95% CI {signed(facts.low)} to "
            f"{signed(facts.high)}, "
            f"{'inside' if inside else 'not inside'} ±{facts.margin:g}; "
            f"{counted_noun(facts.families, 'family', 'families')}, {counted_noun(facts.n_models, 'model')}, "
            f"family fixed effects, HC3)"
        )
    excludes, material = facts.low > 0 or facts.high < 0, abs(facts.slope) > facts.margin
    return (
        f"ln N coefficient of ln ρ ~ t + ln N: {signed(facts.slope)} (95% CI {signed(facts.low)} to "
        f"{signed(facts.high)}, "
        f"{'excludes' if excludes else 'includes'} 0; {'above' if material else 'within'} ±{facts.margin:g}); "
        f"OLS on {counted_noun(facts.n_models, 'exact density', 'exact densities')} clustered by {facts.clusters} "
        f"({counted_noun(facts.n_clusters, 'cluster')}), {counted_noun(facts.bounds, 'bound')} dropped"
    )


def check_detail(check) -> str:
    """What a :class:`densing.trend.checks.Check` found, in words: its facts, or each candidate reference's status and
    facts; a calibrated finding says first whether it fires."""
    text = (
        "; ".join(f"under {name}: {c.status}, {check_detail(c)}" for name, c in check.across)
        if check.across
        else _facts_words(check)
    )
    return ("fires: " if check.fired else "does not fire: ") + text if check.finding == CALIBRATED else text


#: A forecast cutoff's outcome (:class:`densing.states.Outcome`): its name, and its sentence.
OUTCOME_NAMES = {
    Outcome.AHEAD: "ahead",
    Outcome.HOLDS: "holds",
    Outcome.BEHIND: "behind",
    Outcome.NO_VERDICT: "no verdict",
}
OUTCOME_WORDS = {
    Outcome.AHEAD: "more than 10% of the later models lie above the early line's band: density rises faster than "
    "forecast",
    Outcome.HOLDS: "the share of later models above the early line's band is consistent with the law's 10%: the "
    "forecast holds",
    Outcome.BEHIND: "fewer than 10% of the later models lie above the early line's band: density rises slower than "
    "forecast",
}


def forecast_verdict(cutoff) -> str:
    """A :class:`densing.trend.forecast.ForecastCutoff`'s verdict: its outcome's sentence, or "no verdict: " and why."""
    reason = cutoff.reason
    if isinstance(reason, WideEarlyLine):
        return (
            f"{OUTCOME_NAMES[Outcome.NO_VERDICT]}: the early line's doubling time is {format_number(reason.low)} to "
            f"{format_number(reason.high)} months (unbounded or more than {reason.max_width:g}-fold wide)"
        )
    if isinstance(reason, FewLater):
        return f"{OUTCOME_NAMES[Outcome.NO_VERDICT]}: {reason.count} later models (at least {reason.needed} needed)"
    return OUTCOME_WORDS[cutoff.state]


def cutoff_words(c) -> str:
    """One cutoff's early line, its count of later models above it and its verdict, in one line (a
    :class:`densing.trend.forecast.ForecastCutoff` or its stored dict); the early line is named as the fit to the models
    up to the cutoff, so that its months never read as the headline's (the declared cutoff's early line of the second
    table prints 4.88 beside the headline's 4.88)."""
    get = (lambda k: c[k]) if isinstance(c, dict) else (lambda k: getattr(c, k))
    verdict = c["verdict"] if isinstance(c, dict) else forecast_verdict(c)
    months = [
        format_number(math.inf if get(k) is None else get(k))
        for k in (
            "early_doubling_time_months",
            "early_doubling_time_months_ci_low",
            "early_doubling_time_months_ci_high",
        )
    ]
    return (
        f"{get('cutoff')}: early line (fit to the {counted_noun(get('n_early'), 'model')} up to it) {months[0]} months "
        f"[{months[1]}–{months[2]}]; "
        f"{get('above_line')} of {get('n_later')} later models above it ({get('above_band_high')} above its band) "
        f"— {verdict}"
    )


def fixed_size_status(fit) -> str:
    """A :class:`densing.trend.fixed_size.FixedSizeFit`'s status, by the one state rule: "measured", "bounded" (the
    time slope's interval reaches 0: the upper end open), or "not measured: " and its reason."""
    reason = fit.reason
    if fit.state is not State.NOT_MEASURED:
        return STATE_WORDS[fit.state]
    if isinstance(reason, TooFewScores):
        why = (
            f"{counted_noun(reason.n_scores, 'score')} from "
            f"{counted_noun(reason.n_families, 'family', 'families')} (needs {reason.min_scores} and "
            f"{reason.min_families})"
        )
    elif reason.variable == "size":
        why = f"the score does not rise with size at a fixed date (β_N = {reason.slope:.3g})"
    else:
        why = f"the score does not rise with the release date at a fixed size (β_t = {reason.slope:.3g} per year)"
    return not_measured(why)
