"""The paper's two-step reference on AI2's recipe in the multiple-choice (MC) format, and the in-loop → offline offset.

The Densing Law's two steps (Xiao et al. 2024, eqs. 2–4) for AI2's OLMES table (results/olmes/README.md states the
method): the ladder's loss law L(N, D) = a·N^-α + b·D^-β [+ E] on the correct answer's bits per byte
(:mod:`densing.laws.olmo.ladder`), unchanged; an MC score law S_MC(L) = c / (1 + e^(−γ(L − l))) + d, d the task's
chance level, on the in-loop MC accuracy of the OLMo-2 7B and 13B checkpoints past 10% of their runs (``python
tools/build_tables.py mc-reference``); N̂ at D0 = 10¹² tokens by default (eq. 4).

**The in-loop → offline offset** (:func:`measure_offset`): the score law is fitted on AI2's in-loop evaluations, the
targets' scores are AI2's offline OLMES ones; the OLMES table's OLMo-2-1124-7B and -13B rows are the checkpoints' runs::

    Δ_r = S_offline(r) − S_inloop(r)  for r ∈ {7B, 13B},     Δ = (Δ_7B + Δ_13B) / 2
    σ_Δ² = (Δ_7B − Δ_13B)² / 4 + Σ_r (σ²_offline(r) + σ²_inloop(r)) / 4

An offline score S is inverted as the in-loop S − Δ: :func:`offline_reference` moves the floor d → d + Δ and draws
Δ_k ~ N(Δ, σ_Δ²) per bootstrap row (seeded). The OLMo-2 rows are never targets; OLMo-2-0325-32B is the held-out check
of the chain (:func:`tools.olmes_mc_reference.held_out`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from densing import paths
from densing.data.benchmarks import item_count
from densing.errors import FitError, InputError
from densing.laws.reference_fit import ReferenceFit

#: task → chance level of its MC format (1/k for k options), the fixed floor d of the score law.
MC_CHANCE: dict[str, float] = {"arc_challenge": 0.25, "hellaswag": 0.25, "winogrande": 0.5, "mmlu": 0.25}
#: The OLMES table's benchmark name of each task (the targets' names, :data:`densing.designs.olmes.data.OLMES_BENCHMARKS`).
OFFLINE_BENCHMARK: dict[str, str] = {task: f"olmes_{task}_mc" for task in MC_CHANCE}
#: The in-loop rows' names (:func:`densing.data.olmo.read_olmo_mc_runs`).
INLOOP_BENCHMARK: dict[str, str] = {task: f"olmes_{task}_mc_inloop" for task in MC_CHANCE}
#: The OLMES table's rows of the runs the score law is fitted on (they define the offset).
OFFSET_ROWS: dict[str, str] = {"olmo-2-7b": "OLMo-2-1124-7B", "olmo-2-13b": "OLMo-2-1124-13B"}
#: Every OLMo-2 row of the OLMES table: the reference's recipe, never a target.
OLMO2_MODELS: tuple[str, ...] = ("OLMo-2-1124-7B", "OLMo-2-1124-13B", "OLMo-2-0324-32B")
#: OLMo-2-0325-32B for the held-out chain: the nominal N (the ladder's count is not published), D = 6e12 (models.csv).
HELD_OUT_32B = {"model": "OLMo-2-0324-32B", "params": 32e9, "train_tokens": 6e12}


def check_task(task: str) -> str:
    """``task`` when it has an MC reference (a key of :data:`MC_CHANCE`); an input error naming the known ones if not."""
    if task not in MC_CHANCE:
        raise InputError(f"task: no MC reference for {task!r} (known: {', '.join(MC_CHANCE)})")
    return task


LADDER_FIT = "olmo_{task}_two_step.json"
MC_FIT = "olmo2_mc_{task}_two_step.json"
#: The same reference with the ceiling fixed at 1 whatever the rule chooses: the ceiling's sensitivity.
MC_FIT_CEILING_ONE = "olmo2_mc_{task}_ceiling1_two_step.json"


def read_olmes_table(results_dir=None) -> pd.DataFrame:
    """AI2's OLMES table as densing's tidy table (``results/olmes/``)."""
    from densing.designs.olmes.data import read_olmes_targets

    folder = paths.RESULTS / "olmes" if results_dir is None else Path(results_dir)
    return read_olmes_targets(folder / "olmo2-32b.csv", folder / "models.csv")


@dataclass(frozen=True)
class Offset:
    """Δ = offline − in-loop MC score of one task, its σ_Δ and each run's terms (module docstring)."""

    task: str
    delta: float
    stderr: float
    runs: tuple[dict, ...]

    @property
    def benchmark(self) -> str:
        return OFFLINE_BENCHMARK[self.task]

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.runs)).assign(task=self.task, offset=self.delta, offset_stderr=self.stderr)


