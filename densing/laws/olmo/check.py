"""The OLMo ladder's check: held-out OLMo-2 7B/13B predictions beside AI2's, OLMo-2 densities, sensitivity.

:func:`check_ladder` predicts the final accuracy of OLMo-2 7B and 13B from the shipped ladder fits, as AI2 does
(Bhagia et al. 2024, arXiv 2412.04403; their 13B errors: ``results/olmo_ladder/ai2_chained_main.csv``), adds the
densities of OLMo-2 1B, 7B and 13B at their own token counts (ρ ≈ 1 expected) with their conditioning, and the
held-out error under other ways of fitting the ladder (docs/method.md, "The OLMo ladder reference").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from densing import paths
from densing.errors import InputError
from densing.laws.fit_schema import final_points, select_points
from densing.laws.olmo.ladder import (
    FINAL_CHECKPOINTS,
    choose_irreducible,
    density_table,
    fit_ladder,
    predict_held_out,
    variant_errors,
)
from densing.laws.reference_fit import ReferenceFit
from densing.results import ALPHA_CONSTRAINTS, Result, frame_records, interval_frame
from densing.validation import validate_params

AI2_TABLE = paths.RESULTS / "olmo_ladder" / "ai2_chained_main.csv"
#: AI2's task keys → the tidy table's benchmark names
AI2_TASKS = {
    "mmlu_avg_test_5shot": "olmes_mmlu",
    "hellaswag_val_5shot": "olmes_hellaswag",
    "arc_challenge_test_5shot": "olmes_arc_challenge",
    "arc_easy_test_5shot": "olmes_arc_easy",
    "piqa_val_5shot": "olmes_piqa",
    "csqa_val_5shot": "olmes_csqa",
    "socialiqa_val_5shot": "olmes_socialiqa",
    "openbookqa_test_5shot": "olmes_openbookqa",
}
FIVE_TASKS = ("olmes_mmlu", "olmes_hellaswag", "olmes_piqa", "olmes_socialiqa", "olmes_csqa")
HELD_OUT = ("olmo-2-7b", "olmo-2-13b")
DENSITY_TARGETS = ("olmo-2-1b", "olmo-2-7b", "olmo-2-13b")
GOAL_MEAN_ERROR = 0.023  # the goal: AI2's own 13B mean error over the five tasks, rounded down
#: The sensitivity's variants (the ``variant`` codes of :attr:`LadderCheck.sensitivity`), in the table's order: the
#: shipped rules; AI2's runs (190M–1B × 1,2,5,10×C, the original 1×C files, densing's fitting); the floor fixed at
#: chance; no irreducible term E; E on every task; E chosen by the loss-only extrapolation error (where
#: olmo_ladder_selection.csv is written); the loss law on every checkpoint past 10%. Their labels:
#: :func:`densing.present.laws.variant_label`.
SHIPPED, AI2_RUNS, FLOOR_AT_CHANCE, NO_E, E_EVERYWHERE, E_BY_LOSS, EVERY_CHECKPOINT = (
    "shipped",
    "ai2_runs",
    "floor_at_chance",
    "no_e",
    "e_everywhere",
    "e_by_loss",
    "every_checkpoint",
)


@dataclass(frozen=True)
class LadderCheck(Result):
    """The ladder's check (module docstring): held-out predictions, densities, the sensitivity to the fitting rules.
    ``to_dict()``: the tables as records, AI2's 13B mean error and the level; ``to_frame()``: the held-out predictions;
    ``conf_int(alpha)``: ``<model>.<benchmark>.predicted_score`` and ``<model>.<benchmark>.density`` rows. Values: the
    sensitivity's ``variant`` is a code (:data:`SHIPPED` …) and ``floor`` the shipped fits' ladder floor; the tables'
    titles, the variants' labels, the densities' words, the findings and the files a reader gets are
    :mod:`densing.present.laws`' (:func:`~densing.present.laws.ladder_tables`,
    :func:`~densing.present.laws.ladder_findings`, :func:`~densing.present.laws.write_ladder_check`)."""

    held_out: pd.DataFrame
    densities: pd.DataFrame
    sensitivity: pd.DataFrame
    ai2_mean_13b: float
    level: float = 0.95
    floor: object = field(default="free", repr=False)

    def to_dict(self) -> dict:
        frames = {name: frame_records(getattr(self, name)) for name in ("held_out", "densities", "sensitivity")}
        return {**frames, "ai2_mean_13b": self.ai2_mean_13b, "level": self.level}

    def to_frame(self) -> pd.DataFrame:
        """The held-out predictions (a copy)."""
        return self.held_out.copy()

    @validate_params(ALPHA_CONSTRAINTS)
    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        self._check_alpha(alpha)
        rows = {
            f"{r.model}.{r.benchmark}.predicted_score": (
                r.predicted_score,
                r.predicted_score_ci_low,
                r.predicted_score_ci_high,
            )
            for r in self.held_out.itertuples()
        }
        rows |= {
            f"{r.model}.{r.benchmark}.density": (r.density, r.density_ci_low, r.density_ci_high)
            for r in self.densities.itertuples()
        }
        return interval_frame(rows)

    def _summary_items(self) -> list[tuple[str, object]]:
        return [("level", self.level), ("AI2's 13B mean error", self.ai2_mean_13b)]

    def mean_errors(self) -> pd.Series:
        """Each held-out model's mean relative error over :data:`FIVE_TASKS` (its goal: :data:`GOAL_MEAN_ERROR`)."""
        five = self.held_out[self.held_out["benchmark"].isin(FIVE_TASKS)]
        return five.groupby("model")["relative_error"].mean()

    def narrow_13b(self) -> int:
        """On how many of the five tasks the 13B density interval is narrower than ×5 (high / low < 5)."""
        d13 = self.densities[(self.densities["model"] == "olmo-2-13b") & self.densities["benchmark"].isin(FIVE_TASKS)]
        return int((d13["ci_fold"] < 5).sum())

    def contains_1(self) -> pd.DataFrame:
        """Per model, how many of its density intervals contain ρ = 1 (``sum``) of how many (``size``)."""
        return self.densities.groupby("model")["ci_contains_1"].agg(["sum", "size"])


