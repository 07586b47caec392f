"""Ladder-format scoring (densing.eval.olmes) on hand-computed samples: no model, no lm-eval."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from densing.errors import EvalError
from densing.eval.olmes import ItemScores, item_scores, ladder_scores


class _Task:
    """The three lm-eval task methods gold_index uses, for a doc {'choices': [...], 'gold': i}."""

    multiple_input = False
    config = SimpleNamespace(task="hand")

    def doc_to_target(self, doc):
        return doc["gold"]

    def doc_to_choice(self, doc):
        return doc["choices"]


def _sample(choices, gold, lls, context="Question: q\nAnswer:"):
    return {
        "doc": {"choices": choices, "gold": gold},
        "arguments": [(context, " " + c) for c in choices],
        "filtered_resps": [(ll, False) for ll in lls],
    }


def test_acc_len_norm_and_bpb_by_hand():
    # choice 0 "ab" (2 chars) ll -2.0 -> -1.0/char; choice 1 "abcdef" (6 chars) ll -3.0 -> -0.5/char
    samples = [
        _sample(["ab", "abcdef"], 1, [-2.0, -3.0]),  # acc picks 0 (wrong), len_norm picks 1 (right)
        _sample(["é", "xyz"], 0, [-1.0, -5.0]),  # both right; "é" is 2 UTF-8 bytes
    ]
    scores = item_scores(samples, _Task())
    assert scores.acc.tolist() == [0.0, 1.0]
    assert scores.len_norm.tolist() == [1.0, 1.0]
    # bits per byte of the gold answer, without the leading space: 3.0 nats / 6 bytes, 1.0 nat / 2 bytes
    assert scores.bpb.tolist() == pytest.approx([3.0 / 6 / math.log(2), 1.0 / 2 / math.log(2)])
    ladder = ladder_scores({"task": scores}, {"task": 1.0})
    assert (ladder.acc, ladder.len_norm, ladder.items) == (0.5, 1.0, 2)
    assert ladder.bpb == pytest.approx(np.mean(scores.bpb))  # a mean of per-item values, as the ladder's
    assert ladder.acc_stderr == pytest.approx(math.sqrt(0.25 / 2))


def test_groups_are_weighted_not_pooled():
    big = ItemScores(np.ones(90), np.ones(90), np.full(90, 1.0))
    small = ItemScores(np.zeros(10), np.zeros(10), np.full(10, 3.0))
    ladder = ladder_scores({"a": big, "b": small}, {"a": 0.25, "b": 0.75})
    assert ladder.len_norm == pytest.approx(0.25)  # pooled would be 0.9
    assert ladder.bpb == pytest.approx(0.25 * 1.0 + 0.75 * 3.0)
    assert ladder.items == 100
    with pytest.raises(EvalError, match="do not match"):
        ladder_scores({"a": big}, {"b": 1.0})


def test_empty_gold_answer_is_an_error():
    with pytest.raises(EvalError, match="gold answer is empty"):
        item_scores([_sample(["", "x"], 0, [-1.0, -2.0])], _Task())
