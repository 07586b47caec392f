"""Options that a combination makes meaningless are refused in one line, never ignored: ``fit_trend``'s
``benchmarks`` without a family reference (or naming no benchmark of the table), a measurement's figure's ``rule``
(``densing.present.figure``) on a figure that draws no line, a trend's figure's ``paper_months`` NaN, ``--suite`` (and ``convert
--final-only``) on data that is not the Pythia evals folder. ``whatif --contention`` with ``--contention-from``:
the declared pairs of ``tests/test_refusals.py``."""

from __future__ import annotations

import math

import pytest

import densing.present as present
from densing.errors import InputError
from tests.conftest import REPO_ROOT

PUBLIC = REPO_ROOT / "results" / "public_models.csv"


@pytest.fixture(scope="module")
def table():
    from densing import read_results

    return read_results(PUBLIC)


def test_fit_trend_refuses_benchmarks_it_would_not_use(table):
    from densing import fit_trend

    with pytest.raises(InputError, match="^benchmarks: given with a family name only"):
        fit_trend(table, benchmarks=("nope",), n_boot=40, n_boot_share=0)
    with pytest.raises(InputError, match="^benchmarks: given with a family name only"):
        fit_trend(table, benchmarks=("mmlu",), n_boot=40, n_boot_share=0)
    with pytest.raises(InputError, match="^benchmarks: 'mmluu' is no benchmark of targets; close: mmlu"):
        fit_trend(table, "Qwen2", benchmarks=("mmluu",), n_boot=40, n_boot_share=0)


def test_the_figures_refuse_what_they_would_not_draw(table):
    from densing import fit_trend, measure_trend

    measured = measure_trend(table, n_boot=40, n_boot_side=40)
    for kind in ("size", "benchmarks"):
        with pytest.raises(InputError, match=f"^rule: goes with kind='density' \\(the '{kind}' figure"):
            present.figure(measured, kind, rule="nope")
    assert present.figure(measured, "size") is not None
    trend = fit_trend(table, n_boot=40, n_boot_share=0)
    for bad in (math.nan, math.inf, 0, -3.3):
        with pytest.raises(InputError, match="^paper_months: expected"):
            present.figure(trend, paper_months=bad)
    assert present.figure(trend, paper_months=2) is not None


@pytest.mark.parametrize(
    "argv,option",
    [
        (["fit", "--data", PUBLIC, "--benchmark", "mmlu", "--suite", "deduped"], "--suite"),
        (["convert", "--data", PUBLIC, "--out", "{out}", "--suite", "deduped"], "--suite"),
        (["convert", "--data", PUBLIC, "--out", "{out}", "--final-only"], "--final-only"),
        (
            ["validate", "--data", PUBLIC, "--benchmark", "mmlu", "--max-params", "1e10", "--suite", "deduped"],
            "--suite",
        ),
    ],
    ids=["fit", "convert --suite", "convert --final-only", "validate"],
)
def test_pythia_options_on_other_data_are_refused(argv, option, tmp_path, run_cli):
    out = tmp_path / "t.csv"
    code, stdout, err = run_cli(*[str(a).format(out=out) for a in argv])
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"error: {option}: applies to the Pythia evals folder only; {PUBLIC} is "), err
    assert not out.exists()


@pytest.mark.parametrize(
    "option",
    [
        ["--params", "7B"],
        ["--n-boot", "5"],
        ["--suite", "swallow-en"],
        ["--seed", "3"],
        ["--release-date", "2024-01-01"],
        ["--model", "m"],
    ],
)
def test_measure_template_refuses_every_option_it_does_not_apply(option, tmp_path, run_cli):
    """--template writes a scores file and stops: an option of placing or evaluating is refused, naming it, and no
    file is written."""
    out = tmp_path / "t.csv"
    code, stdout, err = run_cli("measure", "--template", str(out), *option)
    assert code == 2 and err.startswith(f"error: {option[0]}: cannot apply with --template") and not out.exists()
