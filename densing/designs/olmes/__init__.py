"""The paper's two-step design on AI2's recipe, a second measurement beside the leaderboard-based one.

The OLMo ladder's loss law L(N, D) per task (:mod:`densing.laws.olmo`), an MC score law S(L) fitted on the OLMo-2
checkpoints with the in-loop → offline offset carried (:mod:`.mc_reference`, :mod:`.mc_offset`, :mod:`.mc_tasks`),
N̂ at D0 over AI2's OLMES table of 23 open base models (:mod:`.data`, ``results/olmes``), one doubling time per task
(:mod:`.trend`); ``densing trend --design olmes`` prints it (:mod:`.cli`) and the report shows it beside the public
table's rows (:mod:`.report`).
"""
from __future__ import annotations

from densing.registry import DESIGNS, SecondDesign


def _run(options) -> None:
    from densing.designs.olmes.cli import run

    run(options)


def _side(inputs) -> tuple:
    from densing.designs.olmes.report import side

    return side(inputs)


def _section(result, rows, paper_months: float):
    from densing.designs.olmes.report import section

    return section(result, rows, paper_months)


def _render(section):
    from densing.designs.olmes.report import render

    return render(section)


DESIGNS.register("olmes", SecondDesign(
    "olmes", "the paper's two-step design on AI2's recipe (OLMo ladder loss law + OLMo-2 MC score law, N̂ at D0, "
    "default 1T) over AI2's OLMES table (results/olmes), a second, independent measurement", _run, _side, _section,
    _render, rank=20))
