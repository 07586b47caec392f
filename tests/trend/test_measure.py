"""The trend measurement: bounds, the reference rule, the headline.

The uncertainty sources and their shares are tested in test_uncertainty.py."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import densing.present as present
from densing.constants import END_STABILITY
from densing.laws import forms
from densing.laws.bounds import EXACT, LOWER, UPPER, log_density_bounds, score_cap
from densing.laws.reference_fit import ReferenceFit
from densing.states import State

P = {"a": 400.0, "alpha": 0.3, "b": 400.0, "beta": 0.3, "c": 0.75, "gamma": -1.0, "l": 2.5, "d": 0.25}


def test_bounds_are_values_inside_the_law_and_bounds_outside_it():
    d0 = 1e12
    cap = float(score_cap(P, d0))
    n = np.array([1e9, 1e9, 1e9, 1e9])
    inside = float(
        forms.performance_law(
            forms.loss_law(3e9, d0, P["a"], P["alpha"], P["b"], P["beta"]), P["c"], P["gamma"], P["l"], P["d"]
        )
    )
    scores = np.array([inside, cap + 0.01, 0.2, cap + 0.3])
    stderr = np.array([0.005, 0.005, 0.005, 0.0])
    y, kind = log_density_bounds(P, scores, stderr, n, d0)
    assert kind[0] == EXACT and y[0] == pytest.approx(np.log(3.0), rel=1e-6)
    assert kind[1] == LOWER and np.isfinite(y[1]) and y[1] > y[0]  # ρ ≥ ρ(cap − 2σ)
    assert kind[2] == UPPER and np.isfinite(y[2])  # below the floor: ρ ≤ ρ(d + 2σ)
    assert np.isnan(kind[3])  # no σ and beyond the cap: no information, dropped


@pytest.fixture(scope="module")
def shipped():
    from densing.data import read_results
    from densing.trend.measure import measure_trend

    return measure_trend(read_results("results/public_models.csv"), n_boot=60, n_boot_side=40)


def test_no_reference_inverts_its_own_family_and_every_model_is_a_target(shipped):
    """The common targets: a reference's own models are targets of the row, inverted by the other references only."""
    from densing.trend.targets import reference_models

    every = set(shipped.rules["quantile"].models)
    checked = 0
    for row in [*shipped.benchmark_rows, *shipped.set_rows]:  # every row's every reference: its own models
        for inversion, inverted in row.members:
            own = set().union(*(reference_models(f) for f in inversion.fits))
            assert own and len(inverted) and not set(inverted["model"]) & own, (row.name, inversion.name)
            checked += 1
    assert checked >= sum(len(r.references) for r in shipped.benchmark_rows) > 8
    row = next(r for r in shipped.set_rows if r.label == shipped.headline_set)
    if len(row.members) > 1:  # several references: their own members are targets of the row
        owned = set().union(*(reference_models(f) for inv, _ in row.members for f in inv.fits))
        assert every & owned
    assert len(shipped.candidates) > 100


