"""The words of the laws (:mod:`densing.laws`): a fit's verdict and its interval notes, the extrapolation notes of a
density table and their summary, the held-out check's summary, and the OLMo ladder check's findings, titles and
sensitivity labels (a member with no size at a budget is said by :func:`densing.present.words.unreachable_words`,
beside the budget notes that show it). The laws hold values and codes (:func:`densing.laws.fit_schema.poor_fit`,
:class:`densing.laws.inversion.ExtrapolationNote`, the ladder's ``why`` codes, its sensitivity's ``variant`` codes,
:class:`densing.laws.olmo.check.LadderValidation`); the CLI, the report and a notebook ask here for what a reader sees
of them.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from densing.io import write_file_set
from densing.laws import density as _density
from densing.laws.fit_schema import POOR_FIT_R2, misplaced_intervals, poor_fit, score_r_squared
from densing.laws.inversion import (
    ComponentExtrapolates,
    ExtrapolationNote,
    SizeAboveData,
    SizeBelowData,
    TokensBeyondData,
)
from densing.laws.olmo.check import (
    AI2_RUNS,
    E_BY_LOSS,
    E_EVERYWHERE,
    EVERY_CHECKPOINT,
    FLOOR_AT_CHANCE,
    GOAL_MEAN_ERROR,
    HELD_OUT,
    NO_E,
    SHIPPED,
    LadderCheck,
    LadderValidation,
)
from densing.laws.olmo.ladder import CENSORED, FIT_UNCERTAINTY, ILL_CONDITIONED, WIDE
from densing.numbers import counted_noun, format_count
from densing.present.shown import shown_items, summary
from densing.present.summaries import Summary

if TYPE_CHECKING:
    from densing.laws.held_out import HeldOutCut

#: The words of an extrapolation note for N̂ outside the reference's N range.
BELOW_SMALLEST_N = "below the reference's smallest N"
ABOVE_LARGEST_N = "above the reference's largest N"


# -- a reference fit's verdict and notes -------------------------------------------------------------------------------


def verdict_words(r_squared: float) -> str:
    """'poor fit: R² … < 0.5' for a score stage's R² (the words of :func:`densing.laws.fit_schema.poor_fit`)."""
    return f"poor fit: R² {r_squared:.3f} < {POOR_FIT_R2}"


def fit_verdict(fit) -> str | None:
    """'poor fit: R² … < 0.5' when the score stage of ``fit`` (a ReferenceFit) explains too little
    (:func:`densing.laws.fit_schema.poor_fit`), else None."""
    return verdict_words(score_r_squared(fit)) if poor_fit(fit) else None


def interval_notes(fit, level: float = 0.95) -> list[str]:
    """One sentence per parameter whose bootstrap percentile interval misses its point estimate
    (:func:`densing.laws.fit_schema.misplaced_intervals`); such an interval is reported as it is, with this note."""
    return [
        f"{row.parameter} = {row.estimate:.4g} lies outside its bootstrap interval "
        f"[{row.ci_low:.4g}, {row.ci_high:.4g}]: the resampled fits settle elsewhere, "
        f"so {row.parameter} is poorly determined by these points"
        for row in misplaced_intervals(fit, level).itertuples(index=False)
    ]


# -- a density table's words -------------------------------------------------------------------------------------------


def extrapolation_text(note: ExtrapolationNote) -> str:
    """One extrapolation note (:class:`densing.laws.inversion.ExtrapolationNote`) in words."""
    if isinstance(note, TokensBeyondData):
        return (
            f"D0 {format_count(note.value)} is {note.value / note.limit:.3g}x the reference's largest D "
            f"({format_count(note.limit)})"
        )
    if isinstance(note, SizeBelowData):
        return f"N̂ {format_count(note.value)} {BELOW_SMALLEST_N} ({format_count(note.limit)})"
    if isinstance(note, SizeAboveData):
        return f"N̂ {format_count(note.value)} {ABOVE_LARGEST_N} ({format_count(note.limit)})"
    if isinstance(note, ComponentExtrapolates):
        return "a component extrapolates"
    raise TypeError(f"not an extrapolation note: {note!r}")


def _notes_text(notes) -> tuple[str, ...] | None:
    return tuple(extrapolation_text(n) for n in notes) if isinstance(notes, tuple) else None


def density_frame(result: pd.DataFrame) -> pd.DataFrame:
    """A density table of :func:`densing.laws.density.compute_density` with its words in place: ``extrapolation`` each
    row's notes as text (a tuple, None inside the data) and ``fit_verdict`` (:func:`verdict_words`; None for a fit that
    is not poor, missing on a geometric mean's rows) where the values ``fit_r_squared`` and ``poor_fit`` stood."""
    out = result.copy()
    if "extrapolation" in out.columns:
        out["extrapolation"] = pd.Series([_notes_text(n) for n in out["extrapolation"]], index=out.index, dtype=object)
    if "poor_fit" in out.columns:
        verdict = [
            math.nan if pd.isna(poor) else (verdict_words(r2) if poor else None)
            for poor, r2 in zip(out["poor_fit"], out["fit_r_squared"])
        ]
        at = out.columns.get_loc("fit_r_squared")
        out = out.drop(columns=["fit_r_squared", "poor_fit"])
        out.insert(at, "fit_verdict", pd.Series(verdict, index=out.index, dtype=object))
    return out


