"""The lab of a model family: the outer unit of the trend's resampling (:mod:`densing.trend.pooling`, step 3).

**The rule.** A family's lab is the organisation that trained its recipe; a family derived from another (continued
pre-training, pruning, distillation, depth up-scaling, a code or long-context continuation) is in its parent's lab,
whoever derived it. ``labs.csv`` beside this module holds every family of the shipped tables with its lab, the family it
derives from (empty where none) and a source. A table's own ``lab`` column wins over the file; a family in neither, and
a model with no family, is a lab of its own. Why labs, and the two-stage cluster bootstrap over them (Davison & Hinkley
1997, §3.8; Field & Welsh 2007): docs/method.md, "Paired draws and random-effects pooling".
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

import numpy as np

from densing.data.schema import is_missing

LABS_FILE = Path(__file__).with_name("labs.csv")

#: Family cells that name no family: a model with one of these is a family, and a lab, of its own.
NO_FAMILY = frozenset({"", "nan", "None", "<NA>"})


@lru_cache(maxsize=1)
def lab_table() -> dict[str, tuple[str, str]]:
    """family → (lab, the family it derives from or ""), read once from ``labs.csv``."""
    with open(LABS_FILE, newline="", encoding="utf-8") as handle:
        return {row["family"]: (row["lab"], row["derived_from"]) for row in csv.DictReader(handle)}


def lab_of(family: object) -> str:
    """The lab of ``family`` by the rule above: ``labs.csv``'s, else the family itself ("" for no family)."""
    if family is None or (not isinstance(family, str) and is_missing(family)) or str(family) in NO_FAMILY:
        return ""
    name = str(family)
    return lab_table().get(name, (name, ""))[0]


def given_lab(lab: object) -> str:
    """A table's ``lab`` cell as a lab's name, "" for an empty cell (None, NaN, blank, or a :data:`NO_FAMILY` word)."""
    if lab is None or (not isinstance(lab, str) and is_missing(lab)):
        return ""
    name = str(lab).strip()
    return "" if name in NO_FAMILY else name


def table_labs(families, labs) -> dict[str, str]:
    """family → the lab a table's own ``lab`` column gives its rows (``labs``, aligned with ``families``): the first
    non-empty cell of the family's rows; a family whose rows give none is not listed (its lab is ``labs.csv``'s)."""
    found: dict[str, str] = {}
    for family, lab in zip(families, labs):
        name = given_lab(lab)
        if name and lab_of(family):
            found.setdefault(str(family), name)
    return found


def labs_of(families, labs=None, by_family: dict[str, str] | None = None) -> np.ndarray:
    """Each model's lab, object array: its table's ``lab`` cell where one is given (``labs``, aligned with
    ``families``), else the lab the table gives its family (``by_family``; default :func:`table_labs` of these rows),
    else :func:`lab_of` its family; "" where it has no family and no lab (a lab of its own)."""
    families = list(families)
    cells = [None] * len(families) if labs is None else list(labs)
    by_family = table_labs(families, cells) if by_family is None else by_family
    return np.asarray(
        [given_lab(lab) or family_lab(family, by_family) for family, lab in zip(families, cells)], dtype=object
    )


def family_lab(family: object, by_family: dict[str, str]) -> str:
    """The lab of ``family`` where a table gives its own (``by_family``, :func:`table_labs`), else :func:`lab_of`."""
    name = lab_of(family)
    return by_family.get(str(family), name) if name else ""


__all__ = ["LABS_FILE", "family_lab", "given_lab", "lab_of", "lab_table", "labs_of", "table_labs"]
