"""Leave-one-out by update (densing.trend.influence): every family's and every model's removal equals the refit of the
row without it, to the bit, on the shipped rows and on random tables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.trend import influence, pooling, rules
from densing.trend.censored import censored_quantile_lines_weighted, quantile_lines_left_out


def refit(
    rule: str, quantile: float, data: dict, y: np.ndarray, kind: np.ndarray, clusters: np.ndarray, starts: np.ndarray
) -> np.ndarray:
    """Each reference's slope with each group left out, (R, groups), every problem solved from its start: the refits
    the update replaces (one solve per reference and group over the whole row)."""
    groups = int(clusters.max()) + 1
    weight = (clusters[None, :] != np.arange(groups)[:, None]).astype(float)
    shape = (len(y), groups, y.shape[1])
    return influence.frontier_slopes(
        rule, quantile, data, np.broadcast_to(y[:, None], shape), np.broadcast_to(kind[:, None], shape), weight, starts
    )


def point_lines(rule: str, quantile: float, data: dict, y: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """Every reference's point line as :func:`densing.trend.pooling.pooled_trend` draws it (its ``lines0``)."""
    return rules.frontier_lines_weighted(rule, data["t"], y, kind, np.ones(y.shape), data["labels"], quantile)


def random_row(seed: int, count: int, n: int, families: int, bounds: bool, ties: bool):
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, 900, n))
    if ties:
        t = np.round(t / 60) * 60  # several models of one date
    y = 0.003 * t[None, :] + rng.normal(0, 0.6, (count, n)) + rng.normal(0, 0.3, (count, 1))
    kind = np.full((count, n), float(EXACT))
    if bounds:
        kind[rng.uniform(size=(count, n)) < 0.15] = LOWER
        kind[rng.uniform(size=(count, n)) < 0.05] = UPPER
    y[rng.uniform(size=(count, n)) < 0.05] = np.nan  # a target a reference does not invert
    clusters = rng.integers(0, families, n)
    clusters = np.unique(clusters, return_inverse=True)[1].astype(np.intp)  # groups 0 … G − 1, every one used
    data = {"t": t, "labels": np.array([f"m{i:03d}" for i in range(n)])}
    return data, y, kind, clusters


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    count=st.integers(1, 4),
    n=st.integers(3, 60),
    families=st.integers(1, 30),
    bounds=st.booleans(),
    ties=st.booleans(),
    quantile=st.sampled_from([0.5, 0.9]),
    rule=st.sampled_from(["quantile", "envelope", "all"]),
    by_model=st.booleans(),
)
def test_an_update_is_the_refit_to_the_bit_on_random_rows(
    seed, count, n, families, bounds, ties, quantile, rule, by_model
):
    data, y, kind, clusters = random_row(seed, count, n, families, bounds, ties)
    if by_model:
        clusters = np.arange(n)
    starts = point_lines(rule, quantile, data, y, kind)
    if not np.all(np.isfinite(starts[:, 0])) and rule == "quantile":
        return  # pooled_trend stops a row whose point line does not fit (a FitError)
    groups = int(clusters.max()) + 1
    updated = influence.left_out_slopes(rule, quantile, data, y, kind, clusters, groups, starts)
    assert np.array_equal(updated, refit(rule, quantile, data, y, kind, clusters, starts), equal_nan=True)


def test_a_removal_keeps_the_quantile_line_unless_it_can_move_it():
    """A removal of a vertex point is solved again; a removal whose terms leave the vertex's multipliers inside their
    ranges keeps the line (a lower bound below the line costs nothing: its removal changes no sum); on a row of a
    thousand models most removals keep it, and the kept ones are the refits' slopes."""
    data, y, kind, _ = random_row(3, 2, 1000, 10, bounds=True, ties=False)
    starts = point_lines("quantile", 0.9, data, y, kind)
    slope, _, keep = quantile_lines_left_out(data["t"], y, kind, 0.9, np.arange(1000))
    assert np.array_equal(slope, starts[:, 0])
    residual = np.abs(y - (starts[:, :1] * data["t"] + starts[:, 1:]))
    on_line = np.nan_to_num(residual, nan=np.inf) <= 1e-9
    assert on_line.sum(axis=1).tolist() == [2, 2] and not keep[on_line].any()
    below_bound = (kind == LOWER) & (y < starts[:, :1] * data["t"] + starts[:, 1:])
    assert keep[below_bound].all() and keep.mean() > 0.4
    some = np.flatnonzero(keep[0])[:5]
    clusters = np.arange(1000)
    assert np.array_equal(
        refit("quantile", 0.9, data, y[:1], kind[:1], clusters, starts[:1])[0, some], np.full(some.size, starts[0, 0])
    )


