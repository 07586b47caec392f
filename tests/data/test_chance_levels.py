"""The registry's chance levels of MMLU-Pro, the leaderboard's BBH and TruthfulQA mc2 equal the ones computed from their
items by tools/chance_levels.py (MMLU-Pro and TruthfulQA from results/benchmark_items/, BBH from the shared
BIG-Bench-Hard task files, skipped where the shared data is absent), and the script's results file is its output."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from densing.data.benchmarks import BENCHMARKS, CHANCE_LEVELS, item_count
from densing.errors import InputError
from tests.conftest import SHARED_DATA
from tools import chance_levels

BBH_FILES = SHARED_DATA / "benchmarks" / "bbh" / "bbh"
needs_bbh = pytest.mark.skipif(not BBH_FILES.is_dir(), reason=f"no BIG-Bench-Hard task files at {BBH_FILES}")


def test_mmlu_pro_chance_is_the_mean_of_one_over_k_over_its_items() -> None:
    chance, options = chance_levels.mmlu_pro_chance()
    assert sum(options.values()) == item_count("mmlu_pro") == 12032
    assert min(options) == 3 and max(options) == 10 and 0.82 < options[10] / 12032 < 0.84  # 83% have ten options
    assert CHANCE_LEVELS["mmlu_pro"] == float(chance)
    assert 0.11 < CHANCE_LEVELS["mmlu_pro"] < 0.112  # above the 1/10 of ten options on every item


def test_truthfulqa_mc2_chance_is_the_mc2_score_of_equal_probabilities() -> None:
    chance, items, answers = chance_levels.truthfulqa_mc2_chance()
    assert items == item_count("truthfulqa_mc2") == 817 and answers == 5882
    assert CHANCE_LEVELS["truthfulqa_mc2"] == float(chance)
    assert 0.44 < CHANCE_LEVELS["truthfulqa_mc2"] < 0.45


@needs_bbh
def test_bbh_chance_is_the_uniform_guess_and_the_majority_label_its_stated_sensitivity() -> None:
    uniform, majority, items = chance_levels.bbh_chance()
    assert items == item_count("leaderboard_bbh") == 5761
    assert CHANCE_LEVELS["leaderboard_bbh"] == float(uniform)
    assert majority == Fraction(1927, 5761) and f"{majority.numerator}/{majority.denominator}" in (
        BENCHMARKS["leaderboard_bbh"].chance_source
    )


@pytest.mark.parametrize("name", ["mmlu_pro", "leaderboard_bbh", "truthfulqa_mc2"])
def test_each_source_names_its_item_file_and_the_command(name: str) -> None:
    source = BENCHMARKS[name].chance_source
    assert "python tools/chance_levels.py" in source and f"{item_count(name):,}" in source


@needs_bbh
def test_the_results_file_is_the_scripts_output() -> None:
    lines = chance_levels.RESULTS.read_text(encoding="utf-8").splitlines()
    assert lines == [f"# {chance_levels.COMMAND}", *chance_levels.report()]


def test_a_bad_item_file_is_an_input_error_naming_the_row_and_field(tmp_path) -> None:
    bad = tmp_path / "options.csv"
    bad.write_text("question_id,category,options\n1,law,10\n2,law,ten\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"row 3, field 'options'"):
        chance_levels.mmlu_pro_chance(bad)
    with pytest.raises(InputError, match="missing column"):
        chance_levels.truthfulqa_mc2_chance(bad)


def test_extract_refuses_a_file_that_is_not_json(tmp_path, monkeypatch) -> None:
    for name in ("ITEMS", "MMLU_PRO_OPTIONS", "TRUTHFULQA_ANSWERS"):
        monkeypatch.setattr(chance_levels, name, tmp_path / "items" / name)
    broken = tmp_path / "items.json"
    broken.write_text("{not json", encoding="utf-8")
    good = tmp_path / "mc_task.json"
    good.write_text(json.dumps([{"mc2_targets": {"a": 1, "b": 0}}]), encoding="utf-8")
    assert chance_levels.main(["extract", "--mmlu-pro", str(broken), "--truthfulqa", str(good)]) == 2
    assert not (tmp_path / "items").exists()
