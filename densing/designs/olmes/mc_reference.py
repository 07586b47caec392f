"""The paper's two-step reference on AI2's recipe in the multiple-choice (MC) format, and the in-loop → offline offset.

AI2's OLMES table (:mod:`densing.designs.olmes.data`) scores 23 open base models on ARC-Challenge,
HellaSwag, WinoGrande and MMLU in the OLMES *multiple-choice* format. The Densing Law's two
steps (Xiao et al. 2024, arXiv 2412.04315, eqs. 2–4) are built for them from AI2's own recipe:

1. **Loss law, from the ladder** (:mod:`densing.laws.olmo.ladder`, the shipped
   ``reference_fits/olmo_<task>_two_step.json``): the bits per byte of the correct answer of the
   ranked-classification prompt, fitted on the ladder's 25 runs (190M–3B × 0.5–10×C)::

       L(N, D) = a·N^-α + b·D^-β [+ E]

   with the ladder's own a, α, b, β[, E] and their bootstrap draws (resampled runs), unchanged.
2. **MC score law, from the OLMo-2 runs** (:func:`fit_score_law`): the same sigmoid as the
   ladder's (eq. 3) on the in-loop MC accuracy of the OLMo-2 7B and 13B checkpoints (and the
   1B's one final row: its MC accuracy is at chance, the law's floor) at or past 10% of their runs
   (the ladder's rule, AI2's ``--skip_perc 0.1``)::

       S_MC(L) = c / (1 + e^(−γ(L − l))) + d,    d = the task's chance level (fixed)

   chance: 1/4 for ARC-C, HellaSwag and MMLU (four options), 1/2 for WinoGrande (two). The
   ceiling c + d is free (c + d ≤ 1) or fixed at 1, per task by a rule that sees only the runs
   (:func:`select_ceiling`, as the ladder chooses E): fit on the runs below the largest (1B, 7B),
   predict the largest's (13B's) checkpoints past 10%; keep the variant of lower mean absolute
   error (a tie within 0.1% keeps the free ceiling). Robust
   least squares (soft-ℓ1, scale 0.02) as :func:`densing.laws.reference.fit_reference` fits its
   score stage, through the same :func:`densing.laws.problems.performance_problem`. AI2 fits its own MC
   step 2 on OLMo-2 checkpoints (``configs/step2_mc_7B.json``, ``step2_mc_13B.json`` in the ladder
   folder: 7B steps 170k–450k, 13B 50k–150k); here every checkpoint past 10% of both runs.
   **Bootstrap**: a moving-block bootstrap within each run (:func:`block_resamples`): each run's
   checkpoints, in training order, are cut into blocks of :data:`BLOCK` consecutive checkpoints
   and the blocks resampled with replacement *within* the run, so that every draw keeps both runs
   (with two runs a resample of whole runs would leave one run, or none, to fit) and neighbouring
   checkpoints' correlated noise moves together. Draw k of the reference pairs the ladder's loss
   draw k with the score draw k (the two data sets are disjoint, so the pairs are independent draws).
3. **Inversion at D0** (eq. 4): L̂ = l − (1/γ)·ln(c/(S − d) − 1), then
   N̂ = ((L̂ − b·D0^-β − E)/a)^(−1/α), D0 = 10¹² tokens (the paper's) by default.

**The in-loop → offline offset** (:func:`measure_offset`). The score law is fitted on AI2's
*in-loop* evaluations; the targets' scores are AI2's *offline* OLMES evaluations (another harness;
HellaSwag sampled to 1,000 items; MMLU a macro average). The OLMES table's OLMo-2-1124-7B and -13B
rows are the same runs as the checkpoints' (7B: its post-anneal row; 13B: the mean of its last five
rows, which precede the 13B's mid-training anneal — the released 13B is annealed, so its offset
includes that anneal's gain)::

    Δ_r = S_offline(r) − S_inloop(r)  for r ∈ {7B, 13B},     Δ = (Δ_7B + Δ_13B) / 2
    σ_Δ² = (Δ_7B − Δ_13B)² / 4 + Σ_r (σ²_offline(r) + σ²_inloop(r)) / 4

(the two runs' spread, one degree of freedom, plus the binomial variances of the four scores:
the sum, since the spread alone may be near 0 by chance). A target's offline score S is inverted
as the in-loop score S − Δ; :func:`offline_reference` does so by moving the floor, d → d + Δ
(S − Δ through the in-loop law ≡ S through the law with d + Δ), and carries Δ's uncertainty as one
more draw per bootstrap row, Δ_k ~ N(Δ, σ_Δ²) (seeded). The OLMo-2 rows define the offset and are
never targets; OLMo-2-0325-32B (same recipe) is not a target either and is the held-out check of
the whole chain (:func:`held_out`).

**Where this departs from the paper.** (i) The loss is the bits per byte of the correct answer of
the *ranked-classification* 5-shot prompt, not the paper's conditional loss of a chain-of-thought
answer. (ii) The tasks are OLMES's four MC tasks, not the paper's MMLU, BBH, MATH, HumanEval and
MBPP. (iii) The score law comes from the checkpoints of two runs of one recipe (7B, 13B; plus the
1B's one row), not from a series of strong models, so it spans only the loss range those runs
cover: a target scoring beyond the 13B's final checkpoint is an extrapolation of the sigmoid.
(iv) An offset measured on two models maps the offline scale to the in-loop one for every target,
assumed the same for every model.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from densing.data.benchmarks import item_count
from densing.designs.olmes.mc_offset import Offset, held_out, measure_offset, offline_reference, offset_from  # noqa: F401 (public here)
from densing.designs.olmes.mc_tasks import (  # noqa: F401 (public here)
    HELD_OUT_32B,
    INLOOP_BENCHMARK,
    MC_CHANCE,
    OFFLINE_BENCHMARK,
    OFFSET_ROWS,
    OLMO2_MODELS,
    check_task,
)
from densing.errors import FitError, InputError
from densing.laws import fit as _fit
from densing.laws import forms
from densing.laws import problems as _problems
from densing.laws.fit_schema import data_hash, past_run_fraction, point_tuples, select_points
from densing.laws.reference_fit import ReferenceFit

MIN_RUN_FRACTION = 0.1
BLOCK = 5
ROBUST_LOSS = "soft_l1"
SCORE_SCALE = 0.02
LADDER_FIT = "olmo_{task}_two_step.json"
MC_FIT = "olmo2_mc_{task}_two_step.json"
#: The same reference with the ceiling fixed at 1 whatever the rule chooses: the ceiling's sensitivity.
MC_FIT_CEILING_ONE = "olmo2_mc_{task}_ceiling1_two_step.json"


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
    blocks = [[g[i:i + block] for i in range(0, len(g), block)] for g in groups]
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
        stage = _fit.fit_stage(_problems.performance_problem(train["loss"], train["score"], chance=chance, ceiling=ceiling),
                               loss=ROBUST_LOSS, f_scale=SCORE_SCALE)
        error = _predict(stage, held["loss"]) - held["score"].to_numpy(float)
        rows.append({"ceiling": "free" if ceiling is None else f"{ceiling:g}", "held_out_run": largest,
                     "n_points": len(held), "mae": float(np.mean(np.abs(error))), "bias": float(np.mean(error)),
                     "bias_last5": float(np.mean(error[-5:])), **{k: stage.params[k] for k in ("c", "gamma", "l")}})
    table = pd.DataFrame(rows)
    free, fixed = table["mae"].to_numpy(float)
    choice = CEILINGS[1] if fixed < free and not np.isclose(fixed, free, rtol=1e-3, atol=0) else None
    table["chosen"] = [c is choice for c in CEILINGS]
    return choice, table


def fit_score_law(points: pd.DataFrame, chance: float, *, ceiling: float | None = None, n_boot: int = 200,
                  seed: int = 0, block: int = BLOCK) -> ScoreLaw:
    """S_MC(L) = c / (1 + e^(−γ(L − l))) + d with d = ``chance`` on ``points`` (score, loss, run), block-bootstrapped.

    ``ceiling`` fixes c + d (None: free, c + d ≤ 1). The fit is :func:`densing.laws.fit.fit_stage` on :func:`densing.laws.problems.performance_problem`
    (c + d ≤ 1), soft-ℓ1 at scale 0.02; each resample of :func:`block_resamples` is refitted from
    the point estimate (:func:`densing.laws.fit.refit_from`).
    """
    loss = points["loss"].to_numpy(float)
    score = points["score"].to_numpy(float)
    if len(points) < 5:
        raise FitError(f"MC score law: {len(points)} checkpoint(s); need at least 5")
    stage = _fit.fit_stage(_problems.performance_problem(loss, score, chance=chance, ceiling=ceiling), loss=ROBUST_LOSS,
                           f_scale=SCORE_SCALE)
    draws, failed = [], 0
    for picks in block_resamples(points["run"].to_numpy(), n_boot, seed, block):
        try:
            refit = _fit.refit_from(_problems.performance_problem(loss[picks], score[picks], chance=chance, ceiling=ceiling),
                                    stage.params,
                                    loss=ROBUST_LOSS, f_scale=SCORE_SCALE)
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
        out[str(run)] = {"score": score, "loss": float(group["loss"].mean()),
                         "stderr": math.sqrt(score * (1 - score) / n_items), "rows": int(len(group)),
                         "params": float(group["params"].iloc[0]), "train_tokens": float(group["train_tokens"].max())}
    return out


def fit_mc_reference(loss_fit: ReferenceFit, runs: pd.DataFrame, task: str, *, n_boot: int = 200, seed: int = 0,
                     block: int = BLOCK, d0: float = 1e12, include_1b: bool = True,
                     ceiling: str | float = "rule") -> ReferenceFit:
    """The MC reference of ``task`` (module docstring): ``loss_fit``'s loss law, the MC score law fitted on ``runs``.

    ``loss_fit`` is the ladder's two-step fit of the task (its loss stage and its draws are used);
    ``runs`` is :func:`densing.data.olmo.read_olmo_mc_runs`'s table. ``include_1b=False`` leaves the
    1B's row out of the score law. ``ceiling``: ``"rule"`` (:func:`select_ceiling` chooses free or 1) or
    a number fixing c + d (the ceiling's sensitivity fixes it at 1). The result is on the in-loop scale (benchmark
    ``olmes_<task>_mc_inloop``); :func:`offline_reference` maps it to the OLMES table's.
    """
    from densing import __version__

    task = check_task(task)
    if ceiling != "rule" and not (isinstance(ceiling, (int, float)) and MC_CHANCE[task] < ceiling <= 1):
        raise InputError(f"ceiling: expected 'rule' or a number in ({MC_CHANCE[task]:g}, 1], got {ceiling!r}")
    if loss_fit.kind != "two-step" or loss_fit.benchmark != f"olmes_{task}":
        raise InputError(f"loss fit: expected the ladder's two-step fit of olmes_{task}, got {loss_fit.kind} {loss_fit.benchmark!r}")
    if not loss_fit.bootstrap:
        raise FitError(f"{loss_fit.benchmark}: the ladder fit has no bootstrap draws; its uncertainty cannot be carried")
    points = score_points(runs, task)
    if not include_1b:
        points = points[points["run"] != "olmo-2-1b"].reset_index(drop=True)
    chance = MC_CHANCE[task]
    if ceiling == "rule":
        ceiling, ceilings = select_ceiling(points, chance)
    else:
        ceiling = float(ceiling)
        ceilings = pd.DataFrame([{"ceiling": f"{ceiling:g}", "chosen": True, "why": "fixed by the caller (the ceiling's sensitivity)"}])
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
        kind="two-step", benchmark=INLOOP_BENCHMARK[task], metric="acc", params=params,
        stages=(loss_fit.stages[0], law.stage), d0=float(d0),
        data_hash=data_hash(points, ["model", "params", "train_tokens", "score", "loss"]),
        provenance=provenance, bootstrap_names=names, bootstrap=bootstrap, points=point_tuples(points),
        benchmarks=(INLOOP_BENCHMARK[task],), loss_unit="bpb", loss_points=loss_fit.loss_points,
    )


# ---------------------------------------------------------------------------------------------
# regenerating the shipped fits


def read_olmes_table(results_dir=None) -> pd.DataFrame:
    """AI2's OLMES table as densing's tidy table (``results/olmes/``)."""
    from densing import paths
    from densing.designs.olmes.data import read_olmes_targets

    folder = paths.RESULTS / "olmes" if results_dir is None else __import__("pathlib").Path(results_dir)
    return read_olmes_targets(folder / "olmo2-32b.csv", folder / "models.csv")
