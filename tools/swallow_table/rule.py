"""Which models of the Swallow LLM Leaderboard's files are pre-trained: the written rule, applied by code.

The leaderboard (github.com/swallow-llm/leaderboard, ``_data/model.yml``; CC-BY 4.0, Swallow LLM team)
scores base and post-trained models side by side. A density trend needs pre-trained models only, so
:func:`decide` keeps an entry of a model file exactly when none of these reasons to refuse it holds:

1. ``is_post: true`` (the 2026-05 file flags each entry): the leaderboard lists it as post-trained;
2. ``base_model`` given (the 2025-06 file has no flag; it names a ``base_model`` only for models built
   from another one by post-training, ``(private)`` for chat models whose base is not public): a
   post-trained model;
3. a post-training name pattern in the Hub id (:data:`POST_TRAINING_NAME`: ``-Instruct``, ``-chat``,
   ``-it``, ``-dpo``, ``-sft``, ``-RL``, ``-Thinking``, ``-Reasoning``, ``instruct3``/``instruct4``);
4. no Hub id (an API model such as ``gpt-4o-2024-08-06``, ``params: 0``): no weights, no size.

Every entry of both files gets a decision and its reasons (:func:`decisions`); continual pre-training
of another model (Swallow, Youko, Baku, …) is pre-training and is kept, its parent marked in the
curated ``lineage.csv`` (:mod:`tools.swallow_table.build`). The rule reads only the files; the model cards
checked for the cases it cannot see are cited in ``results/swallow/README.md``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import yaml

from densing.errors import InputError
from densing.numbers import parse_date

#: Hub-id patterns of post-trained checkpoints (case-insensitive, matched on the part after the owner).
POST_TRAINING_NAME = re.compile(
    r"(instruct|[-_]chat|-it(\b|-)|-jpn-it|[-_]dpo|[-_]sft|-rl-|thinking|reasoning|shortcut)", re.IGNORECASE
)
#: The fields every entry of a model file needs.
ENTRY_FIELDS: tuple[str, ...] = ("id", "date", "params", "results")
DECISION_COLUMNS: tuple[str, ...] = (
    "file",
    "model",
    "decision",
    "reason",
    "leaderboard_date",
    "leaderboard_params",
    "leaderboard_active_params",
)


def read_model_file(path: str | Path) -> list[dict]:
    """The entries of one leaderboard ``model_*.yml`` (a YAML list of mappings), checked for :data:`ENTRY_FIELDS`.

    InputError naming the file and the entry for a missing file, invalid YAML, a non-list document,
    an entry without ``id``/``date``/``params``/``results`` or a repeated ``id``.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file (a Swallow leaderboard model file)")
    try:
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"{path}: not valid YAML: {first}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{path}: expected a YAML list of model entries")
    seen: set[str] = set()
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise InputError(f"{path}: entry {number}: expected a mapping, got {type(entry).__name__}")
        missing = [field for field in ENTRY_FIELDS if field not in entry]
        if missing:
            raise InputError(f"{path}: entry {number} ({entry.get('id', '?')}): missing field(s) {', '.join(missing)}")
        if entry["id"] in seen:
            raise InputError(f"{path}: entry {number}: field 'id': {entry['id']!r} appears twice")
        parse_date(entry["date"], field="date", where=f"{path}: entry {number} ({entry['id']})")  # in the domain
        if entry.get("is_post") not in (None, True, False):  # 'yes' is no YAML boolean: read as text, it would keep
            raise InputError(
                f"{path}: entry {number} ({entry['id']}): field 'is_post': expected true or false, got "
                f"{entry['is_post']!r}"
            )
        seen.add(str(entry["id"]))
    return entries


def refusal_reasons(entry: dict) -> list[str]:
    """The reasons (in the rule's order) to refuse one entry; empty for a pre-trained model."""
    reasons = []
    if entry.get("is_post") is True:
        reasons.append("is_post: true")
    base = entry.get("base_model")
    if base is not None and str(base).strip() != "":
        reasons.append(f"base_model given ({str(base).strip()})")
    model = str(entry["id"])
    if "/" not in model:
        reasons.append("no Hub id (API model)")
    elif POST_TRAINING_NAME.search(model.split("/", 1)[1]):
        reasons.append(f"name pattern ({POST_TRAINING_NAME.search(model.split('/', 1)[1]).group(0).strip('-_')})")
    return reasons


def decide(entry: dict) -> tuple[str, str]:
    """``("kept", "pre-trained: …")`` or ``("refused", reasons)`` for one entry of a model file."""
    reasons = refusal_reasons(entry)
    if reasons:
        return "refused", "; ".join(reasons)
    flag = "is_post: false" if entry.get("is_post") is False else "no base_model, no post-training name"
    return "kept", f"pre-trained ({flag})"


def decisions(entries: list[dict], file_label: str) -> pd.DataFrame:
    """One row per entry (columns :data:`DECISION_COLUMNS`), in the file's order."""
    rows = []
    for entry in entries:
        decision, reason = decide(entry)
        rows.append(
            {
                "file": file_label,
                "model": str(entry["id"]),
                "decision": decision,
                "reason": reason,
                "leaderboard_date": str(entry["date"]),
                "leaderboard_params": entry["params"],
                "leaderboard_active_params": entry.get("active_params", ""),
            }
        )
    return pd.DataFrame(rows, columns=list(DECISION_COLUMNS))
