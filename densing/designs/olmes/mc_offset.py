"""The in-loop → offline offset of the MC reference (:mod:`densing.designs.olmes.mc_reference`, whose docstring states
its equations): Δ = offline − in-loop MC score of each task from the OLMo-2 7B and 13B runs (:func:`measure_offset`),
the reference moved onto the offline scale (:func:`offline_reference`), and the whole chain's held-out check on the
models it was not fitted for (:func:`held_out`)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from densing.data.benchmarks import item_count
from densing.designs.olmes.mc_tasks import OFFLINE_BENCHMARK, OFFSET_ROWS, check_task
from densing.errors import FitError, InputError
from densing.laws.reference_fit import ReferenceFit


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
    terms = []
    for run, (offline, se_off, inloop, se_in) in pairs.items():
        terms.append({"run": run, "offline": offline, "offline_stderr": se_off, "inloop": inloop,
                      "inloop_stderr": se_in, "delta": offline - inloop})
    deltas = np.array([t["delta"] for t in terms])
    k = len(terms)
    spread = float(np.var(deltas, ddof=1) / k) if k > 1 else 0.0  # (Δ7 − Δ13)²/4 for two runs
    binomial = sum(t["offline_stderr"] ** 2 + t["inloop_stderr"] ** 2 for t in terms) / k ** 2
    return Offset(task, float(deltas.mean()), math.sqrt(spread + binomial), tuple(terms))


def measure_offset(fit: ReferenceFit, targets: pd.DataFrame) -> Offset:
    """The offset of ``fit``'s task: the OLMES table's OLMo-2 7B/13B rows (``targets``, the tidy
    table of :func:`densing.designs.olmes.data.read_olmes_targets`) against the in-loop finals the fit carries."""
    task = check_task(str(fit.provenance.get("offline_benchmark", "")).removeprefix("olmes_").removesuffix("_mc"))
    finals = fit.provenance.get("inloop_final") or {}
    benchmark = OFFLINE_BENCHMARK[task]
    n_items = item_count(benchmark)
    pairs = {}
    for run, model in OFFSET_ROWS.items():
        rows = targets[(targets["model"] == model) & (targets["benchmark"] == benchmark)]
        if run not in finals or rows.empty:
            raise InputError(f"{benchmark}: no {'in-loop final of ' + run if run not in finals else 'OLMES row ' + repr(model)}; "
                             "the offset needs both")
        offline = float(rows["value"].iloc[0])
        pairs[run] = (offline, math.sqrt(offline * (1 - offline) / n_items), float(finals[run]["score"]),
                      float(finals[run]["stderr"]))
    return offset_from(task, pairs)


def offline_reference(fit: ReferenceFit, offset: Offset, *, seed: int = 0) -> ReferenceFit:
    """``fit`` on the offline scale: d → d + Δ, and d_k → d_k + Δ_k, Δ_k ~ N(Δ, σ_Δ²) per bootstrap draw (seeded).

    Inverting S through it equals inverting S − Δ through ``fit`` (eq. 4 with d + Δ). The benchmark
    becomes the OLMES table's name and the metric its ``score``.
    """
    if "d" not in fit.params or not fit.bootstrap:
        raise FitError(f"{fit.benchmark}: a two-step fit with bootstrap draws is needed to carry the offset")
    params = dict(fit.params)
    params["d"] = fit.params["d"] + offset.delta
    draws = np.asarray(fit.bootstrap, float)
    column = fit.bootstrap_names.index("d")
    shifts = offset.delta + offset.stderr * np.random.default_rng(seed).standard_normal(len(draws))
    draws[:, column] += shifts
    provenance = {**fit.provenance, "benchmarks": [offset.benchmark], "metric": "score",
                  "offset": {"delta": offset.delta, "stderr": offset.stderr, "seed": seed, "runs": list(offset.runs)},
                  "inloop_d": fit.params["d"]}
    return ReferenceFit(
        kind=fit.kind, benchmark=offset.benchmark, metric="score", params=params, stages=fit.stages, d0=fit.d0,
        data_hash=fit.data_hash, provenance=provenance, bootstrap_names=fit.bootstrap_names,
        bootstrap=tuple(tuple(float(v) for v in r) for r in draws), points=fit.points, benchmarks=(offset.benchmark,),
        loss_unit=fit.loss_unit, loss_points=fit.loss_points,
    )