def test_the_verdict_says_in_words_which_check_failed_or_gives_the_number(shipped):
    assert "3.3 months" in present.verdict_of(shipped)
    failed = [c for c in shipped.checks if c.failed]
    headline_set = "paper-like set (MMLU, BBH, MATH-hard, HumanEval)"
    assert shipped.headline_set == headline_set  # the reference rule gives the paper-like set references
    from densing.present.words import STATE_WORDS

    state = shipped.state
    assert present.status(shipped).startswith(STATE_WORDS[state])
    head = shipped.rules[shipped.headline_rule]
    if shipped.measurable:
        assert present.verdict_of(shipped).startswith(
            "Capacity density doubles every"
        ) and headline_set in present.verdict_of(shipped)
        assert (
            not failed
            and present.status(shipped).startswith("measured, ")
            and present.status(shipped).endswith("-fold")
        )
        assert "lies inside the interval" in present.verdict_of(
            shipped
        ) or "lies outside the interval" in present.verdict_of(shipped)
    elif state is State.BOUNDED:  # the estimate and its one determined end come first, then why the other is open
        first = present.verdict_of(shipped).split(". ")[0]
        assert first.startswith("Capacity density doubles every") and headline_set in first and not failed
        end = "at least" if head.low_determined else "at most"
        assert end in first and (
            "the upper end is not determined" in first or "the lower end is not determined" in first
        )
        assert "Leave one family out: without " in present.verdict_of(
            shipped
        )  # the family that moves the estimate most
    else:
        assert present.verdict_of(shipped).startswith(f"Doubling time not measured on the {headline_set}")
        assert present.status(shipped).startswith("not measured: ")
        assert present.status(shipped).removeprefix("not measured: ") in present.verdict_of(
            shipped
        )  # the same words everywhere
        assert "is not a measurement" in present.verdict_of(shipped)
    assert "R2" not in present.verdict_of(shipped) and "rule v" not in present.verdict_of(
        shipped
    )  # rule codes stay behind "why, in full"
    # the verdict is read in the report, the JSON and Python too, where a command-line flag means nothing
    assert "--format" not in present.verdict_of(shipped)
    if failed:
        from densing.present.verdict import plain_reason  # one plain sentence per failed check, in the why

        assert all(plain_reason(c, shipped.sensitivity) in present.why(shipped) for c in failed)
    document = json.loads(json.dumps(present.document(shipped), default=str))
    rows = [{**row, **{k: v for k, v in document.items() if k != "rows"}} for row in document["rows"]]
    head = next(r for r in rows if r["headline"])
    assert {
        "share_fit",
        "share_score",
        "share_models",
        "intercept",
        "checks",
        "references",
        "breakpoint",
        "verdict",
    } <= set(head)
    assert {c["status"] for c in head["checks"]} <= {"passed", "failed", "untestable", "reported"}
    assert {"by_benchmark", "status"} <= set(head) and not {"rule_v1", "rule_v2"} & set(head)
    assert head["status"] == present.status(shipped)


def test_the_headline_references_are_the_set_rules_references_of_the_measured_set(shipped):
    from densing.laws.eligibility import MAX_HELD_OUT_Z, REACH_SHARE
    from densing.registry import leading_table
    from densing.trend.selection import set_references

    table = shipped.candidates
    assert set(table["rule"]) == {"v3"}
    eligible = table[table["eligible"].astype(bool)]
    assert (eligible["held_out_z"].abs() <= MAX_HELD_OUT_Z).all() and (eligible["reach_share"] >= REACH_SHARE).all()
    assert (eligible["slope_ci_low"] > 0).all()
    assert (table.loc[~table["eligible"].astype(bool), "why"].str.len() > 0).all()
    benchmarks = next(b for label, b in leading_table().sets.values() if label == shipped.headline_set)
    found = set_references(table, benchmarks)
    assert found and all(b == benchmarks for b in found.values())  # every reference inverts every benchmark of the set
    assert shipped.fits[0].provenance["family"] in found
    # the lead reference is the one of lowest mean |z| of its held-out member over the set
    rows = table[table["benchmark"].isin(benchmarks)]
    errors = {f: rows[rows["family"] == f]["held_out_z"].abs().mean() for f in found}
    assert shipped.fits[0].provenance["family"] == min(errors, key=lambda f: (errors[f], f))


def test_the_shipped_candidate_table_is_the_rules_output():
    from densing.data import read_results
    from densing.laws.eligibility import candidate_table, composed_fits
    from densing.trend.measure import CANDIDATES_FILE
    from densing.trend.targets import with_stderr

    targets = with_stderr(read_results("results/public_models.csv"))
    from tools.build_tables import earlier_candidate_table

    fresh = pd.concat(
        [
            candidate_table(targets, composed=composed_fits()),
            *(
                earlier_candidate_table(targets, since="2023-02-24", composed=composed_fits(), rule=rule)
                for rule in ("v2", "v1")
            ),
        ],
        ignore_index=True,
    )
    shipped = pd.read_csv(f"reference_fits/{CANDIDATES_FILE}", keep_default_na=False, na_values=[""])
    assert list(shipped["rule"]) == list(fresh["rule"])
    assert list(shipped["reference"]) == list(fresh["reference"])
    assert list(shipped["eligible"].astype(bool)) == list(fresh["eligible"].astype(bool))
    assert np.allclose(
        shipped["held_out_error"].astype(float), fresh["held_out_error"].astype(float), equal_nan=True, rtol=1e-5
    )
    assert np.allclose(
        shipped["held_out_z"].astype(float), fresh["held_out_z"].astype(float), equal_nan=True, rtol=1e-5
    )


