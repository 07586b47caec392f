"""densing.laws.family_rows: a member below a smaller member of its family on several benchmarks is flagged, and a family
fit's provenance says whether it kept it."""

from __future__ import annotations

import pandas as pd
import pytest

from densing.laws.family_rows import order_breaks


def _family(scores: dict[str, dict[str, float]], sizes: dict[str, float], stderr: float = 0.01) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "model": m,
                "family": "Fam",
                "benchmark": b,
                "metric": "acc",
                "value": v,
                "params": sizes[m],
                "stderr": stderr,
                "train_tokens": 1e12,
            }
            for m, by in scores.items()
            for b, v in by.items()
        ]
    )


SIZES = {"s": 1e9, "m": 7e9, "l": 14e9}


def test_a_larger_member_below_a_smaller_one_on_two_benchmarks_beyond_noise_is_flagged():
    table = _family(
        {
            "s": {"a": 0.40, "b": 0.30, "c": 0.20},
            "m": {"a": 0.60, "b": 0.50, "c": 0.40},
            "l": {"a": 0.50, "b": 0.44, "c": 0.45},
        },
        SIZES,
    )
    found = order_breaks(table)
    assert found[["model", "smaller_model", "n_benchmarks"]].values.tolist() == [["l", "m", 2]]
    assert found.loc[0, "benchmarks"] == "a:acc, b:acc"


@pytest.mark.parametrize(
    "why, scores, stderr",
    [
        (
            "one benchmark only",
            {"s": {"a": 0.4, "b": 0.3}, "m": {"a": 0.6, "b": 0.5}, "l": {"a": 0.5, "b": 0.55}},
            0.01,
        ),
        ("within noise", {"s": {"a": 0.4, "b": 0.3}, "m": {"a": 0.6, "b": 0.5}, "l": {"a": 0.58, "b": 0.48}}, 0.01),
        ("in order", {"s": {"a": 0.4, "b": 0.3}, "m": {"a": 0.6, "b": 0.5}, "l": {"a": 0.7, "b": 0.6}}, 0.001),
    ],
)
def test_no_flag_on_one_benchmark_within_noise_or_in_order(why, scores, stderr):
    assert order_breaks(_family(scores, SIZES, stderr)).empty, why


def test_the_swallow_table_flags_qwen3_14b_below_qwen3_8b_on_bbh_math_and_gsm8k():
    from densing import paths, read_results

    found = order_breaks(read_results(paths.RESULTS / "swallow" / "swallow_2025-06.csv"))
    row = found[(found["model"] == "Qwen/Qwen3-14B-Base") & (found["smaller_model"] == "Qwen/Qwen3-8B-Base")]
    assert len(row) == 1
    assert row.iloc[0]["benchmarks"] == "swallow_bbh:score, swallow_gsm8k:score, swallow_math:score"


def test_a_family_fit_says_whether_it_kept_a_member_that_breaks_the_order():
    from densing.laws.family import fit_family

    sizes = {"xs": 3e8, "s": 1e9, "m": 7e9, "l": 14e9}
    table = _family(
        {
            "xs": {"mmlu": 0.30, "gsm8k": 0.05},
            "s": {"mmlu": 0.40, "gsm8k": 0.15},
            "m": {"mmlu": 0.60, "gsm8k": 0.50},
            "l": {"mmlu": 0.52, "gsm8k": 0.40},
        },
        sizes,
        stderr=0.005,
    )
    kept = fit_family(table, "Fam", "mmlu", n_boot=20)
    assert kept.provenance["order_breaks"] == {"l": "kept"}
    # the budget translation leaves "l" out (no size at D0 given)
    left_out = fit_family(table, "Fam", "mmlu", n_boot=20, sizes={m: n for m, n in sizes.items() if m != "l"}, d0=1e12)
    assert left_out.provenance["order_breaks"] == {"l": "left out"}
    in_order = fit_family(table[table["model"] != "l"], "Fam", "mmlu", n_boot=20)
    assert in_order.provenance["order_breaks"] == {}


def _breaks_pair_by_pair(a):
    """family_rows._breaks as a loop over every (i, j) pair of members on each benchmark: what the arrays must give."""
    import numpy as np

    from densing.laws.family_rows import MIN_BENCHMARKS, STDERRS

    found = {}
    for benchmark in np.unique(a["benchmark"]):
        on = np.flatnonzero((a["benchmark"] == benchmark) & np.isfinite(a["stderr"]))
        for i in on:
            for j in on:
                gap = a["score"][j] - a["score"][i]
                if a["params"][i] > a["params"][j] and gap > STDERRS * np.hypot(a["stderr"][i], a["stderr"][j]):
                    key = (a["family"][i], a["model"][i], a["params"][i], a["model"][j], a["params"][j])
                    found.setdefault(key, []).append(str(benchmark))
    return [(*key, len(b), ", ".join(sorted(set(b)))) for key, b in found.items() if len(set(b)) >= MIN_BENCHMARKS]


def test_the_pairs_found_as_arrays_are_the_pair_by_pair_loops_in_its_order():
    """_breaks on random families (ties in size and score, missing standard errors, repeated models) gives the rows,
    the bits and the order of the loop over each benchmark's (i, j) pairs."""
    import numpy as np
    from hypothesis import given, settings, strategies as st

    from densing.laws.family_rows import _breaks

    @settings(max_examples=150, deadline=None)
    @given(n=st.integers(0, 24), seed=st.integers(0, 2**32 - 1))
    def check(n, seed):
        rng = np.random.default_rng(seed)
        a = {
            "family": np.full(n, "Fam"),
            "model": rng.choice(["s", "m", "l", "xl"], n),
            "benchmark": rng.choice(["a:acc", "b:acc", "c:acc"], n),
            "params": rng.choice([1e9, 7e9, 7e9, 14e9], n),
            "score": rng.choice([0.3, 0.5, rng.random()], n),
            "stderr": np.where(rng.random(n) < 0.2, np.nan, rng.choice([0.0, 0.01, 0.05], n)),
        }
        assert _breaks(a) == _breaks_pair_by_pair(a)

    check()
