"""``densing trend --detail`` names the headline row's knife edges — how many targets lie within ±0.5 standard errors
of a censoring boundary and the largest moves of the point when one crosses one — and ``--format json`` gives them as
``headline.knife_edges`` (densing.trend.knife_edge; docs/method.md, "The knife-edge: one target across one
boundary"). On the public headline the largest is Meta-Llama-3.1-70B across Qwen2's HumanEval ceiling, a move far
beyond the point's Monte Carlo error (studies/knife_edge.results.txt), so the detail must name it."""

from __future__ import annotations

import json

import pytest

from densing.present.knife_edge import BOUNDARY_WORDS, months_words, move_words
from densing.trend.knife_edge import Boundary
from tests.cli_run import run


def _knife_edges(capsys, *table: str) -> tuple[dict, dict]:
    code, out, err = run(["trend", *table, "--format", "json"], capsys)
    assert code == 0, err
    headline = json.loads(out)["headline"]
    return headline, headline["knife_edges"]


def test_the_public_headlines_json_names_llama_3_1_70b_across_qwen2s_humaneval_ceiling(capsys):
    headline, edges = _knife_edges(capsys)
    top = edges["largest"][0]
    assert (top["model"], top["boundary"], top["reference"], top["benchmarks"]) == (
        "meta-llama/Meta-Llama-3.1-70B",
        "ceiling",
        "Qwen2",
        ["humaneval"],
    )
    assert edges["months"] == pytest.approx(headline["months"], rel=1e-9) == top["months_before"]
    assert top["move_months"] == pytest.approx(top["months_after"] - top["months_before"]) and top["move_months"] < 0
    assert [r["kind"] for r in top["readings_before"] if r["reference"] == "Qwen2"] == ["exact"]
    assert [r["kind"] for r in top["readings_after"] if r["reference"] == "Qwen2"] == ["lower"]
    sizes = [abs(m["move_months"]) for m in edges["largest"]]
    assert sizes == sorted(sizes, reverse=True) and 1 <= len(sizes) <= 3 and min(sizes) >= 0.1 * sizes[0]
    assert edges["n_targets"] <= edges["n_crossings"] and edges["window_stderrs"] == 0.5


@pytest.mark.parametrize("table", [(), ("--table", "swallow")], ids=["public", "swallow"])
def test_the_detail_names_the_targets_within_reach_and_the_largest_moves(capsys, table):
    _, edges = _knife_edges(capsys, *table)
    code, out, err = run(["trend", *table, "--detail"], capsys)
    assert code == 0, err
    text = " ".join(out.split())
    assert (
        f"knife edges: {edges['n_targets']} targets within ±0.5 standard errors of a censoring boundary "
        f"({edges['n_crossings']} crossings)"
    ) in text
    for rank, move in enumerate(edges["largest"], 1):
        under = f" under {move['reference']}" if move["reference"] else ""
        assert (
            f"{rank}. {move['model']} across the {BOUNDARY_WORDS[Boundary(move['boundary'])]}{under} on "
            f"{','.join(move['benchmarks'])}: {months_words(move['months_before'])} → "
            f"{months_words(move['months_after'])} months ({move_words(move['move_months'])})"
        ) in text
    if not table:
        assert (
            "1. meta-llama/Meta-Llama-3.1-70B across the ceiling under Qwen2 on humaneval: 3.950 → 3.676 months (−0.274)"
            in text
        )