def test_no_measured_row_leans_on_a_near_floor_reference(shipped):
    from densing.laws.eligibility import REACH_SHARE

    table = shipped.candidates.set_index("reference")
    for row in [*shipped.benchmark_rows, *shipped.set_rows]:
        for name in row.references:
            family, benchmarks = name.family, name.benchmark.removeprefix("joint(").rstrip(")").split(",")
            # one benchmark: it reaches; a set (the common targets): it reaches on at least one of the set's benchmarks
            assert any(table.loc[f"{family}:{b}", "reach_share"] >= REACH_SHARE for b in benchmarks), name
    determined = [
        r for r in shipped.benchmark_rows if r.result is not None and r.result.state in (State.MEASURED, State.BOUNDED)
    ]
    assert determined and all(present.status(r) for r in shipped.benchmark_rows)


def test_verdict_rows_repr_and_json_agree_on_status_and_interval(shipped):
    """One status and one interval per row: the headline, its row in by_benchmark, the repr and the JSON rows."""
    head = shipped.rules[shipped.headline_rule]
    table = present.by_benchmark(shipped).set_index("row")
    own = table.loc["paper"]
    assert own["status"] == present.status(shipped)
    assert (own["months"], own["ci_low"], own["ci_high"]) == (
        head.doubling_time_months,
        head.doubling_time_months_ci_low,
        head.doubling_time_months_ci_high,
    )
    assert present.status(shipped) in repr(shipped) or (shipped.measurable and "measured" in repr(shipped))
    # the shares and the heterogeneity test: one set of numbers in the row, the result and the JSON
    for source in ("fit", "score", "models", "reference"):
        assert own[f"share_{source}"] == pytest.approx(getattr(head, f"share_{source}"), nan_ok=True)
    assert own["heterogeneity_p"] == pytest.approx(head.heterogeneity_p, nan_ok=True) and present.status(
        head
    ) == present.status(shipped)
    document = json.loads(json.dumps(present.document(shipped), default=str))
    rows = [{**row, **{k: v for k, v in document.items() if k != "rows"}} for row in document["rows"]]
    first = next(r for r in rows if r["headline"])
    assert first["status"] == present.status(shipped) and first["doubling_time_months"] == pytest.approx(own["months"])
    by = {r["row"]: r for r in first["by_benchmark"]}
    assert by["paper"]["status"] == present.status(shipped) and by["paper"]["ci_low"] == pytest.approx(own["ci_low"])
    # the report's cards and verdict carry the same status and interval
    from densing.constants import PAPER
    from densing.report.render import verdict_html

    html = verdict_html(shipped, PAPER)

    from densing.present.words import result_interval

    assert result_interval(head) in html  # each end as printed: its number, or its Monte Carlo range where wide
    assert present.status(shipped) in html and ("not measured" in html) == present.status(shipped).startswith(
        "not measured"
    )
    assert "leave one family out" in html
    # the CSV files stand alone: the headline rule and row flagged, with the set, references, D0, status and verdict
    rules = present.measurement_frame(shipped).set_index("rule")
    assert rules["headline"].tolist() == [rule == shipped.headline_rule for rule in rules.index]
    lead = rules.loc[shipped.headline_rule]
    assert (lead["set"], lead["reference"], lead["d0"], lead["status"], lead["verdict"]) == (
        shipped.headline_set,
        shipped.reference,
        shipped.d0,
        present.status(shipped),
        present.verdict_of(shipped),
    )
    flagged = present.measurement_frame(shipped, by="benchmark").query("headline")
    assert flagged["row"].tolist() == ["paper"] and flagged["months"].iloc[0] == own["months"]


