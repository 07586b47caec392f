"""studies/three_tables.py's world builder: every table's points read back onto the common scale give the planted
line; a model's, a family's and a lab's draws are one across tables; bounds keep their kind and never exclude the
planted value; the late frontier families sit on the frontier; a steeper table has its own slope; the stages of the
bias between the oracle and the estimator read what they say."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.trend.table_rows import TableRow


@pytest.fixture(scope="module")
def study():
    from studies import three_tables

    return three_tables


def _row(table: str, models: list[str], kinds: list[float], t: list[float]) -> TableRow:
    """A small row: each model its own family except the Qwen2 ones, two labs, noise 0.2 on every point."""
    family = ["Qwen2" if model.startswith("qwen2") else model for model in models]
    lab = ["Alibaba (Qwen)" if model.startswith("qwen2") else "Other" for model in models]
    points = pd.DataFrame(
        {
            "model": models,
            "family": family,
            "lab": lab,
            "release_date": "2024-01-01",
            "t": np.asarray(t, float),
            "y": 0.0,
            "kind": np.asarray(kinds, float),
            "noise": 0.2,
        }
    )
    return TableRow(table, f"{table} row", ("Ref",), points, ("Alibaba (Qwen)",))


def _rows() -> list[TableRow]:
    return [
        _row("public", ["qwen2-7b", "m1", "m2", "tiny"], [EXACT, EXACT, EXACT, UPPER], [300, 100, 200, 500]),
        _row(
            "openllm_v2",
            ["qwen2-7b", "m1", "m3", "big", "none"],
            [EXACT, EXACT, EXACT, LOWER, math.nan],
            [300, 100, 400, 450, 460],
        ),
        _row("swallow", ["qwen2-7b", "m2", "m3"], [EXACT, EXACT, EXACT], [302, 200, 400]),
    ]


def _still(study, **changes):
    """The common world with no spread at all (and ``changes``)."""
    base = dict(lab_sd=0.0, model_sd=0.0, harness_sd=0.0, gap_mean=0.0, bound_gap=0.0)
    return study.World("still", **{**base, **changes})


def _on_common_scale(study, rows: list[TableRow]) -> dict[str, np.ndarray]:
    """Each table's planted y mapped back by the planted y_public = a_T + s_T·y_T."""
    out = {}
    for row in rows:
        compression, offset = study.TABLE_SCALES[row.table]
        out[row.table] = (row.points["y"].to_numpy(float) - offset) / compression
    return out


def test_with_no_spread_every_exact_point_maps_back_onto_the_planted_line(study):
    world = _still(study)
    rows = _rows()
    found = study.planted_rows(rows, world, np.random.default_rng(0))
    planted, truth = found.rows, found.truth
    t_ref = float(study.dates_as_days([study.T_REF], study.parse_epoch(study.DEFAULT_EPOCH))[0])
    for row in planted:
        back = _on_common_scale(study, [row])[row.table]
        exact = row.points["kind"].to_numpy(float) == EXACT
        line = world.slope * (row.points["t"].to_numpy(float) - t_ref) + world.frontier
        assert np.allclose(back[~exact], line[~exact])  # a bound with no gap sits at the planted value
        assert np.std(back[exact] - line[exact]) > 0  # exact points carry their noise …
        assert np.all(np.abs(back[exact] - line[exact]) < 6 * 0.2 / study.TABLE_SCALES[row.table][0])  # … of σ_i
    assert len(truth) == sum(len(row.points) for row in planted) == 11  # the point without a kind is left out
    assert "none" not in set(planted[1].points["model"])


def test_a_model_family_and_lab_are_one_draw_in_every_table(study):
    world = _still(study, lab_sd=0.3, model_sd=0.15, gap_mean=1.0)
    found = study.planted_rows(_rows(), world, np.random.default_rng(3))
    planted, truth = found.rows, found.truth
    models = np.concatenate([row.points["model"].to_numpy(object) for row in planted])
    t = np.concatenate([row.points["t"].to_numpy(float) for row in planted])
    departure = truth - world.slope * t
    for model in ("m1", "m2", "m3"):
        assert np.ptp(departure[models == model]) == pytest.approx(0.0, abs=1e-12)
    assert np.ptp(departure[models != "qwen2-7b"]) > 0.05  # other families draw their own gaps
    harness = study.planted_rows(_rows(), _still(study, harness_sd=0.1), np.random.default_rng(3)).truth
    assert np.ptp((harness - world.slope * t)[models == "m1"]) > 0  # the harness's departure is the table's own


