"""The builder of the shipped MC references of the OLMES design (``reference_fits/olmo2_mc_<task>_two_step.json`` and
their ceiling-1 variants): the MC score law fitted on the OLMo-2 runs' checkpoints, joined to the OLMo ladder's loss
law, and the whole chain's held-out check. ``python tools/build_tables.py mc-reference`` runs it; densing reads the fits
it writes (:mod:`densing.designs.olmes.mc_reference` states the design and its equations).

**The MC score law** (:func:`fit_score_law`): the ladder's sigmoid (Xiao et al. 2024, eq. 3) on the in-loop MC
accuracy of the OLMo-2 7B and 13B checkpoints (and the 1B's one final row, at chance: the law's floor) at or past 10%
of their runs (the ladder's rule, AI2's ``--skip_perc 0.1``)::

    S_MC(L) = c / (1 + e^(−γ(L − l))) + d,    d = the task's chance level (fixed)

The ceiling c + d is free (c + d ≤ 1) or fixed at 1, per task by a rule that sees only the runs (:func:`select_ceiling`,
as the ladder chooses E): fit on the runs below the largest (1B, 7B), predict the largest's (13B's) checkpoints past
10%; keep the variant of lower mean absolute error (a tie within 0.1% keeps the free ceiling). Robust least squares
(soft-ℓ1, scale 0.02) through :func:`densing.laws.problems.performance_problem`, as
:func:`densing.laws.reference.fit_reference` fits its score stage.

**Bootstrap**: a moving-block bootstrap within each run (:func:`block_resamples`): each run's checkpoints, in training
order, are cut into blocks of :data:`BLOCK` consecutive checkpoints and the blocks resampled with replacement *within*
the run, so that every draw keeps both runs and neighbouring checkpoints' correlated noise moves together. Draw k of the
reference pairs the ladder's loss draw k with the score draw k (the two data sets are disjoint).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from densing.data.benchmarks import item_count
from densing.designs.olmes.mc_reference import (
    HELD_OUT_32B,
    INLOOP_BENCHMARK,
    LADDER_FIT,
    MC_CHANCE,
    OFFLINE_BENCHMARK,
    OLMO2_MODELS,
    Offset,
    check_task,
)
from densing.errors import FitError, InputError
from densing.laws import fit as _fit, forms, problems as _problems
from densing.laws.fit_schema import data_hash, past_run_fraction, point_tuples, select_points
from densing.laws.reference_fit import ReferenceFit

MIN_RUN_FRACTION = 0.1
BLOCK = 5
ROBUST_LOSS = "soft_l1"
SCORE_SCALE = 0.02


def score_points(runs: pd.DataFrame, task: str, *, min_run_fraction: float = MIN_RUN_FRACTION) -> pd.DataFrame:
    """The score law's points: (model, params, train_tokens, score, loss, run) of every checkpoint of
    :func:`densing.data.olmo.read_olmo_mc_runs`'s table at or past ``min_run_fraction`` of its run, in training order."""
    _, points = select_points(runs, INLOOP_BENCHMARK[check_task(task)], metric="acc", need_loss=True)
    points = past_run_fraction(points, min_run_fraction)
    return points.sort_values(["run", "train_tokens"], kind="stable").reset_index(drop=True)


def block_resamples(runs: np.ndarray, n_boot: int, seed: int, block: int = BLOCK) -> list[np.ndarray]:
    """``n_boot`` moving-block resamples within each run (module docstring): row indices per resample.

    ``runs`` gives each point's run, points of one run in training order. A run's n points are cut
    into ⌈n / block⌉ consecutive blocks (the last may be shorter), which are drawn with replacement
    within the run until the run has n points again (the last block drawn is cut to fit).
    """
    if block < 1:
        raise InputError(f"block: expected a positive number of checkpoints, got {block!r}")
    runs = np.asarray(runs).astype(str)
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(runs == r) for r in dict.fromkeys(runs)]
    blocks = [[g[i : i + block] for i in range(0, len(g), block)] for g in groups]
    out = []
    for _ in range(n_boot):
        picks = []
        for group, parts in zip(groups, blocks):
            taken: list[np.ndarray] = []
            count = 0
            while count < len(group):
                part = parts[rng.integers(len(parts))]
                taken.append(part[: len(group) - count])
                count += len(taken[-1])
            picks.append(np.concatenate(taken))
        out.append(np.concatenate(picks))
    return out