def check_ladder(folder: str | Path, fits_dir: str | Path, *, level: float = 0.95) -> LadderCheck:
    """Held-out table, densities and sensitivity for the shipped OLMo ladder fits."""
    from densing.data.olmo import ai2_published_setup, ladder_benchmarks, read_olmo_ladder, split_ladder

    if not 0 < level < 1:
        raise InputError(f"level: expected a number in (0, 1), got {level!r}")
    benchmarks = ladder_benchmarks()
    fits = {}
    for benchmark in benchmarks:
        path = Path(fits_dir) / f"olmo_{benchmark.removeprefix('olmes_')}_two_step.json"
        if not path.exists():
            raise InputError(f"{path}: no such fit; run `densing ladder fit` first")
        fits[benchmark] = ReferenceFit.load(path)
    ladder, targets = split_ladder(read_olmo_ladder(folder))
    held_targets = targets[targets["model"].isin(HELD_OUT)]
    held = pd.concat([predict_held_out(fit, held_targets, level=level) for fit in fits.values()], ignore_index=True)
    ai2 = pd.read_csv(AI2_TABLE).rename(columns={"Rel Error": "ai2_relative_error", "Pred": "ai2_predicted_score"})
    ai2 = ai2.assign(benchmark=ai2["Task"].map(AI2_TASKS))[["benchmark", "ai2_predicted_score", "ai2_relative_error"]]
    held = held.merge(ai2, on="benchmark", how="left")
    held.loc[held["model"] != "olmo-2-13b", ["ai2_predicted_score", "ai2_relative_error"]] = np.nan
    densities = density_table(fits, targets[targets["model"].isin(DENSITY_TARGETS)], level=level)

    shipped = {
        b: {
            "law": "two-step",
            "irreducible": f.provenance.get("irreducible", False),
            "chance": f.provenance.get("chance"),
            "loss_points": f.provenance.get("loss_points", "all"),
            "final_checkpoints": f.provenance.get("final_checkpoints") or 5,
            "min_run_fraction": f.provenance.get("min_run_fraction") or 0.0,
        }
        for b, f in fits.items()
    }
    original, _ = split_ladder(read_olmo_ladder(folder, rerun=False))
    five = {b: m for b, m in benchmarks.items() if b in FIVE_TASKS}
    floor = next(iter(fits.values())).provenance.get("ladder_floor", "free")
    selection, by_loss = Path(fits_dir) / "olmo_ladder_selection.csv", {}  # rule 2 by loss, where its table is written
    if selection.exists():
        chosen = choose_irreducible(pd.read_csv(selection), "loss")
        by_loss = {
            E_BY_LOSS: (
                ladder,
                {b: {**o, "irreducible": chosen.get(b, o["irreducible"])} for b, o in shipped.items()},
            )
        }
    variants = {
        SHIPPED: (ladder, shipped),
        AI2_RUNS: (ai2_published_setup(original), shipped),
        FLOOR_AT_CHANCE: (ladder, {b: {**o, "chance": "auto"} for b, o in shipped.items()}),
        NO_E: (ladder, {b: {**o, "irreducible": False} for b, o in shipped.items()}),
        E_EVERYWHERE: (ladder, {b: {**o, "irreducible": True} for b, o in shipped.items()}),
        **by_loss,
        EVERY_CHECKPOINT: (ladder, {b: {**o, "loss_points": "all"} for b, o in shipped.items()}),
    }
    errors = variant_errors(variants, held_targets, five)
    sensitivity = (
        errors.pivot_table(index="variant", columns="model", values="relative_error", aggfunc="mean", sort=False)
        .reset_index()
        .rename_axis(columns=None)
    )
    sensitivity = sensitivity.rename(columns={m: f"{m}_mean_error" for m in HELD_OUT})
    ai2_mean = float(ai2[ai2["benchmark"].isin(FIVE_TASKS)]["ai2_relative_error"].mean())
    return LadderCheck(
        held_out=held, densities=densities, sensitivity=sensitivity, ai2_mean_13b=ai2_mean, level=level, floor=floor
    )


