"""A second, independent Densing Law: the paper's two-step design on AI2's recipe, over AI2's OLMES table.

:func:`measure_olmes` measures the doubling time of the maximum capacity density per task of ``results/olmes/`` (its
README states the method) with densing's trend engine: each task's MC reference (:mod:`.mc_reference`), eq. 4 at
D0 = 10¹² tokens (3·10¹¹ and 3·10¹² beside), every dated model but the OLMo-2 rows as targets, and the censored 0.9
regression quantile with its checks; a score law with R² < 0.5 is not inverted. No combined row: the four MC
references have four loss laws, so a mean of them is no two-step law.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pandas as pd

from densing import paths
from densing.constants import DEFAULT_EPOCH
from densing.designs.olmes import mc_reference as mc
from densing.errors import DensingError
from densing.laws.fit_schema import poor_fit, score_r_squared
from densing.laws.inversion import PerBenchmark
from densing.laws.reference_fit import ReferenceFit
from densing.results import ALPHA_CONSTRAINTS, Result, frame_records, interval_frame
from densing.states import JudgedEnds, State
from densing.trend.capability import calibrated, inversion_checks
from densing.trend.checks import FAILED
from densing.trend.targets import trend_targets
from densing.trend.uncertainty import trend_uncertainty
from densing.validation import validate_params

#: The paper's D0 and the sensitivity's.
D0 = 1e12
SENSITIVITY_D0 = (3e11, 3e12)
TASKS = tuple(mc.MC_CHANCE)
#: Each OLMES task beside the public table's benchmark of the same capability (compared by trends, never levels).
LEADERBOARD_TWIN = {
    "arc_challenge": "arc_challenge",
    "hellaswag": "hellaswag",
    "winogrande": "winogrande",
    "mmlu": "mmlu",
    "gsm8k": "gsm8k",
    "mmlu_pro": "mmlu_pro",
}


@dataclass(frozen=True)
class OlmesTrend(Result):
    """The per-task rows, their checks, the models left out (with the reason) and the offsets; ``to_dict()``: each
    frame as JSON-ready records; ``conf_int()``: one row per task, ``<benchmark>.doubling_time_months``. ``rows`` hold
    values where a reader reads words: ``reference`` the MC reference's file (:data:`~.mc_reference.MC_FIT`),
    ``score_r2`` and ``poor_fit`` (a score law with R² < 0.5 is not inverted); each sensitivity column of
    :data:`SIDE_KEYS` its interval's ends ``<key>_ci_low`` and ``<key>_ci_high``, whether it is ``<key>_measured``, a
    failed trend's message ``<key>_error`` (:func:`_side`), and the ceiling-1 law the names of its failed checks
    (``months_ceiling_1_failed``), whether the ceiling rule chose 1 itself (``months_ceiling_1_own_choice``), its
    missing fit's file and folder (``months_ceiling_1_missing``, ``months_ceiling_1_folder``), ``months_ceiling_1_r2``
    and ``months_ceiling_1_poor_fit``; ``error`` holds only the message of a trend that failed;
    :func:`densing.present.olmes.rows_frame` makes every row's words (the reference's, each interval's). ``checks``
    holds each check's values (``benchmark``, ``name``, ``value``, ``status`` code, ``passed``, ``fired``) and
    ``check_values`` the checks themselves, (benchmark, :class:`~densing.trend.checks.Check`), from which
    :func:`densing.present.olmes.checks_frame` makes the words every surface shows."""

    rows: pd.DataFrame
    checks: pd.DataFrame
    left_out: pd.DataFrame
    offsets: pd.DataFrame
    check_values: tuple = ()

    _dict_exclude: ClassVar[tuple[str, ...]] = ("check_values",)

    def to_dict(self) -> dict:
        return {name: frame_records(getattr(self, name)) for name in self._fields() if name not in self._dict_exclude}

    def to_frame(self) -> pd.DataFrame:
        """The per-task rows (a copy)."""
        return self.rows.copy()

    @validate_params(ALPHA_CONSTRAINTS)
    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Each task's doubling time (months) and 95% interval (another ``alpha``: an InputError)."""
        self._check_alpha(alpha)
        return interval_frame(
            {f"{r.benchmark}.doubling_time_months": (r.months, r.ci_low, r.ci_high) for r in self.rows.itertuples()}
        )

    def _summary_items(self) -> list[tuple[str, object]]:
        """Each task's doubling time (months) and the counts, as values; their words:
        :func:`densing.present.olmes.olmes_summary`."""
        return [(r.benchmark, r.months) for r in self.rows.itertuples()] + [
            ("models left out", len(self.left_out)),
            ("failed checks", int((self.checks["status"] == FAILED).sum()) if len(self.checks) else 0),
        ]


def _d0_key(d0: float) -> str:
    """The sensitivity column of a D0: ``months_d0_0.3T``."""
    return f"months_d0_{d0 / 1e12:g}T"


