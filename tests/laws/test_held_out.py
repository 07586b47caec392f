"""The held-out check from a path (densing/laws/held_out.py): the data format decides the reader and
the default cut of early checkpoints; a format with rules of its own gets them."""

import numpy as np
import pandas as pd
import pytest

from densing.data.formats import FORMATS, DataFormat, register_format
from densing.data.schema import validate_results
from densing.laws import forms, held_out


def _ladder(path):
    """A planted composed law S(N, D) = c/(1 + e^{−γ(L(N, D) − l)}) + d (Xiao et al. 2024, eqs. 2–3) on 6 sizes × 5 budgets."""
    n = np.repeat(np.geomspace(5e7, 1.5e10, 6), 5)
    t = np.tile(np.geomspace(1e9, 3e12, 5), 6)
    score = forms.performance_law(forms.loss_law(n, t, a=400.0, alpha=0.34, b=410.0, beta=0.28), 0.7, -4.0, 1.0, 0.25)
    frame = pd.DataFrame(
        {
            "model": [f"m{k}" for k in range(n.size)],
            "benchmark": "toy",
            "metric": "acc",
            "value": score,
            "params": n,
            "train_tokens": t,
            "run": [f"r{k // 5}" for k in range(n.size)],
        }
    )
    frame.to_csv(path, index=False)
    return path


def test_the_format_default_cut_applies_unless_given(tmp_path):
    path = _ladder(tmp_path / "ladder.toy")

    def read(p, **_):
        return validate_results(pd.read_csv(p), source=str(p))

    register_format(DataFormat("toy", sniff=lambda p: p.suffix == ".toy", read=read, min_train_tokens=1e10))
    try:
        from densing.present.laws import held_out_summary

        table, about = held_out.validate_held_out(path, "toy", max_params=5e9, law="composed")
        assert about == held_out.HeldOutCut(5e9)  # values; the summary's words are present.laws'
        assert table["train_tokens"].min() >= 1e10 and "held-out point(s)" in held_out_summary(table, about)
        everything, _ = held_out.validate_held_out(path, "toy", max_params=5e9, law="composed", min_train_tokens=None)
        assert everything["train_tokens"].min() == pytest.approx(1e9) and len(everything) > len(table)
    finally:
        FORMATS.unregister("toy")
