"""Every value a user hands in has a declared domain; one value outside each bound is refused in one line.

One section per input kind: dates (:func:`densing.impossible.check_date`: [2018-06-11, today]) on every read of a
results table and in the API's ``since``; fit files (:data:`densing.laws.fit_schema.FIT_DOMAIN`, every draw too); the
sizes and budgets a law needs; a window of release dates; the Swallow builder's inputs and its set of outputs; T3's γ,
a wide table's rows, lm-eval's model_args. Combinations and labels: ``tests/test_refusals.py``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from densing.errors import InputError
from densing.paths import SHARED_DATA

REPO_ROOT = Path(__file__).resolve().parents[1]
HEADER = "model,benchmark,metric,value,params,release_date\n"
GOOD = "org/a,arc_easy,acc,0.6,1e9,2024-01-01\n"


def _one_line_exit_2(result, *words: str) -> None:
    code, out, err = result
    assert code == 2 and out == "", (code, out, err)
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
    for word in words:
        assert word in err, err


# ---------------------------------------------------------------------------------------------
# dates

OUT_OF_DOMAIN_DATES = {
    "spreadsheet day zero": "1900-01-01",
    "Unix epoch": "1970-01-01",
    "1990": "1990-01-01",
    "a typo for 2021": "2001-03-01",
    "day before GPT-1": "2018-06-10",
    "future": "2999-01-01",
}


@pytest.mark.parametrize("date", OUT_OF_DOMAIN_DATES.values(), ids=OUT_OF_DOMAIN_DATES.keys())
def test_a_table_date_outside_the_domain_is_one_line_naming_file_row_field_value_and_domain(date, tmp_path, run_cli):
    table = tmp_path / "targets.csv"
    table.write_text(HEADER + GOOD + f"org/b,arc_easy,acc,0.5,1e9,{date}\n")
    _one_line_exit_2(
        run_cli("density", "--targets", table), str(table), "line 3", "field 'release_date'", date, "[2018-06-11, today"
    )


def _public_with(tmp_path, column: str, value: str):
    """The shipped public (wide) table with row 3's ``column`` set to ``value``, written to a scratch file."""
    rows = list(csv.reader((REPO_ROOT / "results" / "public_models.csv").open()))
    rows[3][rows[0].index(column)] = value
    table = tmp_path / "public.csv"
    with table.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return table


def test_a_wide_table_date_outside_the_domain_names_its_own_row(tmp_path, run_cli):
    """The public (wide) table with one model dated 1900-01-01 moves the trend by years if read; it is refused."""
    table = _public_with(tmp_path, "release_date", "1900-01-01")
    _one_line_exit_2(
        run_cli("trend", "--results", table, "--since", "none"),
        str(table),
        "line 4",
        "field 'release_date'",
        "1900-01-01",
        "[2018-06-11, today",
    )


@pytest.mark.parametrize("date", OUT_OF_DOMAIN_DATES.values(), ids=OUT_OF_DOMAIN_DATES.keys())
def test_an_api_date_outside_the_domain_is_refused(date):
    import pandas as pd

    from densing import fit_trend, measure_trend, read_results
    from densing.numbers import parse_date
    from densing.validation import Date

    assert not Date().matches(date) and not Date().matches(pd.Timestamp(date))
    with pytest.raises(InputError, match="since"):
        fit_trend(read_results(REPO_ROOT / "results" / "public_models.csv"), since=date)
    with pytest.raises(InputError, match="since"):
        measure_trend(read_results(REPO_ROOT / "results" / "public_models.csv"), since=date)
    with pytest.raises(InputError, match=r"field 'release_date'.*\[2018-06-11, today"):
        parse_date(date, where="t.csv: row 1")


def test_an_api_table_dated_before_the_domain_is_refused_with_no_window():
    """fit_trend(..., since=None) on a table with one model dated 1900-01-01 moved the doubling time from 5 to 17
    months without a word; the table is refused naming the row."""
    import pandas as pd

    from densing import fit_trend, read_results

    table = read_results(REPO_ROOT / "results" / "public_models.csv")
    table.loc[table["model"] == table["model"].iloc[0], "release_date"] = pd.Timestamp("1900-01-01")
    with pytest.raises(InputError, match=r"targets: row \d+: field 'release_date': 1900-01-01 is before 2018-06-11"):
        fit_trend(table, since=None)


def test_the_bounds_themselves_are_dates():
    from datetime import date

    from densing.numbers import parse_date

    assert parse_date("2018-06-11") == parse_date("2018-06-11")
    assert parse_date(date.today().isoformat()).date() == date.today()


# ---------------------------------------------------------------------------------------------
# fit files: the law's domain (densing.laws.fit_schema.FIT_DOMAIN)

FITS = REPO_ROOT / "reference_fits"


def _fit_data(name: str = "olmo_hellaswag_two_step.json") -> dict:
    import json

    return json.loads((FITS / name).read_text())


def _draw(data: dict, name: str, value: float) -> dict:
    data["bootstrap"][0][data["bootstrap_names"].index(name)] = value
    return data