#: The ceiling-1 law's sensitivity column (the MC law's ceiling c + d fixed at 1).
CEILING_ONE = "months_ceiling_1"
#: The sensitivity columns, each D0's of :data:`SENSITIVITY_D0` and the ceiling-1 law's, each with its values
#: (:func:`_side`); their intervals in words: :func:`densing.present.olmes.rows_frame`.
SIDE_KEYS = (*map(_d0_key, SENSITIVITY_D0), CEILING_ONE)


def _side_values(key: str) -> dict:
    """Sensitivity column ``key``'s values before it is measured: no interval, not measured, no error."""
    return {
        f"{key}_ci_low": math.nan,
        f"{key}_ci_high": math.nan,
        f"{key}_measured": False,
        f"{key}_error": "",
    }


def reference(
    task: str, targets: pd.DataFrame, fits_dir: str | Path | None = None, *, seed: int = 0, name: str = mc.MC_FIT
) -> tuple[ReferenceFit, mc.Offset]:
    """The task's MC reference on the offline scale (Δ carried) and its offset; ``name``: the fit's file pattern
    (:data:`~densing.designs.olmes.mc_reference.MC_FIT_CEILING_ONE` for the ceiling's sensitivity)."""
    folder = Path(fits_dir) if fits_dir else paths.REFERENCE_FITS
    fit = ReferenceFit.load(folder / name.format(task=task))
    offset = mc.measure_offset(fit, targets)
    return mc.offline_reference(fit, offset, seed=seed), offset


def measure_olmes(
    fits_dir: str | Path | None = None,
    results_dir: str | Path | None = None,
    *,
    d0: float = D0,
    since: str | None = None,
    epoch: str = DEFAULT_EPOCH,
    n_boot: int = 600,
    n_boot_share: int = 200,
    n_boot_side: int = 200,
    seed: int = 0,
) -> OlmesTrend:
    """One row per task of :data:`TASKS` (module docstring): doubling time, interval, counts, sensitivity, checks."""
    from densing.validation import D0_TOKENS, validate

    for tokens in (d0, *SENSITIVITY_D0):
        validate({"d0": [D0_TOKENS]}, d0=tokens)
    targets = mc.read_olmes_table(results_dir)
    rows, found, left, offsets = [], [], [], []
    for task in TASKS:
        ref, offset = reference(task, targets, fits_dir, seed=seed)
        offsets.append(offset.frame())
        row = {
            "task": task,
            "benchmark": ref.benchmark,
            "reference": mc.MC_FIT.format(task=task),  # the MC reference's file; its words: present.olmes
            "d0": d0,
            "rule": "quantile",
            "quantile": 0.9,
            "since": since or "",
            "offset": offset.delta,
            "offset_stderr": offset.stderr,
            "score_r2": score_r_squared(ref),
            "poor_fit": poor_fit(ref),  # R² < 0.5: not inverted; its words: densing.present.olmes.rows_frame
            "ceiling": "free" if ref.provenance.get("ceiling") is None else ref.provenance["ceiling"],
            **dict.fromkeys(("months", "ci_low", "ci_high"), math.nan),
            "n_draws": 0,
            **dict.fromkeys(("low_determined", "high_determined", "high_undecided"), False),
            **_precision(None),
            **dict.fromkeys(("n_models", "n_exact", "n_lower", "n_upper"), 0),
            **dict.fromkeys(
                ("share_fit", "share_score", "share_models", *map(_d0_key, SENSITIVITY_D0), "months_ceiling_1"),
                math.nan,
            ),
            **{k: v for key in SIDE_KEYS for k, v in _side_values(key).items()},
            "months_ceiling_1_failed": (),  # the ceiling-1 law's failed checks, by name
            "months_ceiling_1_own_choice": False,  # the ceiling rule chose 1 itself: the row is the sensitivity
            "months_ceiling_1_missing": "",  # the ceiling-1 fit's file where it is missing, and its folder
            "months_ceiling_1_folder": "",
            "months_ceiling_1_r2": math.nan,  # the ceiling-1 law's score R², and whether it is a poor fit
            "months_ceiling_1_poor_fit": False,
            "failed_checks": (),
            "error": "",
        }
        rows.append(row)
        inversion = PerBenchmark(ref, d0)
        models, dropped = trend_targets(targets, inversion, since=since, epoch=epoch)
        left.append(dropped.assign(benchmark=ref.benchmark))
        if row["poor_fit"]:  # the row holds R² and the flag; densing.present.olmes says why it is not measured
            row["n_models"] = len(models)
            continue
        try:
            result = trend_uncertainty(models, inversion, n_boot=n_boot, n_boot_share=n_boot_share, seed=seed)
        except DensingError as exc:
            row["error"] = str(exc)
            continue
        row.update(
            months=result.doubling_time_months,
            ci_low=result.doubling_time_months_ci_low,
            ci_high=result.doubling_time_months_ci_high,
            n_draws=result.n_boot,
            low_determined=result.low_determined,
            high_determined=result.high_determined,
            high_undecided=result.high_undecided,
            **_precision(result),
            n_models=result.n_models,
            n_exact=result.n_exact,
            n_lower=result.n_lower_bounds,
            n_upper=result.n_upper_bounds,
            share_fit=result.share_fit,
            share_score=result.share_score,
            share_models=result.share_models,
        )
        for other in SENSITIVITY_D0:
            row.update(_side(_d0_key(other), models, PerBenchmark(ref, other), n_boot=n_boot_side, seed=seed))
        row.update(_ceiling_one(task, ref, targets, models, fits_dir, d0=d0, n_boot=n_boot_side, seed=seed))
        checks = calibrated(inversion_checks(models, inversion))
        found += [(ref.benchmark, check) for check in checks]
        row["failed_checks"] = tuple(c.name for c in checks if c.failed)
    return OlmesTrend(
        pd.DataFrame(rows),
        pd.DataFrame([{"benchmark": benchmark, **check.to_dict(), "fired": check.fired} for benchmark, check in found]),
        pd.concat(left, ignore_index=True),
        pd.concat(offsets, ignore_index=True),
        tuple(found),
    )


