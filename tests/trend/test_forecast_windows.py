"""densing.trend.forecast.forecast_windows: cutoffs every 3 months after a year, each early line with its interval,
no verdict where that line is too uncertain, and one wording for one outcome."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import densing.present as present
from densing.errors import InputError
from densing.present.findings import OUTCOME_WORDS
from densing.trend.forecast import EarlyLine, Outcome, forecast_windows, outcome_of


def _points(jump: float = 0.0, noise: float = 0.5, seed: int = 0, n: int = 240, days: float = 1000.0) -> pd.DataFrame:
    """ln ρ = 0.007·t − |noise| (a frontier on top), plus ``jump`` for models released after day 600."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, days, n))
    y = 0.007 * t - np.abs(rng.normal(0, noise, n)) + jump * (t > 600)
    return pd.DataFrame({"t": t, "y": y, "kind": np.zeros(n)})


def test_the_cutoffs_run_every_three_months_from_a_year_after_the_first_model_to_half_a_year_before_the_last():
    found = forecast_windows(_points(), row="planted", n_boot=40)
    frame = found.to_frame()
    assert len(frame) >= 5 and (frame["early_window_months"] >= 12 - 1e-6).all()
    assert np.allclose(np.diff(frame["early_window_months"]), 3.0)
    assert {"early_doubling_time_months_ci_low", "early_doubling_time_months_ci_high"} <= set(frame.columns)
    assert "planted" in str(present.summary(found))


def test_a_line_that_goes_on_holds_and_a_later_jump_runs_ahead():
    holds = present.windows_frame(forecast_windows(_points(), n_boot=60))
    assert (holds["outcome"] == "holds").all(), holds[["cutoff", "above_line", "n_later", "outcome"]]
    ahead = present.windows_frame(forecast_windows(_points(jump=2.0), n_boot=60))
    before_jump = ahead[pd.to_datetime(ahead["cutoff"]) < pd.Timestamp("2023-02-24") + pd.Timedelta(days=600)]
    assert len(before_jump) and (before_jump["outcome"] == "ahead").all()


def test_no_verdict_where_the_early_line_is_too_uncertain():
    found = present.windows_frame(forecast_windows(_points(noise=6.0, n=60), n_boot=60))
    assert (found["outcome"] == "no verdict").any()
    vague = found[found["outcome"] == "no verdict"]
    assert vague["verdict"].str.contains("unbounded or more than 4-fold wide").all()


def test_one_outcome_reads_the_same_under_any_early_line():
    """Two references with different early lines but the same counts above them get the same words."""
    points = _points()
    lines = [EarlyLine(0.007, 0.0065, 0.0075, 5.0, 0, 300.0), EarlyLine(0.0071, 0.0064, 0.0078, 5.0, 0, 350.0)]
    found = [present.windows_frame(forecast_windows(points, fit=lambda early, line=line: line)) for line in lines]
    assert (
        found[0][["above_line", "above_band_low", "above_band_high"]].to_numpy() == 0
    ).all()  # far above every model
    assert (found[1][["above_line", "above_band_low", "above_band_high"]].to_numpy() == 0).all()
    assert (found[0]["verdict"] == found[1]["verdict"]).all()
    assert set(found[0]["verdict"]) == {OUTCOME_WORDS[Outcome.BEHIND]}
    assert outcome_of(44, 0, 0) is Outcome.BEHIND and outcome_of(40, 4, 4) is Outcome.HOLDS
    assert outcome_of(40, 30, 20) is Outcome.AHEAD
    assert outcome_of(44, 9, 0) is Outcome.HOLDS  # 0 above the upper edge but the lower edge admits the 10%


def test_a_table_too_short_for_a_year_and_half_a_year_is_refused_in_one_line():
    with pytest.raises(InputError, match="needs 18"):
        forecast_windows(_points(days=400.0), n_boot=20)


def test_every_count_of_later_models_is_out_of_the_models_placed_against_every_edge():
    """A lower bound above the band's lower edge but below the line is undecided against the line: it is left out of
    every count, so no count exceeds the models placed (a share above 1 had no Wilson interval)."""
    import numpy as np

    from densing.laws.bounds import EXACT, LOWER
    from densing.trend.forecast import place_later

    y = np.array([1.0, 0.5, 0.2, 3.0])
    kind = np.array([EXACT, LOWER, EXACT, LOWER])
    placed, (line, low, high) = place_later(y, kind, [np.full(4, 0.8), np.full(4, 0.4), np.full(4, 1.2)])
    assert placed == 3 and (line, low, high) == (2, 2, 1)  # the bound at 0.5: above 0.4, undecided against 0.8
    assert max(line, low, high) <= placed


def test_every_count_is_out_of_the_later_models_placed_against_every_edge():
    """A bound that an edge cannot decide (a lower bound below it, an upper bound above it) is placed against no
    edge, so no count of models above an edge exceeds the later models placed."""
    points = _points(noise=1.5, n=120, seed=3)
    rng = np.random.default_rng(3)
    points["kind"] = rng.choice([0.0, 0.0, 1.0, -1.0], len(points))
    frame = present.windows_frame(forecast_windows(points, n_boot=40))
    for column in ("above_line", "above_band_low", "above_band_high"):
        assert (frame[column] <= frame["n_later"]).all()
    assert (frame["n_later"] < (points["t"].to_numpy()[None, :] > 0).sum()).all()  # some bounds were undecided


def test_the_declared_cutoff_is_checked_as_any_cutoff_and_without_a_grid():
    """forecast_at at a grid cutoff's date gives that cutoff's counts and outcome; a table too short for the grid is
    still checked at its declared cutoff; a cutoff before every model is refused in one line."""
    from densing.trend.forecast import forecast_at

    points = _points()
    grid = forecast_windows(points, n_boot=40, declared="2024-06-30")
    first = grid.cutoffs[0]
    again = forecast_at(points, first.cutoff, n_boot=40)
    assert (again.n_early, again.n_later, again.above_line, again.state) == (
        first.n_early,
        first.n_later,
        first.above_line,
        first.state,
    )
    assert grid.declared.cutoff == "2024-06-30" and grid.to_frame()["declared"].tolist()[0] is True
    assert str(present.summary(grid)).startswith("Forecast check of  at its declared cutoff 2024-06-30")
    short = forecast_windows(_points(days=400.0), n_boot=20, declared="2023-12-01")
    assert short.cutoffs == () and short.declared.n_early > 0
    with pytest.raises(InputError, match="no model released up to the declared cutoff 2020-01-01"):
        forecast_at(points, "2020-01-01", n_boot=20)


def test_a_grid_of_one_cutoff_is_counted_in_the_singular():
    from dataclasses import replace

    grid = forecast_windows(_points(), row="planted", n_boot=40)
    one = replace(grid, cutoffs=grid.cutoffs[:1])
    assert present.summary(one).title == "Forecast windows of planted: 1 cutoff"
    assert (
        present.summary(replace(one, declared=grid.cutoffs[0])).lines[0]
        == "  the rule's grid, not declared (1 cutoff):"
    )
    assert present.summary(grid).title.endswith(f": {len(grid.cutoffs)} cutoffs")
