"""One Densing Law from three harnesses: the pooled law of the ``public``, ``openllm_v2`` and ``swallow`` tables
(results/three_tables/DECLARATION.md; :mod:`densing.trend.pooled_tables`), measured by ``densing trend --table all``.
The report computes it beside the headline and shows it in its section "One law from three harnesses" (:mod:`.report`).
"""

from __future__ import annotations

from densing.registry import DESIGNS, Design, lazy

_REPORT = "densing.designs.three_tables.report"
DESIGNS.register(
    "three_tables",
    Design(
        "three_tables",
        "one Densing Law from the three tables' headline rows on the public table's scale (densing trend --table all)",
        None,
        lazy(_REPORT, "side", 1),
        lazy(_REPORT, "section", 3),
        lazy(_REPORT, "render", 1),
        rank=15,
    ),
)
