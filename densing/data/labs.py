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


def labs_of(families, labs=None) -> np.ndarray:
    """Each model's lab, object array: its table's ``lab`` cell where one is given (``labs``, aligned with
    ``families``), else :func:`lab_of` its family; "" where it has no family and no lab (a lab of its own)."""
    families = list(families)
    given = [None] * len(families) if labs is None else list(labs)
    return np.asarray([str(lab).strip() if not is_missing(lab) and str(lab).strip() not in NO_FAMILY else lab_of(family)
                       for family, lab in zip(families, given)], dtype=object)


__all__ = ["LABS_FILE", "lab_of", "lab_table", "labs_of"]