@dataclass(frozen=True)
class ScoreLaw:
    """The fitted MC score law: the stage fit, its bootstrap draws (c, γ, l, d per row) and how many failed."""

    stage: _fit.StageFit
    draws: np.ndarray
    failed: int
    points: pd.DataFrame = field(repr=False)


CEILINGS = (None, 1.0)


def _predict(stage: _fit.StageFit, loss) -> np.ndarray:
    p = stage.params
    return forms.performance_law(np.asarray(loss, float), p["c"], p["gamma"], p["l"], p["d"])


def select_ceiling(points: pd.DataFrame, chance: float) -> tuple[float | None, pd.DataFrame]:
    """The ceiling rule (module docstring): fit the runs below the largest, predict the largest's checkpoints.

    Returns the chosen ceiling (None: free, c + d ≤ 1) and the table it came from: per variant the
    mean absolute error and mean signed error over the held-out run's checkpoints, and over its last 5.
    """
    sizes = points.groupby("run")["params"].first()
    largest = str(sizes.idxmax())
    train, held = points[points["run"] != largest], points[points["run"] == largest]
    rows = []
    for ceiling in CEILINGS:
        stage = _fit.fit_stage(
            _problems.performance_problem(train["loss"], train["score"], chance=chance, ceiling=ceiling),
            loss=ROBUST_LOSS,
            f_scale=SCORE_SCALE,
        )
        error = _predict(stage, held["loss"]) - held["score"].to_numpy(float)
        rows.append(
            {
                "ceiling": "free" if ceiling is None else f"{ceiling:g}",
                "held_out_run": largest,
                "n_points": len(held),
                "mae": float(np.mean(np.abs(error))),
                "bias": float(np.mean(error)),
                "bias_last5": float(np.mean(error[-5:])),
                **{k: stage.params[k] for k in ("c", "gamma", "l")},
            }
        )
    table = pd.DataFrame(rows)
    free, fixed = table["mae"].to_numpy(float)
    choice = CEILINGS[1] if fixed < free and not np.isclose(fixed, free, rtol=1e-3, atol=0) else None
    table["chosen"] = [c is choice for c in CEILINGS]
    return choice, table


def fit_score_law(
    points: pd.DataFrame,
    chance: float,
    *,
    ceiling: float | None = None,
    n_boot: int = 200,
    seed: int = 0,
    block: int = BLOCK,
) -> ScoreLaw:
    """S_MC(L) = c / (1 + e^(−γ(L − l))) + d with d = ``chance`` on ``points`` (score, loss, run), block-bootstrapped.

    ``ceiling`` fixes c + d (None: free, c + d ≤ 1). The fit is :func:`densing.laws.fit.fit_stage` on :func:`densing.laws.problems.performance_problem`
    (c + d ≤ 1), soft-ℓ1 at scale 0.02; each resample of :func:`block_resamples` is refitted from
    the point estimate (:func:`densing.laws.fit.refit_from`).
    """
    loss = points["loss"].to_numpy(float)
    score = points["score"].to_numpy(float)
    if len(points) < 5:
        raise FitError(f"MC score law: {len(points)} checkpoint(s); need at least 5")
    stage = _fit.fit_stage(
        _problems.performance_problem(loss, score, chance=chance, ceiling=ceiling),
        loss=ROBUST_LOSS,
        f_scale=SCORE_SCALE,
    )
    draws, failed = [], 0
    for picks in block_resamples(points["run"].to_numpy(), n_boot, seed, block):
        try:
            refit = _fit.refit_from(
                _problems.performance_problem(loss[picks], score[picks], chance=chance, ceiling=ceiling),
                stage.params,
                loss=ROBUST_LOSS,
                f_scale=SCORE_SCALE,
            )
        except FitError:
            failed += 1
            continue
        draws.append([refit.params[k] for k in ("c", "gamma", "l", "d")])
    return ScoreLaw(stage, np.asarray(draws, float).reshape(-1, 4), failed, points)


