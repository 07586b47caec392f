"""Scores in the format of AI2's OLMo ladder, from the requests lm-eval logged.

The ladder (allenai/OLMo ``olmo/eval/downstream.py``, ``ICLMetric``) scores an OLMES ranked-classification task from
the log-likelihood ``ll_i = Σ_t log P(x_t | prefix)`` of every choice's continuation ``" " + answer_i``:

- ``acc``: the choice with the largest ``ll_i`` is the gold one (OLMES ``acc_raw``);
- ``len_norm``: the choice with the largest ``ll_i / c_i`` is the gold one, ``c_i`` the number of
  characters of the continuation without its leading space (OLMES ``acc_per_char``; lm-eval's ``acc_norm``
  for answers after a one-space target delimiter);
- ``bpb``: bits per byte of the correct answer, ``−ll_gold / b_gold / ln 2`` with ``b_gold`` the UTF-8 bytes of the
  gold continuation without its leading space (``cont_byte_len``), averaged over items (as the ladder's
  ``*_rc_5shot_bpb`` columns are: a mean of per-item values, not a ratio of sums).

MMLU is the average of its four groups weighted as :data:`densing.data.olmo.MMLU_GROUPS` (accuracy and bpb alike).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from densing.errors import EvalError
from densing.eval.loss import gold_index

LN2 = math.log(2.0)


@dataclass(frozen=True)
class ItemScores:
    """Per-item ladder scores of one lm-eval task."""

    acc: np.ndarray
    len_norm: np.ndarray
    bpb: np.ndarray

    def __len__(self) -> int:
        return len(self.acc)


def item_scores(samples: list[dict], task: Any) -> ItemScores:
    """Ladder scores of every logged sample (``log_samples=True``) of a multiple-choice task."""
    acc, len_norm, bpb = [], [], []
    for sample in samples:
        gold = gold_index(task, sample["doc"])
        responses = sample["filtered_resps"]
        lls = np.array([float(r[0] if isinstance(r, (list, tuple)) else r) for r in responses])
        answers = [str(arguments[1]).removeprefix(" ") for arguments in sample["arguments"]]
        if len(answers) != len(lls) or not answers:
            raise EvalError(
                f"task {task.config.task}: a logged sample has {len(answers)} requests and {len(lls)} responses"
            )
        chars = np.array([max(len(a), 1) for a in answers], dtype=float)
        gold_bytes = len(answers[gold].encode("utf-8"))
        if gold_bytes == 0:
            raise EvalError(
                f"task {task.config.task}: doc {sample.get('doc_id')}: the gold answer is empty (no bits per byte)"
            )
        acc.append(float(int(np.argmax(lls)) == gold))
        len_norm.append(float(int(np.argmax(lls / chars)) == gold))
        bpb.append(-lls[gold] / gold_bytes / LN2)
    return ItemScores(np.array(acc), np.array(len_norm), np.array(bpb))


def concatenate(parts: list[ItemScores]) -> ItemScores:
    """The items of several tasks as one (a group's leaves)."""
    return ItemScores(*(np.concatenate([getattr(p, k) for p in parts]) for k in ("acc", "len_norm", "bpb")))


def _binomial_stderr(p: float, n: int) -> float:
    return math.sqrt(p * (1.0 - p) / n) if n > 0 else math.nan


@dataclass(frozen=True)
class LadderScores:
    """A benchmark's scores in the ladder's format, with the item count behind them."""

    acc: float
    acc_stderr: float
    len_norm: float
    len_norm_stderr: float
    bpb: float
    items: int


def ladder_scores(groups: dict[str, ItemScores], weights: dict[str, float]) -> LadderScores:
    """The ``weights``-weighted average of the group means, standard errors √(Σ w_g² p_g(1 − p_g)/n_g)."""
    if not groups or any(len(g) == 0 for g in groups.values()):
        raise EvalError("ladder scores: a group has no scored items")
    if set(weights) != set(groups):
        raise EvalError(f"ladder scores: groups {sorted(groups)} do not match the weights' {sorted(weights)}")
    total = sum(weights.values())
    means = {
        name: {key: float(np.mean(getattr(scores, key))) for key in ("acc", "len_norm", "bpb")}
        for name, scores in groups.items()
    }

    def mean(key: str) -> float:
        return sum(weights[name] / total * means[name][key] for name in groups)

    def stderr(key: str) -> float:  # √(Σ w_g² p_g(1 − p_g)/n_g)
        return math.sqrt(
            sum(
                (weights[name] / total) ** 2 * _binomial_stderr(means[name][key], len(groups[name])) ** 2
                for name in groups
            )
        )

    return LadderScores(
        acc=mean("acc"),
        acc_stderr=stderr("acc"),
        len_norm=mean("len_norm"),
        len_norm_stderr=stderr("len_norm"),
        bpb=mean("bpb"),
        items=sum(len(g) for g in groups.values()),
    )
