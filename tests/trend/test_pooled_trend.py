"""The pooled law of the three tables as a result (densing.trend.pooled_trend, ``densing.pooled_trend()``): its
intervals, its tables' rows, its points on the common scale and its summary."""

from __future__ import annotations

import math

import numpy as np
import pytest

import densing
import densing.present as present
from densing.errors import InputError
from densing.trend.pooled_trend import POINT_COLUMNS, TABLE_COLUMNS, PooledTrend


@pytest.fixture(scope="module")
def pooled() -> PooledTrend:
    """The pooled law of the shipped tables at 40 draws, computed once for the module."""
    return densing.pooled_trend(n_boot=40, seed=0)


def test_the_notebook_names_it():
    assert "pooled_trend" in densing.__all__


def test_conf_int_holds_the_pooled_time_each_tables_own_and_each_scale(pooled):
    found = pooled.conf_int()
    assert list(found.index[:2]) == ["doubling_time_months", "slope_per_day"]
    assert {"public.doubling_time_months", "openllm_v2.a", "openllm_v2.s", "swallow.a", "swallow.s"} <= set(found.index)
    assert "public.a" not in found.index  # the common scale's table is not mapped
    head = found.loc["doubling_time_months"]
    assert head["ci_low"] <= head["estimate"] <= head["ci_high"]
    assert math.isclose(head["estimate"], pooled.record["pooled"]["doubling_time_months"])
    with pytest.raises(InputError, match="alpha"):
        pooled.conf_int(alpha=0.1)


def test_to_frame_is_one_row_per_table_with_its_scale(pooled):
    frame = pooled.to_frame()
    assert list(frame.columns) == list(TABLE_COLUMNS)
    assert list(frame["table"]) == ["public", "openllm_v2", "swallow"]
    public = frame.iloc[0]
    assert (public["a"], public["s"]) == (0.0, 1.0)
    assert frame.loc[frame["table"] == "swallow", "through"].item() == "openllm_v2"


def test_every_point_is_on_the_common_scale_by_its_tables_point_a_and_s(pooled):
    points = pooled.points
    assert list(points.columns) == list(POINT_COLUMNS) and len(points) == pooled.n_points
    for table in pooled.names:
        a, s = pooled.scale_of(table)
        rows = points[points["table"] == table]
        assert s > 0 and np.allclose(rows["log_density"], a + s * rows["log_density_own"])
    assert set(points["bound"]) == {-1.0, 0.0, 1.0}  # exact points and bounds of both directions, kept as bounds
    with pytest.raises(InputError, match="swallow_2026"):
        pooled.scale_of("swallow_2026")


def test_the_line_and_its_band_at_a_date(pooled):
    line = pooled.predict(["2024-07-31"])
    low, high = pooled.confidence_band(["2023-06-01", "2024-07-31", "2025-03-01"])
    assert math.isclose(line[0], pooled.slope_per_day * pooled.days(["2024-07-31"])[0] + pooled.intercept)
    assert np.all(low <= high) and low[1] <= line[0] <= high[1]


def test_the_summary_says_the_pooled_time_and_the_test(pooled):
    text = str(present.summary(pooled))
    assert text.startswith("PooledTrend") and "One Densing Law from three harnesses" in text
    assert "common slope: Cochran's Q" in text and "leave one lab out" in text and "openllm_v2" in text


def test_the_document_is_the_clis_json_record(pooled):
    document = present.document(pooled)
    assert [row["table"] for row in document["rows"]] == ["public", "openllm_v2", "swallow"]
    assert list(document)[:2] == ["rows", "headline"] and document["headline"] == pooled.headline
    assert document["bias_correction"]["shown"] in (True, False) and list(document)[-1] == "bias_correction"
    assert "tables" in pooled.record  # the record itself is left as it was


def test_bad_draws_are_refused_before_any_work():
    with pytest.raises(InputError, match="n_boot"):
        densing.pooled_trend(n_boot=3)