def inloop_finals(runs: pd.DataFrame, task: str) -> dict[str, dict]:
    """Each OLMo-2 run's in-loop final MC score (mean of its ``final`` rows), bits per byte and binomial σ."""
    rows = runs[(runs["benchmark"] == INLOOP_BENCHMARK[check_task(task)]) & runs["final"].astype(bool)]
    n_items = item_count(f"olmes_{task}")
    out = {}
    for run, group in rows.groupby("run", sort=True):
        score = float(group["value"].mean())
        out[str(run)] = {
            "score": score,
            "loss": float(group["loss"].mean()),
            "stderr": math.sqrt(score * (1 - score) / n_items),
            "rows": int(len(group)),
            "params": float(group["params"].iloc[0]),
            "train_tokens": float(group["train_tokens"].max()),
        }
    return out


def fit_mc_reference(
    loss_fit: ReferenceFit,
    runs: pd.DataFrame,
    task: str,
    *,
    n_boot: int = 200,
    seed: int = 0,
    block: int = BLOCK,
    d0: float = 1e12,
    include_1b: bool = True,
    ceiling: str | float = "rule",
) -> ReferenceFit:
    """The MC reference of ``task`` (module docstring): ``loss_fit``'s loss law, the MC score law fitted on ``runs``.

    ``loss_fit`` is the ladder's two-step fit of the task (its loss stage and its draws are used);
    ``runs`` is :func:`densing.data.olmo.read_olmo_mc_runs`'s table. ``include_1b=False`` leaves the
    1B's row out of the score law. ``ceiling``: ``"rule"`` (:func:`select_ceiling` chooses free or 1) or
    a number fixing c + d (the ceiling's sensitivity fixes it at 1). The result is on the in-loop scale (benchmark
    ``olmes_<task>_mc_inloop``); :func:`densing.designs.olmes.mc_reference.offline_reference` maps it to the OLMES
    table's.
    """
    from densing import __version__

    task = check_task(task)
    if ceiling != "rule" and not (isinstance(ceiling, (int, float)) and MC_CHANCE[task] < ceiling <= 1):
        raise InputError(f"ceiling: expected 'rule' or a number in ({MC_CHANCE[task]:g}, 1], got {ceiling!r}")
    if loss_fit.kind != "two-step" or loss_fit.benchmark != f"olmes_{task}":
        raise InputError(
            f"loss fit: expected the ladder's two-step fit of olmes_{task}, got {loss_fit.kind} {loss_fit.benchmark!r}"
        )
    if not loss_fit.bootstrap:
        raise FitError(
            f"{loss_fit.benchmark}: the ladder fit has no bootstrap draws; its uncertainty cannot be carried"
        )
    points = score_points(runs, task)
    if not include_1b:
        points = points[points["run"] != "olmo-2-1b"].reset_index(drop=True)
    chance = MC_CHANCE[task]
    if ceiling == "rule":
        ceiling, ceilings = select_ceiling(points, chance)
    else:
        ceiling = float(ceiling)
        ceilings = pd.DataFrame(
            [{"ceiling": f"{ceiling:g}", "chosen": True, "why": "fixed by the caller (the ceiling's sensitivity)"}]
        )
    law = fit_score_law(points, chance, ceiling=ceiling, n_boot=n_boot, seed=seed, block=block)
    loss_names = [k for k in ("a", "alpha", "b", "beta", "E") if k in loss_fit.params]
    loss_draws = np.column_stack([np.asarray(loss_fit.draw_columns()[k], float)[:, 0] for k in loss_names])
    count = min(len(loss_draws), len(law.draws))
    if count < 2:
        raise FitError(f"{task}: {count} bootstrap draw(s) of the MC reference; need at least 2")
    params = {k: float(loss_fit.params[k]) for k in loss_names}
    params.update(law.stage.params)
    names = tuple(loss_names) + ("c", "gamma", "l", "d")
    bootstrap = tuple(tuple(float(v) for v in row) for row in np.hstack([loss_draws[:count], law.draws[:count]]))
    provenance = {
        "benchmarks": [INLOOP_BENCHMARK[task]],
        "metric": "acc",
        "chance": chance,
        "ceiling": ceiling,
        "ceiling_rule": ceilings.to_dict("records"),
        "irreducible": "E" in params,
        "min_run_fraction": MIN_RUN_FRACTION,
        "robust_loss": ROBUST_LOSS,
        "score_scale": SCORE_SCALE,
        "n_boot": n_boot,
        "n_boot_failed": law.failed,
        "bootstrap_unit": f"loss law: the ladder's runs; score law: blocks of {block} consecutive checkpoints within each run",
        "runs": sorted(points["run"].astype(str).unique()),
        "seed": seed,
        "densing_version": __version__,
        "loss_law": f"the ladder's fit of olmes_{task} (data_hash {loss_fit.data_hash}, {LADDER_FIT.format(task=task)})",
        "score_law": "in-loop OLMES MC 5-shot accuracy of the OLMo-2 runs' checkpoints past 10% of each run",
        "inloop_final": inloop_finals(runs, task),
        "offline_benchmark": OFFLINE_BENCHMARK[task],
        "members": list(OLMO2_MODELS),
        "design": "densing.designs.olmes.mc_reference",
        "source_data": "allenai/OLMo peteish-moreeval (see ../shared/data/olmo_ladder)",
        "command": "python tools/build_tables.py mc-reference",
    }
    return ReferenceFit(
        kind="two-step",
        benchmark=INLOOP_BENCHMARK[task],
        metric="acc",
        params=params,
        stages=(loss_fit.stages[0], law.stage),
        d0=float(d0),
        data_hash=data_hash(points, ["model", "params", "train_tokens", "score", "loss"]),
        provenance=provenance,
        bootstrap_names=names,
        bootstrap=bootstrap,
        points=point_tuples(points),
        benchmarks=(INLOOP_BENCHMARK[task],),
        loss_unit="bpb",
        loss_points=loss_fit.loss_points,
    )


