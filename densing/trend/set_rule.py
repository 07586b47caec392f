"""The set rule: which reference families a row of the Densing Law (one benchmark, or a set inverted jointly) is
measured against, read from the reference rule's candidate table (:mod:`densing.laws.eligibility`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from densing.runtime import per_table


def set_references(candidates: pd.DataFrame, benchmarks: tuple[str, ...], *, strict: bool = False
                   ) -> dict[str, tuple[str, ...]]:
    """The reference families of a row under the common targets: family → the row's benchmarks (all of them).

    One benchmark: the families the reference rule makes eligible on it (:mod:`densing.laws.eligibility`). A set of B
    benchmarks (the joint inversion), a family that on **every** benchmark of the set passes R1, R2, R3 and R2s (one
    recipe, three sizes with token counts, comparable budgets, a slope that rises beyond its noise), on **at least
    one** passes R4r and R4s (it reaches the set's frontier on some capability, and the joint size is identified
    there), and whose largest member the refits without it predict within noise on the set jointly:
    Σ_b z_b² ≤ χ²(B) at 0.95 (R5z over the set; z_b the held-out test of the reference rule on benchmark b). The joint
    inversion weighs each benchmark by what it tells (its slope and the fit's spread at the target's size), so a
    benchmark the family does not reach far enters as a weak term, not as a trend. The reference rule's per-benchmark
    eligibility on every benchmark of the set is kept as a labelled variant (``strict=True``).
    """
    from scipy.special import gammaincinv  # χ²'s quantile 2·P⁻¹(B/2, p) (what scipy.stats.chi2.ppf computes)

    columns = _rule_columns(candidates)
    chosen = np.flatnonzero(columns["family_row"] & np.isin(columns["benchmark"], list(benchmarks)))
    out: dict[str, tuple[str, ...]] = {}
    eligible, benchmark, code = (columns[k][chosen] for k in ("eligible", "benchmark", "code"))
    z_all = columns["held_out_z"][chosen] if len(benchmarks) > 1 and not strict else None
    bound = float(2 * gammaincinv(len(benchmarks) / 2, 0.95))
    groups: dict = {}
    for i, family in enumerate(columns["family"][chosen]):
        groups.setdefault(family, []).append(i)
    for family, at in sorted(groups.items()):
        at = np.asarray(at)
        if set(benchmark[at]) != set(benchmarks):
            continue
        if len(benchmarks) == 1 or strict:
            passes = eligible[at].all()
        else:  # R1, R2, R3, R2s on every benchmark; R4r and R4s on at least one; R5z over the set
            z = z_all[at]
            passes = (not np.isin(code[at], ["R1", "R2", "R3", "R2s"]).any() and np.isin(code[at], ["", "R5z"]).any()
                      and np.all(np.isfinite(z)) and float(np.sum(z ** 2)) <= bound)
        if passes:
            out[str(family)] = tuple(benchmarks)
    return out


@per_table
def _rule_columns(candidates: pd.DataFrame) -> dict[str, np.ndarray]:
    """What :func:`set_references` reads of a candidate table, as arrays, once per table inside
    :func:`densing.runtime.same_tables`: which rows are families, each row's family, benchmark, eligibility,
    held-out z and the first rule it fails (its ``code``: "" when eligible)."""
    eligible = candidates["eligible"].astype(bool).to_numpy()
    code = candidates["code"].fillna("").astype(str).to_numpy(object)
    code[eligible] = ""
    return {"family_row": (candidates["kind"] == "family").to_numpy(bool), "family": candidates["family"].to_numpy(object),
            "benchmark": candidates["benchmark"].to_numpy(object), "eligible": eligible, "code": code,
            "held_out_z": candidates["held_out_z"].to_numpy(float) if "held_out_z" in candidates.columns
            else np.full(len(candidates), np.nan)}

