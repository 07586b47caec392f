"""``densing measure``'s report leads with the user's models, and its store lives in the user's cache, never in the
repository: the worked example (results/smollm2) from its shipped store, which evaluates nothing and loads no model."""

from __future__ import annotations

import hashlib
import html as _html
from pathlib import Path

import pandas as pd
import pytest

import densing
from densing import paths
from densing.errors import InputError
from densing.numbers import format_number
from densing.placement import measure as placement
from densing.present.placement import answer
from densing.report.html import esc
from tests.conftest import REPO_ROOT, SHARED_DATA
from tests.report.test_report_content import REPORT_SECTIONS, section_titles

SMOLLM2 = REPO_ROOT / "results" / "smollm2"
needs_local = pytest.mark.skipif(not (SHARED_DATA / "benchmarks").is_dir(), reason="no local benchmark splits")


def _digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@needs_local
def test_the_measure_report_leads_with_your_models(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    store = SMOLLM2 / "store"
    before = _digest(store)
    out, rows = tmp_path / "m.html", tmp_path / "m.csv"
    code, printed, err = run_cli(
        "measure",
        "--models",
        SMOLLM2 / "measure_models.yaml",
        "--suite",
        "leaderboard-v1",
        "--local-data",
        "--data-root",
        SHARED_DATA,
        "--limit",
        "20",
        "--backend",
        "densing-hf",
        "--device",
        "cpu",
        "--store",
        store,
        "--out",
        out,
        "--csv",
        rows,
        "--n-boot",
        "40",
    )
    assert code == 0, err
    assert "evaluating" not in err and _digest(store) == before  # everything from the shipped store, left as it is
    html = out.read_text()
    assert section_titles(html) == ["Your models", *REPORT_SECTIONS]  # first, then the public report as it is
    assert "<h1>densing measure</h1>" in html
    first = html.split("<h2>Your models</h2>", 1)[1].split("<h2>", 1)[0]
    row = pd.read_csv(rows).iloc[0]
    assert (
        row["model"] == "smollm2-135m-instruct-q4_1" and row["reading"] == "upper bound" and row["frontier"] == "below"
    )
    # the model, its bound, its place against the line and the line's ρmax at its date, the suite and the reference
    # the page leads with the terminal's answer: the same ρ, N̂ and place against the frontier's band
    lead = _html.unescape(first.split('<p class="verdict"><strong>', 1)[1].split("</strong>", 1)[0])
    assert lead.startswith(
        "smollm2-135m-instruct-q4_1 without BBH, MATH-hard, HumanEval (no score; placed from MMLU): ρ ≤ "
    )
    assert lead.endswith(answer(row).split(": ", 1)[1]) and lead in " ".join(
        printed.split()
    )  # as the terminal wraps it
    assert "effective size N̂" in first
    assert "Evaluated with densing measure" in first and "Placed from scores" not in first
    censored = (
        isinstance(row.get("bound"), str) and row["bound"] != ""
    )  # a censored density, else its interval's upper end
    shown = row["density"] if censored else row["density_ci_high"]
    assert esc(f"≤ {format_number(shown, '.3g')}") in first and "density ρ (upper bound)" in first
    assert f"{row['frontier_density']:.3g}" in first and esc(f"frontier line's ρmax at {row['release_date']}") in first
    assert esc(row["words"]) in first
    assert "leaderboard-v1 on at most 20 items per task" in _html.unescape(first)
    assert esc(row["reference"]) in first and '</div><div class="k">reference</div>' in first
    # the lead comes before the public trend's verdict
    assert html.index("Your models") < html.index("<h2>Verdict</h2>")


def test_the_default_store_is_the_users_cache_not_the_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert paths.default_store() == tmp_path / "xdg" / "densing" / "store"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert paths.default_store() == tmp_path / "home" / ".cache" / "densing" / "store"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored, as the XDG rule says
    assert paths.default_store() == tmp_path / "home" / ".cache" / "densing" / "store"
    monkeypatch.setenv("HOME", str(REPO_ROOT.parent))  # even from a home above the repository
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert not paths.default_store().resolve().is_relative_to(REPO_ROOT.resolve())
    assert not paths.default_store().resolve().is_relative_to(paths.RESULTS.resolve())


def _a_local_model(tmp_path) -> Path:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    (tmp_path / "m" / "tokenizer.json").write_text("{}")  # a local model is its config and its tokenizer
    models = tmp_path / "my.yaml"
    models.write_text(f"models:\n  - name: mine\n    model: {tmp_path / 'm'}\n")
    return models


def test_measure_without_a_store_evaluates_into_the_default_store(tmp_path, monkeypatch):
    from densing.eval import runner

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    seen = {}

    def stop(specs, benchmarks, store, **kwargs):
        seen["store"] = Path(store)
        raise InputError("stopped before evaluating")

    monkeypatch.setattr(runner, "run_sweep", stop)
    with pytest.raises(InputError, match="stopped before evaluating"):
        densing.measure(_a_local_model(tmp_path), suite="leaderboard-v1")
    assert seen["store"] == tmp_path / "cache" / "densing" / "store"


def test_the_cli_without_store_uses_the_default_store(tmp_path, monkeypatch, run_cli):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    seen = {}

    def stop(specs, suite, **kwargs):
        seen["store"] = Path(kwargs["store"])
        raise InputError("stopped before evaluating")

    monkeypatch.setattr(placement, "measure", stop)
    code, _, err = run_cli("measure", "--models", _a_local_model(tmp_path), "--out", tmp_path / "r.html")
    assert code == 2 and err.strip().endswith("stopped before evaluating")
    assert seen["store"] == tmp_path / "cache" / "densing" / "store"


def test_a_page_placed_from_scores_says_so_and_agrees_with_the_terminal(tmp_path, run_cli):
    out, rows = tmp_path / "s.html", tmp_path / "s.csv"
    code, printed, err = run_cli(
        "measure",
        "--scores",
        REPO_ROOT / "tests" / "placement" / "fixtures" / "lm_eval_results.json",
        "--release-date",
        "2024-06-07",
        "--out",
        out,
        "--csv",
        rows,
        "--n-boot",
        "40",
    )
    assert code == 0, err
    first = out.read_text().split("<h2>Your models</h2>", 1)[1].split("<h2>", 1)[0]
    row = pd.read_csv(rows).iloc[0]
    lead = _html.unescape(first.split('<p class="verdict"><strong>', 1)[1].split("</strong>", 1)[0])
    assert lead == answer(row) and lead in " ".join(printed.split())  # every headline score: nothing left out
    assert "Placed from scores (densing measure --scores)" in first and "Evaluated with" not in first
    assert "{" not in _html.unescape(first.split("<script", 1)[0]), "a sentence's placeholder printed as written"
    assert esc(row["band"]) in first and "effective size N̂" in first


def test_place_refuses_a_measurement_without_its_densities():
    public = densing.read_results(REPO_ROOT / "results" / "public_models.csv")
    headline_alone = densing.measure_trend(public, n_boot=40, sections=())
    with pytest.raises(InputError, match="measured without its 'densities' section"):
        densing.place(
            REPO_ROOT / "tests" / "placement" / "fixtures" / "lm_eval_results.json",
            release_date="2024-06-07",
            measurement=headline_alone,
        )
