"""The paper's two-step design on AI2's recipe, a second measurement beside the leaderboard-based one: the reference
(:mod:`.mc_reference`), the OLMES table (:mod:`.data`), one doubling time per task (:mod:`.trend`), ``densing trend
--design olmes`` and the report's section (:mod:`.report`).
"""

from __future__ import annotations

from densing.registry import DESIGNS, Design, lazy

_REPORT = "densing.designs.olmes.report"
DESIGNS.register(
    "olmes",
    Design(
        "olmes",
        "the paper's two-step design on AI2's recipe (OLMo ladder loss law + OLMo-2 MC score law, N̂ at D0, "
        "default 1T) over AI2's OLMES table (results/olmes), a second, independent measurement",
        lazy(_REPORT, "run", 1),
        lazy(_REPORT, "side", 1),
        lazy(_REPORT, "section", 3),
        lazy(_REPORT, "render", 1),
        rank=20,
    ),
)
