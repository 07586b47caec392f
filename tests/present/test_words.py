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
