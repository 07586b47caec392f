"""The batched family likelihood (:func:`densing.laws.family_likelihood.likelihood_fits`) and the refloored fit give
the single fits' numbers bit for bit: rule v3's candidate table runs its fits this way."""

from __future__ import annotations

import numpy as np

from densing.laws.family import covariate
from densing.laws.family_likelihood import likelihood_fit, likelihood_fits


def _problems() -> list[tuple]:
    """Planted families of 2 to 9 members on two benchmarks (chance 0.25 and 0), one flat, one with two members at
    one size and one with members below chance (all of these converge), and four members at one size (Fisher scoring
    stops at its start: no information)."""
    rng = np.random.default_rng(12)
    out = []
    for m in range(2, 10):
        for chance, items in ((0.25, 14042.0), (0.0, 1319.0)):
            sizes = np.sort(rng.uniform(8.0, 11.5, m).round(1)) if m > 3 else np.array([9.0, 9.7, 10.4])[:m]
            x = covariate(10**sizes, "power")
            p = chance + (1 - chance) / (1 + np.exp(-(1.4 * (x + 0.9) + rng.normal(0, 0.2, m))))
            out.append((x, rng.binomial(int(items), p) / items, items, chance, 1 - chance))
    x = covariate(np.array([1e9, 3e9, 3e9, 7e9]), "logistic_ln_n")
    out.append((x, np.array([0.3, 0.3, 0.3, 0.3]), 1319.0, 0.25, 0.75))
    out.append((x, np.array([0.2, 0.24, 0.31, 0.45]), 1319.0, 0.25, 0.75))
    out.append((np.full(4, x[1]), np.array([0.3, 0.35, 0.32, 0.4]), 1319.0, 0.25, 0.75))  # one size: no information
    return out


def _same(a, b) -> bool:
    fields = ("slope", "offset", "centre", "dispersion", "converged", "own_dispersion", "log_likelihood", "n_members")
    return (
        all(np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True) for f in fields)
        and np.array_equal(a.covariance, b.covariance, equal_nan=True)
        and np.array_equal(a.information, b.information, equal_nan=True)
    )


def test_batched_fits_are_the_single_fits_bit_for_bit():
    problems = _problems()
    floors = [1.0 + 0.5 * (i % 3) for i in range(len(problems))]
    batched = likelihood_fits(problems, floors)
    single = [likelihood_fit(*p, dispersion_floor=f) for p, f in zip(problems, floors)]
    assert len(batched) == len(problems)
    assert all(_same(a, b) for a, b in zip(batched, single))
    assert [f.converged for f in single] == [True] * (len(problems) - 1) + [False]  # the stopped row stays put
    assert {f.n_members for f in batched} == set(range(2, 10)) | {4}


def test_a_refloored_fit_is_the_fit_at_that_floor():
    for problem in _problems():
        own = likelihood_fit(*problem)
        for floor in (0.5, 1.0, 2.5, 40.0):
            assert _same(own.with_dispersion_floor(floor), likelihood_fit(*problem, dispersion_floor=floor))


def test_inside_same_tables_a_maximum_is_found_once_for_the_same_inputs(monkeypatch):
    from densing.laws import family_likelihood
    from densing.runtime.memo import same_tables

    calls = []
    real = family_likelihood._scoring
    monkeypatch.setattr(family_likelihood, "_scoring", lambda *a, **k: calls.append(1) or real(*a, **k))
    problem = _problems()[5]
    outside = [likelihood_fit(*problem) for _ in range(2)]
    with same_tables():
        batched = likelihood_fits([problem], 3.0)[0]
        inside = likelihood_fit(*problem, dispersion_floor=3.0)  # the batch's maximum, refloored
        moved = likelihood_fit(problem[0], problem[1] + 1e-3, *problem[2:])  # other scores: a new maximum
    assert len(calls) == 4 and _same(outside[0], outside[1]) and _same(inside, batched)
    assert _same(inside, likelihood_fit(*problem, dispersion_floor=3.0)) and moved.slope != inside.slope
