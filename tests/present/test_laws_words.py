"""The laws hold values; their words are made in densing.present.laws (issue 106, "values out, displays in")."""

from __future__ import annotations

import importlib

import pytest

#: The word-making functions moved out of densing/laws, each by the module it left.
MOVED = {
    "densing.laws.fit_schema": ("fit_verdict", "interval_notes"),
    "densing.laws.density": ("bound_words", "extrapolation_words", "extrapolation_summary"),
    "densing.laws.inversion": ("BELOW_SMALLEST_N", "ABOVE_LARGEST_N"),
    "densing.laws.olmo.ladder": ("extrapolation_words", "_why"),
    "densing.laws.olmo.check": ("POOR_FIT_R2", "held_out_summary", "variant_label", "VARIANT_LABELS"),
    "densing.laws.held_out": ("held_out_summary",),
    "densing.designs.olmes.trend": ("POOR_FIT_R2", "counted_noun", "poor_fit_error", "ceiling_one_poor_fit"),
}
#: What densing.present.laws makes of them.
MADE_HERE = (
    "fit_verdict",
    "interval_notes",
    "extrapolation_words",
    "extrapolation_summary",
    "extrapolation_text",
    "density_frame",
    "ladder_why",
    "ladder_findings",
    "ladder_tables",
    "write_ladder_check",
    "held_out_summary",
    "variant_label",
    "ladder_sensitivity",
)
#: What densing.present.olmes makes of the OLMES design's values.
MADE_IN_OLMES = ("rows_frame", "checks_frame", "poor_fit_error", "ceiling_one_poor_fit", "olmes_summary")


@pytest.mark.parametrize("module", sorted(MOVED))
def test_the_laws_no_longer_make_these_words(module):
    loaded = importlib.import_module(module)
    assert [name for name in MOVED[module] if hasattr(loaded, name)] == []


def test_the_ladder_check_has_no_word_methods():
    from densing.laws.olmo.check import LadderCheck

    assert [name for name in ("summary_lines", "tables", "write") if hasattr(LadderCheck, name)] == []


def test_the_presentation_layer_makes_them():
    from densing.present import laws

    assert [name for name in MADE_HERE if not callable(getattr(laws, name, None))] == []


def test_the_verdict_is_made_from_the_values():
    from densing.laws.fit_schema import POOR_FIT_R2
    from densing.present.laws import verdict_words

    assert verdict_words(-0.108) == f"poor fit: R² -0.108 < {POOR_FIT_R2}"


def test_the_notebook_table_has_its_words_and_the_laws_table_its_values():
    import densing
    from densing.laws import density
    from densing.present import laws

    assert densing.compute_density is laws.compute_density
    assert density.compute_density is not laws.compute_density


def test_the_olmes_words_are_made_in_present_from_the_verdict():
    from densing.present import olmes
    from densing.present.laws import verdict_words

    assert [name for name in MADE_IN_OLMES if not callable(getattr(olmes, name, None))] == []
    assert olmes.poor_fit_error(0.0334) == (
        f"the MC score law is a {verdict_words(0.0334)} on the OLMo-2 checkpoints "
        "(bits per byte does not order MC accuracy)"
    )
    assert olmes.ceiling_one_poor_fit(0.471) == "the ceiling-1 law is a poor fit: R² 0.471 < 0.5"


def test_the_ladder_sensitivity_holds_codes_and_present_labels_them():
    from densing.laws.olmo import check
    from densing.present.laws import VARIANT_LABELS, variant_label

    codes = (
        check.SHIPPED,
        check.AI2_RUNS,
        check.FLOOR_AT_CHANCE,
        check.NO_E,
        check.E_EVERYWHERE,
        check.E_BY_LOSS,
        check.EVERY_CHECKPOINT,
    )
    assert set(VARIANT_LABELS) == set(codes) and all(" " not in code for code in codes)
    assert variant_label(check.SHIPPED, "chance") == "shipped rules (25 runs, E by chained score error, floor chance)"


def test_the_held_out_check_returns_values_and_present_says_them():
    import pandas as pd

    from densing.laws.held_out import HeldOutCut
    from densing.laws.olmo.check import LadderValidation
    from densing.present.laws import held_out_summary

    table = pd.DataFrame(
        {"model": ["a", "b"], "run": ["r1", "r2"], "benchmark": ["x", "x"], "relative_error": [0.01, 0.03]}
    )
    assert held_out_summary(table, HeldOutCut(1e9)) == (
        "2 held-out point(s) from 2 run(s) with N ≥ 1e+09 (x): mean relative error 2.00%, largest 3.00% (b)"
    )
    assert held_out_summary(table, LadderValidation(1e9, "x", 12, True, "free")) == (
        "2 held-out model(s) with N ≥ 1e+09 (x): mean relative error 2.00%, largest 3.00% (b); fit on 12 runs "
        "below, E on, floor free"
    )