@dataclass(frozen=True)
class LadderValidation:
    """What :func:`validate_ladder`'s table leaves out of the check's summary: the cut ``max_params``, the benchmark,
    how many ladder runs below the cut the law is fitted on, whether it has an irreducible term E, and its floor (the
    summary in words: :func:`densing.present.laws.held_out_summary`)."""

    max_params: float
    benchmark: str
    train_runs: int
    irreducible: bool
    floor: object


def validate_ladder(
    frame: pd.DataFrame, benchmark: str, metric: str, *, max_params: float
) -> tuple[pd.DataFrame, LadderValidation]:
    """Fit small, predict large on a ladder table by the ladder's rules (:func:`densing.laws.olmo.ladder.fit_ladder`
    on the runs with N < ``max_params``); held out, the ladder runs at or above it (their final point) and every full
    run there: one row per held-out model, and the fit's values for its summary (:class:`LadderValidation`)."""
    from densing.data.olmo import split_ladder

    ladder, full = split_ladder(frame)
    train = ladder[ladder["params"] < max_params]
    if train["params"].nunique() < 3:
        raise InputError(
            f"max_params {max_params:.3g}: {train['params'].nunique()} ladder size(s) below it; need at least 3 to fit"
        )
    fits, options = fit_ladder(train, {benchmark: metric}, n_boot=0)
    fit = fits[benchmark]
    big = ladder[ladder["params"] >= max_params]
    pieces = []
    if not big.empty:
        _, points = select_points(big, benchmark, metric=metric)
        ends = final_points(points, FINAL_CHECKPOINTS)
        unit = big.loc[big["benchmark"] == benchmark, "loss_unit"].dropna()
        pieces.append(
            ends.rename(columns={"score": "value"}).assign(
                benchmark=benchmark, metric=metric, loss_unit=unit.iloc[0] if len(unit) else None
            )
        )
    held_full = full[(full["params"] >= max_params) & (full["benchmark"] == benchmark)]
    if not held_full.empty:
        pieces.append(held_full)
    if not pieces:
        raise InputError(f"max_params {max_params:.3g}: no model is that large; nothing is held out")
    held = pd.concat(pieces, ignore_index=True)
    table = predict_held_out(fit, held).sort_values(["params", "train_tokens"]).reset_index(drop=True)
    about = LadderValidation(
        max_params, benchmark, train["run"].nunique(), bool(options.irreducible[benchmark]), options.floor
    )
    return table, about
