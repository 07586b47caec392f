"""The reference rule R1–R5 on a hand-made table: each rule excludes the candidate it should, with its reason."""
from __future__ import annotations

import numpy as np
import pandas as pd

from densing.laws import forms
from densing.trend import references


def _family(name: str, sizes, tokens, *, gamma=0.45, level=22.0, benchmark="mmlu", shift=0.0, active=None, date="2024-01-01"):
    n = np.asarray(sizes, float)
    score = forms.performance_law(np.log(n), 0.75, gamma, level, 0.25) + shift
    return pd.DataFrame({"model": [f"{name}-{i}" for i in range(n.size)], "family": name, "benchmark": benchmark,
                         "metric": "acc", "value": score, "params": n, "train_tokens": np.asarray(tokens, float),
                         "active_params": np.nan if active is None else active, "release_date": pd.Timestamp(date)})


def _table() -> pd.DataFrame:
    big = (0.5e9, 2e9, 7e9, 20e9, 70e9)
    targets = _family("T", (1e9, 3e9, 7e9, 13e9, 34e9, 70e9), 2e12, gamma=0.5, level=23.0)  # the trend's targets
    return pd.concat([
        targets,
        _family("Good", big, 3e12),                                     # eligible
        _family("Narrow", (7e9, 13e9, 70e9), 2e12),                     # R2: 10× span
        _family("Mixed", big, (0.3e12, 1e12, 3e12, 3e12, 3e12)),        # R3: 10× tokens
        _family("Weak", big, 3e12, level=26.0),                         # R4: never reaches the targets' top
        _family("Bent", big, 3e12, shift=np.array([0, 0, 0, 0, 0.08])),  # R5: the largest member off the curve
        _family("Two", (1e9, 1e9, 70e9), 3e12),                         # R2: two distinct sizes
    ], ignore_index=True)


def test_each_rule_excludes_the_candidate_it_should():
    table = references.candidate_table(_table(), since="2023-01-01")
    why = table.set_index("reference")["why"]
    eligible = table.set_index("reference")["eligible"]
    assert eligible["Good:mmlu"] and why["Good:mmlu"] == ""
    assert why["Narrow:mmlu"].startswith("R2: sizes span 10×")
    assert why["Mixed:mmlu"].startswith("R3: token counts differ 10×")
    assert why["Weak:mmlu"].startswith("R4:")
    assert why["Bent:mmlu"].startswith("R5: held-out error")
    assert why["Two:mmlu"].startswith("R2: 2 sizes")
    assert table.loc[table["reference"] == "Good:mmlu", "held_out_error"].iloc[0] < 1e-9


def test_a_family_needs_two_eligible_benchmarks_and_the_lowest_held_out_error_leads():
    base = _table()
    second = base.assign(benchmark="hellaswag")
    table = references.candidate_table(pd.concat([base, second], ignore_index=True), since="2023-01-01")
    families = references.eligible_families(table)
    assert list(families["family"]) == ["Good"] and families["headline"].tolist() == [True]
    assert families["benchmarks"].iloc[0] == ("mmlu", "hellaswag")
    only_one = references.eligible_families(references.candidate_table(base, since="2023-01-01"))
    assert only_one.empty  # one eligible benchmark is not a family reference


def test_mixture_of_experts_members_are_not_fitted():
    table = _table()
    table.loc[(table["family"] == "Good") & (table["params"] == 70e9), "active_params"] = 14e9
    row = references.candidate_table(table, since="2023-01-01").set_index("reference").loc["Good:mmlu"]
    assert "moe: Good-4" in row["why"] and row["sizes"] == 4
