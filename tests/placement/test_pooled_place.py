"""``densing measure --table all`` (densing/placement/pooled_place.py, densing/cli/pooled_measure.py): a model's scores
read in its table's protocol, its ln ρ mapped to the common scale by that table's a and s, placed against the pooled
band; the protocol named, told from the file, or refused in one line."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import densing
from densing import registry
from densing.errors import InputError
from densing.placement import pooled_place
from densing.trend import pooled_trend as pooled_module

V2_SCORES = "tests/placement/fixtures/v2_scores.csv"


@pytest.fixture(scope="module")
def pooled():
    """The pooled law of the shipped tables at 40 draws, computed once for the module."""
    return densing.pooled_trend(n_boot=40, seed=0)


@pytest.fixture
def cached(monkeypatch, pooled):
    """``densing measure --table all`` reads the module's pooled law."""
    monkeypatch.setattr(pooled_module, "pooled_trend", lambda **options: pooled)


def _scores(columns: dict) -> pd.DataFrame:
    return pd.DataFrame({"benchmark": list(columns)})


def test_the_protocol_is_told_from_the_headline_benchmarks_the_file_holds():
    assert (
        pooled_place.protocol_of(_scores({"mmlu_pro": 1, "leaderboard_bbh": 1, "math_hard": 1}), None, "f")
        == "openllm_v2"
    )
    assert (
        pooled_place.protocol_of(_scores({"mmlu": 1, "leaderboard_bbh": 1, "math_hard": 1, "humaneval": 1}), None, "f")
        == "public"
    )
    with pytest.raises(InputError, match="public and openllm_v2; give --protocol"):
        pooled_place.protocol_of(
            _scores({"mmlu": 1, "mmlu_pro": 1, "leaderboard_bbh": 1, "math_hard": 1, "humaneval": 1}), None, "f"
        )
    with pytest.raises(InputError, match="no table's headline benchmarks"):
        pooled_place.protocol_of(_scores({"gpqa": 1}), None, "f")
    with pytest.raises(InputError, match="none of the swallow table's"):
        pooled_place.protocol_of(_scores({"mmlu_pro": 1}), "swallow", "f")


def test_a_bound_is_placed_only_where_its_direction_decides():
    assert pooled_place.band_place("value", 2.0, 0.0, 1.0) == "above"
    assert pooled_place.band_place("value", 0.5, 0.0, 1.0) == "within"
    assert pooled_place.band_place("upper bound", -1.0, 0.0, 1.0) == "below"
    assert pooled_place.band_place("upper bound", 2.0, 0.0, 1.0) == "undetermined"
    assert pooled_place.band_place("lower bound", 2.0, 0.0, 1.0) == "above"
    assert pooled_place.band_place("lower bound", -1.0, 0.0, 1.0) == "undetermined"


def test_the_band_code_is_said_by_the_present_layer():
    from densing.present.pooled import band_words, placed_frame

    assert band_words("undetermined") == "undetermined against" and band_words("above") == "above"
    frame = pd.DataFrame({"model": ["a", "b"], "band": ["within", "undetermined"]})
    assert list(placed_frame(frame)["band"]) == ["within", "undetermined against"]
    assert list(frame["band"]) == ["within", "undetermined"]  # the values are left as they are


@pytest.mark.parametrize("table", ["openllm_v2", "swallow"])
def test_a_tables_own_target_lands_on_its_pooled_point(pooled, table):
    """A target of ``table``, placed from its own scores in its protocol, is mapped where the pooled law put it."""
    row = pooled.points[(pooled.points["table"] == table) & (pooled.points["bound"] == 0)].iloc[-1]
    found = densing.read_results(registry.resolve_table(table=table).path)
    own = found[(found["model"] == row["model"]) & found["benchmark"].isin(pooled_place.headline_benchmarks(table))]
    columns = [c for c in ("benchmark", "metric", "value", "stderr", "params", "release_date") if c in own.columns]
    placed = densing.place(own[columns].assign(model="mine/copy"), table=table, n_boot=40)
    frame = pooled_place.place_pooled(pooled, protocol=table, placed=placed)
    assert frame["reading"].item() == "value"
    assert math.isclose(math.log(frame["density_own"].item()), row["log_density_own"], abs_tol=0.05)
    assert math.isclose(math.log(frame["density"].item()), row["log_density"], abs_tol=0.05)
    a, s = pooled.scale_of(table)
    assert math.isclose(math.log(frame["density"].item()), a + s * math.log(frame["density_own"].item()))


def test_measure_table_all_places_a_file_told_by_its_benchmarks(run_cli, cached, tmp_path):
    csv = tmp_path / "placed.csv"
    code, out, err = run_cli("measure", "--table", "all", "--scores", V2_SCORES, "--n-boot", "40", "--csv", str(csv))
    assert code == 0, err
    assert "read in the openllm_v2 protocol" in " ".join(out.split())
    rows = pd.read_csv(csv)
    assert list(rows.columns) == list(pooled_place.PLACED_COLUMNS) and rows["protocol"].item() == "openllm_v2"
    assert rows["band"].item() in ("above", "within", "below")


@pytest.mark.parametrize(
    "argv, named",
    [
        (("--table", "all", "--scores", "MIXED"), "--protocol"),
        (("--table", "all", "--scores", V2_SCORES, "--protocol", "olmes"), "--protocol"),
        (("--table", "all", "--models", "models.yaml"), "--models"),
        (("--table", "all", "--scores", V2_SCORES, "--out", "r.html"), "--out"),
        (("--table", "all"), "--scores"),
        (("--scores", V2_SCORES, "--protocol", "public"), "--protocol"),
    ],
)
def test_what_cannot_be_placed_on_the_pooled_law_is_refused_in_one_line(run_cli, tmp_path, argv, named):
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(
        "model,params,release_date,MMLU,MMLU-Pro,BBH,MATH-hard,HumanEval\n"
        "my-org/m,7e9,2024-06-07,0.6,0.41,0.52,0.19,0.3\n"
    )
    code, out, err = run_cli("measure", *[str(mixed) if a == "MIXED" else a for a in argv], "--n-boot", "40")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and named in err
