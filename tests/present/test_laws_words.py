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
)


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
