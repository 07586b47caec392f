"""A model ladder as a reference: the two-step law on runs of one recipe, choices made inside it.

A *ladder* is one recipe run at several sizes N and budgets D, each run logging checkpoints with a conditional loss and
a score (AI2's OLMo ladder: Bhagia et al. 2024, arXiv 2412.04403). :func:`fit_ladder` fits the Densing Law's two steps
(Xiao et al. 2024, eqs. 2–3), L(N, D) = a·N^-α + b·D^-β [+ E] and S(L) = c / (1 + e^(−γ(L − l))) + d, by rules that
look only at the ladder, never at a held-out model (docs/method.md, "The OLMo ladder reference": the loss law on each
run's final point, E per task and one floor d by the chained extrapolation error to the largest size;
:func:`select_options` returns the choices and their table).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from densing.errors import FitError, InputError
from densing.laws import fit as _fit, forms, problems as _problems
from densing.laws.density import density_at_own_tokens
from densing.laws.fit_schema import final_points, select_points
from densing.laws.inversion import conditioning
from densing.laws.reference import fit_reference
from densing.laws.reference_fit import ReferenceFit

FINAL_CHECKPOINTS = 5
MIN_RUN_FRACTION = 0.1
FLOORS = ("free", "chance")


@dataclass(frozen=True)
class LadderOptions:
    """The choices of :func:`select_options` for one ladder: E per benchmark and one floor."""

    irreducible: dict[str, bool]
    floor: str
    table: pd.DataFrame  # the extrapolation errors the choices were made from
    held_size: float

    def fit_options(self, benchmark: str) -> dict:
        return {
            "law": "two-step",
            "irreducible": self.irreducible[benchmark],
            "chance": "auto" if self.floor == "chance" else None,
            "loss_points": "final",
            "final_checkpoints": FINAL_CHECKPOINTS,
            "min_run_fraction": MIN_RUN_FRACTION,
        }


def choose_irreducible(table: pd.DataFrame, criterion: str) -> dict[str, bool]:
    """E where its extrapolation error (``score_error`` with the floor free, or ``loss_error``) is lower by > 0.1%."""
    rows = table[table["floor"] == "free"].pivot(index="benchmark", columns="irreducible", values=f"{criterion}_error")
    return {
        b: bool(
            rows.loc[b, True] < rows.loc[b, False]
            and not np.isclose(rows.loc[b, True], rows.loc[b, False], rtol=1e-3, atol=0)
        )
        for b in rows.index
    }


def select_options(frame: pd.DataFrame, benchmarks: dict[str, str]) -> LadderOptions:
    """The choices of E and the floor (module docstring) on the ladder ``frame``; ``benchmarks`` maps name → metric."""
    sizes = np.sort(frame["params"].unique())
    if sizes.size < 3:
        raise InputError(f"ladder: {sizes.size} model size(s); choosing the law's options needs at least 3")
    largest = float(sizes[-1])
    small, large = frame[frame["params"] < largest], frame[frame["params"] >= largest]
    rows = []
    for benchmark, metric in benchmarks.items():
        target, train_final = (
            final_points(select_points(part, benchmark, metric=metric, need_loss=True)[1], FINAL_CHECKPOINTS)
            for part in (large, small)
        )
        for irreducible in (False, True):
            stage = _fit.fit_stage(
                _problems.loss_problem(
                    train_final["params"], train_final["train_tokens"], train_final["loss"], irreducible=irreducible
                ),
                loss="soft_l1",
                f_scale=0.05,
            )
            predicted_loss = forms.loss_law(target["params"], target["train_tokens"], **stage.params)
            loss_error = float(np.mean(np.abs(predicted_loss - target["loss"]) / target["loss"]))
            for floor in FLOORS:
                fit = fit_reference(
                    small,
                    benchmark,
                    metric=metric,
                    law="two-step",
                    irreducible=irreducible,
                    chance="auto" if floor == "chance" else None,
                    loss_points="final",
                    final_checkpoints=FINAL_CHECKPOINTS,
                    min_run_fraction=MIN_RUN_FRACTION,
                    n_boot=0,
                )
                predicted = fit.predict_score(target["params"], target["train_tokens"])
                rows.append(
                    {
                        "benchmark": benchmark,
                        "irreducible": irreducible,
                        "floor": floor,
                        "loss_error": loss_error,
                        "score_error": float(np.mean(np.abs(predicted - target["score"]) / target["score"])),
                    }
                )
    table = pd.DataFrame(rows)
    irreducible = choose_irreducible(table, "score")
    chosen = table[[irreducible[b] == e for b, e in zip(table["benchmark"], table["irreducible"])]]
    mean_by_floor = chosen.groupby("floor")["score_error"].mean()
    floor = str(mean_by_floor.idxmin()) if mean_by_floor.nunique() > 1 else "chance"
    table["chosen"] = [
        irreducible[b] == e and f == floor for b, e, f in zip(table["benchmark"], table["irreducible"], table["floor"])
    ]
    return LadderOptions(irreducible=irreducible, floor=floor, table=table, held_size=largest)


def fit_ladder(
    frame: pd.DataFrame,
    benchmarks: dict[str, str],
    *,
    options: LadderOptions | None = None,
    n_boot: int = 200,
    seed: int = 0,
    jobs: int = 1,
    provenance: dict | None = None,
) -> tuple[dict[str, ReferenceFit], LadderOptions]:
    """Every benchmark of a ladder fitted by the module's rules, and the options; each fit keeps its loss stage's points
    (one per run), not the performance stage's checkpoints (:func:`without_checkpoints`)."""
    options = options or select_options(frame, benchmarks)
    fits = {}
    record = {
        "ladder_rules": "densing.laws.ladder (final points for the loss law, checkpoints past 10% for the performance "
        "law; E and floor chosen by the chained score error of extrapolating to the ladder's largest size)",
        "ladder_held_size": options.held_size,
        "ladder_floor": options.floor,
        **(provenance or {}),
    }
    for benchmark, metric in benchmarks.items():
        try:
            fits[benchmark] = without_checkpoints(
                fit_reference(
                    frame,
                    benchmark,
                    metric=metric,
                    n_boot=n_boot,
                    seed=seed,
                    jobs=jobs,
                    provenance=record,
                    **options.fit_options(benchmark),
                )
            )
        except FitError as exc:
            raise FitError(f"{benchmark}: {exc}") from None
    return fits, options


