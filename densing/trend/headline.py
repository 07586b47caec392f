"""The headline row of the trend: the paper-like set's common design under every frontier rule, its checks, its
breakpoint and its per-model densities (:func:`measure_headline`, one job of :mod:`densing.trend.plan`).

The headline is the first set of the table whose references pass the set rule
(:func:`densing.trend.capability.headline_set`), or the user's own fit (``--fit``) inverted per benchmark. Its
design is :func:`densing.trend.design.common_design`; each frontier rule of :data:`densing.trend.rules.RULES` is a
parameter of :func:`densing.trend.design.pooled_trend` on that one design.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from densing.numbers import format_count
from densing.errors import DensingError
from densing.laws.density import density_table
from densing.laws.inversion import PerBenchmark
from densing.trend import capability, design, rules
from densing.constants import CHATGPT_RELEASE, PAPER
from densing.trend.measurement import Breakpoint, Segment
from densing.trend.uncertainty import TrendUncertainty, from_design

#: The frontier rule of the headline number; the others are its sensitivity rows.
HEADLINE_RULE = "quantile"
#: D0 values of the sensitivity table, for a reference that identifies a data term (``--fit`` a composed fit).
SENSITIVITY_D0 = (3e11, 1e12, 3e12)


@dataclass(frozen=True)
class Headline:
    """What :func:`measure_headline` computes: the set and its design, each rule's pooled trend, the checks, the
    breakpoint, the lead reference's densities and points, each reference's own doubling time."""

    label: str
    benchmarks: tuple[str, ...]
    missing: list            # the sets passed over before it, (name, label, why)
    design: design.Design
    reference_rule: str      # how the references were chosen, in words
    rules: dict              # rule → TrendUncertainty
    rule_errors: dict        # rule → why it has no trend
    checks: tuple
    breakpoint: Breakpoint
    densities: pd.DataFrame
    points: pd.DataFrame     # every target with its point ln ρ under the lead reference
    sensitivity: pd.DataFrame

    @property
    def result(self) -> TrendUncertainty:
        return self.rules[HEADLINE_RULE]


def headline_members(targets: pd.DataFrame, candidates: pd.DataFrame, fits: dict, profile, *, since: str | None,
                     epoch: str, seed: int) -> tuple[str, tuple[str, ...], list, design.Design]:
    """The headline's set and its common design: (label, benchmarks, the sets before it that have no reference, the
    design, the lead reference first) — one selection for :func:`measure_headline` and
    :func:`densing.trend.measure.headline_densities`."""
    label, benchmarks, found, missing = capability.headline_set(candidates, profile.sets)
    capability.row_fits(targets, candidates, fits, found, seed=seed)
    return label, benchmarks, missing, capability.row_design(targets, candidates, fits, found, since=since, epoch=epoch)


def measure_headline(context) -> Headline:
    """The headline row of a :class:`densing.trend.plan.Context`: design → every frontier rule → checks →
    breakpoint → densities → each reference's own doubling time."""
    c = context
    label, benchmarks, missing, chosen, reference_rule = _design(c)
    found, errors = by_rule(chosen, n_boot=c.n_boot, n_boot_side=c.n_boot_side, seed=c.seed, epoch=c.epoch)
    head = found[HEADLINE_RULE]
    members = chosen.members()
    lead_inversion, lead_models = members[0]
    return Headline(label, benchmarks, missing, chosen, reference_rule, found, errors,
                    capability.headline_findings(members, head),
                    breakpoint(c.targets, chosen, head, c.epoch, c.n_boot_side, c.seed),
                    density_table(lead_models, lead_inversion, seed=c.seed), lead_points(chosen),
                    sensitivity(head, chosen, c.fit, c.targets, since=c.since, epoch=c.epoch, n_boot=c.n_boot_side,
                                seed=c.seed))


def _design(c):
    """(label, benchmarks, sets passed over, the common design, the reference rule in words) of the headline: the
    user's fit alone, else the first set of the table that has references under the common design."""
    if c.fit is not None:
        inversion = PerBenchmark(c.fit, c.fit.d0 if c.d0 is None else float(c.d0))
        chosen = design.common_design(c.targets, [inversion], since=c.since, epoch=c.epoch)
        label = f"benchmark(s) of the given fit ({', '.join(inversion.benchmarks)})"
        return (label, tuple(inversion.benchmarks), [], chosen,
                "given by the user (--fit); the rows per benchmark have their own references")
    label, benchmarks, missing, chosen = headline_members(c.targets, c.candidates, c.fits, c.profile, since=c.since,
                                                          epoch=c.epoch, seed=c.seed)
    rule = ("the common design: every family with a fit on each of " + ", ".join(benchmarks) + " that rises with size "
            "on each, reaches the frontier on one and predicts its largest member jointly within noise; every reference "
            "inverts the same benchmarks for the same targets, its own family's models from the others, pooled by a "
            "random-effects model over paired draws")
    return label, benchmarks, missing, chosen, rule


#: The draws of each source alone behind another rule's shares (at most the headline's).
SIDE_SHARE_DRAWS = 25