@pytest.mark.parametrize("rule", ["quantile", "all"])
def test_the_removals_solved_in_chunks_are_the_removals_solved_at_once(monkeypatch, rule):
    data, y, kind, clusters = random_row(11, 3, 80, 12, bounds=True, ties=True)
    starts = point_lines(rule, 0.9, data, y, kind)
    whole = influence.left_out_slopes(rule, 0.9, data, y, kind, np.arange(80), 80, starts)
    monkeypatch.setattr(influence, "SOLVE_CELLS", 80 * 7)  # seven problems a call
    assert np.array_equal(
        influence.left_out_slopes(rule, 0.9, data, y, kind, np.arange(80), 80, starts), whole, equal_nan=True
    )
    assert np.array_equal(whole, refit(rule, 0.9, data, y, kind, np.arange(80), starts), equal_nan=True)


@pytest.mark.parametrize("rule", ["quantile", "all", "envelope"])
def test_an_update_is_the_refit_to_the_bit_on_the_shipped_rows(monkeypatch, rule):
    """Every leave-one-out table the notebook path computes on the shipped table, under every rule (the families' and
    the models'), equals the refits of the row without each family and each model."""
    import densing
    from densing.data import read_results

    seen = []
    update = pooling.family_influence

    def recorded(rule_, quantile, data, y, kind, w, starts, *, by="family"):
        frame = update(rule_, quantile, data, y, kind, w, starts, by=by)
        seen.append((rule_, quantile, data, y, kind, w, np.asarray(starts), by, frame))
        return frame

    monkeypatch.setattr(pooling, "family_influence", recorded)
    densing.fit_trend(read_results("results/public_models.csv"), rule=rule, n_boot=40, n_boot_share=0)
    assert {by for *_, by, _ in seen} == {"family", "lab", "model"}
    for rule_, quantile, data, y, kind, w, starts, by, frame in seen:
        clusters = {"family": data["clusters"], "lab": data["lab_clusters"]}.get(by, np.arange(data["n"]))
        expected = w @ refit(rule_, quantile, data, y, kind, clusters, starts)
        assert np.array_equal(frame["slope_per_day"].to_numpy(), expected, equal_nan=True)
        assert frame["n_models"].sum() == data["n"]


def _vertex_line(t, y, kind, weight, labels, quantile, start=None):
    """The censored quantile line through another function than the shipped rule's: a rule the package does not ship."""
    slope, intercept, _ = censored_quantile_lines_weighted(t, y, kind, weight, quantile, start)
    return np.stack([slope, intercept], axis=1)


@pytest.mark.parametrize("declared", [True, False])
def test_a_newly_registered_rule_declares_its_update(monkeypatch, declared):
    """A rule registered with the quantile line's update (``left_out``) gets it, whatever its solver's identity, and
    its removals are the refits' to the bit; the same rule without one is solved again for every group."""
    rule = rules.FrontierRule(
        "vertex",
        "censored quantile line, solved apart",
        _vertex_line,
        left_out=rules.get("quantile").left_out if declared else None,
    )
    monkeypatch.setitem(rules.RULES, rule.name, rule)
    data, y, kind, clusters = random_row(5, 3, 120, 15, bounds=True, ties=False)
    starts = point_lines("vertex", 0.9, data, y, kind)
    groups = int(clusters.max()) + 1
    known, _ = influence.updated("vertex", 0.9, data, y, kind, clusters, groups, starts)
    assert known.any() == declared
    slopes = influence.left_out_slopes("vertex", 0.9, data, y, kind, clusters, groups, starts)
    assert np.array_equal(slopes, refit("vertex", 0.9, data, y, kind, clusters, starts), equal_nan=True)


def test_an_update_that_cannot_take_its_arguments_is_refused():
    from densing.errors import RegistryError

    with pytest.raises(RegistryError, match="field 'left_out'"):
        rules.register(rules.FrontierRule("odd", "a rule", _vertex_line, left_out=lambda data, y: None))
