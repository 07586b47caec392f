"""Do the public table and the second table (the Open LLM Leaderboard v2's official base models) give the models they
share the same density? Prints the agreement of their headline rows' per-model ln ρ; asserts nothing.

**The values.** Each table's headline row (``densing trend --format json`` and ``densing trend --table openllm_v2
--format json``; the point readings in the headline's ``targets``, which do not depend on the draws) gives every
target's ln ρ under every reference, exact or a bound (docs/method.md, "The identified region"). A table's value for a
model is on its lead reference's scale: each reference's offset from the lead is the median difference of their exact
values over the targets both invert exactly (the row's own rule, :func:`densing.trend.selection.own_from_others`), and
the model's value is the mean of its exact values shifted by the offsets; where no reference inverts it exactly it is
a bound, the least of its upper bounds (or the largest of its lower bounds) shifted alike. Its own family's reading
("from the others") is left out.

**The comparison.** Over the models both rows hold: the Pearson correlation of the two tables' values over the models
exact in both, and their mean difference; and for every model exact in one table and a bound in the other, whether
the exact value lies on the bound's side once the two tables' scales are aligned (the second table's values shifted
by the median difference over the models exact in both): an upper bound b holds an exact a when a ≤ b, a lower bound
when a ≥ b; and whether it does within the tables' own disagreement, 2 standard deviations of the differences over the
models exact in both (a ≤ b + 2s, a ≥ b − 2s), since a bound's value is measured as noisily as an exact one. Each such
model is printed with the reasons its bounding table gives (docs/method.md, "The identified region").

Run::

    PYTHONPATH=. python studies/table_agreement.py > studies/table_agreement.results.txt
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict

import numpy as np

TABLES = {"public": [], "openllm_v2": ["--table", "openllm_v2"]}


def headline_targets(arguments: list[str]) -> list[dict]:
    """The headline's per-target readings of ``densing trend`` on one table (40 draws: the readings are points)."""
    command = [sys.executable, "-m", "densing.cli", "trend", *arguments, "--n-boot", "40", "--format", "json"]
    found = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(found.stdout)["headline"]["targets"]


def offsets(readings: list[dict]) -> dict[str, float]:
    """Each reference's offset from the first (the lead): the median of its exact ln ρ minus the lead's over the models
    both invert exactly (0 for the lead, and where fewer than three models are shared)."""
    exact = defaultdict(dict)
    for r in readings:
        if r["kind"] == "exact":
            exact[r["reference"]][r["model"]] = r["log_density"]
    order = list(dict.fromkeys(r["reference"] for r in readings))
    lead = exact[order[0]]
    found = {}
    for name in order:
        shared = [exact[name][m] - lead[m] for m in exact[name] if m in lead]
        found[name] = float(np.median(shared)) if len(shared) >= 3 else 0.0
    return found


def bound_reasons(readings: list[dict], model: str) -> str:
    """The reasons a table's references give a model's bounds, each once: "below the smallest member (Falcon3, …)"."""
    by_reason = defaultdict(list)
    for r in readings:
        if r["model"] == model and r["kind"] in ("upper", "lower"):
            by_reason[r["reason"] + (f" on {r['benchmark']}" if r["benchmark"] else "")].append(r["reference"])
    return "; ".join(f"{reason} ({', '.join(names)})" for reason, names in by_reason.items())


def model_values(readings: list[dict]) -> dict[str, tuple[str, float]]:
    """Per model (kind, ln ρ on the lead's scale): exact where any reference inverts it exactly, else its tightest
    bound (module docstring)."""
    shift = offsets(readings)
    by_model = defaultdict(list)
    for r in readings:
        if r["kind"] in ("exact", "upper", "lower") and r["log_density"] is not None:
            by_model[r["model"]].append((r["kind"], r["log_density"] - shift[r["reference"]]))
    values = {}
    for model, found in by_model.items():
        exact = [v for k, v in found if k == "exact"]
        upper = [v for k, v in found if k == "upper"]
        lower = [v for k, v in found if k == "lower"]
        if exact:
            values[model] = ("exact", float(np.mean(exact)))
        elif upper:
            values[model] = ("upper", float(min(upper)))
        elif lower:
            values[model] = ("lower", float(max(lower)))
    return values


def on_the_bound_side(exact: float, kind: str, bound: float) -> bool:
    """Whether an exact value lies on a bound's side: a ≤ b for an upper bound, a ≥ b for a lower one."""
    return exact <= bound if kind == "upper" else exact >= bound


def main() -> int:
    readings = {name: headline_targets(arguments) for name, arguments in TABLES.items()}
    public, second = (model_values(found) for found in readings.values())
    shared = sorted(set(public) & set(second))
    both = [m for m in shared if public[m][0] == "exact" and second[m][0] == "exact"]
    a = np.array([public[m][1] for m in both])
    b = np.array([second[m][1] for m in both])
    shift = float(np.median(b - a)) if both else 0.0
    noise = 2 * float(np.std(b - a, ddof=1)) if len(both) >= 3 else 0.0
    print(
        "The public table's headline row (paper-like set) and the second table's (v2-native set): each model's ln ρ "
        "on its table's lead reference's scale (studies/table_agreement.py's docstring)."
    )
    print(f"models in both rows: {len(shared)}; exact in both: {len(both)}")
    if len(both) >= 3:
        print(
            f"  correlation over the models exact in both: {np.corrcoef(a, b)[0, 1]:.3f}; mean difference (second − "
            f"public) {np.mean(b - a):+.3f}, sd {np.std(b - a, ddof=1):.3f}; median {shift:+.3f}"
        )
    mixed = [m for m in shared if (public[m][0] == "exact") != (second[m][0] == "exact")]
    agree = within = 0
    for model in mixed:
        if public[model][0] == "exact":
            exact, (kind, bound) = public[model][1] + shift, second[model]
            where, bounding = "public exact, second", "openllm_v2"
        else:  # both on the second table's scale
            exact, (kind, bound) = second[model][1], public[model]
            bound = bound + shift
            where, bounding = "second exact, public", "public"
        held = on_the_bound_side(exact, kind, bound)
        near = on_the_bound_side(exact, kind, bound + (noise if kind == "upper" else -noise))
        agree += held
        within += near
        side = "on the bound's side" if held else "within the tables' noise" if near else "NOT on the bound's side"
        print(
            f"  {model}: {where} {kind} bound; exact {exact:+.2f} vs bound {bound:+.2f} (aligned): {side}; "
            f"bounded by {bound_reasons(readings[bounding], model)}"
        )
    print(
        f"exact in one table and a bound in the other: {len(mixed)}; exact value on the bound's side: {agree} of "
        f"{len(mixed)}; within the tables' noise (2 sd = {noise:.2f} in ln ρ): {within} of {len(mixed)}"
    )
    bounded_both = [m for m in shared if public[m][0] != "exact" and second[m][0] != "exact"]
    print(f"a bound in both: {len(bounded_both)} ({', '.join(bounded_both) if bounded_both else 'none'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