def test_api_and_cli_give_the_same_slope_for_the_same_rule(shipped):
    """One engine: the registry's rule on the measurement's points gives the measurement's slope."""
    from studies._planted import frontier_line

    models = shipped.models
    for rule, result in shipped.rules.items():
        slope, intercept = frontier_line(
            rule,
            models["t"].to_numpy(float),
            models["log_density"].to_numpy(float),
            models["bound"].to_numpy(float),
            models["model"].astype(str).to_numpy(),
        )
        # the points are the lead reference's: its own slope; the measurement's is the pooled (weighted) one
        assert slope == pytest.approx(result.reference_slopes[0], rel=1e-9)
        assert result.slope_per_day == pytest.approx(
            np.dot(result.reference_weights, result.reference_slopes), rel=1e-9
        )
        assert sum(result.reference_weights) == pytest.approx(1.0)


@pytest.mark.parametrize("rule", ["quantile", "all", "envelope"])
def test_the_notebook_api_is_the_same_engine(shipped, rule):
    """densing.fit_trend on the score table, its references the measurement's, gives the measurement's line."""
    import densing
    from densing.data import read_results

    fitted = densing.fit_trend(read_results("results/public_models.csv"), rule=rule, n_boot=40, n_boot_share=0)
    # each reference's own line is the measurement's (no draws enter it); the pooled point weighs them by the paired
    # draws' covariance, so with other draws it is another weighted mean of the same lines
    assert fitted.reference_slopes == pytest.approx(shipped.rules[rule].reference_slopes, rel=1e-12)
    assert fitted.slope_per_day == pytest.approx(np.dot(fitted.reference_weights, fitted.reference_slopes), rel=1e-9)
    assert min(fitted.reference_slopes) <= fitted.slope_per_day <= max(fitted.reference_slopes)
    assert fitted.frontier_models == shipped.rules[rule].frontier_models


def test_sensitivity_holds_only_eligible_references_and_d0_only_with_a_data_term(shipped):
    from densing.present.records import sensitivity_frame
    from densing.registry import leading_table
    from densing.trend.measure import BUDGET_VARIANT, RULE_VARIANT, SHAPE_VARIANT
    from densing.trend.plan import D0_VARIANT
    from densing.trend.selection import set_references

    benchmarks = next(b for label, b in leading_table().sets.values() if label == shipped.headline_set)
    families = set(set_references(shipped.candidates, benchmarks))
    own = shipped.sensitivity[shipped.sensitivity["variant"] == "reference"]
    assert set(own["reference"].str.split(":").str[0]) == families
    assert (own["ci_low"] <= own["doubling_time_months"]).all()
    # one table from one engine: the other frontier rules, one budget and the other law shape beside the references
    assert {RULE_VARIANT, BUDGET_VARIANT, SHAPE_VARIANT} <= set(shipped.sensitivity["variant"])
    assert D0_VARIANT not in set(shipped.sensitivity["variant"])  # family laws: no D0 variants
    # the words are the present layer's, the table's codes in place
    shown = sensitivity_frame(shipped)
    assert {"frontier rule", "D0 budget (every reference at 1T tokens)", "family law logistic in ln N"} <= set(
        shown["variant"]
    )
    assert not shown["inversion"].astype(str).str.startswith("D0").any()


def test_rewording_every_reason_leaves_every_reference_set_and_every_no_reference_reason_unchanged(shipped):
    """The set rule and the no-reference reasons read a candidate's rule ``code``, never its ``why`` sentence: every
    ``why`` reworded (and one rule's sentence put under another's code), each row's references and reasons stay."""
    from densing.registry import leading_table
    from densing.trend.capability import _why_none
    from densing.trend.selection import set_references

    table = shipped.candidates
    failing = table[~table["eligible"].astype(bool) & (table["kind"] == "family")]
    assert set(failing["code"]) <= {"R2", "R3", "R2s", "R4r", "R4s", "R5z"} and set(failing["code"]) >= {"R2", "R4r"}
    assert (table.loc[table["eligible"].astype(bool), "code"] == "").all()
    reworded = table.assign(why=["R2s: " + str(w)[::-1] for w in table["why"]])
    rows = [(b,) for b in sorted(set(table["benchmark"]))] + [b for _, b in leading_table().sets.values()]
    for benchmarks in rows:
        assert set_references(reworded, benchmarks) == set_references(table, benchmarks), benchmarks
        assert set_references(reworded, benchmarks, strict=True) == set_references(table, benchmarks, strict=True)
        assert _why_none(reworded, benchmarks) == _why_none(table, benchmarks), benchmarks


