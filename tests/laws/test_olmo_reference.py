"""The shipped OLMo-ladder fits on the real ladder data (../shared/data/olmo_ladder)."""

import numpy as np
import pytest
from conftest import OLMO_LADDER, REPO_ROOT, needs_olmo

from densing.laws.reference_fit import ReferenceFit

FITS = sorted((REPO_ROOT / "reference_fits").glob("olmo_*_two_step.json"))


def test_ten_fits_ship_and_none_holds_a_target_model():
    assert len(FITS) == 10
    for path in FITS:
        fit = ReferenceFit.load(path)
        runs = {p[5] for p in fit.loss_points}
        assert runs and all(r.startswith("olmo-ladder-") for r in runs), path.name  # never OLMo-2 1B/7B/13B
        assert len(runs) == 25 and len(fit.loss_points) == 25  # one final point per ladder run
        assert fit.points == () and fit.stages[1].n_points > 1000  # the checkpoints: in the ladder table, not the fit
        assert fit.loss_unit == "bpb" and fit.provenance["loss_points"] == "final"
        assert fit.provenance["bootstrap_unit"] == "series" and len(fit.bootstrap) >= 180


def test_a_shipped_ladder_fit_draws_its_runs_final_points():
    """The loss and performance panels of a ladder fit, which keeps each run's final point and not its checkpoints."""
    from densing.report import render_parts as figures

    fit = ReferenceFit.load(FITS[0])
    loss = figures.loss_figure(fit)
    assert sum(len(t.x) for t in loss.data if t.mode == "markers") == 25
    panel = figures.performance_figure([fit])
    markers = [t for t in panel.data if t.mode == "markers"]
    assert len(markers) == 1 and len(markers[0].x) == 25 and np.isfinite(np.asarray(markers[0].y, float)).all()


@needs_olmo
@pytest.mark.slow
def test_check_gives_held_out_errors_beside_ai2_and_densities_with_conditioning():
    from densing.laws.olmo.check import check_ladder

    result = check_ladder(OLMO_LADDER, REPO_ROOT / "reference_fits")
    held = result.held_out
    assert set(held["model"]) == {"olmo-2-7b", "olmo-2-13b"} and len(held) == 20
    assert held.loc[held["model"] == "olmo-2-13b", "ai2_relative_error"].notna().sum() == 8
    assert np.allclose(
        held["relative_error"], (held["predicted_score"] - held["measured_score"]).abs() / held["measured_score"]
    )
    from densing.present.laws import ladder_densities, ladder_findings

    dens = result.densities
    assert set(dens["model"]) == {"olmo-2-1b", "olmo-2-7b", "olmo-2-13b"}
    finite = dens["censored"].isna() & np.isfinite(dens["density"])
    assert (dens.loc[finite, "conditioning"] >= 1).all()
    # every censored or unbounded density says why in words
    unbounded = ~finite | ~np.isfinite(dens["density_ci_high"])
    assert ladder_densities(dens).loc[unbounded, "why"].str.len().gt(10).all()
    lines = ladder_findings(result)
    assert any("AI2's 13B: 2.34%" in line for line in lines)
    assert set(result.sensitivity.columns) == {"variant", "olmo-2-7b_mean_error", "olmo-2-13b_mean_error"}
    from densing.laws.olmo.check import SHIPPED
    from densing.present.laws import ladder_sensitivity, variant_label

    assert result.sensitivity["variant"].iloc[0] == SHIPPED  # a code; its label is present.laws'
    assert ladder_sensitivity(result)["variant"].iloc[0] == variant_label(SHIPPED, result.floor)
    assert variant_label(SHIPPED, result.floor).startswith("shipped rules (25 runs, E by chained score error, floor ")


@needs_olmo
def test_validate_on_the_ladder_prints_a_summary_line(run_cli):
    code, out, err = run_cli(
        "validate",
        "--data",
        OLMO_LADDER,
        "--benchmark",
        "olmes_piqa",
        "--metric",
        "len_norm",
        "--max-params",
        "2e9",
        "--format",
        "table",
    )
    assert code == 0, err
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("7 held-out model(s) with N ≥ 2e+09 (olmes_piqa): mean relative error")
