"""Let ``densing.density(...)`` and ``densing.trend(...)`` be called although they are modules.

The package keeps the module layout of the design (``densing/density.py``, ``densing/trend.py``)
and the notebook API the issues ask for (``densing.density(targets, fit)``): the module object
forwards a call to its namesake function.
"""
from __future__ import annotations

import sys
import types


def make_callable(module_name: str, function_name: str) -> None:
    module = sys.modules[module_name]

    class CallableModule(types.ModuleType):
        def __call__(self, *args, **kwargs):
            return getattr(self, function_name)(*args, **kwargs)

    module.__class__ = CallableModule
