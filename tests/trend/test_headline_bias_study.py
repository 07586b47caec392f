"""studies/headline_bias.py: the planted world is the real row's table with its scores replaced (every model, date,
family and column kept), the frontier family at the top; the summary's bias, coverage and leave-one-out corrected
coverage on planted records; one replicate runs end to end through the package's row estimator."""

from __future__ import annotations

import math

import numpy as np
import pytest

from densing.trend import bias


@pytest.fixture(scope="module")
def study():
    from studies import headline_bias

    return headline_bias


def test_the_planted_table_is_the_real_rows_table_with_its_scores_replaced(study):
    real = study.real_row("swallow")
    assert real.frontier == "Qwen3" and set(real.found) == {"Qwen2.5"}
    planted, truth = study.planted_table(real, study.WORLDS["swallow"], np.random.default_rng(0))
    assert list(planted.columns) == list(real.frame.columns)
    assert planted[["model", "benchmark", "family", "params", "release_date"]].equals(
        real.frame[["model", "benchmark", "family", "params", "release_date"]]
    )
    assert planted["value"].between(0, 1).all() and not planted["value"].equals(real.frame["value"])
    assert planted["stderr"].gt(0).all()
    # the frontier family at gap 0 sits about B above the line through t_ref; the other families lower on average
    days = planted.drop_duplicates("model").set_index("model")["release_date"] - np.datetime64("2024-09-19")
    level = truth - real.slope * days.dt.days.astype(float).loc[truth.index]
    families = real.frame.drop_duplicates("model").set_index("model")["family"].loc[truth.index]
    assert abs(level[families == "Qwen3"].mean() - 0.5) < 0.4
    assert level[families != "Qwen3"].mean() < level[families == "Qwen3"].mean() - 0.4


def test_the_summary_measures_bias_coverage_and_the_leave_one_out_correction(study):
    latent = 0.01
    points = [0.0105, 0.0112, 0.0098, 0.0110, 0.0115]
    records = [{"point": p, "low": p * 0.8, "high": p * 1.2, "oracle": p, "state": "MEASURED"} for p in points]
    found = study.measured(records + [{"error": "no reference fits"}], latent)
    rel = np.array(points) / latent - 1
    assert found["replicates"] == 5 and found["failed"] == 1
    assert found["bias"] == pytest.approx(rel.mean()) and found["bias_se"] == pytest.approx(
        rel.std(ddof=1) / math.sqrt(5)
    )
    assert found["coverage"] == 1.0
    hits = []
    for i, p in enumerate(points):
        others = np.delete(rel, i)
        _, low, high = bias.corrected_slopes(p, p * 0.8, p * 1.2, others.mean(), others.std(ddof=1) / 2.0)
        hits.append(low <= latent <= high)
    assert found["corrected_coverage"] == pytest.approx(np.mean(hits))


def test_one_replicate_runs_through_the_row_estimator(study):
    record = study.run_replicate(0, "swallow", 0, 40)
    assert "error" not in record and record["references"] == ["Qwen2.5"] and record["n_models"] == 72
    assert record["low"] <= record["point"] <= record["high"] and record["latent"] == study.real_row("swallow").slope
    assert record["oracle"] > 0
