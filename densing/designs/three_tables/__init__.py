"""One Densing Law from three harnesses: the pooled law of the ``public``, ``openllm_v2`` and ``swallow`` tables
(results/three_tables/DECLARATION.md; :mod:`densing.trend.pooled_tables`), measured by ``densing trend --table all``.
The report computes it beside the headline (:mod:`.pooled`) and shows it in its section "One law from three harnesses"
(:mod:`densing.report.designs.three_tables`).
"""

from __future__ import annotations

from densing.registry import DESIGNS, Design, lazy

DESIGNS.register(
    "three_tables",
    Design(
        "three_tables",
        "one Densing Law from the three tables' headline rows on the public table's scale (densing trend --table all)",
        side=lazy("densing.designs.three_tables.pooled", "side", 1),
    ),
)