def test_the_late_frontier_family_sits_on_the_frontier(study):
    world = _still(study, gap_mean=5.0)
    found = study.planted_rows(_rows(), world, np.random.default_rng(1))
    planted, truth = found.rows, found.truth
    models = np.concatenate([row.points["model"].to_numpy(object) for row in planted])
    t = np.concatenate([row.points["t"].to_numpy(float) for row in planted])
    t_ref = float(study.dates_as_days([study.T_REF], study.parse_epoch(study.DEFAULT_EPOCH))[0])
    gap = world.slope * (t - t_ref) + world.frontier - truth
    assert np.allclose(gap[models == "qwen2-7b"], 0.0)
    assert np.all(gap[models != "qwen2-7b"] > 0)
    drawn = _still(study, gap_mean=5.0, late_frontier=False)
    truth = study.planted_rows(_rows(), drawn, np.random.default_rng(1)).truth
    assert np.all((world.slope * (t - t_ref) + world.frontier - truth)[models == "qwen2-7b"] > 0)


def test_bounds_keep_their_kind_and_side_of_the_planted_value(study):
    world = _still(study, bound_gap=0.5)
    rows = _rows()
    found = study.planted_rows(rows, world, np.random.default_rng(2))
    planted, truth = found.rows, found.truth
    back = np.concatenate(list(_on_common_scale(study, planted).values()))
    kinds = np.concatenate([row.points["kind"].to_numpy(float) for row in planted])
    assert list(kinds) == [EXACT, EXACT, EXACT, UPPER, EXACT, EXACT, EXACT, LOWER, EXACT, EXACT, EXACT]
    assert np.all(back[kinds == UPPER] > truth[kinds == UPPER])
    assert np.all(back[kinds == LOWER] < truth[kinds == LOWER])


def test_a_steeper_table_has_its_own_slope(study):
    world = study.WORLDS["steeper_v2"]
    assert world.table_slope("openllm_v2") == pytest.approx(1.5 * world.slope)
    assert world.table_slope("public") == world.table_slope("swallow") == world.slope
    flat = replace_spreads(study, world)
    found = study.planted_rows(_rows(), flat, np.random.default_rng(0))
    planted, truth = found.rows, found.truth
    tables = np.concatenate([[row.table] * len(row.points) for row in planted])
    t = np.concatenate([row.points["t"].to_numpy(float) for row in planted])
    v2 = tables == "openllm_v2"
    assert np.polyfit(t[v2], truth[v2], 1)[0] == pytest.approx(1.5 * world.slope)
    assert np.polyfit(t[~v2], truth[~v2], 1)[0] == pytest.approx(world.slope)


def replace_spreads(study, world):
    """``world`` with no spread."""
    return _still(study, ratios=world.ratios, months=world.months)


def test_the_quiet_reading_is_the_reading_less_the_exact_points_noise(study):
    world = _still(study, bound_gap=0.5)
    found = study.planted_rows(_rows(), world, np.random.default_rng(4))
    y = np.concatenate([row.points["y"].to_numpy(float) for row in found.rows])
    kinds = np.concatenate([row.points["kind"].to_numpy(float) for row in found.rows])
    tables = np.concatenate([[row.table] * len(row.points) for row in found.rows])
    compression = np.array([study.TABLE_SCALES[table][0] for table in tables])
    offset = np.array([study.TABLE_SCALES[table][1] for table in tables])
    exact = kinds == EXACT
    assert np.allclose(found.bounded[~exact], y[~exact])  # a bound keeps its gap
    assert np.allclose(found.bounded[exact], compression[exact] * found.truth[exact] + offset[exact])  # no noise
    assert np.all(found.bounded[exact] != y[exact])  # the estimator's reading carries it


def test_the_stages_part_the_bias_into_bounds_noise_and_scales(study):
    world = _still(study)
    rows = [replace_noise(row, 0.0) for row in _rows()]
    found = study.planted_rows(rows, world, np.random.default_rng(5))
    stages = study.stage_slopes(found)
    assert stages["read"] == pytest.approx(stages["bounds"], abs=1e-12)  # no noise: reading adds nothing
    noisy = study.planted_rows(_rows(), world, np.random.default_rng(5))
    assert study.stage_slopes(noisy)["bounds"] == pytest.approx(stages["bounds"], abs=1e-12)  # bounds alone
    oracles = study.table_oracles(found.rows, found.truth)
    assert set(oracles) == {"public", "openllm_v2", "swallow"}
    assert oracles["openllm_v2"] == pytest.approx(world.slope)  # a table's own still points lie on the line


def replace_noise(row: TableRow, noise: float) -> TableRow:
    """``row`` with every point's noise ``noise``."""
    from dataclasses import replace

    return replace(row, points=row.points.assign(noise=noise))
