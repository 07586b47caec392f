"""The Open LLM Leaderboard v2 table (results/openllm_v2/, tools/openllm_v2_table, densing/designs/openllm_v2): the
shipped files are a fresh build, the rule's decisions hold, the ObsScaling cross-check is what the README says, the
shipped record is a fresh measurement, and the declaration precedes every result on the table."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from densing.errors import InputError
from tools.openllm_v2_table.build import EXTRACT, TABLE, build_openllm_v2, read_curated, write_openllm_v2

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "results" / "openllm_v2"
PUBLIC = ROOT / "results" / "public_models.csv"
OBSSCALING_V2 = ROOT / "results" / "obsscaling" / "base_llm_leaderboard_v2_eval.csv"
V2_NATIVE = ("leaderboard_mmlu_pro", "leaderboard_bbh", "leaderboard_math_hard")


@pytest.fixture(scope="module")
def built() -> dict[str, pd.DataFrame]:
    return build_openllm_v2(SHIPPED / EXTRACT, SHIPPED / "curated.csv", PUBLIC, OBSSCALING_V2)


def test_the_shipped_files_are_a_fresh_build(built, tmp_path):
    for path in write_openllm_v2(built, tmp_path):
        assert path.read_bytes() == (SHIPPED / path.name).read_bytes(), path.name


def test_every_official_row_is_decided_and_the_kept_ones_are_pretrained_base_models(built):
    models, table = built["models"], built[TABLE.removesuffix(".csv")]
    assert len(models) == 470 and models["decision"].value_counts().to_dict() == {"refused": 332, "kept": 138}
    assert models.loc[models["decision"] == "refused", "reason"].str.len().gt(0).all()
    assert len(table) == 138 and table["model"].is_unique
    for name in table["model"].str.lower():
        assert not any(mark in name for mark in ("instruct", "chat", "-it", "flan", "dolly"))
    assert "microsoft/phi-4" not in set(table["model"]) and "gpt2" not in set(table["model"])


def test_the_pitfalls_are_handled_by_rule(built):
    table = built[TABLE.removesuffix(".csv")].set_index("model")
    assert table.loc["internlm/internlm2-1_8b", "params"] == 1_890_000_000  # listed as 8.0 B
    for moe in ("ibm-granite/granite-3.0-1b-a400m-base", "ibm-granite/granite-3.1-3b-a800m-base"):
        assert pd.notna(table.loc[moe, "active_params"])  # features_is_moe says dense
    assert table.loc["distilbert/distilgpt2", "release_date"] == ""  # uploaded on the Hub's migration day
    assert table.loc["Qwen/Qwen2.5-7B", "release_date"] == "2024-09-19" != table.loc["Qwen/Qwen2.5-7B", "upload_date"]
    assert (table["source"] == "fboulnois/llm-leaderboard-csv@0f4e5c69c6fb6515afa31ae61f4d699649bc9503").all()


def test_four_or_more_families_after_the_public_table_carry_the_declared_rows_scores(built):
    table = built[TABLE.removesuffix(".csv")]
    late = table[(table["release_date"].fillna("") > "2024-07-31")].dropna(subset=list(V2_NATIVE))
    counts = late["family"].value_counts()
    assert (counts >= 2).sum() >= 4 and {"Qwen2.5", "granite-3.0", "Falcon3", "SmolLM2"} <= set(counts.index)


def test_the_obsscaling_cross_check_is_the_readmes(built):
    overlap = built["overlap"]
    assert overlap["model"].nunique() == 66
    spread = overlap.assign(gap=overlap["difference"].abs()).groupby("benchmark")["gap"].max()
    assert spread[["leaderboard_mmlu_pro", "leaderboard_gpqa", "leaderboard_bbh"]].max() < 0.006
    assert spread["leaderboard_musr"] < 0.01 and 0.04 < spread["leaderboard_math_hard"] < 0.05
    ifeval = overlap.loc[overlap["benchmark"] == "leaderboard_ifeval", "difference"]
    assert (ifeval < 0).all()


def test_a_curated_file_that_refuses_and_fills_or_repeats_a_model_is_refused(tmp_path):
    good = (SHIPPED / "curated.csv").read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "curated.csv"
    bad.write_text("\n".join([good[0], "gpt2,an alias,GPT-2,,,,,,,,,,,"]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="row 2 .*refused model has no other field"):
        read_curated(bad)
    bad.write_text("\n".join([good[0], good[1], good[1]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="row 3 .*appears twice"):
        read_curated(bad)


def test_a_stale_curated_row_is_refused(tmp_path):
    folder = tmp_path / "t"
    shutil.copytree(SHIPPED, folder)
    with (folder / "curated.csv").open("a", encoding="utf-8") as handle:
        handle.write("nobody/none,,X,,,,,,,,,,https://example.org,\n")
    with pytest.raises(InputError, match="does not hold: \\['nobody/none'\\]"):
        build_openllm_v2(folder / EXTRACT, folder / "curated.csv", PUBLIC, OBSSCALING_V2)


def test_the_shipped_record_is_a_fresh_measurement():
    """results/openllm_v2/trend.json (python tools/build_tables.py openllm-v2-trend) equals what the engine computes."""
    from densing import registry
    from densing.data import read_results
    from densing.present.records import table_record
    from densing.trend.protocol import measure_table

    shipped = json.loads((SHIPPED / "trend.json").read_text(encoding="utf-8"))
    found = measure_table(read_results(registry.table("openllm_v2").path), "openllm_v2")
    measured, fresh = found.measured, table_record(found)
    assert fresh["verdict"] == shipped["verdict"]
    for new, old in zip(fresh["rows"], shipped["rows"], strict=True):
        assert new["row"] == old["row"] and new["status"] == old["status"]
        for key in ("months", "ci_low", "ci_high"):
            assert (new[key] is None and old[key] is None) or new[key] == pytest.approx(old[key], rel=1e-9)
    for new, old in zip(fresh["cross_check"], shipped["cross_check"], strict=True):  # the fixed-size rows beside them
        assert new["row"] == old["row"] and new["fixed_size_status"] == old["fixed_size_status"]
        assert new["fixed_size_ci_low"] == pytest.approx(old["fixed_size_ci_low"], rel=1e-9)
    head = next(r for r in shipped["rows"] if r["row"] == "v2_native")
    assert head["state"] and shipped["influence"]["v2_native"]  # the declared row's state and leave-one-family-out
    assert {r["family"] for r in shipped["influence"]["v2_native"]} == set(
        measured.influence()["v2_native"][i]["family"] for i in range(len(shipped["influence"]["v2_native"]))
    )


def test_the_declaration_precedes_every_result_on_the_table():
    """The commit order is the evidence: the declaration's first commit is an ancestor of the first commit of any
    result on the table (skipped outside a git checkout)."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")

    def first(path: str) -> str:
        found = subprocess.run(
            [git, "log", "--format=%H", "--diff-filter=A", "--", path],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        return found[-1] if found else ""

    declared = first("results/openllm_v2/DECLARATION.md")
    if not declared:
        pytest.skip("shallow history: the declaration's commit is not in it")
    for result in ("results/openllm_v2/trend_first.json", "results/openllm_v2/trend.json"):
        commit = first(result)
        assert commit and commit != declared
        assert subprocess.run([git, "merge-base", "--is-ancestor", declared, commit], cwd=ROOT).returncode == 0


#: Words of a curated note that say a model's weights start from another model's.
DERIVED_WORDS = (
    "pruned",
    "upscal",
    "up-scal",
    "continual",
    "continued",
    "continuation",
    "long-context",
    "extended to long context",
    "distilled",
)


def test_every_derived_model_follows_the_derived_token_rule(built):
    """D = the parent's count (its row's where the table holds the parent) + the derivation's own, or empty where
    either is unknown; a derived model never keeps a count of its own, and every model whose note describes a
    derivation is marked derived."""
    import math

    table = built[TABLE.removesuffix(".csv")]

    def num(value) -> float:
        return math.nan if value is None or pd.isna(value) else float(value)

    counts = {m: num(v) for m, v in zip(table["model"], table["train_tokens"])}
    derived = table[table["parent"].fillna("") != ""]
    assert {
        "tiiuae/Falcon3-1B-Base",
        "tiiuae/Falcon3-3B-Base",
        "tiiuae/Falcon3-10B-Base",
        "Qwen/Qwen2.5-Coder-7B",
        "01-ai/Yi-9B",
        "01-ai/Yi-1.5-9B-32K",
        "nvidia/Minitron-4B-Base",
    } <= set(derived["model"])
    for row in derived.to_dict("records"):
        parent = counts[row["parent"]] if row["parent"] in counts else num(row["parent_tokens"])
        if row["parent"] in counts:
            assert (math.isnan(parent) and math.isnan(num(row["parent_tokens"]))) or num(row["parent_tokens"]) == parent
        own = num(row["derivation_tokens"])
        expected = parent + own if not (math.isnan(parent) or math.isnan(own)) else math.nan
        found = num(row["train_tokens"])
        assert (math.isnan(expected) and math.isnan(found)) or found == expected, row["model"]
    notes = read_curated(SHIPPED / "curated.csv").set_index("model")["note"].str.lower()
    described = {m for m, note in notes.items() if any(w in note for w in DERIVED_WORDS)}
    assert described <= set(derived["model"]), sorted(described - set(derived["model"]))
    assert counts["tiiuae/Falcon3-1B-Base"] == 14e12 + 100e9 + 80e9  # a derivation of a derivation adds both stages


def test_a_derived_model_with_a_typed_count_or_an_unknown_derivation_is_refused(tmp_path):
    header = (SHIPPED / "curated.csv").read_text(encoding="utf-8").splitlines()[0]
    bad = tmp_path / "curated.csv"
    bad.write_text(
        header + "\nx/y,,Y,,,5e12,,x/z,continual_pretraining,,1e12,,https://example.org,\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match="row 2 .*a derived model's count is its parent's plus"):
        read_curated(bad)
    bad.write_text(header + "\nx/y,,Y,,,,,x/z,merged,,1e12,,https://example.org,\n", encoding="utf-8")
    with pytest.raises(InputError, match="field 'derivation': expected one of"):
        read_curated(bad)
    bad.write_text(header + "\nx/y,,Y,,,,,,,,1e12,,https://example.org,\n", encoding="utf-8")
    with pytest.raises(InputError, match="derivation_tokens given for a model with no 'parent'"):
        read_curated(bad)


def test_a_parent_chain_that_returns_to_a_model_is_refused():
    from tools.openllm_v2_table.build import derived_tokens

    nan = float("nan")
    loop = pd.DataFrame(
        {
            "model": ["a", "b"],
            "train_tokens": [nan, nan],
            "parent": ["b", "a"],
            "parent_tokens": [nan, nan],
            "derivation_tokens": [1.0, 1.0],
        }
    )
    with pytest.raises(InputError, match="returns to a model"):
        derived_tokens(loop)


def test_stablelm_2_12b_is_dated_by_its_weights_commit(built):
    row = built[TABLE.removesuffix(".csv")].set_index("model").loc["stabilityai/stablelm-2-12b"]
    assert row["release_date"] == "2024-04-05" and row["upload_date"] == "2024-03-21"
    assert "0225bfd0640567c28ccb7276ba0648e33b63cddf" in row["date_source"]


def test_the_shipped_record_holds_the_forecast_at_the_declared_cutoff():
    """trend.json's forecast check is run at the cutoff DECLARATION.md fixes and the registry registers, its verdict
    stored beside the grid's."""
    from densing import registry

    shipped = json.loads((SHIPPED / "trend.json").read_text(encoding="utf-8"))
    declared = shipped["forecast"]["declared"]
    assert declared["cutoff"] == registry.table("openllm_v2").cutoff == "2024-09-30"
    assert "Forecast check: cutoff 2024-09-30" in (SHIPPED / "DECLARATION.md").read_text(encoding="utf-8").replace(
        "**", ""
    ).replace("- ", "")
    assert declared["verdict"] and declared["outcome"] in {"ahead", "holds", "behind", "no verdict"}
    assert shipped["forecast"]["summary"].startswith("Forecast check of v2_native at its declared cutoff 2024-09-30")


def test_the_deviations_list_names_every_change_after_the_first_result():
    text = (SHIPPED / "DEVIATIONS.md").read_text(encoding="utf-8")
    for change in ("state rule", "Hotelling", "declared cutoff", "derived", "stablelm-2-12b"):
        assert change in text, change


def test_the_curation_sensitivity_is_shipped_and_its_first_row_is_the_shipped_row():
    """curation_sensitivity.csv (python tools/build_tables.py openllm-v2-sensitivity) holds every choice, its first
    row the declared row of trend.json."""
    from tools.openllm_v2_table.sensitivity import COLUMNS

    found = pd.read_csv(SHIPPED / "curation_sensitivity.csv")
    assert tuple(found.columns) == COLUMNS
    assert list(found["choice"]) == [
        "as shipped",
        "derived tokens not counted",
        "StableLM split",
        "upload dates",
        "StableLM split + upload dates",
    ]
    head = next(
        r for r in json.loads((SHIPPED / "trend.json").read_text(encoding="utf-8"))["rows"] if r["row"] == "v2_native"
    )
    for key in ("months", "ci_low", "ci_high"):
        assert found.loc[0, key] == pytest.approx(head[key], rel=1e-9)
    readme = (SHIPPED / "README.md").read_text(encoding="utf-8")
    assert "curation sensitivity" in readme.lower() and "openllm-v2-sensitivity" in readme


def test_the_draw_counts_record_holds_the_shipped_row_at_600_draws():
    """draw_counts.json (python tools/build_tables.py openllm-v2-draws): the declared row from 200, 600 and 2,400
    starting draws; from 600 it is trend.json's row, and the forecast check's early line is the shipped one."""
    shipped = json.loads((SHIPPED / "trend.json").read_text(encoding="utf-8"))
    head = next(r for r in shipped["rows"] if r["row"] == "v2_native")
    runs = {
        run["n_boot"]: run for run in json.loads((SHIPPED / "draw_counts.json").read_text(encoding="utf-8"))["runs"]
    }
    assert sorted(runs) == [200, 600, 2400]
    for key in ("months", "ci_low", "ci_high", "n_draws"):
        assert runs[600]["row"][key] == pytest.approx(head[key], rel=1e-9)
    assert runs[600]["row"]["status"] == head["status"]
    assert all(run["forecast"] == shipped["forecast"]["declared"] for run in runs.values())
    assert len({round(run["row"]["months"], 2) for run in runs.values()}) == 3  # the point moves with the draws


def test_each_sensitivity_choice_changes_what_it_names_and_nothing_else(built):
    from tools.openllm_v2_table.sensitivity import choices

    table = built[TABLE.removesuffix(".csv")]
    found = choices(table, read_curated(SHIPPED / "curated.csv"))
    changed = {name: {c for c in table.columns if not frame[c].equals(table[c])} for name, frame in found.items()}
    assert changed["as shipped"] == set()
    assert changed["derived tokens not counted"] == {"train_tokens"}
    assert changed["StableLM split"] == {"family"}
    assert changed["upload dates"] == {"release_date", "date_confidence", "date_source"}
    split = found["StableLM split"].set_index("model")["family"]
    assert (
        split["stabilityai/stablelm-3b-4e1t"]
        != split["stabilityai/stablelm-2-12b"]
        == split["stabilityai/stablelm-2-1_6b"]
    )
    dated = found["upload dates"].set_index("model")
    assert dated.loc["Qwen/Qwen2.5-7B", "release_date"] == "2024-09-15"  # the release note's 2024-09-19 replaced
    assert dated.loc["Qwen/Qwen1.5-7B", "release_date"] == "2024-02-05"  # the public table's date kept


def test_a_missing_or_damaged_sensitivity_file_is_named_in_one_line_and_left_out(tmp_path, monkeypatch):
    from densing import paths
    from densing.report.designs import openllm_v2 as report

    monkeypatch.setattr(paths, "RESULTS", tmp_path)
    monkeypatch.setattr(report, "SENSITIVITY", tmp_path / "openllm_v2" / "curation_sensitivity.csv")
    found, note = report.curation_sensitivity()
    assert found is None and "is not shipped" in note and "\n" not in note
    report.SENSITIVITY.parent.mkdir()
    report.SENSITIVITY.write_text("choice,months\nas shipped,six\n", encoding="utf-8")
    found, note = report.curation_sensitivity()
    assert found is None and "cannot be read" in note and "ci_low" in note
    shipped = report.curation_sensitivity.__globals__["SENSITIVITY"]
    assert shipped.exists()


def test_the_sections_intro_names_the_column_that_holds_the_stored_record():
    """The intro names the record's column by its heading, and that heading is the comparison's column of the
    record's months (not the public table's)."""
    import re

    from densing.report.designs import openllm_v2 as report

    found = report.section(None, pd.DataFrame(columns=["row"]), 3.3)
    intro = report.render(found).intro
    named = re.search(r'the column "([^"]+)"', intro).group(1)
    declared = next(r for r in found.record["rows"] if r["row"] == "v2_native")
    assert named in found.comparison.columns
    assert found.comparison.loc[0, named] == report.record_cell(declared) != found.comparison.loc[0, "row"]