def held_out(fit: ReferenceFit, offset: Offset, targets: pd.DataFrame) -> pd.DataFrame:
    """The chain (step 1 then step 2) on models it was not fitted for, with bootstrap 95% intervals.

    Rows: each OLMo-2 run's in-loop final (its loss from the ladder's law at the run's N and D,
    then S_MC: the ladder's loss law extrapolated to 7B/13B, the score law on its own runs), and
    OLMo-2-0325-32B's offline OLMES score (:data:`HELD_OUT_32B`: loss law, S_MC, + Δ), which
    nothing was fitted on.
    """
    rows = []
    finals = fit.provenance.get("inloop_final") or {}
    cases = [
        (run, v["params"], v["train_tokens"], v["score"], v["loss"], 0.0, "in-loop final") for run, v in finals.items()
    ]
    own = targets[(targets["model"] == HELD_OUT_32B["model"]) & (targets["benchmark"] == offset.benchmark)]
    if len(own):
        cases.append(
            (
                HELD_OUT_32B["model"],
                HELD_OUT_32B["params"],
                HELD_OUT_32B["train_tokens"],
                float(own["value"].iloc[0]),
                math.nan,
                offset.delta,
                "offline OLMES (+ Δ)",
            )
        )
    cols = fit.draw_columns()
    for model, n, d, measured, loss, shift, scale in cases:
        loss_hat = float(fit.predict_loss(n, d))
        predicted = float(fit.predict_score(n, d)) + shift
        drawn = (
            forms.composed_law(
                n,
                d,
                cols["a"],
                cols["alpha"],
                cols["b"],
                cols["beta"],
                cols["c"],
                cols["gamma"],
                cols["l"],
                cols["d"],
                cols.get("E", 0.0),
            )[:, 0]
            + shift
        )
        low, high = np.quantile(drawn, [0.025, 0.975])
        rows.append(
            {
                "task": fit.benchmark.removeprefix("olmes_").removesuffix("_mc_inloop"),
                "model": model,
                "scale": scale,
                "params": n,
                "train_tokens": d,
                "measured_loss": loss,
                "predicted_loss": loss_hat,
                "measured_score": measured,
                "predicted_score": predicted,
                "ci_low": float(low),
                "ci_high": float(high),
                "error": predicted - measured,
            }
        )
    return pd.DataFrame(rows)
