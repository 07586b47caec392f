"""One command, one resolution of its table: ``densing measure`` and ``densing report`` call
:func:`densing.registry.resolve_table` once and hand the :class:`~densing.registry.Target` it returns down to every
function that reads the table (the placement, the headline, the page), never resolving it again on the way."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from cli_run import run
from conftest import REPO_ROOT, SHARED_DATA

from densing import registry

SCORES = REPO_ROOT / "tests" / "placement" / "fixtures" / "lm_eval_results.json"
V2_SCORES = REPO_ROOT / "tests" / "placement" / "fixtures" / "v2_scores.csv"


def _modules_holding(function) -> list:
    """The loaded densing modules whose name ``resolve_table`` is ``function`` (the registry, and every module that
    imported it by name)."""
    return [
        module
        for name, module in list(sys.modules.items())
        if name.startswith("densing") and getattr(module, "resolve_table", None) is function
    ]


@pytest.fixture
def resolutions() -> Iterator[list[tuple]]:
    """The arguments of every call of :func:`densing.registry.resolve_table` while the test runs: a counting wrapper
    put in its place in every loaded densing module that holds it; a module imported meanwhile imports the wrapper
    from the registry. Afterwards every module holding the wrapper holds the function again."""
    original = registry.resolve_table
    calls: list[tuple] = []

    def counted(*args, **kwargs):
        calls.append((args, kwargs))
        return original(*args, **kwargs)

    for module in _modules_holding(original):
        module.resolve_table = counted
    try:
        yield calls
    finally:
        for module in _modules_holding(counted):
            module.resolve_table = original


@pytest.mark.parametrize(
    "argv",
    [
        ["--scores", str(SCORES), "--release-date", "2024-06-07", "--out", "{tmp}/m.html"],
        ["--scores", str(V2_SCORES), "--table", "openllm_v2"],
        ["--template", "-"],
        ["--template", "-", "--table", "openllm_v2"],
    ],
    ids=["scores and page", "scores on a named table", "template", "template of a named table"],
)
def test_measure_resolves_its_table_once(argv, resolutions, tmp_path, capsys):
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, _, err = run(["measure", *args, "--n-boot", "40"] if "--scores" in argv else ["measure", *args], capsys)
    assert code == 0, err
    assert len(resolutions) == 1, resolutions


@pytest.mark.parametrize("argv", [[], ["--table", "openllm_v2"]], ids=["leading table", "named table"])
def test_report_resolves_its_table_once(argv, resolutions, tmp_path, capsys):
    code, _, err = run(["report", "--out", str(tmp_path / "r.html"), "--n-boot", "40", *argv], capsys)
    assert code == 0, err
    assert len(resolutions) == 1, resolutions


def test_measure_of_models_resolves_the_suites_table_once(resolutions, tmp_path, capsys, monkeypatch):
    """``densing measure --models``: the plan, the evaluation's own check of it, the placement and the page read one
    table; the evaluation is the worked example's from its shipped store (results/smollm2), which evaluates nothing and
    loads no model (as tests/placement/test_measure_report.py runs it)."""
    if not (SHARED_DATA / "benchmarks").is_dir():
        pytest.skip("no local benchmark splits")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from tools import worked_example

    # the worked example's own command line (its shipped files read from the checkout), written to a temporary page
    shipped = [str(REPO_ROOT / a) if a.startswith("results/") else a for a in worked_example.ARGS[1:]]
    argv = [*shipped, "--data-root", str(SHARED_DATA), "--out", str(tmp_path / "m.html"), "--n-boot", "40"]
    code, _, err = run(["measure", *argv], capsys)
    assert code == 0, err
    assert len(resolutions) == 1, resolutions
