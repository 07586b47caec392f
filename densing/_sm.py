"""The few statsmodels pieces densing uses, imported without ``statsmodels.api``.

``import statsmodels.api`` loads every submodule; the report needs only OLS and QuantReg, which load
fewer.
"""
from __future__ import annotations

import numpy as np
from statsmodels.regression.linear_model import OLS
from statsmodels.regression.quantile_regression import QuantReg


def add_constant(x, has_constant: str = "add") -> np.ndarray:
    """A column of ones before ``x`` (as ``statsmodels.api.add_constant`` with has_constant='add')."""
    x = np.asarray(x, float)
    x = x[:, None] if x.ndim == 1 else x
    return np.column_stack([np.ones(len(x)), x])


__all__ = ["OLS", "QuantReg", "add_constant"]