FIT_EDITS = {
    "negative floor": (lambda d: d["params"].update(d=-0.3), ("'params.d'", "-0.3", "0 ≤ d < c + d ≤ 1")),
    "floor above 1": (lambda d: d["params"].update(d=1.5), ("'params.d'", "1.5", "0 ≤ d < c + d ≤ 1")),
    "ceiling above 1": (lambda d: d["params"].update(c=0.9), ("'params.c'", "c + d", "0 ≤ d < c + d ≤ 1")),
    "negative midpoint loss": (lambda d: d["params"].update(l=-50.0), ("'params.l'", "-50", "≥ 0 (two-step)")),
    "d0 beyond --d0's bound": (lambda d: d.update(d0=1e30), ("'d0'", "1e+30", "1e+15")),
    "perplexity": (lambda d: d.update(metric="ppl"), ("'metric'", "'ppl'", "higher better")),
    "loss as metric": (lambda d: d.update(metric="loss"), ("'metric'", "'loss'", "a score in [0, 1]")),
    "draw with negative alpha": (lambda d: _draw(d, "alpha", -0.2), ("'bootstrap'", "draw 1", "alpha = -0.2", "> 0")),
    "draw with negative floor": (lambda d: _draw(d, "d", -0.1), ("'bootstrap'", "draw 1", "0 ≤ d < c + d ≤ 1")),
    "draw with ceiling above 1": (lambda d: _draw(d, "c", 0.99), ("'bootstrap'", "draw 1", "c + d")),
    "draw with negative midpoint": (lambda d: _draw(d, "l", -1.0), ("'bootstrap'", "draw 1", "l = -1.0")),
    "draw with positive gamma": (lambda d: _draw(d, "gamma", 2.0), ("'bootstrap'", "draw 1", "negative gamma")),
    "draw not a number": (lambda d: _draw(d, "b", None), ("'bootstrap'", "draw 1", "b = None")),
}


@pytest.mark.parametrize("edit,words", FIT_EDITS.values(), ids=FIT_EDITS.keys())
def test_a_fit_file_outside_the_laws_domain_is_refused_naming_field_value_and_domain(edit, words, tmp_path, run_cli):
    import json

    from densing.laws.reference_fit import check_fit_dict

    data = _fit_data()
    check_fit_dict(data, source="f.json")  # the shipped fit is inside the domain
    edit(data)
    path = tmp_path / "fit.json"
    path.write_text(json.dumps(data))
    code, out, err = run_cli("density", "--fit", path, "--targets", REPO_ROOT / "results" / "pythia_final.csv")
    _one_line_exit_2((code, out, err), str(path), *words)


def test_every_shipped_fit_and_each_of_its_draws_is_inside_the_domain():
    from densing.laws.reference_fit import ReferenceFit

    paths = sorted(FITS.glob("*.json"))
    assert len(paths) > 30
    for path in paths:
        ReferenceFit.load(path)


def test_a_composed_and_a_family_fit_outside_the_domain_are_refused():
    from densing.laws.reference_fit import check_fit_dict

    composed, family = _fit_data("pile_hellaswag_composed.json"), _fit_data("family_llama-3.1_mmlu.json")
    for data, edit, field in [
        (composed, {"d": -0.01}, "'params.d'"),
        (composed, {"c": 0.76}, "'params.c'"),
        (family, {"d": 1.0}, "'params.d'"),
        (family, {"c": 0.8}, "'params.c'"),
    ]:
        bad = {**data, "params": {**data["params"], **edit}}
        with pytest.raises(InputError, match=field):
            check_fit_dict(bad, source="f.json")


def test_invert_never_returns_a_negative_loss_for_a_score_inside_the_laws_range():
    """A score in (d, c + d) near the ceiling gives L̂ = l − ln(c/(S − d) − 1)/γ below 0 for the shipped BoolQ fit (l
    small, the ceiling at 1): no loss is negative, so it is NaN, censored beyond the data limit."""
    import numpy as np

    from densing.laws.reference_fit import BEYOND_DATA_LIMIT, ReferenceFit

    for path in sorted(FITS.glob("*.json")):
        fit = ReferenceFit.load(path)
        if fit.kind == "family":
            continue
        p = fit.params
        scores = p["d"] + p["c"] * np.linspace(0.001, 0.999, 999)
        loss, size, reasons = fit.invert(scores)
        assert not (loss < 0).any(), path.name
        assert (reasons[np.isnan(loss)] == BEYOND_DATA_LIMIT).all(), path.name
    loss, _, reasons = ReferenceFit.load(FITS / "olmo_boolq_two_step.json").invert(np.array([0.99]))
    assert np.isnan(loss[0]) and reasons[0] == BEYOND_DATA_LIMIT


# ---------------------------------------------------------------------------------------------
# identifiability: a law's exponent needs two sizes and two budgets