def test_a_given_composed_fit_is_measured_at_the_given_d0_with_d0_variants():
    from densing.data import read_results
    from densing.numbers import format_count
    from densing.present.records import sensitivity_frame
    from densing.present.verdict import reference_words
    from densing.trend.measure import SENSITIVITY_D0, measure_trend
    from densing.trend.plan import D0_VARIANT

    fit = ReferenceFit.load("reference_fits/pile_hellaswag_composed.json")
    result = measure_trend(read_results("results/public_models.csv"), fit=fit, d0=3e11, n_boot=40, n_boot_side=40)
    assert result.d0 == 3e11 and result.references_by.given and "(given)" not in result.reference
    assert reference_words(result) == f"{result.reference} (given)"  # the words are present/'s
    variants = result.sensitivity[result.sensitivity["variant"] == D0_VARIANT]
    assert sorted(variants["d0"]) == sorted(SENSITIVITY_D0)
    shown = sensitivity_frame(result)  # each D0 in words in the inversion column
    assert list(shown.loc[variants.index, "inversion"]) == [f"D0 {format_count(d0)}" for d0 in variants["d0"]]


def test_trend_since_must_be_a_date_and_fit_family_checks_its_bootstrap():
    import subprocess
    import sys

    from densing.data import read_results
    from densing.errors import InputError
    from densing.laws.family import fit_family

    run = subprocess.run([sys.executable, "cli.py", "trend", "--since", "yesterday"], capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.strip().count("\n") == 0 and "since" in run.stderr
    with pytest.raises(InputError, match="n_boot"):
        fit_family(read_results("results/public_models.csv"), "Llama-3.1", "mmlu", n_boot=-5)


def test_the_measurement_plots_the_reports_own_figures():
    import densing
    from densing.errors import InputError

    measured = densing.measure_trend(densing.read_results(densing.paths.RESULTS / "public_models.csv"), n_boot=40)
    density = present.figure(measured)
    names = [t.name for t in density.data]
    assert any(str(n).startswith("the frontier") for n in names) and any("95% interval" in str(n) for n in names)
    assert all("click to show" in str(t.name) for t in density.data if t.visible == "legendonly")
    assert density.layout.yaxis.type == "log" and "μ" not in "".join(density.layout.yaxis.ticktext)
    frontier = next(t for t in density.data if str(t.name).startswith("the frontier"))
    assert len(frontier.text) == len(frontier.x) > 0 and "/" not in "".join(
        frontier.text
    )  # named, organisation dropped
    assert "released" in frontier.hovertext[0] and "N̂" in frontier.hovertext[0] and "family" in frontier.hovertext[0]
    assert len(present.figure(measured, "benchmarks").layout.yaxis.categoryarray) == len(
        present.by_benchmark(measured)
    )  # one line a row
    assert {t.name for t in present.figure(measured, "size").data} >= {"Llama-3.1"} or len(
        present.figure(measured, "size").data
    ) > 2
    with pytest.raises(InputError, match="kind: expected"):
        present.figure(measured, "pie")
    assert measured.headline_set in repr(measured) and (
        present.status(measured) in repr(measured) or measured.measurable
    )


def test_the_json_says_what_the_data_determine(shipped):
    """`densing trend --format json`'s ``headline``: the state, the draws used, both ends with their Monte Carlo ranges
    and whether each is determined or undecided, the ceiling bounds' effect, and one leave-one-family-out row per family
    of the targets."""
    head = shipped.rules[shipped.headline_rule]
    summary = json.loads(json.dumps(present.document(shipped)))["headline"]
    from densing.present.words import STATE_WORDS

    assert summary["state"] == STATE_WORDS[shipped.state] == STATE_WORDS[head.state]
    assert summary["n_draws"] == head.n_boot >= 2
    for end in ("low", "high"):
        assert set(summary[end]) == {
            "months",
            "determined",
            "undecided",
            "precise",
            "monte_carlo_range",
            "form",
            "printed",
        }
        assert summary[end]["form"] == ("range" if summary[end]["precise"] is False else "number")
        assert summary[end]["determined"] == getattr(head, f"{end}_determined")
        assert not (summary[end]["determined"] and summary[end]["undecided"])
        if summary[end]["determined"]:  # precise: its range spans at most END_STABILITY of it, in months
            a, b = summary[end]["monte_carlo_range"]
            assert summary[end]["precise"] == (b - a <= END_STABILITY * summary[end]["months"])
        else:
            assert summary[end]["precise"] is None
    low = summary["low"]
    if low["determined"]:  # the slope quantile behind it lies above 0 over its whole range: a finite range in months
        a, b = low["monte_carlo_range"]
        assert a <= low["months"] <= b and b is not None and math.isfinite(b)
    families = {f for f in shipped.models["family"]}
    lofo = summary["leave_one_family_out"]
    assert {r["family"] for r in lofo} == families and all("doubling_time_months" in r for r in lofo)
    assert summary["ceiling"]["bounds"] == head.n_ceiling_bounds
    assert summary["floor"]["bounds"] == head.n_floor_bounds == sum(head.floor_bounds)


def test_the_fixed_size_row_of_a_set_uses_the_sets_complete_cases():
    from densing.data import read_results
    from densing.trend.fixed_size import fixed_size_trend

    table = read_results("results/public_models.csv")
    benchmarks = ("mmlu", "leaderboard_bbh", "math_hard", "humaneval")
    same = fixed_size_trend(table, benchmarks, n_boot=20)
    broad = fixed_size_trend(table, benchmarks, n_boot=20, complete=False)
    assert same.n_models < broad.n_models and same.n_scores == 4 * same.n_models


def test_a_single_model_that_carries_the_line_is_named():
    """Leave one model out: the target whose removal moves the estimate most is found, and named in the verdict only
    where its removal puts the estimate beyond the interval (a date or a score that carries the line alone)."""
    from types import SimpleNamespace

    from densing.present.verdict import _model_words
    from densing.trend.pooling import most_influential_model
    from densing.trend.rules import doubling_months

    slope = math.log(2) / (3.6 * 365.25 / 12)
    frame = pd.DataFrame(
        {
            "family": ["a", "b", "late-dense"],
            "n_models": [1, 1, 1],
            "slope_per_day": [slope * 0.98, slope * 1.02, slope * 0.4],
        }
    )
    found = most_influential_model(SimpleNamespace(model_influence=frame, slope_per_day=slope))
    assert found["most_influential_model"] == "late-dense"
    assert found["months_without_model"] == pytest.approx(doubling_months(slope * 0.4))
    head = SimpleNamespace(
        most_influential_model="late-dense",
        months_without_model=found["months_without_model"],
        doubling_time_months_ci_low=2.6,
        doubling_time_months_ci_high=5.0,
    )
    assert _model_words(head).startswith(" One model carries the line: without late-dense the estimate is 9")
    assert _model_words(SimpleNamespace(**{**vars(head), "doubling_time_months_ci_high": math.inf})) == ""


def test_the_headline_alone_reads_the_candidate_rows_of_its_set_the_same_bit_for_bit():
    """Without the sections that read every candidate benchmark, the candidate table covers the headline set's
    benchmarks: those rows are the full table's, bit for bit; where that set has no reference, the table is the full
    one."""
    from densing import registry
    from densing.data import read_results
    from densing.trend.measure import _candidate_table
    from densing.trend.targets import with_stderr

    profile = registry.table("public")
    targets = with_stderr(read_results(profile.path))
    few = _candidate_table(targets, None, profile, frozenset({"breakpoint"}))
    full = _candidate_table(targets, None, profile, frozenset({"candidates"}))
    first = set(profile.sets[profile.headline_set][1])

    def families(table):  # the families' rows (the shipped composed fits' rows follow them, the same in both)
        return table[table["kind"] == "family"]

    assert set(families(few)["benchmark"]) == first and set(families(full)["benchmark"]) > first
    kept = full[(full["kind"] != "family") | full["benchmark"].isin(first)]
    pd.testing.assert_frame_equal(few.reset_index(drop=True), kept.reset_index(drop=True), check_exact=True)
    without = targets[targets["benchmark"] != "math_hard"]  # the headline set has no reference: the full table
    fallback = _candidate_table(without, None, profile, frozenset())
    assert set(families(fallback)["benchmark"]) > first - {"math_hard"}
