"""The paper's two-step reference on AI2's recipe in the multiple-choice (MC) format, and the in-loop → offline offset.

AI2's OLMES table (:mod:`densing.designs.olmes.data`) scores 23 open base models on ARC-Challenge,
HellaSwag, WinoGrande and MMLU in the OLMES *multiple-choice* format. The Densing Law's two
steps (Xiao et al. 2024, arXiv 2412.04315, eqs. 2–4) are built for them from AI2's own recipe:

1. **Loss law, from the ladder** (:mod:`densing.laws.olmo.ladder`, the shipped
   ``reference_fits/olmo_<task>_two_step.json``): the bits per byte of the correct answer of the
   ranked-classification prompt, fitted on the ladder's 25 runs (190M–3B × 0.5–10×C)::

       L(N, D) = a·N^-α + b·D^-β [+ E]

   with the ladder's own a, α, b, β[, E] and their bootstrap draws (resampled runs), unchanged.
2. **MC score law, from the OLMo-2 runs** (the shipped ``reference_fits/olmo2_mc_<task>_two_step.json``, built by
   :mod:`tools.olmes_mc_reference`, ``python tools/build_tables.py mc-reference``): the same sigmoid as the ladder's
   (eq. 3) on the in-loop MC accuracy of the OLMo-2 7B and 13B checkpoints past 10% of their runs::

       S_MC(L) = c / (1 + e^(−γ(L − l))) + d,    d = the task's chance level (fixed)

   chance: 1/4 for ARC-C, HellaSwag and MMLU (four options), 1/2 for WinoGrande (two); the ceiling c + d free
   (c + d ≤ 1) or fixed at 1 by a rule that sees only the runs; a moving-block bootstrap within each run, its draw k
   paired with the ladder's loss draw k. AI2 fits its own MC step 2 on OLMo-2 checkpoints
   (``configs/step2_mc_7B.json``, ``step2_mc_13B.json`` in the ladder folder: 7B steps 170k–450k, 13B 50k–150k); here
   every checkpoint past 10% of both runs.
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

import pandas as pd

from densing.designs.olmes.mc_offset import Offset, measure_offset, offline_reference, offset_from  # noqa: F401 (public here)
from densing.designs.olmes.mc_tasks import (  # noqa: F401 (public here)
    HELD_OUT_32B,
    INLOOP_BENCHMARK,
    MC_CHANCE,
    OFFLINE_BENCHMARK,
    OFFSET_ROWS,
    OLMO2_MODELS,
    check_task,
)

LADDER_FIT = "olmo_{task}_two_step.json"
MC_FIT = "olmo2_mc_{task}_two_step.json"
#: The same reference with the ceiling fixed at 1 whatever the rule chooses: the ceiling's sensitivity.
MC_FIT_CEILING_ONE = "olmo2_mc_{task}_ceiling1_two_step.json"


def read_olmes_table(results_dir=None) -> pd.DataFrame:
    """AI2's OLMES table as densing's tidy table (``results/olmes/``)."""
    from densing import paths
    from densing.designs.olmes.data import read_olmes_targets

    folder = paths.RESULTS / "olmes" if results_dir is None else __import__("pathlib").Path(results_dir)
    return read_olmes_targets(folder / "olmo2-32b.csv", folder / "models.csv")