def side(inputs) -> tuple:
    """The OLMES design on the report's inputs, computed beside the headline (no shares' draws: the page shows none)."""
    return measure_olmes, {
        "fits_dir": inputs.fits_dir,
        "d0": D0,
        "since": inputs.since,
        "n_boot": inputs.n_boot,
        "n_boot_share": 0,
        "seed": inputs.seed,
    }


def _ceiling_one(
    task: str,
    ref: ReferenceFit,
    targets: pd.DataFrame,
    models: pd.DataFrame,
    fits_dir,
    *,
    d0: float,
    n_boot: int,
    seed: int,
) -> dict:
    """The doubling time with the MC law's ceiling c + d fixed at 1 (:func:`_side`), or the values of why none: the
    rule's own choice, the fit's missing file and its folder, a poor fit's R² (their words:
    :func:`densing.present.olmes.rows_frame`)."""
    if ref.provenance.get("ceiling") == 1.0:
        return {"months_ceiling_1_own_choice": True}
    folder = Path(fits_dir) if fits_dir else paths.REFERENCE_FITS
    if not (folder / mc.MC_FIT_CEILING_ONE.format(task=task)).exists():
        return {
            "months_ceiling_1_missing": mc.MC_FIT_CEILING_ONE.format(task=task),
            "months_ceiling_1_folder": folder.name,
        }
    fixed, _ = reference(task, targets, fits_dir, seed=seed, name=mc.MC_FIT_CEILING_ONE)
    if poor_fit(fixed):  # the values; densing.present.olmes.rows_frame says why in words
        return {"months_ceiling_1_r2": score_r_squared(fixed), "months_ceiling_1_poor_fit": True}
    return _side(CEILING_ONE, models, PerBenchmark(fixed, d0), n_boot=n_boot, seed=seed, checked=True)


def _side(key: str, models: pd.DataFrame, inversion, *, n_boot: int, seed: int, checked: bool = False) -> dict:
    """Sensitivity column ``key``'s values: the doubling time under ``inversion`` with ``n_boot`` draws and no shares,
    its interval's ends (``key_ci_low``, ``key_ci_high``) and ``key_measured``, or the failed trend's message
    (``key_error``); ``checked``: the names of the failed checks too (``key_failed``). The interval in words:
    :func:`densing.present.olmes.rows_frame`."""
    try:
        side = trend_uncertainty(models, inversion, n_boot=n_boot, n_boot_share=0, seed=seed)
    except DensingError as exc:
        return {f"{key}_error": str(exc)}
    out = {
        key: side.doubling_time_months,
        f"{key}_ci_low": side.doubling_time_months_ci_low,
        f"{key}_ci_high": side.doubling_time_months_ci_high,
        f"{key}_measured": True,
    }
    if checked:
        out[f"{key}_failed"] = tuple(c.name for c in calibrated(inversion_checks(models, inversion)) if c.failed)
    return out


def row_states(rows: pd.DataFrame) -> list[State]:
    """Each OLMES row's :class:`~densing.states.State` by the one state rule (:func:`judged`; a row with an error has
    neither end determined: not measured)."""
    return [judged(r).state for r in rows.itertuples()]


def judged(r) -> JudgedEnds:
    """An OLMES row as the one state rule reads a trend row: its state from its ends, the open ends as reasons; the
    validity checks are findings beside it, as on every row."""
    return JudgedEnds(
        r.ci_low,
        r.ci_high,
        low_determined=bool(r.low_determined),
        high_determined=bool(r.high_determined),
        n_draws=int(r.n_draws) if r.n_draws == r.n_draws else 0,
        high_undecided=bool(r.high_undecided),
    )


def _precision(result) -> dict:
    """Each end's Monte Carlo range in months and whether it is precise (None where it is not determined), as the
    leaderboard's rows give them (densing.trend.random_effects.precise); NaN and None with no trend."""
    out = {}
    for end in ("low", "high"):
        determined = result is not None and getattr(result, f"{end}_determined")
        out.update(
            {
                f"ci_{end}_mc_low": getattr(result, f"months_{end}_mc_low", math.nan),
                f"ci_{end}_mc_high": getattr(result, f"months_{end}_mc_high", math.nan),
                f"ci_{end}_precise": bool(getattr(result, f"{end}_precise")) if determined else None,
            }
        )
    return out
