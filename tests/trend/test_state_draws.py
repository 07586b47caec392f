"""A row's state is decided by its data, not by its draws (docs/method.md, "Determined ends and the three states";
``studies/state_draws.py`` runs every shipped row): a subset of the public table's rows — two that moved with the
draws under the rule that judged an end by its Monte Carlo range's width (MATH-hard, WinoGrande) and one whose upper
end reaches a zero slope (GPQA) — has the same state from 600 and from 4,000 starting draws."""

from __future__ import annotations

import pytest

import densing.present as present
from densing.states import State

ROWS = ("math_hard", "winogrande", "gpqa")


@pytest.fixture(scope="module")
def public():
    from densing.data import read_results
    from densing.data.benchmarks import with_stderr
    from densing.laws import eligibility

    targets = with_stderr(read_results("results/public_models.csv"))
    candidates = eligibility.candidate_table(targets)
    return targets, candidates, eligibility.eligible_fits(targets, candidates, seed=0)


@pytest.mark.parametrize("name", ROWS)
def test_a_rows_state_is_the_same_from_600_and_from_4000_draws(public, name):
    from densing.trend.capability import RowSpec, trend_row

    targets, candidates, fits = public
    rows = [
        trend_row(
            RowSpec(name, name, "", (name,)),
            targets,
            candidates,
            fits,
            since="2023-02-24",
            epoch="2023-02-24",
            n_boot=n,
            n_boot_share=0,
            seed=0,
        )
        for n in (600, 4000)
    ]
    states = [row.result.state for row in rows]
    assert states[0] == states[1] in (State.MEASURED, State.BOUNDED), [present.status(row) for row in rows]
    assert rows[0].result.n_boot >= 600 and rows[1].result.n_boot >= 4000  # the draws used, reported
