"""Where densing's OLMES re-implementation and AI2's own request sets differ, request by request.

For each task both cover (ARC-Easy and ARC-Challenge test, PIQA and WinoGrande validation; RC
5-shot), builds every log-likelihood request lm-eval makes from densing's ``densing_olmes_*``
config and from AI2's set (``densing_olmo_<task>_<variant>``, the file's strings verbatim), pairs
the items by their final prompt paragraph and continuations, and counts: items in each, items in
both, items whose (context, continuation) strings are identical, and items whose gold answer
agrees. Identical strings give identical log-likelihoods and scores (the same lm-eval path and
tokeniser), so this accounts for every difference between the two sets' scores without a model.
Prints up to ``--show`` differing items per task.

    python bench/olmes_vs_ai2_requests.py [--show 2]
"""
from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

PAIRS = (
    ("densing_olmes_arc_easy", "densing_olmo_arc_easy_test_rc_5shot"),
    ("densing_olmes_arc_challenge", "densing_olmo_arc_challenge_test_rc_5shot"),
    ("densing_olmes_piqa", "densing_olmo_piqa_val_rc_5shot"),
    ("densing_olmes_winogrande", "densing_olmo_winogrande_val_rc_5shot"),
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
        if key in items:
            raise SystemExit(f"{task.config.task}: two items share the key {key!r:.120}")
        items[key] = (requests, gold_index(task, doc))
    return items


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated densing task names (default: all four)")
    arguments = parser.parse_args()
    from densing.eval.runner import task_manager
    from densing.paths import SHARED_DATA

    manager = task_manager(needed=[], data_root=SHARED_DATA)
    print(f"{'densing task':<30} {'AI2 set':<42} {'densing':>8} {'AI2':>6} {'both':>6} {'same strings':>13} {'same gold':>10}")
    for ours, theirs in PAIRS:
        if arguments.only and ours not in arguments.only.split(","):
            continue
        loaded = manager.load([ours, theirs])["tasks"]
        a, b = _items(loaded[ours]), _items(loaded[theirs])
        both = sorted(set(a) & set(b))
        same = [k for k in both if a[k][0] == b[k][0]]
        gold = [k for k in both if a[k][1] == b[k][1]]
        print(f"{ours:<30} {theirs:<42} {len(a):>8} {len(b):>6} {len(both):>6} {len(same):>13} {len(gold):>10}")
        shown = 0
        for key in both:
            if shown >= arguments.show:
                break
            if a[key][0] != b[key][0] or a[key][1] != b[key][1]:
                shown += 1
                for (ca, xa), (cb, xb) in zip(a[key][0], b[key][0]):
                    if (ca, xa) != (cb, xb):
                        cut = next((i for i, (p, q) in enumerate(zip(ca, cb)) if p != q), min(len(ca), len(cb)))
                        print(f"    differs at context char {cut}: densing {ca[max(0, cut - 40):cut + 40]!r} {xa!r}\n"
                              f"                          AI2     {cb[max(0, cut - 40):cut + 40]!r} {xb!r}")
                        break
                if a[key][1] != b[key][1]:
                    print(f"    gold: densing {a[key][1]}, AI2 {b[key][1]}")
        for name, only in ((ours, set(a) - set(b)), (theirs, set(b) - set(a))):
            for key in sorted(only)[: arguments.show]:
                print(f"    only in {name}: {key[0][:100]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
