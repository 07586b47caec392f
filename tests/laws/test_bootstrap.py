"""The bootstrap's plan and runner (densing/laws/fit.py): which rows each resample picks, and
draws that do not depend on how many processes refit them."""

import numpy as np
import pandas as pd

from densing.laws import fit as bootstrap, forms


def _stage(runs: list[str], per_run: int) -> pd.DataFrame:
    return pd.DataFrame({"run": np.repeat(runs, per_run)})


def test_auto_resamples_runs_when_a_run_has_several_points_and_points_otherwise():
    unit, resamples = bootstrap.plan((_stage(["a", "b", "c"], 4),), ["a", "b", "c"], n_boot=5, seed=1)
    assert unit == "series" and len(resamples) == 5
    for (picks,) in resamples:  # whole runs: every picked run brings its 4 rows, in order
        assert len(picks) == 12 and all(
            list(picks[k : k + 4]) == list(range(picks[k], picks[k] + 4)) for k in (0, 4, 8)
        )
    unit, resamples = bootstrap.plan((_stage(["a", "b", "c"], 1),), ["a", "b", "c"], n_boot=5, seed=1)
    assert unit == "point" and all(len(p) == 3 for (p,) in resamples)


def test_the_plan_is_fixed_by_its_seed_and_an_unknown_unit_is_an_error():
    stage = (_stage(["a", "b", "c", "d"], 2),)
    first = bootstrap.plan(stage, list("abcd"), n_boot=4, seed=7)[1]
    again = bootstrap.plan(stage, list("abcd"), n_boot=4, seed=7)[1]
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(first, again))


def test_draws_are_the_same_for_any_number_of_processes():
    """S(N, D) = c/(1 + e^{−γ(L(N, D) − l)}) + d refitted on resamples of a planted composed law (eqs. 2–3)."""
    rng = np.random.default_rng(0)
    n = np.repeat(np.geomspace(5e7, 1.5e10, 6), 4)
    t = np.tile(np.geomspace(5e9, 3e12, 4), 6)
    loss = forms.loss_law(n, t, a=400.0, alpha=0.34, b=410.0, beta=0.28)
    score = forms.performance_law(loss, 0.7, -4.0, 1.0, 0.25) + rng.normal(0, 0.005, n.size)
    data = ((n, t, score, np.full(n.size, np.nan)),)
    options = dict(law="composed", irreducible=False, chance=0.25, ceiling=None, max_score=1.0)
    from densing.laws import fit as lawfit

    (problem,) = bootstrap.stage_problems(data, (np.arange(n.size),), **options)
    start = lawfit.fit_stage(problem, loss="soft_l1", f_scale=0.02)
    task = bootstrap.RefitTask(data, options, (start.params,), tuple(start.params), "soft_l1", (0.02,))
    runs = [f"r{k}" for k in range(6)]
    frame = pd.DataFrame({"run": np.repeat(runs, 4)})
    _, resamples = bootstrap.plan((frame,), runs, n_boot=6, seed=3)
    one = bootstrap.run(task, resamples, jobs=1)
    two = bootstrap.run(task, resamples, jobs=2)
    assert len(one) == 6 and one == two
