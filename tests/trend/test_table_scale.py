"""One scale for several tables (densing.trend.table_scale) and the pooled law over them (densing.trend.pooled_tables):
planted tables whose offsets and scales are known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from densing.errors import InputError
from densing.trend.pooled_tables import pooled_law
from densing.trend.table_rows import TableRow
from densing.trend.table_scale import check_positive, deming_line, mapped, scale_plan


def _noisy_pairs(a: float, s: float, noise: float, count: int, seed: int = 0):
    """Pairs (x, y) of true values u spread over [−3, 0]: x = u + e, y = a + s·u + e', both errors N(0, noise²)."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(-3, 0, count)
    return truth + rng.normal(0, noise, count), a + s * truth + rng.normal(0, noise, count)


def test_deming_recovers_a_planted_offset_and_scale_where_ordinary_regression_shrinks_it():
    x, y = _noisy_pairs(0.9, 1.3, 0.4, 4000)
    a, s = deming_line(x, y)
    assert float(s) == pytest.approx(1.3, abs=0.05) and float(a) == pytest.approx(0.9, abs=0.1)
    ols_slope = np.polyfit(x, y, 1)[0]
    assert ols_slope < 1.2  # regression dilution: var(u) / (var(u) + σ²) ≈ 0.84 of 1.3


def test_deming_counts_a_weighted_pair_as_that_many_copies():
    x, y = _noisy_pairs(0.2, 0.7, 0.2, 30, seed=1)
    counts = np.arange(30) % 3
    weighted = deming_line(x, y, counts)
    copies = deming_line(np.repeat(x, counts), np.repeat(y, counts))
    assert np.allclose(weighted, copies)


def _three_tables(shared_second: int = 20, shared_third: int = 4):
    """Points of three tables, every value exact, y_second = 2·y + 1 and y_third = y − 0.5 of the common table's y: the
    common table holds models 0–19, the second ``shared_second`` of them and 20–39, the third ``shared_third`` of them
    and 20–34."""
    models = [f"m{i}" for i in range(40)]
    truth = dict(zip(models, np.linspace(-3, 0, 40)))
    rows = [("common", m, truth[m]) for m in models[:20]]
    rows += [("second", m, 2 * truth[m] + 1) for m in models[:shared_second] + models[20:]]
    rows += [("third", m, truth[m] - 0.5) for m in models[:shared_third] + models[20:35]]
    tables, names, y = (np.array(column, dtype=object) for column in zip(*rows))
    return tables, names, y.astype(float)


def test_a_table_sharing_too_few_models_with_the_common_one_is_mapped_through_the_other():
    tables, names, y = _three_tables()
    plan = scale_plan(tables, names, np.ones(len(y), bool), ("common", "second", "third"), "common")
    assert plan.through("third") == "second" and plan.through("second") == ""
    scaled, found = mapped(plan, tables, y[None], np.ones((1, len(y))))
    a, s = found["third"]
    assert float(a[0]) == pytest.approx(0.5) and float(s[0]) == pytest.approx(1.0)  # the composed line
    truth = dict(zip([f"m{i}" for i in range(40)], np.linspace(-3, 0, 40)))
    for name in ("second", "third"):
        rows = tables == name
        assert np.allclose(scaled[0, rows], [truth[m] for m in names[rows]])


def test_a_table_no_other_reaches_is_refused_in_one_line():
    tables, names, y = _three_tables(shared_second=5, shared_third=4)
    with pytest.raises(InputError, match="'second'.*fewer than 10"):
        scale_plan(tables, names, np.ones(len(y), bool), ("common", "second", "third"), "common")


def test_a_falling_scale_is_refused_since_a_bound_would_change_direction():
    tables, names, y = _three_tables(shared_third=20)
    y = np.where(tables == "second", -y, y)
    plan = scale_plan(tables, names, np.ones(len(y), bool), ("common", "second", "third"), "common")
    _, found = mapped(plan, tables, y[None], np.ones((1, len(y))))
    with pytest.raises(InputError, match="'second'.*direction"):
        check_positive(found)


def _planted_row(table: str, a: float, s: float, seed: int, upper_above: bool) -> TableRow:
    """A table's row of the world ln ρ = u = A·t − 2 + N(0, 0.3²) (A: a 4-month doubling, the same 60 models and u in
    every table, 12 labs of two families each) on its own scale, y_T = (u − a)/s + N(0, 0.1²); with ``upper_above``,
    its six latest models are upper bounds 3 above their value (a bound that turned exact would lift the frontier)."""
    t = np.tile(np.linspace(0, 700, 30), 2)
    u = SLOPE * t - 2 + np.random.default_rng(0).normal(0, 0.3, 60)
    y = (u - a) / s + np.random.default_rng(seed).normal(0, 0.1, 60)
    kind = np.zeros(60)
    if upper_above:
        late = np.argsort(t, kind="stable")[-6:]
        y[late] += 3.0
        kind[late] = -1.0
    families = [f"f{i % 24}" for i in range(60)]
    points = pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(60)],
            "family": families,
            "lab": [f"lab{i % 12}" for i in range(60)],
            "release_date": "2024-01-01",
            "t": t,
            "y": y,
            "kind": kind,
            "noise": 0.1,
        }
    )
    return TableRow(table, "planted", ("planted",), points, ("lab0",))


SLOPE = np.log(2) / (4 * 365.25 / 12)


def test_the_pooled_law_recovers_the_planted_slope_and_keeps_upper_bounds_upper():
    rows = [
        _planted_row("public", 0.0, 1.0, 1, False),
        _planted_row("second", 0.8, 1.5, 2, True),
        _planted_row("third", -0.4, 0.7, 3, False),
    ]
    found = pooled_law(rows, n_boot=40, seed=0)
    assert found["pooled"]["doubling_time_months"] == pytest.approx(4.0, rel=0.15)
    assert not found["common_slope"]["rejected"]
    second = next(s for s in found["scales"] if s["table"] == "second")
    assert second["s"] == pytest.approx(1.5, rel=0.1) and second["a"] == pytest.approx(0.8, abs=0.2)
    own = next(t for t in found["tables"] if t["table"] == "second")
    assert own["doubling_time_months"] == pytest.approx(4.0, rel=0.2)  # its upper bounds do not lift its line
