"""One rule for when a density is a bound (densing.display.density_reading), read the same by ``densing density``,
``densing measure``, the report's per-model table and the API's per-model frame; the frontier's ρmax at a date with
its band and the line's range of dates; every trend estimate with its interval."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from densing.display import LOWER_BOUND, NEAR_CHANCE, NO_READING, UPPER_BOUND, VALUE, density_reading, frame_columns


@pytest.mark.parametrize(
    "args, reading, stated",
    [
        ((0.5, "upper bound", 0.1, 0.9), UPPER_BOUND, 0.5),  # censored: the bound is the density itself
        ((2.0, "lower bound", 1.0, math.inf), LOWER_BOUND, 2.0),
        ((0.3, "", 0.1, 0.9, True), UPPER_BOUND, 0.9),  # at chance: the upper end
        ((0.01, "", 0.0, 0.02), UPPER_BOUND, 0.02),  # an interval from 0: the upper end
        ((3.0, "", 1.5, math.inf), LOWER_BOUND, 1.5),  # an interval to ∞: the lower end
        ((1.0, "", 0.0, math.inf), NO_READING, math.nan),  # 0 to ∞: nothing
        ((1.0, "dropped", 0.5, 2.0), NO_READING, math.nan),
        ((1.0, "", 0.5, 2.0), VALUE, 1.0),
        ((1.0, "", math.nan, math.nan), VALUE, 1.0),  # no interval computed
    ],
)
def test_the_rule(args, reading, stated):
    got, value, why = density_reading(*args)
    assert got == reading
    assert (math.isnan(value) and math.isnan(stated)) or value == stated
    assert (why == NEAR_CHANCE) == (len(args) > 4 and args[4] is True)


def test_a_table_writes_an_interval_bound_as_a_bound():
    frame = pd.DataFrame(
        {
            "model": ["a", "b", "c"],
            "density": [1.0, 0.01, 3.0],
            "bound": ["", "", ""],
            "density_ci_low": [0.5, 0.0, 1.5],
            "density_ci_high": [2.0, 0.02, math.inf],
            "effective_params": [1e9, 1e7, 3e9],
        }
    )
    cells = dict(frame_columns(frame))
    assert cells["ρ"] == ["1", "≤ 0.02", "≥ 1.5"]
    assert cells["N̂ (params)"] == ["1B", "≤ 20M", "≥ 1.5B"]  # N̂ scales with ρ's bound
    assert cells["bound"] == ["", "upper bound (interval)", "lower bound (interval)"]


@pytest.fixture(scope="module")
def headline():
    from densing.data import read_results
    from densing.paths import DEFAULT_DENSITY_TARGETS as DEFAULT_RESULTS
    from densing.trend.measure import headline_densities

    return headline_densities(read_results(DEFAULT_RESULTS))


def _signs(cells):
    return ["≤" if c.startswith("≤") else "≥" if c.startswith("≥") else "" for c in cells]


def test_density_the_report_and_the_api_flag_the_same_rows(headline, run_cli):
    from densing.display import BOUND_SIGNS
    from densing.report.render_parts import model_table as _model_table

    api = [BOUND_SIGNS.get(r, "").strip() for r in headline["reading"]]
    assert "≤" in api  # the public table has a density whose interval reaches 0 (a plain number before)
    report = dict(frame_columns(_model_table(headline)))["ρ"]
    code, out, err = run_cli("density", "--format", "json")
    assert code == 0, err
    cli = pd.DataFrame(json.loads(out)["rows"] if out.lstrip().startswith("{") else json.loads(out))
    cli = cli.set_index("model").loc[headline["model"]]
    assert [BOUND_SIGNS.get(r, "").strip() for r in cli["reading"]] == api
    assert _signs(report) == api
    from densing.placement.place import _verdict

    for row in headline.to_dict("records"):  # densing measure reads a row the same way
        placed = _verdict(
            {**row, "release_date": "2024-01-01", "frontier_density": 1.0}, {"chance_scores": (), "chance_items": None}
        )
        assert placed["reading"] == row["reading"]


def test_each_row_names_its_reference_and_each_benchmark_density_has_its_bound(headline):
    assert headline["reference"].nunique() == 1 and headline["reference"].iloc[0].split(":")[1].startswith("joint(")
    for column in [c for c in headline.columns if c.startswith("density:")]:
        b = column.split(":", 1)[1]
        infinite = ~np.isfinite(headline[column]) & headline[column].notna()
        assert (headline.loc[infinite, f"bound:{b}"] == "lower bound").all()  # ∞ was printed as a value before
        exact = headline[f"bound:{b}"].eq("") & headline[column].notna()
        low, high = headline.loc[exact, f"density_ci_low:{b}"], headline.loc[exact, f"density_ci_high:{b}"]
        assert (
            (low <= headline.loc[exact, column] * (1 + 1e-9)) & (headline.loc[exact, column] <= high * (1 + 1e-9))
        ).all()


class _Line:
    epoch = "2023-02-24"
    slope_per_day, intercept = 0.002, 0.0

    def predict(self, dates):
        return (
            self.slope_per_day * (pd.to_datetime(dates) - pd.Timestamp(self.epoch)).days.to_numpy(float)
            + self.intercept
        )

    def confidence_band(self, dates):
        days = (pd.to_datetime(dates) - pd.Timestamp(self.epoch)).days.to_numpy(float)
        return 0.001 * days, 0.003 * days


def test_the_frontier_at_a_date_has_its_band_and_holds_how_far_the_date_is_outside_the_line():
    from densing.placement.place import frontier_at
    from densing.present.placed import frontier_note

    span = ("2023-02-24", "2024-07-31")
    inside = frontier_at(_Line(), "2024-01-01", span)
    assert inside["frontier_density_ci_low"] < inside["frontier_density"] < inside["frontier_density_ci_high"]
    assert inside["frontier_outside"] == "" and math.isnan(inside["frontier_months_outside"])
    assert (
        inside["frontier_last_date"] == "2024-07-31" and frontier_note({**inside, "release_date": "2024-01-01"}) == ""
    )
    after = frontier_at(_Line(), "2024-11-01", span)
    assert after["frontier_outside"] == "after" and after["frontier_months_outside"] == pytest.approx(93 / 30.4375)
    assert "3.06 months after the line's last model (2024-07-31)" in frontier_note(
        {**after, "release_date": "2024-11-01"}
    )
    before = frontier_at(_Line(), "2023-01-01", span)
    assert before["frontier_outside"] == "before"
    assert "before the line's first model (2023-02-24)" in frontier_note({**before, "release_date": "2023-01-01"})


def test_every_trend_row_has_the_slope_with_its_interval():
    from densing.present.words import row_record
    from densing.trend.capability import Row, RowSpec

    record = row_record(Row(RowSpec("mmlu", "MMLU", "knowledge", ("mmlu",)), (), None))
    assert {"slope_per_day", "slope_ci_low", "slope_ci_high"} <= set(record)
