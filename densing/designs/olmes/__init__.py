"""The paper's two-step design on AI2's recipe, a second measurement beside the leaderboard-based one: the reference
(:mod:`.mc_reference`), the OLMES table (:mod:`.data`), one doubling time per task (:mod:`.trend`). ``densing trend
--design olmes`` prints it (:mod:`densing.cli.designs.olmes`) and the report shows it in its section
(:mod:`densing.report.designs.olmes`).
"""

from __future__ import annotations

from densing.registry import DESIGNS, Design, lazy

DESIGNS.register(
    "olmes",
    Design(
        "olmes",
        "the paper's two-step design on AI2's recipe (OLMo ladder loss law + OLMo-2 MC score law, N̂ at D0, "
        "default 1T) over AI2's OLMES table (results/olmes), a second, independent measurement",
        side=lazy("densing.designs.olmes.trend", "side", 1),
    ),
)