@functools.wraps(_density.compute_density)
def compute_density(*args, **kwargs) -> pd.DataFrame:  # its docstring: the laws' one, with a line above it
    return density_frame(_density.compute_density(*args, **kwargs))


compute_density.__module__ = __name__  # functools.wraps copied the laws' module
compute_density.__doc__ = (
    ":func:`densing.laws.density.compute_density` with its words in place (:func:`density_frame`): the notebook's "
    "``densing.compute_density``, whose ``fit_verdict`` and ``extrapolation`` columns a reader reads.\n\n"
    + (_density.compute_density.__doc__ or "")
)


def extrapolation_words(result: pd.DataFrame) -> pd.DataFrame:
    """``result`` (:func:`densing.laws.density.compute_density`'s values) in words (:func:`density_frame`), each row's
    extrapolation notes joined by "; " (None where none): the table ``--format csv/json`` writes."""
    out = density_frame(result)
    if "extrapolation" not in out.columns:
        return out
    return out.assign(extrapolation=["; ".join(n) if isinstance(n, tuple) else None for n in out["extrapolation"]])


def extrapolation_summary(result: pd.DataFrame) -> str | None:
    """One sentence for :func:`densing.laws.density.compute_density`'s ``extrapolation`` column (each row's notes):
    how many rows leave the reference's data, each D0 note once (by D0, then the reference's D) and the N̂ notes
    counted; ``None`` if no row does."""
    outside = [notes for notes in result["extrapolation"] if isinstance(notes, tuple)]
    if not outside:
        return None
    parts = [p for notes in outside for p in notes]
    reasons = [extrapolation_text(p) for p in sorted({p for p in parts if isinstance(p, TokensBeyondData)})]
    counts = {
        side: sum(isinstance(p, kind) for p in parts)
        for side, kind in ((BELOW_SMALLEST_N, SizeBelowData), (ABOVE_LARGEST_N, SizeAboveData))
    }
    reasons += [f"N̂ {side} in {counted_noun(count, 'row')}" for side, count in counts.items() if count]
    return (
        f"{len(outside)} of {len(result)} rows extrapolate beyond the reference's data: "
        + "; ".join(reasons)
        + " (column 'extrapolation' of --format csv/json has each row's)"
    )


# -- a held-out check's summary ----------------------------------------------------------------------------------------


def held_out_summary(table: pd.DataFrame, about: HeldOutCut | LadderValidation) -> str:
    """One sentence beside :func:`densing.laws.held_out.validate_held_out`'s table: how many held-out points (models on
    the OLMo ladder) above the cut, the mean and the largest relative score error |Ŝ − S| / S and where; on the
    ladder, the fit's runs, E and floor (``about``: :class:`~densing.laws.olmo.check.LadderValidation`)."""
    worst = table.loc[table["relative_error"].idxmax()]
    errors = f"mean relative error {table['relative_error'].mean():.2%}, largest {worst['relative_error']:.2%} ({worst['model']})"
    if isinstance(about, LadderValidation):
        return (
            f"{len(table)} held-out model(s) with N ≥ {about.max_params:.3g} ({about.benchmark}): {errors}; fit on "
            f"{about.train_runs} runs below, E {'on' if about.irreducible else 'off'}, floor {about.floor}"
        )
    return (
        f"{len(table)} held-out point(s) from {table['run'].nunique()} run(s) with N ≥ {about.max_params:.3g} "
        f"({table['benchmark'].iloc[0]}): {errors}"
    )


# -- the OLMo ladder check ---------------------------------------------------------------------------------------------

#: The label of each of the ladder check's sensitivity variants (:data:`densing.laws.olmo.check.SHIPPED` …); the
#: shipped rules' names the floor (:func:`variant_label`).
VARIANT_LABELS = {
    SHIPPED: "shipped rules (25 runs, E by chained score error, floor {floor})",
    AI2_RUNS: "AI2's runs: 190M–1B × 1,2,5,10×C, original 1×C files (densing's fitting, not AI2's Huber fit)",
    FLOOR_AT_CHANCE: "floor fixed at chance",
    NO_E: "no irreducible term E",
    E_EVERYWHERE: "E on every task",
    E_BY_LOSS: "E chosen by the loss-only extrapolation error",
    EVERY_CHECKPOINT: "loss law on every checkpoint past 10% (not final points)",
}


