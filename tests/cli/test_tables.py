"""Every table through every command: ``--table NAME`` and ``--results FILE`` resolved in the library
(:func:`densing.registry.resolve_table`) for ``trend``, ``report``, ``density`` and ``measure``; a results table's
misspelt score column named in one line."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from cli_run import run
from conftest import REPO_ROOT

V2_FILE = "results/openllm_v2/openllm_v2_2025-03.csv"
V2_SCORES = REPO_ROOT / "tests" / "placement" / "fixtures" / "v2_scores.csv"
#: The second table's first set: what its headline inverts.
V2_NATIVE = ("mmlu_pro", "leaderboard_bbh", "math_hard")


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(REPO_ROOT)


@pytest.mark.parametrize(
    "argv",
    [
        ["trend"],
        ["density"],
        ["report", "--out", "{tmp}/r.html"],
        ["measure", "--scores", str(V2_SCORES)],
        ["measure", "--template", "-"],
    ],
    ids=lambda a: a[0] + (" " + a[1] if len(a) > 1 else ""),
)
def test_an_unknown_table_is_one_line_before_any_work(argv, tmp_path, capsys):
    code, out, err = run([a.replace("{tmp}", str(tmp_path)) for a in argv] + ["--table", "openllm_v3"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--table: expected one of public, openllm_v2, swallow, swallow_2026" in err and "'openllm_v3'" in err
    assert not (tmp_path / "r.html").exists()


def test_a_misspelt_score_column_of_a_results_table_is_named_with_the_closest_names(tmp_path, capsys):
    """A copy of the public table with its MMLU column misspelt: refused in one line, never read as a model's field."""
    table = pd.read_csv(REPO_ROOT / "results" / "public_models.csv", dtype=str).rename(columns={"MMLU": "MMMLU"})
    path = tmp_path / "copy.csv"
    table.to_csv(path, index=False)
    code, out, err = run(["trend", "--results", str(path)], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert re.search(r"copy\.csv: column 'MMMLU': 'MMMLU' is no benchmark densing knows; did you mean 'mmlu'", err), err


def test_measure_template_writes_the_named_tables_headline_columns(capsys):
    code, out, _ = run(["measure", "--template", "-", "--table", "openllm_v2"], capsys)
    header = out.splitlines()[0].split(",")
    assert code == 0 and header == [
        "model",
        "params",
        "release_date",
        "leaderboard_mmlu_pro",
        "leaderboard_bbh",
        "leaderboard_math_hard",
    ]


def test_density_on_the_second_table_inverts_its_first_set(at_root, capsys):
    code, out, err = run(["density", "--table", "openllm_v2", "--format", "csv"], capsys)
    assert code == 0, err
    frame = pd.read_csv(pd.io.common.StringIO(out))
    assert len(frame) and all(f"({','.join(V2_NATIVE)})" in r for r in frame["reference"].astype(str))
    v2_models = set(pd.read_csv(REPO_ROOT / V2_FILE)["model"])
    assert set(frame["model"]) <= v2_models


@pytest.mark.slow
def test_measure_scores_on_the_second_table_inverts_mmlu_pro_bbh_and_math_hard(at_root, tmp_path, capsys):
    """A v2-set scores file placed with --table openllm_v2: every one of its three scores inverted through the second
    table's headline references (the public table's headline would invert BBH and MATH-hard alone)."""
    placed = tmp_path / "placed.csv"
    code, out, err = run(
        ["measure", "--scores", str(V2_SCORES), "--table", "openllm_v2", "--n-boot", "60", "--csv", str(placed)], capsys
    )
    assert code == 0, err
    row = pd.read_csv(placed).iloc[0]
    assert row["model"] == "my-org/my-model-7b" and row["inverted"] == ",".join(V2_NATIVE)
    assert row["reference"].endswith(f"({','.join(V2_NATIVE)})") and row["density"] > 0
    assert re.search(r"inverted on\s+mmlu_pro,\s+leaderboard_bbh,\s+math_hard", out), out


@pytest.mark.slow
def test_report_on_the_second_tables_file_leads_with_its_first_set(at_root, tmp_path, capsys):
    """``densing report --results`` the second table's file: its headline is that table's v2-native set (as
    ``densing trend --table openllm_v2``), and the sections that set other tables beside the public table's rows are
    left out."""
    out_file = tmp_path / "report.html"
    code, out, err = run(["report", "--results", V2_FILE, "--out", str(out_file), "--n-boot", "60"], capsys)
    assert code == 0, err
    assert "v2-native set" in out and "paper-like set" not in out
    page = out_file.read_text()
    assert "openllm_v2_2025-03.csv sha256" in page and "results/openllm_v2/trend.json" not in page
