"""The identified region (densing.laws.region; docs/method.md, "The identified region"): an exact density outside a
reference's members is a bound at the region's edge, continuous in value at the edge; the rule on the shipped second
table, and each target's reading with the benchmark that decided it."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.laws.region import TOP_REACH, Reason, member_log_sizes, within_members


def _fit(sizes, data_term=False):
    return SimpleNamespace(points=tuple(("m", n, 1e12, 0.5, None, "m") for n in sizes), has_data_term=data_term)


def test_the_region_spans_the_members_and_a_decade_above_the_largest():
    low, high = member_log_sizes(SimpleNamespace(fits=(_fit([5e8, 7e9]), _fit([1.5e9, 7.2e10]))))
    assert low == pytest.approx(math.log(5e8)) and high == pytest.approx(math.log(7.2e10 * TOP_REACH))
    assert member_log_sizes(SimpleNamespace(fits=(_fit([1e8, 1e9], data_term=True),)))[1] == math.inf
    assert member_log_sizes(SimpleNamespace(fits=(_fit([]),))) == (-math.inf, math.inf)
    assert member_log_sizes(object()) == (-math.inf, math.inf)  # observed densities: no law, no region


def test_targets_below_inside_and_above_the_region():
    region = (math.log(1e9), math.log(1e11))
    params = np.array([1.35e8, 7e9, 7e10, 1e9, 1e10])
    size = np.array([5e8, 2e10, 5e11, 1e9, 2e8])  # below, inside, above, at the bottom edge, a law's upper bound below
    kind = np.array([EXACT, EXACT, EXACT, EXACT, UPPER])
    y, got, reason = within_members(np.log(size / params), kind, np.log(params), region)
    assert got.tolist() == [UPPER, EXACT, LOWER, EXACT, UPPER]
    assert reason.tolist() == [
        Reason.BELOW_SMALLEST,
        Reason.EXACT,
        Reason.ABOVE_TOP,
        Reason.EXACT,
        Reason.BELOW_SMALLEST,
    ]
    assert y[0] == pytest.approx(math.log(1e9 / 1.35e8))  # ρ ≤ N_min / N
    assert y[2] == pytest.approx(math.log(1e11 / 7e10))  # ρ ≥ (edge) / N
    assert y[4] == pytest.approx(math.log(1e9 / 1e10))  # the law's bound loosened to the edge
    assert y[1] == pytest.approx(math.log(2e10 / 7e9))


sizes = st.floats(18.0, 28.0)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(sizes, st.floats(17.0, 26.0), st.sampled_from([EXACT, LOWER, UPPER, math.nan])),
        min_size=1,
        max_size=8,
    ),
    sizes,
    st.floats(0.0, 6.0),
)
def test_a_bound_is_never_made_inside_and_its_value_is_continuous_at_the_edge(cells, low, width):
    """Exact inside stays exact at its value; outside, the value is the edge (the exact value there); a bound is never
    made exact, and no value moves away from the region."""
    region = (low, low + width)
    log_size = np.array([c[0] for c in cells])
    log_params = np.array([c[1] for c in cells])
    kind = np.array([c[2] for c in cells])
    y, got, _ = within_members(log_size - log_params, kind, log_params, region)
    inside = (log_size >= region[0]) & (log_size <= region[1])
    exact = kind == EXACT
    assert np.all(got[exact & inside] == EXACT) and np.allclose(
        y[exact & inside], (log_size - log_params)[exact & inside]
    )
    assert not np.any(got[~exact] == EXACT)
    moved = y + log_params
    assert np.all(moved[exact & ~inside] >= region[0] - 1e-9) and np.all(moved[exact & ~inside] <= region[1] + 1e-9)
    # continuity: a size just inside and just outside the bottom edge give the same value within the step
    edge = within_members(
        np.array([region[0] - 1e-7, region[0] + 1e-7]) - 20.0, np.array([EXACT, EXACT]), np.array([20.0, 20.0]), region
    )[0]
    assert abs(edge[0] - edge[1]) < 1e-6


def test_the_smallest_models_of_the_second_table_are_bounds_under_every_reference(capsys):
    """The issue's three: SmolLM-135M, SmolLM2-135M and AMD-Llama-135m lie below every reference's smallest member on
    the declared v2-native row, so none is an exact point; each reading names its reason, and the headline's JSON
    carries the region's count and the estimate without it."""
    import json

    from tests.cli_run import run

    code, out, _ = run(["trend", "--table", "openllm_v2", "--n-boot", "40", "--format", "json"], capsys)
    assert code == 0
    head = json.loads(out)["headline"]
    references = {r["reference"] for r in head["targets"]}
    assert len(references) >= 4
    for model in ("HuggingFaceTB/SmolLM-135M", "HuggingFaceTB/SmolLM2-135M", "amd/AMD-Llama-135m"):
        mine = [r for r in head["targets"] if r["model"] == model]
        assert {r["reference"] for r in mine} == references
        assert all(r["kind"] == "upper" for r in mine), mine
        # below the smallest member, or (its informative scores inside the region) capped by a score at chance
        assert all(r["reason"] in ("below the smallest member", "at chance") for r in mine), mine
        assert all(r["benchmark"] for r in mine if r["reason"] == "at chance")
        # the tighter bound names the reason: on the shipped table MMLU-Pro's chance cap is the tighter one under at
        # most two of the six references (SmolLM-135M under Qwen1.5 and StableLM)
        assert sum(r["reason"] == "below the smallest member" for r in mine) >= len(references) - 2
    assert head["region"]["bounds"] > 0 and head["region"]["months_without_bounds"] is not None
    assert {r["kind"] for r in head["targets"]} >= {"exact", "upper", "lower"}