def without_checkpoints(fit: ReferenceFit) -> ReferenceFit:
    """``fit`` less the points of its performance stage and their residuals (the ladder's checkpoints past 10% of each
    run, which the ladder table holds and nothing reads from the fit); the laws, the draws, the diagnostics and the loss
    stage's points stay. A fit without loss points of its own is returned as it is."""
    if not fit.loss_points:
        return fit
    stages = (*fit.stages[:-1], replace(fit.stages[-1], residuals=()))
    return replace(fit, points=(), stages=stages)


def predict_held_out(fit: ReferenceFit, targets: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Chained prediction of held-out models' scores from ``fit``: per target model, measured and predicted loss (step
    1) and score (steps 1 + 2), the relative error |Ŝ − S| / S (AI2's) and Ŝ's percentile interval over the draws."""
    _, points = select_points(targets, list(fit.benchmarks), metric=fit.metric)
    n, t = points["params"], points["train_tokens"]
    out = points[["model", "params", "train_tokens"]].assign(
        measured_loss=points["loss"],
        predicted_loss=fit.predict_loss(n, t),
        measured_score=points["score"],
        predicted_score=fit.predict_score(n, t),
    )
    out.insert(1, "benchmark", fit.benchmark)
    out["relative_error"] = (out["predicted_score"] - out["measured_score"]).abs() / out["measured_score"]
    low = high = np.full(len(out), np.nan)
    if fit.bootstrap:
        score = forms.composed_law(n.to_numpy(float)[None, :], t.to_numpy(float)[None, :], **fit.draw_columns())
        low, high = np.quantile(score, [(1 - level) / 2, (1 + level) / 2], axis=0)
    out["predicted_score_ci_low"], out["predicted_score_ci_high"] = low, high
    return out


#: The codes of a ladder density's ``why`` column (what limits its interval; its words:
#: :func:`densing.present.laws.ladder_why`): censored, ill-conditioned, the fit's uncertainty, wide, or nothing.
CENSORED, ILL_CONDITIONED, FIT_UNCERTAINTY, WIDE, NARROW = "censored", "ill_conditioned", "fit_uncertainty", "wide", ""


def density_table(fits: dict[str, ReferenceFit], targets: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Density of each target at its own token count (Xiao et al. 2024, eq. 4 at D0 = its D: ρ ≈ 1 expected of the
    ladder's recipe; :func:`densing.laws.density.density_at_own_tokens`), ``conditioning`` κ
    (:func:`densing.laws.inversion.conditioning`), ``ci_fold`` (high / low), ``ci_contains_1`` and ``why`` (a code,
    :func:`why_code`). Values: the words (the verdict, the notes, ``why``) are :func:`densing.present.laws.ladder_densities`'."""
    out = density_at_own_tokens(targets, list(fits.values()), level=level, aggregate=False)
    out["conditioning"] = [
        float(conditioning(fits[b], [s], [e], d0=d0)[0])
        for b, s, e, d0 in zip(out["benchmark"], out["score"], out["stderr"], out["d0"])
    ]
    with np.errstate(divide="ignore", invalid="ignore"):
        out["ci_fold"] = out["density_ci_high"] / out["density_ci_low"]
    out["ci_contains_1"] = (out["density_ci_low"] <= 1) & (out["density_ci_high"] >= 1)
    out["why"] = [why_code(r) for r in out.itertuples(index=False)]
    return out


def why_code(row) -> str:
    """What limits a density's interval, as a code: :data:`CENSORED` (the score beyond what the law reaches at D0),
    :data:`ILL_CONDITIONED` (no upper end, κ > 2), :data:`FIT_UNCERTAINTY` (no upper end: some draws cannot reach the
    score), :data:`WIDE` (high / low > 5) or :data:`NARROW` ("": nothing to say)."""
    if row.censored:
        return CENSORED
    if not np.isfinite(row.density_ci_high):
        return ILL_CONDITIONED if np.isfinite(row.conditioning) and row.conditioning > 2 else FIT_UNCERTAINTY
    return WIDE if row.ci_fold > 5 else NARROW


def variant_errors(
    variants: dict[str, tuple[pd.DataFrame, dict]], targets: pd.DataFrame, benchmarks: dict[str, str]
) -> pd.DataFrame:
    """Held-out relative score error of the chained prediction per (variant, benchmark, target model), no bootstrap:
    ``variants`` maps a name to (the ladder table, :func:`fit_reference` options by benchmark)."""
    rows = [
        predict_held_out(
            fit_reference(frame, benchmark, metric=metric, n_boot=0, **options[benchmark]), targets
        ).assign(variant=name)
        for name, (frame, options) in variants.items()
        for benchmark, metric in benchmarks.items()
    ]
    out = pd.concat(rows, ignore_index=True)
    return out[["variant", *(column for column in out.columns if column != "variant")]]
