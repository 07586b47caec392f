"""``densing trend --format json``'s headline and ``--detail`` name the single target whose removal moves the
headline most (leave one model out) and its move, whether or not the move leaves the interval (docs/method.md, "The
knife-edge: one target across one boundary")."""

from __future__ import annotations

import json

import numpy as np
import pytest

from densing.numbers import format_months, signed
from densing.trend import pooling, rules
from densing.trend.rules import doubling_months
from studies import knife_edge
from tests.cli_run import run


@pytest.fixture(scope="module")
def row():
    """The public table's headline row: its common targets and pooled trend, as ``densing trend`` computes them."""
    return knife_edge.row_of("public")


def test_the_headline_json_names_the_most_influential_target_and_its_move(capsys, row):
    code, out, err = run(["trend", "--format", "json"], capsys)
    assert code == 0, err
    headline = json.loads(out)["headline"]
    record = headline["most_influential_target"]
    assert set(record) == {"model", "months_without", "move_months"}
    assert record["move_months"] == pytest.approx(record["months_without"] - headline["months"])
    common, trend = row
    labels = common.frame["model"].astype(str).tolist()
    assert record["model"] in labels
    # the row without that target's points (the other targets read as in the row), pooled with the row's own
    # weights, is the doubling time the record gives, and no other single target's removal moves it further
    y, kind = pooling.point_densities(common)
    t = common.frame["t"].to_numpy(float)
    moves = {}
    for i, model in enumerate(labels):
        keep = np.arange(len(labels)) != i
        lines = rules.frontier_lines_weighted(
            trend.rule, t[keep], y[:, keep], kind[:, keep], np.ones(y[:, keep].shape), np.asarray(labels)[keep]
        )
        moves[model] = doubling_months(float(np.asarray(trend.weights, float) @ np.ascontiguousarray(lines[:, 0])))
    assert record["months_without"] == pytest.approx(moves[record["model"]], rel=1e-9)
    largest = max(abs(months - headline["months"]) for months in moves.values())
    assert abs(record["move_months"]) == pytest.approx(largest, rel=1e-9)


def test_the_detail_prints_the_most_influential_target_even_within_the_interval(capsys):
    code, out, err = run(["trend", "--format", "json"], capsys)
    record = json.loads(out)["headline"]["most_influential_target"]
    code, out, err = run(["trend", "--detail"], capsys)
    assert code == 0, err
    text = " ".join(out.split())
    assert (
        f"leave one target out: without {record['model']} the estimate is "
        f"{format_months(record['months_without'])} months ({signed(record['move_months'])} months), the largest "
        "move of any single target"
    ) in text