def variant_label(code: str, floor: object = "free") -> str:
    """The label of a sensitivity variant's ``code`` (:data:`VARIANT_LABELS`); ``floor``: the shipped fits' floor."""
    return VARIANT_LABELS[code].format(floor=floor)


def ladder_sensitivity(check: LadderCheck) -> pd.DataFrame:
    """The ladder check's sensitivity with each variant's label (:func:`variant_label`) in place of its code."""
    return check.sensitivity.assign(variant=[variant_label(v, check.floor) for v in check.sensitivity["variant"]])


def ladder_why(row) -> str:
    """In words: what limits a ladder density's interval (its ``why`` code, :func:`densing.laws.olmo.ladder.why_code`)."""
    if row.why == CENSORED:
        return (
            f"censored ({row.censored}): the score is beyond what the ladder's law reaches at D0 = {row.d0:.3g} tokens"
        )
    if row.why == ILL_CONDITIONED:
        return f"ill-conditioned: one standard error of the score moves ρ {row.conditioning:.3g}-fold"
    if row.why == FIT_UNCERTAINTY:
        return "fit uncertainty: some bootstrap draws of the ladder's law cannot reach this score at D0"
    if row.why == WIDE:
        return f"wide: one standard error of the score moves ρ {row.conditioning:.3g}-fold; the rest is the fit's uncertainty"
    return ""


def ladder_densities(densities: pd.DataFrame) -> pd.DataFrame:
    """The ladder's densities (:func:`densing.laws.olmo.ladder.density_table`) in words: the verdict and the notes
    (:func:`extrapolation_words`) and ``why`` (:func:`ladder_why`), each in its column's place."""
    out = extrapolation_words(densities)
    out["why"] = [ladder_why(r) for r in out.itertuples(index=False)]
    return out


def ladder_tables(check, compact: bool = True):
    """(title, frame) of each of the ladder check's tables (:class:`densing.laws.olmo.check.LadderCheck`), in words;
    ``compact``: the columns a terminal shows."""
    held, dens = check.held_out, ladder_densities(check.densities)
    if compact:
        held = held[
            [
                "model",
                "benchmark",
                "measured_score",
                "predicted_score",
                "predicted_score_ci_low",
                "predicted_score_ci_high",
                "relative_error",
                "ai2_relative_error",
            ]
        ]
        dens = dens[
            [
                "model",
                "benchmark",
                "score",
                "density",
                "density_ci_low",
                "density_ci_high",
                "ci_fold",
                "conditioning",
            ]
        ]
    yield "held-out prediction of OLMo-2 7B and 13B from the ladder (relative error |Ŝ − S| / S)", held
    yield "density at the model's own token count (same recipe: ρ ≈ 1 expected)", dens
    yield (
        "held-out mean relative error over MMLU, HellaSwag, PIQA, SIQA, CSQA under other fitting choices",
        ladder_sensitivity(check),
    )


def ladder_findings(check) -> list[str]:
    """The ladder check's findings, one sentence each: what limits each density's interval, each held-out model's
    mean error against AI2's and the goal, and how many intervals are narrow and contain ρ = 1."""
    means = check.mean_errors()
    lines = [
        f"{r.model} {r.benchmark}: {r.why}" for r in ladder_densities(check.densities).itertuples(index=False) if r.why
    ]
    lines += [
        f"{model}: mean relative error over the five tasks {means[model]:.2%} (AI2's 13B: "
        f"{check.ai2_mean_13b:.2%}; goal ≤ {GOAL_MEAN_ERROR:.1%}: "
        f"{'meets' if means[model] <= GOAL_MEAN_ERROR else 'misses'})"
        for model in HELD_OUT
        if model in means
    ]
    lines.append(
        f"13B density intervals narrower than ×5 on {check.narrow_13b()} of 5 tasks; "
        + "; ".join(
            f"{m}: {int(r['sum'])}/{int(r['size'])} intervals contain ρ = 1" for m, r in check.contains_1().iterrows()
        )
    )
    return lines


def write_ladder_check(check, folder: str | Path) -> None:
    """heldout.csv, densities.csv (in words: :func:`ladder_densities`) and sensitivity.csv (its variants' labels:
    :func:`ladder_sensitivity`) of the ladder check in
    ``folder``, as a set (:func:`densing.io.write_file_set`)."""
    write_file_set(
        folder,
        {
            f"{name}.csv": frame.to_csv(index=False)
            for name, frame in (
                ("heldout", check.held_out),
                ("densities", ladder_densities(check.densities)),
                ("sensitivity", ladder_sensitivity(check)),
            )
        },
    )


def ladder_check_summary(check: LadderCheck) -> Summary:
    """The ladder check as a reader sees it: its fields, then its findings (:func:`ladder_findings`)."""
    items = [*shown_items(check), *((f"finding {i}", line) for i, line in enumerate(ladder_findings(check), 1))]
    return Summary(type(check).__name__, items=tuple(items))


summary.register(LadderCheck, ladder_check_summary)