def by_rule(chosen: design.Design, *, n_boot: int, n_boot_side: int, seed: int, epoch: str):
    """The headline's pooled trend under every frontier rule: the headline rule with ``n_boot`` draws and
    ``n_boot_side // 2`` of each source alone for the shares, every other rule with the first ``n_boot_side`` of the
    same paired draws and the first :data:`SIDE_SHARE_DRAWS` of each source's (:func:`densing.trend.design.paired_draws`:
    the rules differ by their lines only, not by their draws). ``n_boot_side`` is at most ``n_boot``
    (:func:`densing.trend.measure.measure_trend` caps it)."""
    found: dict[str, TrendUncertainty] = {}
    errors: dict[str, str] = {}
    head_share = n_boot_side // 2
    draws = design.paired_draws(chosen, n_boot=n_boot, n_boot_share=head_share, seed=seed)
    for rule in rules.RULES:
        head = rule == HEADLINE_RULE
        try:
            found[rule] = from_design(design.pooled_trend(chosen, rule=rule, n_boot=n_boot if head else n_boot_side,
                                                          n_boot_share=head_share if head else min(SIDE_SHARE_DRAWS, head_share),
                                                          seed=seed, draws=draws),
                                      epoch=epoch)
        except DensingError as exc:
            if head:
                raise
            errors[rule] = str(exc)
    return found, errors


def sensitivity(head: TrendUncertainty, chosen: design.Design, fit, targets, *, since, epoch: str, n_boot: int,
                seed: int) -> pd.DataFrame:
    """Each reference's own doubling time with its interval over the paired draws; for a given fit with a data term,
    the same at other D0 (:data:`SENSITIVITY_D0`)."""
    rows = [{"reference": name, "inversion": inv.kind, "d0": inv.d0, "doubling_time_months": months,
             "ci_low": low, "ci_high": high}
            for inv, name, months, low, high in zip(chosen.inversions, head.reference_names,
                                                    head.reference_months.values(), head.reference_months_low,
                                                    head.reference_months_high)]
    if fit is not None and fit.has_data_term:
        for value in SENSITIVITY_D0:
            variant = design.common_design(targets, [PerBenchmark(fit, value)], since=since, epoch=epoch)
            r = from_design(design.pooled_trend(variant, n_boot=n_boot, n_boot_share=0, seed=seed), epoch=epoch)
            rows.append({"reference": variant.names[0], "inversion": f"D0 {format_count(value)}", "d0": value,
                         "doubling_time_months": r.doubling_time_months, "ci_low": r.doubling_time_months_ci_low,
                         "ci_high": r.doubling_time_months_ci_high})
    return pd.DataFrame(rows, columns=["reference", "inversion", "d0", "doubling_time_months", "ci_low", "ci_high"])


def breakpoint(targets: pd.DataFrame, chosen: design.Design, head: TrendUncertainty, epoch: str, n_boot: int,
               seed: int) -> Breakpoint:
    """Slopes before and after ChatGPT, each segment the same common design on its own window."""
    segments = {}
    for name, lo, hi in (("before", None, CHATGPT_RELEASE), ("after", CHATGPT_RELEASE, None)):
        try:
            part = design.common_design(targets, chosen.inversions, since=lo, until=hi, epoch=epoch)
            if set(part.frame["model"].astype(str)) == set(head.models):
                segments[name] = Segment(name, head.n_models, head.slope_per_day, head.intercept, head.slope_ci_low,
                                         head.slope_ci_high, same_as_headline=True)
                continue
            r = from_design(design.pooled_trend(part, n_boot=n_boot, n_boot_share=0, seed=seed), epoch=epoch)
            segments[name] = Segment(name, r.n_models, r.slope_per_day, r.intercept, r.slope_ci_low, r.slope_ci_high)
        except DensingError as exc:
            segments[name] = Segment(name, 0, note=str(exc))
    return Breakpoint(CHATGPT_RELEASE, segments["before"], segments["after"],
                      PAPER["slope_before_chatgpt_per_day"], PAPER["slope_after_chatgpt_per_day"])


def lead_points(chosen: design.Design) -> pd.DataFrame:
    """Every target of the headline with its point ln ρ (``log_density``) and kind (``bound``) under the lead reference,
    the lead's own members from the others (the points its line is fitted on)."""
    y, kind = design.point_densities(chosen)
    return chosen.frame.assign(log_density=y[0], bound=kind[0])


def reference_frame(members: list, head: TrendUncertainty) -> pd.DataFrame:
    """Each reference of the headline: its benchmarks, pooling weight, own doubling time with its interval, targets."""
    return pd.DataFrame([{"reference": name, "benchmarks": ",".join(inv.benchmarks), "weight": weight,
                          "months": head.reference_months[name], "ci_low": low, "ci_high": high,
                          "n_models": len(models), "d0": inv.d0}
                         for (inv, models), name, weight, low, high in zip(members, head.reference_names,
                                                                          head.reference_weights, head.reference_months_low,
                                                                          head.reference_months_high)])
