"""Set membership on integer arrays without NumPy's ``unique``/``isin``, which import
``numpy.ma`` (a part of a command's start-up) to ask whether an array is masked."""
from __future__ import annotations

import numpy as np


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for a plain array: sorts and keeps each first occurrence."""
    ordered = np.sort(values, kind="stable")
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def isin_codes(values: np.ndarray, codes) -> np.ndarray:
    """``np.isin(values, codes)`` for integer ``codes``."""
    return isin_sorted(values, sorted_unique(np.asarray(codes, dtype=values.dtype)))


def isin_sorted(values: np.ndarray, sorted_unique_values: np.ndarray) -> np.ndarray:
    """``np.isin(values, sorted_unique_values)`` by binary search (several times faster for int ids)."""
    if not sorted_unique_values.size:
        return np.zeros(values.shape, dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_unique_values, values), sorted_unique_values.size - 1)
    return sorted_unique_values[pos] == values
