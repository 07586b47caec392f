"""The chance levels and item counts of the public table's leaderboard-v2 benchmarks, and their derivation."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from densing.data import benchmarks
from densing.data.benchmarks import CHANCE_LEVELS, binomial_stderr, item_count

#: Per-subtask options and items of the Open LLM Leaderboard v2 benchmarks with subtasks (BBH, MuSR, GPQA):
#: benchmark, subtask, lm_eval_task, choices, items, source (the file beside densing/data/benchmarks.py).
SUBTASK_TABLE = Path(benchmarks.__file__).with_name("leaderboard_v2_subtasks.csv")

ROOT = Path(__file__).resolve().parents[2]
LEADERBOARD = ROOT / "results" / "obsscaling" / "base_llm_leaderboard_v2_eval.csv"

#: The table's leaderboard-v2 benchmarks with a chance level, under their registry names, and the
#: ObsScaling column each one is.
V2 = {
    "leaderboard_bbh": "leaderboard_bbh",
    "gpqa": "leaderboard_gpqa",
    "math_hard": "leaderboard_math_hard",
    "mmlu_pro": "leaderboard_mmlu_pro",
    "musr": "leaderboard_musr",
}


@pytest.fixture(scope="module")
def subtasks() -> pd.DataFrame:
    return pd.read_csv(SUBTASK_TABLE)


def _micro_average_chance(subtasks: pd.DataFrame, benchmark: str) -> Fraction:
    """Chance level of ``benchmark``'s item-weighted aggregate: Σ nᵢ/kᵢ / Σ nᵢ over its subtasks, exactly."""
    rows = subtasks[subtasks["benchmark"] == benchmark]
    assert len(rows), benchmark
    return sum(Fraction(int(n), int(k)) for n, k in zip(rows["items"], rows["choices"])) / int(rows["items"].sum())


@pytest.mark.parametrize("benchmark", sorted(V2))
def test_every_leaderboard_v2_benchmark_has_a_chance_level_and_an_item_count(benchmark: str) -> None:
    assert 0.0 <= CHANCE_LEVELS[benchmark] < 1.0
    assert item_count(benchmark) > 0
    assert binomial_stderr([0.3], benchmark)[0] > 0


def test_ifeval_has_no_chance_level() -> None:
    assert "ifeval" not in CHANCE_LEVELS


def test_the_chain_of_thought_bbh_keeps_its_zero_floor() -> None:
    assert CHANCE_LEVELS["bbh"] == 0.0
    assert CHANCE_LEVELS["leaderboard_bbh"] > 0.25


@pytest.mark.parametrize("benchmark", ["leaderboard_bbh", "musr"])
def test_aggregate_chance_is_the_item_weighted_mean_of_the_subtasks(benchmark: str, subtasks: pd.DataFrame) -> None:
    assert CHANCE_LEVELS[benchmark] == float(_micro_average_chance(subtasks, benchmark))


def test_subtask_table_adds_up_to_the_item_counts(subtasks: pd.DataFrame) -> None:
    assert subtasks["source"].str.len().gt(40).all()
    counts = subtasks.groupby("benchmark")["items"].agg(["sum", "size"])
    assert counts.loc["leaderboard_bbh"].tolist() == [5761, 24]
    assert counts.loc["musr"].tolist() == [756, 3]
    assert counts.loc["gpqa"].tolist() == [1192, 3]
    for benchmark in counts.index:
        assert item_count(benchmark) == counts.loc[benchmark, "sum"]
    assert (
        _micro_average_chance(subtasks, "gpqa")
        == Fraction(1, 4)
        == Fraction(CHANCE_LEVELS["gpqa"]).limit_denominator(10)
    )
    bbh = subtasks[subtasks["benchmark"] == "leaderboard_bbh"].set_index("subtask")["choices"]
    assert bbh[
        ["geometric_shapes", "object_counting", "reasoning_about_colored_objects", "movie_recommendation"]
    ].tolist() == [11, 19, 18, 6]


@pytest.mark.parametrize(("benchmark", "column"), sorted(V2.items()))
def test_the_sources_scores_are_whole_counts_of_these_items(benchmark: str, column: str) -> None:
    """ObsScaling's v2 numbers are raw fractions of the items (a micro average), not 0-100 normalised scores."""
    scores = pd.read_csv(LEADERBOARD)[column].to_numpy(float)
    correct = scores * item_count(benchmark)
    assert len(scores) == 72
    assert abs(correct - correct.round()).max() < 1e-6
