"""densing.present.words: a table a person reads shows a row as its state says."""


def test_a_row_that_is_not_measured_shows_no_doubling_time():
    import pandas as pd

    from densing.present.words import ends_shown

    frame = pd.DataFrame(
        {
            "row": ["a", "b"],
            "state": ["measured", "not measured"],
            "months": [3.6, 4.1],
            "ci_low": [2.5, 1.0],
            "ci_high": [8.0, 30.0],
        }
    )
    shown = ends_shown(frame)
    assert (
        list(shown["months"][:1]) == [3.6]
        and [str(shown.loc[1, c]) for c in ("months", "ci_low", "ci_high")] == ["—"] * 3
    )
    assert frame.loc[1, "months"] == 4.1  # the frame itself keeps its numbers (the JSON's)


def test_a_budget_note_says_each_value_and_the_reference_rules_least_sizes():
    """A budget note (densing.trend.capability.BudgetNote) in words: a reference dropped for too few sizes at D0 names
    the reference rule's least number of sizes (R2, MIN_SIZES), then the refit's error; an empty note says nothing."""
    from densing.laws.eligibility import MIN_SIZES
    from densing.present.words import budget_note
    from densing.trend.capability import BudgetNote

    assert budget_note(BudgetNote()) == ""
    assert budget_note(BudgetNote(dropped=True)) == f"fewer than {MIN_SIZES} sizes at D0: dropped"
    assert budget_note(BudgetNote(refit_error="no convergence")) == "refit at D0 fails: no convergence"
