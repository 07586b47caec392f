"""densing's OLMES re-implementation against AI2's own request sets, item by item (``-m equivalence``).

For each task both cover (ARC-Easy and ARC-Challenge test, PIQA and WinoGrande validation; RC
5-shot), builds every log-likelihood request lm-eval makes from densing's ``densing_olmes_*``
config and from AI2's set (``densing_olmo_<task>_<variant>``, the file's strings verbatim), pairs
the items by their final prompt paragraph and continuations, and asserts that both sets hold the
same items, each with identical (context, continuation) strings and the same gold answer.
Identical strings give identical log-likelihoods and scores (the same lm-eval path and tokeniser),
so the two sets' scores agree without a model. The first differing items are in the failure message.

    python -m pytest -m equivalence tests/equivalence/test_olmes_vs_ai2_requests.py
"""

from __future__ import annotations

import os

import pytest

from tests.conftest import SHARED_DATA

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

pytest.importorskip("lm_eval")
pytest.importorskip("datasets")
pytestmark = [pytest.mark.equivalence, pytest.mark.eval]

PAIRS = (
    ("densing_olmes_arc_easy", "densing_olmo_arc_easy_test_rc_5shot"),
    ("densing_olmes_arc_challenge", "densing_olmo_arc_challenge_test_rc_5shot"),
    ("densing_olmes_piqa", "densing_olmo_piqa_val_rc_5shot"),
    ("densing_olmes_winogrande", "densing_olmo_winogrande_val_rc_5shot"),
)
AI2_SETS = SHARED_DATA / "olmo_ladder" / "oe_eval_tasks"
if not (SHARED_DATA / "benchmarks").is_dir() or not AI2_SETS.is_dir():
    pytest.skip(
        f"{SHARED_DATA}: needs benchmarks/ (local splits) and olmo_ladder/oe_eval_tasks/ (AI2's request sets)",
        allow_module_level=True,
    )


def _items(task) -> dict:
    """item key -> (requests as (context, continuation) tuples in choice order, gold index)."""
    from densing.eval.loss import gold_index

    task.build_all_requests(rank=0, world_size=1)
    by_doc: dict = {}
    for instance in task.instances:
        by_doc.setdefault(instance.doc_id, [instance.doc, []])[1].append(tuple(instance.args))
    items = {}
    for doc, requests in by_doc.values():
        # the item's own text: the last paragraph of its (first) context, and its continuations
        key = (requests[0][0].rsplit("\n\n", 1)[-1], tuple(sorted(x for _, x in requests)))
        if task.multiple_input:  # WinoGrande: the contexts differ per option, the continuation is shared
            key = (requests[0][1], tuple(sorted(c.rsplit("\n\n", 1)[-1] for c, _ in requests)))
        assert key not in items, f"{task.config.task}: two items share the key {key!r:.120}"
        items[key] = (requests, gold_index(task, doc))
    return items


def _first_difference(ours: list, theirs: list) -> str:
    for (ca, xa), (cb, xb) in zip(ours, theirs):
        if (ca, xa) != (cb, xb):
            cut = next((i for i, (p, q) in enumerate(zip(ca, cb)) if p != q), min(len(ca), len(cb)))
            return f"at context char {cut}: densing {ca[max(0, cut - 40) : cut + 40]!r} {xa!r}, AI2 {cb[max(0, cut - 40) : cut + 40]!r} {xb!r}"
    return f"{len(ours)} requests in densing's, {len(theirs)} in AI2's"


@pytest.fixture(scope="module")
def manager():
    from densing.eval.harness import task_manager

    return task_manager(needed=[], data_root=SHARED_DATA)


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=[p[0].removeprefix("densing_olmes_") for p in PAIRS])
def test_densing_olmes_requests_are_ai2s(manager, ours, theirs):
    loaded = manager.load([ours, theirs])["tasks"]
    a, b = _items(loaded[ours]), _items(loaded[theirs])
    assert a, f"{ours}: no items"
    only_ours, only_theirs = sorted(set(a) - set(b)), sorted(set(b) - set(a))
    assert not only_ours and not only_theirs, (
        f"{len(only_ours)} items only in {ours}, {len(only_theirs)} only in {theirs}; first: "
        f"{[k[0][:100] for k in (only_ours + only_theirs)[:2]]}"
    )
    strings = [k for k in a if a[k][0] != b[k][0]]
    assert not strings, (
        f"{len(strings)} of {len(a)} items differ in their strings; first {_first_difference(a[strings[0]][0], b[strings[0]][0])}"
    )
    gold = [k for k in a if a[k][1] != b[k][1]]
    assert not gold, (
        f"{len(gold)} of {len(a)} items differ in gold; first: densing {a[gold[0]][1]}, AI2 {b[gold[0]][1]}"
    )
