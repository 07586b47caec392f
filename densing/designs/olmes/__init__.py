"""The paper's two-step design on AI2's recipe, a second measurement beside the leaderboard-based one.

The OLMo ladder's loss law L(N, D) per task (:mod:`densing.laws.olmo`), an MC score law S(L) fitted on the OLMo-2
checkpoints with the in-loop → offline offset carried (:mod:`.mc_reference`),
N̂ at D0 over AI2's OLMES table of 23 open base models (:mod:`.data`, ``results/olmes``), one doubling time per task
(:mod:`.trend`); ``densing trend --design olmes`` prints it (:mod:`.cli`) and the report shows it beside the public
table's rows (:mod:`.report`).
"""
from __future__ import annotations

from densing.registry import DESIGNS, Design, lazy

_REPORT = "densing.designs.olmes.report"
DESIGNS.register("olmes", Design(
    "olmes", "the paper's two-step design on AI2's recipe (OLMo ladder loss law + OLMo-2 MC score law, N̂ at D0, "
    "default 1T) over AI2's OLMES table (results/olmes), a second, independent measurement",
    lazy("densing.designs.olmes.cli", "run", 1), lazy(_REPORT, "side", 1), lazy(_REPORT, "section", 3),
    lazy(_REPORT, "render", 1), rank=20))