def _one_size_table(sizes=(1e9,), budgets=(1e10, 2e10, 5e10, 1e11, 2e11, 5e11)):
    import numpy as np
    import pandas as pd

    rows = []
    for n in sizes:
        for t in budgets:
            loss = 40 * n**-0.15 + 300 * t**-0.25
            score = 0.5 / (1 + np.exp(6 * (loss - 2.6))) + 0.25
            rows.append(
                {
                    "model": f"m{n:g}@{t:g}",
                    "benchmark": "arc_easy",
                    "metric": "acc",
                    "value": score,
                    "params": n,
                    "train_tokens": t,
                    "loss": loss,
                    "run": f"m{n:g}",
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("law", ["two-step", "composed"])
@pytest.mark.parametrize("shape", ["one size", "one budget"])
def test_a_fit_on_one_size_or_one_budget_is_refused(law, shape):
    from densing import fit_reference
    from densing.errors import FitError

    table = (
        _one_size_table()
        if shape == "one size"
        else _one_size_table(sizes=(1e8, 3e8, 1e9, 3e9, 1e10, 3e10), budgets=(3e11,))
    )
    with pytest.raises(FitError, match=f"one {'model size' if shape == 'one size' else 'training budget'}") as raised:
        fit_reference(table, "arc_easy", law=law, n_boot=5)
    assert "\n" not in str(raised.value)


def test_a_fit_on_one_size_is_one_line_exit_2_from_the_command_line(tmp_path, run_cli):
    table = tmp_path / "one_size.csv"
    _one_size_table().to_csv(table, index=False)
    _one_line_exit_2(
        run_cli("fit", "--data", table, "--benchmark", "arc_easy", "--law", "two-step", "--n-boot", "5"),
        "one model size",
        "two or more",
    )


# ---------------------------------------------------------------------------------------------
# empty after a filter: the window of release dates


def _public_rows(tmp_path, keep, drop_column: str | None = None) -> Path:
    rows = list(csv.reader((REPO_ROOT / "results" / "public_models.csv").open()))
    i = rows[0].index("release_date")
    kept = [rows[0]] + [r for r in rows[1:] if keep(r[i])]
    if drop_column:
        j = rows[0].index(drop_column)
        kept = [r[:j] + r[j + 1 :] for r in kept]
    path = tmp_path / "table.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(kept)
    return path


@pytest.mark.parametrize(
    "argv,words",
    [
        (("density", "--targets", "{old}"), ("since: 2023-02-24", "removes every dated model", "of ")),
        (("density", "--targets", "{old}", "--format", "csv"), ("since: 2023-02-24", "removes every dated model")),
        (
            ("trend", "--results", "{all}", "--since", "2024-08-01"),
            ("since: 2024-08-01", "removes every dated model", "latest released 2024-07-31"),
        ),
        (("trend", "--results", "{nodate}"), ("no release date", "'release_date' column", "removes all")),
        (("report", "--results", "{nodate}", "--out", "{out}"), ("no release date", "removes all")),
        (
            ("report", "--results", "{all}", "--since", "2024-08-01", "--out", "{out}"),
            ("since: 2024-08-01", "removes every dated model"),
        ),
    ],
    ids=[
        "density, all before the window",
        "density csv",
        "trend --since after every model",
        "trend, no date column",
        "report, no date column",
        "report --since after every model",
    ],
)
def test_a_window_that_leaves_no_model_is_refused_naming_the_filter_and_the_count(argv, words, tmp_path, run_cli):
    files = {
        "old": _public_rows(tmp_path, lambda d: bool(d) and d < "2023-02-24"),
        "all": REPO_ROOT / "results" / "public_models.csv",
        "nodate": _public_rows(tmp_path / "..", lambda d: True, drop_column="release_date"),
        "out": tmp_path / "report.html",
    }
    result = run_cli(*[a.format(**files) for a in argv])
    _one_line_exit_2(result, *words)
    assert not (tmp_path / "report.html").exists()


def test_the_api_refuses_an_empty_window_naming_the_filter():
    import pandas as pd

    from densing import fit_trend, measure_trend, read_results
    from densing.trend.measure import headline_densities

    table = read_results(REPO_ROOT / "results" / "public_models.csv")
    for call in (
        lambda: fit_trend(table, since="2024-08-01"),
        lambda: measure_trend(table, since="2024-08-01"),
        lambda: headline_densities(table, since="2024-08-01"),
    ):
        with pytest.raises(InputError, match=r"since: 2024-08-01 removes every dated model \(\d+ of \d+"):
            call()
    undated = table.assign(release_date=pd.NaT)
    for call in (lambda: fit_trend(undated, since=None), lambda: measure_trend(undated, since=None)):
        with pytest.raises(InputError, match="targets: no release date on any of its"):
            call()
    with pytest.raises(InputError, match="targets: missing column.*release_date"):
        fit_trend(table.drop(columns="release_date"), since=None)


# ---------------------------------------------------------------------------------------------
# outputs written as a set; the Swallow builder's own inputs

SWALLOW = SHARED_DATA / "swallow"  # ../shared/data beside the clone, or DENSING_SHARED_DATA


def test_a_set_of_outputs_is_written_whole_or_not_at_all(tmp_path):
    from densing.io import write_file_set

    (tmp_path / "b.csv").mkdir()  # the second output cannot be written: the first must not appear either
    with pytest.raises(InputError, match="b.csv: is a directory"):
        write_file_set(tmp_path, {"a.csv": "x\n", "b.csv": "y\n"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.csv"]
    written = write_file_set(tmp_path / "out", {"a.csv": "x\n", "c.csv": "y\n"})
    assert [p.name for p in written] == ["a.csv", "c.csv"] and sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "a.csv",
        "c.csv",
    ]
    with pytest.raises(InputError, match="empty path"):
        write_file_set("", {"a.csv": "x"})


def _swallow_copy(tmp_path, old: str, new: str, file: str = "model_2025-06.yml") -> Path:
    import shutil

    source = tmp_path / "swallow"
    shutil.copytree(SWALLOW, source)
    text = (source / file).read_text()
    assert old in text
    (source / file).write_text(text.replace(old, new, 1))
    return source


@pytest.mark.skipif(not SWALLOW.is_dir(), reason="the Swallow leaderboard copy (shared data) is not here")
@pytest.mark.parametrize(
    "old,new,words",
    [
        ("date: '2024-10-24'", "date: '1900-01-01'", ("field 'date'", "1900-01-01", "[2018-06-11, today")),
        ("date: '2024-10-24'", "date: '2999-01-01'", ("field 'date'", "2999-01-01", "in the future")),
        ("date: '2024-10-24'", "date: soon", ("field 'date'", "cannot parse 'soon'")),
        ("date: '2024-10-24'", "date: null", ("field 'date'", "cannot parse")),
    ],
    ids=["1900", "2999", "soon", "null"],
)
def test_the_swallow_builder_refuses_an_impossible_leaderboard_date(old, new, words, tmp_path):
    from tools.swallow_table.build import build_swallow

    source = _swallow_copy(tmp_path, old, new)
    with pytest.raises(InputError) as raised:
        build_swallow(source, REPO_ROOT / "results" / "swallow", REPO_ROOT / "results" / "release_dates.csv")
    assert str(source / "model_2025-06.yml") in str(raised.value) and all(w in str(raised.value) for w in words)


@pytest.mark.skipif(not SWALLOW.is_dir(), reason="the Swallow leaderboard copy (shared data) is not here")
def test_the_swallow_builder_refuses_is_post_yes_and_an_unparseable_house_date(tmp_path):
    from tools.swallow_table.build import build_swallow

    source = _swallow_copy(tmp_path, "is_post: true", "is_post: 'yes'", file="model_2026-05.yml")
    with pytest.raises(InputError, match=r"field 'is_post': expected true or false, got 'yes'"):
        build_swallow(source, REPO_ROOT / "results" / "swallow", REPO_ROOT / "results" / "release_dates.csv")
    dates = (REPO_ROOT / "results" / "release_dates.csv").read_text().splitlines()
    header = dates[0].split(",")
    row = dates[1].split(",")
    row[header.index("release_date")] = "someday"
    house = tmp_path / "dates.csv"
    house.write_text("\n".join([dates[0], ",".join(row), *dates[2:]]) + "\n")
    with pytest.raises(InputError, match=r"dates.csv: row 1: field 'release_date': cannot parse 'someday'"):
        build_swallow(SWALLOW, REPO_ROOT / "results" / "swallow", house)


@pytest.mark.skipif(not SWALLOW.is_dir(), reason="the Swallow leaderboard copy (shared data) is not here")
@pytest.mark.parametrize("value", ["1.5", "-0.1", "high"])
def test_the_swallow_builder_refuses_a_score_outside_zero_to_one(value, tmp_path):
    from tools.swallow_table.build import build_swallow

    # 01-ai/Yi-1.5-34B, a pre-trained model the table keeps
    kept = "      XWINO: 0.91\n      MMLU: 0.774\n      GSM8K: 0.743"
    source = _swallow_copy(tmp_path, kept, kept.replace("MMLU: 0.774", f"MMLU: {value}"))
    with pytest.raises(InputError) as raised:
        build_swallow(source, REPO_ROOT / "results" / "swallow", REPO_ROOT / "results" / "release_dates.csv")
    assert "field 'results.en_basic.MMLU': expected a score in [0, 1]" in str(raised.value)
    assert str(source / "model_2025-06.yml") in str(raised.value)


def test_the_swallow_builder_refuses_an_empty_out(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    empty = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "tools" / "build_tables.py"),
            "swallow",
            "--source",
            str(SWALLOW),
            "--curated",
            str(REPO_ROOT / "results" / "swallow"),
            "--dates",
            str(REPO_ROOT / "results" / "release_dates.csv"),
            "--out",
            "",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert empty.returncode == 2 and "empty path" in empty.stderr and list(tmp_path.iterdir()) == [], empty.stderr


# ---------------------------------------------------------------------------------------------
# values of the overlap models, the wide tables and lm-eval's model_args


def test_a_measured_contention_below_zero_is_inside_its_domain():
    """γ = concurrent/alone − 1 > −1: a measured −0.19 (GEMMs faster beside the collective) is data, not an error."""
    from densing.overlap.strategies.t3 import t3_step_time_s
    from densing.overlap.whatif import WHATIF_CONSTRAINTS
    from densing.validation import validate

    validate(WHATIF_CONSTRAINTS, contention=-0.19)
    assert t3_step_time_s(1.0, 0.5, -0.19) == pytest.approx(1.0 - 0.19 * 0.5)
    for bad in (-1.0, -2.0, float("nan")):
        with pytest.raises(InputError, match="contention"):
            validate(WHATIF_CONSTRAINTS, contention=bad)
        with pytest.raises(InputError, match="contention"):
            t3_step_time_s(1.0, 0.5, bad)


def test_a_wide_tables_refusal_names_the_files_row_and_column(tmp_path, run_cli):
    """A score in the wide table's row 3 is named by its line in the file (4: the header is line 1), not by its place
    in the reshaped long table."""
    table = _public_with(tmp_path, "GSM8K", "1.7")
    _one_line_exit_2(run_cli("density", "--targets", table), f"{table}: line 4, column 'GSM8K': field 'value': 1.7")


@pytest.mark.parametrize(
    "model_args,words",
    [
        ("max_length=abc", "max_length: expected a whole number ≥ 1, got 'abc'"),
        ("max_length=0", "max_length: expected a whole number ≥ 1, got 0"),
        ("max_length=2.5", "max_length: expected a whole number ≥ 1, got 2.5"),
        ("max_batch_size=-1", "max_batch_size: expected a whole number ≥ 1"),
        ("parallelize=maybe", "parallelize: expected true or false"),
    ],
    ids=["word", "zero", "fraction", "negative", "not a switch"],
)
def test_model_args_outside_their_domain_are_refused_before_lm_eval_reads_them(model_args, words, tmp_path, run_cli):
    import os

    models = tmp_path / "models.yaml"
    models.write_text("models:\n  - model: EleutherAI/pythia-70m\n    params: 7e7\n")
    work = tmp_path / "work"
    work.mkdir()
    before = os.getcwd()
    os.chdir(work)
    try:
        result = run_cli(
            "eval",
            "--benchmarks",
            "arc_easy",
            "--models",
            models,
            "--model-args",
            model_args,
            "--out",
            tmp_path / "store",
        )
    finally:
        os.chdir(before)
    _one_line_exit_2(result, "--model-args", words)
    assert list(work.iterdir()) == [] and not (tmp_path / "store").exists()


def test_a_trend_predicts_at_any_date_its_data_need_not_have():
    """The domain bounds what is read (release dates, since); a prediction may extrapolate past today."""
    import densing
    from tests.trend.test_doubling import planted_law, planted_scores

    fit = densing.fit_trend(
        planted_scores(n=30, start_day=0, end_day=700), planted_law(), rule="all", n_boot=40, n_boot_share=0, since=None
    )
    assert np.isfinite(fit.predict(["2030-01-01", "1985-06-01"])).all()


def test_without_continual_refuses_a_derivation_outside_its_words():
    """A table spelling its derivation 'Continual pretraining' would have had nothing dropped, in silence."""
    import pandas as pd

    from densing.trend.protocol import without_continual

    table = pd.DataFrame({"model": ["a", "b", "c"], "derivation": ["from_scratch", "continual_pretraining", None]})
    assert list(without_continual(table)["model"]) == ["a", "c"]
    with pytest.raises(InputError, match=r"model 'b': field 'derivation': 'Continual pretraining' is not one of"):
        without_continual(table.assign(derivation=["from_scratch", "Continual pretraining", None]))


# ---------------------------------------------------------------------------------------------
# run folders (densing.overlap.run_schema: RUN_DOMAIN, TRAIN_CONSTRAINTS, METRICS_DOMAIN) and trace metadata
# (densing.overlap.kineto.DISTRIBUTED_CONSTRAINTS): every declared bound is walked, one value outside it each

#: The run folder :func:`write_run_folder` writes: 2 ranks × 5 steps (the profiler's schedule inside them).
RUN_STEPS, RUN_RANKS = 5, 2


def write_run_folder(folder: Path, strategy: str = "ddp", loss: str = "2.5", **edits) -> Path:
    """A complete run folder (run.yaml and metrics.csv, as ``densing overlap run`` writes them) of ``strategy``;
    ``edits`` replace top-level run.yaml fields (``config`` a mapping merged into the configuration)."""
    from dataclasses import asdict

    import yaml

    from densing.overlap.run_schema import LAUNCHER
    from densing.overlap.train import TrainConfig, param_numel

    config = TrainConfig(
        strategy=strategy,
        steps=RUN_STEPS,
        d_model=32,
        n_layer=1,
        n_head=2,
        seq_len=16,
        profile_skip=0,
        profile_wait=0,
        profile_warmup=1,
        profile_active=4,
        local_steps=4,
    )
    numel = param_numel(config)
    meta = {
        "status": "complete",
        "config": asdict(config),
        "workers_per_node": RUN_RANKS,
        "nnodes": 1,
        "cpu_count": 2,
        "launcher": LAUNCHER,
        "n_params": sum(numel),
        "param_numel": numel,
    }
    meta.update({k: v for k, v in edits.items() if k != "config"})
    meta["config"].update(edits.get("config", {}))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.yaml").write_text(yaml.safe_dump({k: v for k, v in meta.items() if v is not _ABSENT}))
    rows = ["rank,step,step_time_s,tokens,loss,profiled,allreduce_wall_s,allreduce_cpu_s"]
    rows += [
        f"{rank},{step},0.1,{(step + 1) * 64},{loss},{int(1 <= step)},0.01,0.01"
        for step in range(RUN_STEPS)
        for rank in range(RUN_RANKS)
    ]
    (folder / "metrics.csv").write_text("\n".join(rows) + "\n")
    return folder


_ABSENT = object()


def outside(constraint) -> list:
    """One value outside each bound of a declared constraint (:mod:`densing.validation`'s forms): below and above an
    interval, a fraction for a whole number, a word for a number, a name no option has, an empty list."""
    from numbers import Integral

    from densing.overlap.run_schema import Counts
    from densing.validation import Interval, Options, Text, WholeNumber

    if isinstance(constraint, Interval):
        values = ["many"]
        if constraint.left is not None:
            values.append(
                constraint.left - (1 if constraint.kind is Integral else 0.5)
                if constraint.closed in ("both", "left")
                else constraint.left
            )
        if constraint.right is not None:
            values.append(
                constraint.right + (1 if constraint.kind is Integral else 0.5)
                if constraint.closed in ("both", "right")
                else constraint.right
            )
        if constraint.kind is Integral:
            values.append((constraint.left or 0) + 1.5)
        return values
    if isinstance(constraint, WholeNumber):
        return [constraint.left - 1, constraint.right + 1, constraint.left + 0.5, "two"]
    if isinstance(constraint, Options):
        return ["no-such-option"]
    if isinstance(constraint, Counts):
        return [[], [0], [1.5], "many"]
    if isinstance(constraint, Text):
        return ["", 7]
    raise AssertionError(f"no out-of-domain values for {constraint!r}: add them here")


def _walk(domain: dict) -> list[tuple[str, object]]:
    cases = [
        (name, value) for name, forms in domain.items() for form in forms if form is not None for value in outside(form)
    ]
    return [
        (name, value)
        for name, value in cases
        if not any(form is None and value is None or form is not None and form.matches(value) for form in domain[name])
    ]


def _run_file_cases() -> list:
    from densing.overlap.run_schema import RUN_DOMAIN, TRAIN_CONSTRAINTS

    cases = [pytest.param({name: value}, name, value, id=f"{name}={value!r}") for name, value in _walk(RUN_DOMAIN)]
    cases += [
        pytest.param({"config": {name: value}}, f"config.{name}", value, id=f"config.{name}={value!r}")
        for name, value in _walk(TRAIN_CONSTRAINTS)
    ]
    return cases


RUN_FILE_CASES = _run_file_cases()


@pytest.mark.parametrize("edit,field,value", RUN_FILE_CASES)
def test_every_run_file_field_outside_its_domain_is_one_line_naming_file_field_value_and_domain(
    edit, field, value, tmp_path
):
    from densing.overlap.run_schema import read_run

    read_run(write_run_folder(tmp_path / "good"))  # the folder as written is inside every domain
    run = write_run_folder(tmp_path / "run", **edit)
    with pytest.raises(InputError) as raised:
        read_run(run)
    message = str(raised.value)
    assert "\n" not in message and "expected" in message or "incomplete run" in message, message
    assert str(run) in message and (field in message or field == "status"), message
    if field != "status":
        assert f"got {value!r}" in message, message


def test_the_run_file_walk_covers_every_declared_field():
    from densing.overlap.run_schema import RUN_DOMAIN, TRAIN_CONSTRAINTS

    walked = {case.values[1] for case in RUN_FILE_CASES}
    assert walked == set(RUN_DOMAIN) | {f"config.{name}" for name in TRAIN_CONSTRAINTS}


@pytest.mark.parametrize(
    "edit,words",
    [
        ({"n_params": 12}, ("n_params: 12 is not the sum of param_numel",)),
        ({"config": {"strategy": "zero"}}, ("config.strategy", "'zero'")),
        ({"config": {"d_model": 33}}, ("config.d_model", "multiple of n_head")),
        ({"config": {"steps": 4}}, ("config.steps", "profiler schedule needs 5")),
        ({"config": {"bogus": 1}}, ("config: unknown field 'bogus'",)),
        ({"workers_per_node": _ABSENT}, ("missing field 'workers_per_node'",)),
        ({"gpu_model": "H100"}, ("unknown field 'gpu_model'", "no other field")),
    ],
    ids=[
        "n_params not the sum",
        "unknown strategy",
        "width",
        "schedule past the steps",
        "unknown field",
        "missing field",
        "unknown top-level field",
    ],
)
def test_a_run_file_inconsistent_with_itself_is_refused(edit, words, tmp_path):
    from densing.overlap.run_schema import read_run

    run = write_run_folder(tmp_path / "run", **edit)
    with pytest.raises(InputError) as raised:
        read_run(run)
    assert str(run / "run.yaml") in str(raised.value) and all(w in str(raised.value) for w in words), raised.value


def test_validate_names_a_run_folder_without_its_run_file(tmp_path, run_cli):
    """``overlap validate ROOT`` with ``ROOT/ddp`` holding metrics but no run.yaml: refused naming that folder, never
    validated without it."""
    root = tmp_path / "out"
    write_run_folder(root / "sync", strategy="sync")
    (write_run_folder(root / "ddp") / "run.yaml").unlink()
    code, out, err = run_cli("overlap", "validate", root)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"{root / 'ddp'}: a run folder without run.yaml" in err, err


def test_validate_refuses_an_unknown_top_level_field(tmp_path, run_cli):
    root = tmp_path / "out"
    write_run_folder(root / "sync", strategy="sync", notes="tuned")
    code, out, err = run_cli("overlap", "validate", root)
    assert code == 2 and err.count("\n") == 1 and "unknown field 'notes'" in err, err


def _metrics_cases() -> list:
    from densing.overlap.run_schema import METRICS_DOMAIN

    outside_values = {
        "rank": ["-1", str(RUN_RANKS), "0.5", "one"],
        "step": ["-1", str(RUN_STEPS), "1.5"],
        "step_time_s": ["0", "-0.1", "inf", "nan", ""],
        "tokens": ["0", "64.5", "-64"],
        "loss": ["-0.5", "inf", "low"],
        "profiled": ["2", "maybe"],
        "allreduce_wall_s": ["-0.01", "inf"],
        "allreduce_cpu_s": ["-0.01", "inf"],
    }
    assert set(outside_values) == set(METRICS_DOMAIN)  # every declared column is walked
    return [
        pytest.param(name, value, id=f"{name}={value!r}") for name, values in outside_values.items() for value in values
    ]


@pytest.mark.parametrize("column,value", _metrics_cases())
def test_every_metrics_column_outside_its_domain_is_one_line_naming_file_row_field_and_domain(
    column, value, tmp_path, run_cli
):
    from densing.overlap.run_schema import METRICS_DOMAIN

    run = write_run_folder(tmp_path / "run")
    lines = (run / "metrics.csv").read_text().splitlines()
    header = lines[0].split(",")
    row = lines[3].split(",")
    row[header.index(column)] = value
    lines[3] = ",".join(row)
    (run / "metrics.csv").write_text("\n".join(lines) + "\n")
    _one_line_exit_2(
        run_cli("overlap", "convergence", run, write_run_folder(tmp_path / "co2", "co2")),
        str(run / "metrics.csv"),
        "row 3",
        f"field '{column}'",
        METRICS_DOMAIN[column].words,
    )


def test_metrics_missing_a_row_or_holding_one_twice_are_refused(tmp_path, run_cli):
    run = write_run_folder(tmp_path / "run")
    lines = (run / "metrics.csv").read_text().splitlines()
    (run / "metrics.csv").write_text("\n".join(lines[:-1]) + "\n")
    co2 = write_run_folder(tmp_path / "co2", "co2")
    _one_line_exit_2(run_cli("overlap", "convergence", run, co2), "9 rows for 2 rank(s) × 5 steps")
    (run / "metrics.csv").write_text("\n".join(lines[:-1] + [lines[-2]]) + "\n")
    _one_line_exit_2(run_cli("overlap", "convergence", run, co2), "(9 distinct rank and step)")


@pytest.mark.parametrize("status", ["running", "interrupted", "failed", None])
def test_a_run_that_did_not_complete_is_refused_as_incomplete_by_every_reader(status, tmp_path, run_cli):
    run = write_run_folder(tmp_path / "run", status=_ABSENT if status is None else status)
    co2 = write_run_folder(tmp_path / "co2", "co2")
    said = "has no 'status' field" if status is None else f"status: {status}"
    for argv in (
        ("overlap", "validate", run),
        ("overlap", "convergence", run, co2),
        ("overlap", "whatif", run),
        ("overlap", "analyze", run),
        ("overlap", "sublayers", run),
    ):
        _one_line_exit_2(run_cli(*argv), f"{run}: an incomplete run", said)


def _trace_metadata_cases() -> list:
    from densing.overlap.kineto import DISTRIBUTED_CONSTRAINTS

    cases = [(name.split(".")[1], value) for name, value in _walk(DISTRIBUTED_CONSTRAINTS)]
    assert {name for name, _ in cases} == {name.split(".")[1] for name in DISTRIBUTED_CONSTRAINTS}
    return [pytest.param(name, value, id=f"{name}={value!r}") for name, value in cases]


@pytest.mark.parametrize("field,value", _trace_metadata_cases())
def test_every_trace_metadata_field_outside_its_domain_is_one_line_naming_file_field_value_and_domain(
    field, value, tmp_path, run_cli
):
    import json
    import sys

    sys.path.insert(0, str(REPO_ROOT / "tests" / "overlap"))
    from overlap_tracegen import hand_trace

    trace = tmp_path / "rank0.json"
    info = {"rank": 0, "world_size": 2, "backend": "nccl", field: value}
    trace.write_text(json.dumps({"schemaVersion": 1, "distributedInfo": info, "traceEvents": hand_trace()}))
    _one_line_exit_2(
        run_cli("overlap", "analyze", trace), str(trace), f"distributedInfo.{field}", repr(value), "expected"
    )


# ---------------------------------------------------------------------------------------------
# models files (densing.eval.models): every field's domain, one value outside each bound

#: Each field of a models-file entry: values outside its domain and words of the refusal. ``name``, ``revision`` and
#: ``family`` are free text (an empty one takes its default) and have no bound to leave.
MODELS_FILE_CASES = {
    "model": [("''", "field 'model' is empty")],
    "dtype": [("float8", "field 'dtype': expected one of auto, float32")],
    "params": [("7", "below 10000"), ("1e30", "above 1e+13"), ("seven", "cannot parse 'seven'"), ("0", "positive")],
    "non_embedding_params": [("5", "below 10000"), ("2e9", "above params")],
    "train_tokens": [("0", "positive"), ("1e30", "outside (0, 1e+15]"), ("lots", "cannot parse 'lots'")],
    "release_date": [
        ("'2018-06-10'", "not between 2018-06-11 and today"),
        ("'2999-01-01'", "not between"),
        ("soon", "cannot parse 'soon'"),
    ],
    "trust_remote_code": [("maybe", "expected true or false")],
    "gguf_file": [("weights.bin", "ending .gguf")],
    "model_args": [
        ("'max_length=abc'", "max_length: expected a whole number ≥ 1"),
        ("'pretrained=x'", "set by densing"),
    ],
    "size": [("7B", "unknown field(s) size")],
}


@pytest.mark.parametrize(
    "field,value,words",
    [(f, v, w) for f, cases in MODELS_FILE_CASES.items() for v, w in cases],
    ids=[f"{f}={v}" for f, cases in MODELS_FILE_CASES.items() for v, _ in cases],
)
def test_every_models_file_field_outside_its_domain_is_one_line_naming_file_entry_and_field(
    field, value, words, tmp_path
):
    from densing.eval.models import read_models_file

    base = {"model": "EleutherAI/pythia-160m", "params": "1.6e8", "train_tokens": "3e11", "gguf_file": "''"}
    path = tmp_path / "models.yaml"
    path.write_text("models:\n  - " + "\n    ".join(f"{k}: {v}" for k, v in {**base, field: value}.items()) + "\n")
    with pytest.raises(InputError) as raised:
        read_models_file(path)
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{path}: models[0]: ") and words in message, message
    assert field in message or field == "model_args", message


def test_the_models_file_walk_covers_every_field():
    from densing.eval.models import _FIELDS

    assert set(_FIELDS) - {"name", "revision", "family"} <= set(MODELS_FILE_CASES)


def test_a_results_table_with_more_training_tokens_than_text_exists_is_refused(tmp_path, run_cli):
    table = tmp_path / "targets.csv"
    table.write_text(
        "model,benchmark,metric,value,params,train_tokens\norg/a,arc_easy,acc,0.6,1e9,2e12\n"
        "org/b,arc_easy,acc,0.5,1e9,1e30\n"
    )
    _one_line_exit_2(
        run_cli("density", "--targets", table), str(table), "line 3", "field 'train_tokens'", "1e+30", "(0, 1e+15]"
    )


# ---------------------------------------------------------------------------------------------
# results tables (densing.data.schema.validate_results): every column's domain, one value outside each bound

#: Each column of the tidy table: values outside its domain and words of the refusal (on line 3 of a file whose line 2
#: is inside every domain). source, family, revision and run are free text.
RESULTS_TABLE_CASES = {
    "model": [("", "field 'model' is empty")],
    "benchmark": [("", "field 'benchmark' is empty")],
    "metric": [("", "field 'metric' is empty")],
    "value": [
        ("-0.1", "outside [0, 1]"),
        ("1.5", "outside [0, 1]"),
        ("high", "expected a number"),
        ("nan", "expected a finite number"),
    ],
    "params": [("7", "below 10000"), ("1e14", "above 1e+13"), ("big", "cannot parse 'big'"), ("0", "positive")],
    "train_tokens": [("0", "positive"), ("1e30", "outside (0, 1e+15]"), ("lots", "cannot parse 'lots'")],
    "active_params": [("7", "below 10000"), ("1e14", "above 1e+13")],
    "loss": [("-1", "−log P is ≥ 0"), ("inf", "expected a finite number")],
    "loss_unit": [("bits", "expected one of nats, bpb")],
    "stderr": [("-0.1", "negative"), ("0.6", "above 0.5")],
    "n_shot": [("-1", "non-negative integer"), ("1.5", "non-negative integer")],
    "release_date": [("1900-01-01", "before 2018-06-11"), ("2999-01-01", "in the future"), ("soon", "cannot parse")],
}


@pytest.mark.parametrize(
    "column,value,words",
    [(c, v, w) for c, cases in RESULTS_TABLE_CASES.items() for v, w in cases],
    ids=[f"{c}={v!r}" for c, cases in RESULTS_TABLE_CASES.items() for v, _ in cases],
)
def test_every_results_table_column_outside_its_domain_is_one_line_naming_file_row_and_field(
    column, value, words, tmp_path
):
    from densing import read_results

    good = {
        "model": "org/a",
        "benchmark": "arc_easy",
        "metric": "acc",
        "value": "0.6",
        "params": "1e9",
        "train_tokens": "2e12",
        "active_params": "5e8",
        "loss": "1.2",
        "loss_unit": "nats",
        "stderr": "0.01",
        "n_shot": "0",
        "release_date": "2024-01-01",
    }
    table = tmp_path / "targets.csv"
    table.write_text(
        ",".join(good)
        + "\n"
        + ",".join(good.values())
        + "\n"
        + ",".join(value if c == column else v for c, v in {**good, "model": "org/b"}.items())
        + "\n"
    )
    with pytest.raises(InputError) as raised:
        read_results(table)
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{table}: line 3") and f"field '{column}'" in message, message
    assert words in message, message


def test_the_results_table_walk_covers_every_column():
    from densing.data.schema import COLUMNS

    assert set(COLUMNS) - {"source", "family", "revision", "run"} <= set(RESULTS_TABLE_CASES)


# ---------------------------------------------------------------------------------------------
# dates with a time zone: a table's taken to their UTC day, an API argument's refused


def test_a_date_with_a_time_zone_is_its_day_in_utc_where_read():
    import pandas as pd

    from densing.numbers import parse_date

    assert parse_date(pd.Timestamp("2023-02-25 01:00", tz="Asia/Tokyo")) == pd.Timestamp("2023-02-24")
    from datetime import datetime, timedelta, timezone

    assert parse_date(datetime(2023, 2, 24, 23, 0, tzinfo=timezone(timedelta(hours=-5)))) == pd.Timestamp("2023-02-25")


def test_a_tz_aware_release_date_column_is_read_in_utc_and_the_trend_runs():
    import pandas as pd

    from densing import fit_trend, read_results

    table = read_results(REPO_ROOT / "results" / "public_models.csv")
    aware = table.copy()
    aware["release_date"] = pd.to_datetime(aware["release_date"]).dt.tz_localize("Asia/Tokyo")
    got = fit_trend(aware, n_boot=40, n_boot_share=10, seed=1)
    naive = table.copy()
    naive["release_date"] = pd.to_datetime(naive["release_date"]) - pd.Timedelta(hours=9)  # the same instants in UTC
    assert got.doubling_time_months == fit_trend(naive, n_boot=40, n_boot_share=10, seed=1).doubling_time_months


@pytest.mark.parametrize("argument", ["since", "epoch"])
def test_an_api_date_argument_with_a_time_zone_is_refused_in_one_line(argument):
    import pandas as pd

    from densing import fit_trend, measure_trend, read_results

    table = read_results(REPO_ROOT / "results" / "public_models.csv")
    stamp = pd.Timestamp("2023-02-24 12:00", tz="Asia/Tokyo")
    for call in (fit_trend, measure_trend):
        with pytest.raises(InputError, match=rf"^{argument}: expected a date \(YYYY-MM-DD, no time zone\)") as exc:
            call(table, **{argument: stamp})
        assert "\n" not in str(exc.value)
