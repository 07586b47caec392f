"""studies/olmes_coverage.py: the planted frontier's 0.9 quantile has the planted slope, and the planted checkpoints'
errors have the real residuals' spread and within-run correlation."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from densing.laws.bounds import EXACT
from studies._planted import frontier_line
from tests.conftest import needs_olmo
from tools import olmes_mc_reference as build

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("olmes_coverage", ROOT / "studies" / "olmes_coverage.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.mark.parametrize("months", [3.0, 6.0])
def test_the_planted_frontiers_090_quantile_line_has_the_planted_slope(study, months):
    rng = np.random.default_rng(0)
    t = np.repeat(np.linspace(144.0, 747.0, 12), 50)  # the real targets' span of dates, many targets per date
    y = study.planted_log_rho(rng, "arc_challenge", months, t)
    slope, intercept = frontier_line("quantile", t, y, np.full(t.size, EXACT), np.arange(t.size).astype(str), 0.9)
    b, g = study.FRONTIER["arc_challenge"]
    assert slope == pytest.approx(study.slope_of(months), rel=0.1)
    assert slope * t.max() + intercept == pytest.approx(b - g * np.log(10 / 9), abs=0.25)


@needs_olmo
def test_planted_checkpoint_errors_have_the_real_spread_and_within_run_correlation(study):
    phi, sd = study.checkpoint_noise("mmlu")
    rows = [study.planted_runs(np.random.default_rng(seed), "mmlu", "model") for seed in range(20)]
    errors, lagged = [], []
    for frame in rows:
        points = build.score_points(frame, "mmlu")
        e = points["score"].to_numpy(float) - study.true_score("mmlu", "model", points["loss"])
        same = points["run"].to_numpy(str)[1:] == points["run"].to_numpy(str)[:-1]
        errors.append(e)
        lagged.append(np.column_stack([e[:-1][same], e[1:][same]]))
    errors, lagged = np.concatenate(errors), np.concatenate(lagged)
    assert errors.std() == pytest.approx(sd, rel=0.15)
    assert np.corrcoef(lagged.T)[0, 1] == pytest.approx(phi, abs=0.1)
