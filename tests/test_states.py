"""The one state rule (:meth:`densing.states.State.from_ends`): every design's rows take their states from it, a new
row type gets its states from it, and no renderer decides or defaults a state where a row lacks one."""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace

import pandas as pd
import pytest

from densing.errors import InputError
from densing.states import JudgedEnds, JudgedInterval, State

#: The rule's table: (low determined, high determined, references disagree) → state.
RULE = {
    (True, True, False): State.MEASURED,
    (True, False, False): State.BOUNDED,
    (False, True, False): State.BOUNDED,
    (False, False, False): State.NOT_MEASURED,
    **{(low, high, True): State.NOT_MEASURED for low, high in itertools.product([False, True], repeat=2)},
}


@pytest.mark.parametrize(("ends", "state"), RULE.items())
def test_the_one_rule_decides_a_state_from_values(ends, state):
    low, high, disagree = ends
    assert State.from_ends(low, high, references_disagree=disagree) is state


@pytest.mark.parametrize(("low", "high"), list(itertools.product([False, True], repeat=2)))
def test_a_new_row_type_gets_its_states_and_reasons_from_the_one_rule(low, high):
    """A design's own row, built from its values alone (:class:`JudgedEnds`), is judged as every trend row is; its
    open ends are its reasons, which the words print after its state."""
    from densing.present.words import STATE_WORDS, status_parts

    row = JudgedEnds(3.0, 9.0 if high else math.inf, low_determined=low, high_determined=high, n_draws=600)
    assert row.state is RULE[(low, high, False)]
    assert [r.end for r in row.reasons] == [end for end, known in (("low", low), ("high", high)) if not known]
    assert status_parts(row)[0].split(",")[0] == STATE_WORDS[row.state]


def _olmes_row(low: bool, high: bool, error: str = "") -> dict:
    """One OLMES task's row with the columns the OLMES design judges it by."""
    return {
        "ci_low": 2.0,
        "ci_high": 9.0,
        "n_draws": 600,
        "low_determined": low,
        "high_determined": high,
        "high_undecided": False,
        "error": error,
    }


def test_every_design_takes_its_rows_states_from_the_one_rule(monkeypatch):
    """With the rule replaced by one that answers "bounded" to everything, every place that judges a row answers
    "bounded": the trend engine's rows, an interval judged by its finite ends, the OLMES design's tasks, the pooled
    law of three tables, a capability row without a trend and a design's own row type."""
    from densing.designs.olmes.trend import row_states
    from densing.trend.capability import Row, RowSpec
    from densing.trend.pooled_tables import state_record
    from densing.trend.uncertainty import state_of

    asked = []

    def always_bounded(cls, low_determined, high_determined, *, references_disagree=False):
        asked.append((low_determined, high_determined, references_disagree))
        return State.BOUNDED

    monkeypatch.setattr(State, "from_ends", classmethod(always_bounded))
    trend = SimpleNamespace(low_determined=True, high_determined=True, heterogeneity_df=0, heterogeneity_p=math.nan)
    olmes = row_states(pd.DataFrame([_olmes_row(True, True), _olmes_row(False, False, error="no reference")]))
    judged = {
        "trend engine": state_of(trend),
        "finite ends": JudgedInterval(3.0, 9.0, 600).state,
        "olmes": olmes[0],
        "olmes error": olmes[1],
        "pooled law": State(state_record({"low_determined": True, "high_determined": True}, False)["state"]),
        "row without a trend": Row(RowSpec("r", "R", "knowledge", ("mmlu",)), (), None).state,
        "new row type": JudgedEnds(3.0, 9.0, low_determined=True, high_determined=True, n_draws=600).state,
    }
    assert judged == dict.fromkeys(judged, State.BOUNDED)
    assert len(asked) == len(judged)


def _stateless_forest() -> pd.DataFrame:
    """A forest plot's frame whose rows carry everything but a state."""
    return pd.DataFrame(
        [
            {
                "row": "alpha",
                "capability": "knowledge",
                "status": "",
                "months": 3.0,
                "ci_low": 2.0,
                "ci_high": 9.5,
                "references": "A",
                "each_reference_months": "A 3.0",
                "error": "",
            }
        ]
    )


def test_a_renderer_given_a_row_without_a_state_does_not_invent_one():
    """The forest plot, the report's cell of a stored row and the sentence of a stored row each refuse a row with no
    state (or a code that is none), naming the row, where they once gave it one of their own."""
    from densing.present.forest import forest_figure
    from densing.present.verdict import record_phrase
    from densing.report.html import record_cell

    with pytest.raises(InputError, match="'alpha'"):
        forest_figure(_stateless_forest(), 3.3)
    with pytest.raises(InputError, match="'alpha'"):
        forest_figure(_stateless_forest().assign(state="fine"), 3.3)
    stored = {"row": "beta", "months": 4.0, "ci_low": 2.0, "ci_high": 8.0}
    with pytest.raises(InputError, match="'beta'"):
        record_cell(stored)
    with pytest.raises(InputError, match="'beta'"):
        record_cell({"row": "beta", "months": None, "ci_low": None, "ci_high": None})
    with pytest.raises(InputError, match="'beta'"):
        record_phrase(stored)
    assert record_cell({**stored, "state": "bounded"}).startswith("4")  # given its state, the row is drawn