def offset_from(task: str, pairs: dict[str, tuple[float, float, float, float]]) -> Offset:
    """Δ and σ_Δ from run → (offline score, its σ, in-loop score, its σ) (module docstring's equations)."""
    if len(pairs) < 1:
        raise InputError(f"{task}: no run with both an offline and an in-loop score; no offset")
    terms = [
        {
            "run": run,
            "offline": offline,
            "offline_stderr": se_off,
            "inloop": inloop,
            "inloop_stderr": se_in,
            "delta": offline - inloop,
        }
        for run, (offline, se_off, inloop, se_in) in pairs.items()
    ]
    deltas = np.array([t["delta"] for t in terms])
    k = len(terms)
    spread = float(np.var(deltas, ddof=1) / k) if k > 1 else 0.0  # (Δ7 − Δ13)²/4 for two runs
    binomial = sum(t["offline_stderr"] ** 2 + t["inloop_stderr"] ** 2 for t in terms) / k**2
    return Offset(task, float(deltas.mean()), math.sqrt(spread + binomial), tuple(terms))


def measure_offset(fit: ReferenceFit, targets: pd.DataFrame) -> Offset:
    """The offset of ``fit``'s task: the OLMo-2 7B/13B rows of ``targets`` against the fit's in-loop finals."""
    task = check_task(str(fit.provenance.get("offline_benchmark", "")).removeprefix("olmes_").removesuffix("_mc"))
    finals = fit.provenance.get("inloop_final") or {}
    benchmark = OFFLINE_BENCHMARK[task]
    n_items = item_count(benchmark)
    pairs = {}
    for run, model in OFFSET_ROWS.items():
        rows = targets[(targets["model"] == model) & (targets["benchmark"] == benchmark)]
        if run not in finals or rows.empty:
            raise InputError(
                f"{benchmark}: no {'in-loop final of ' + run if run not in finals else 'OLMES row ' + repr(model)}; "
                "the offset needs both"
            )
        offline = float(rows["value"].iloc[0])
        pairs[run] = (
            offline,
            math.sqrt(offline * (1 - offline) / n_items),
            float(finals[run]["score"]),
            float(finals[run]["stderr"]),
        )
    return offset_from(task, pairs)


def offline_reference(fit: ReferenceFit, offset: Offset, *, seed: int = 0) -> ReferenceFit:
    """``fit`` on the offline scale: d → d + Δ, and d_k → d_k + Δ_k, Δ_k ~ N(Δ, σ_Δ²) per bootstrap draw (seeded),
    its benchmark the OLMES table's name, metric ``score``: inverting S through it inverts S − Δ through ``fit``."""
    if "d" not in fit.params or not fit.bootstrap:
        raise FitError(f"{fit.benchmark}: a two-step fit with bootstrap draws is needed to carry the offset")
    draws = np.asarray(fit.bootstrap, float)
    draws[:, fit.bootstrap_names.index("d")] += offset.delta + offset.stderr * np.random.default_rng(
        seed
    ).standard_normal(len(draws))
    provenance = {
        **fit.provenance,
        "benchmarks": [offset.benchmark],
        "metric": "score",
        "offset": {"delta": offset.delta, "stderr": offset.stderr, "seed": seed, "runs": list(offset.runs)},
        "inloop_d": fit.params["d"],
    }
    return replace(
        fit,
        benchmark=offset.benchmark,
        metric="score",
        provenance=provenance,
        params={**fit.params, "d": fit.params["d"] + offset.delta},
        benchmarks=(offset.benchmark,),
        bootstrap=tuple(tuple(float(v) for v in r) for r in draws),
    )
