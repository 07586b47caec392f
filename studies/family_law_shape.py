"""Which shape of the family law predicts a family's largest member better: the logistic in ln N or the paper's power form.

The two shapes of :func:`densing.laws.family.fit_family` (``shape=``), both fitted by the same binomial likelihood
with two free parameters (γ, l), d the benchmark's chance level and c + d = 1:

- ``logistic_ln_n``: S(N) = d + c·σ(γ·(ln N − l)) (Ruan et al. 2024, arXiv 2405.10938, eq. 3);
- ``power``: S(N) = d + c·σ(γ·(u − l)), u = −(N / N_unit)^−α: the paper's two steps at a fixed budget
  (Xiao et al. 2024, arXiv 2412.04315, eqs. 2 and 3: L = a·N^−α + b·D^−β, S = c·σ(−γ'·(L − l')) + d), with α fixed
  (Hoffmann et al. 2022, α = 0.34) and N_unit = 10⁹; it flattens toward an asymptote d + c·σ(−γ·l) below the ceiling.

**The criterion** (written, and committed alone, before the comparison was run):

*Rows.* Two tables: the public table (``results/public_models.csv``, candidate benchmarks
``densing.registry.table("public").candidates``) and the Swallow table (``results/swallow/swallow_2025-06.csv``,
``registry.table("swallow").candidates``). A row is one family × benchmark of one table whose points
(:func:`densing.laws.family_rows.family_arrays`: dense members with a token count, any score)
have at least 3 distinct sizes, the benchmark having a chance level and an item count n in the registry.

*Held-out prediction.* In each row the largest member (the last point by size, as
:func:`held_out_test` takes it) is held out, and each shape is refitted on the others by
:func:`held_out_test` with that shape and the reference rule's dispersion floor for that shape (the
benchmark's pooled dispersion over the table's families, :func:`densing.laws.eligibility.pooled_dispersions`,
computed under that shape). The refit predicts p̂ at the held-out size.

*Score.* The held-out binomial log-likelihood with the family's dispersion, as a deviance (0 for a perfect
prediction):

    ℓ = (n / φ)·[S·ln(p̂ / S) + (1 − S)·ln((1 − p̂) / (1 − S))]

S the held-out member's score, φ the dispersion the reference rule gives the family under the shipped shape (logistic_ln_n:
max(1, the benchmark's pooled dispersion, the refit's own X²/(m − 2))), the same φ for both shapes, so that the two
are compared on one scale and a shape's worse fit does not lower its own penalty.

*Decision.* The shape with the larger Σ ℓ over every row of both tables becomes the default (the other stays a
labelled option); a tie keeps logistic_ln_n. Reported beside it, not deciding: the number of rows each shape wins
(larger ℓ), and the R5z pass rate of each shape (|z| ≤ 1.96, z of :func:`held_out_test` under
that shape with its own pooled dispersion), over all rows and per table. A row where either shape's refit does not
converge or does not rise is listed with its reason and left out of the sums, counted per shape.

The output lists every row under both shapes (held-out model, S, p̂ and z per shape, ℓ per shape, the winner) and
the totals. The command, from the repository root:

    PYTHONPATH=src python studies/family_law_shape.py > studies/family_law_shape.results.txt
"""

from __future__ import annotations

import math

import pandas as pd
from scipy.special import xlogy

from densing import registry
from densing.data import read_results
from densing.data.benchmarks import CHANCE_LEVELS, ITEM_COUNTS
from densing.errors import DensingError
from densing.laws import eligibility
from densing.laws.family import DEFAULT_SHAPE, held_out_problem, held_out_result, shape_constants
from densing.laws.family_likelihood import likelihood_fit
from densing.laws.family_rows import family_arrays, metric_for

TABLES = ("public", "swallow")
SHAPES = ("logistic_ln_n", "power")
#: The shape whose dispersion weighs every row (criterion: the shipped shape's, the same for both shapes).
WEIGHT_SHAPE = "logistic_ln_n"


def held_out_test(
    table: pd.DataFrame,
    family: str,
    benchmark: str,
    *,
    metric: str | None = None,
    dispersion_floor: float = 1.0,
    shape: str = DEFAULT_SHAPE,
) -> dict:
    """Rule v3's R5z on one family alone: refit without the largest member by likelihood under ``shape`` at
    ``dispersion_floor`` (:func:`densing.laws.family.held_out_problem`) and test its score within noise
    (:func:`densing.laws.family.held_out_result`: its z and the columns it returns)."""
    shape_constants(shape)
    members, _ = family_arrays(table, family, benchmark, metric=metric_for(table, benchmark, metric))
    chance = CHANCE_LEVELS[benchmark]
    items = float(ITEM_COUNTS[benchmark])
    problem = held_out_problem(members, family, benchmark, items, shape)
    found = likelihood_fit(*problem, chance, 1 - chance, dispersion_floor=dispersion_floor)
    return held_out_result(found, members, family, benchmark, items, shape)


def held_out_deviance(measured: float, predicted: float, items: float, dispersion: float) -> float:
    """ℓ = (n/φ)·[S·ln(p̂/S) + (1 − S)·ln((1 − p̂)/(1 − S))] (module docstring), 0 for p̂ = S, negative otherwise."""
    p = min(max(predicted, 1e-12), 1 - 1e-12)
    s = min(max(measured, 0.0), 1.0)
    return float(items / dispersion * (xlogy(s, p) - xlogy(s, s) + xlogy(1 - s, 1 - p) - xlogy(1 - s, 1 - s)))


def table_rows(name: str) -> list[dict]:
    """Every family × benchmark row of one table (module docstring) under both shapes."""
    table = read_results(str(registry.table(name).path))
    benchmarks = tuple(
        b
        for b in registry.table(name).candidates
        if b in set(table["benchmark"].astype(str)) and b in CHANCE_LEVELS and b in ITEM_COUNTS
    )
    pooled = {shape: eligibility.pooled_dispersions(table, benchmarks, shape=shape) for shape in SHAPES}
    families = sorted(str(f) for f in table["family"].dropna().unique())
    rows = []
    for family in families:
        own = table[table["family"].astype(object) == family]
        for b in benchmarks:
            if not (own["benchmark"] == b).any():
                continue
            row: dict = {"table": name, "family": family, "benchmark": b}
            for shape in SHAPES:
                try:
                    held = held_out_test(own, family, b, dispersion_floor=pooled[shape][b], shape=shape)
                except DensingError as exc:
                    held = {"error": str(exc)}
                row[shape] = held
            if all("error" in row[s] and "size(s)" in row[s]["error"] for s in SHAPES):
                continue  # fewer than 3 sizes: not a row of the criterion
            rows.append(row)
    return rows


def score_rows(rows: list[dict]) -> pd.DataFrame:
    """One line per row: each shape's prediction, z and ℓ (with the common φ), the failure reason where its refit fails."""
    out = []
    for row in rows:
        line = {"table": row["table"], "family": row["family"], "benchmark": row["benchmark"]}
        base = row[WEIGHT_SHAPE]
        ok = {s: "error" not in row[s] and row[s]["slope"] > 0 and math.isfinite(row[s]["predicted"]) for s in SHAPES}
        any_ok = next((row[s] for s in SHAPES if "error" not in row[s]), None)
        if any_ok is not None:
            line |= {"held_out": any_ok["held_out"], "S": any_ok["measured"], "n": any_ok["items"]}
        line["phi"] = base["dispersion"] if "error" not in base else math.nan
        for s in SHAPES:
            held = row[s]
            if "error" in held:
                line |= {f"p_{s}": math.nan, f"z_{s}": math.nan, f"l_{s}": math.nan, f"why_{s}": held["error"]}
                continue
            line |= {
                f"p_{s}": held["predicted"],
                f"z_{s}": held["z"],
                f"why_{s}": "" if ok[s] else "the refit does not rise",
            }
            line[f"l_{s}"] = (
                held_out_deviance(held["measured"], held["predicted"], held["items"], line["phi"])
                if ok[s] and math.isfinite(line["phi"])
                else math.nan
            )
        line["compared"] = all(ok.values()) and math.isfinite(line["phi"])
        line["winner"] = (
            ""
            if not line["compared"]
            else "power"
            if line["l_power"] > line["l_logistic_ln_n"]
            else "logistic_ln_n"
            if line["l_logistic_ln_n"] > line["l_power"]
            else "tie"
        )
        out.append(line)
    return pd.DataFrame(out)


def totals(frame: pd.DataFrame, label: str) -> dict:
    """Σ ℓ, wins and R5z pass rates of each shape over ``frame``'s compared rows."""
    both = frame[frame["compared"]]
    line = {"rows": label, "compared": len(both), "left_out": int((~frame["compared"]).sum())}
    for s in SHAPES:
        line[f"sum_l_{s}"] = float(both[f"l_{s}"].sum())
        line[f"wins_{s}"] = int((both["winner"] == s).sum())
        line[f"R5z_{s}"] = f"{int((both[f'z_{s}'].abs() <= eligibility.MAX_HELD_OUT_Z).sum())}/{len(both)}"
    return line


def main() -> None:
    pd.set_option("display.width", 250, "display.max_rows", 1000, "display.max_columns", 40, "display.max_colwidth", 60)
    print("PYTHONPATH=src python studies/family_law_shape.py > studies/family_law_shape.results.txt")
    print(
        f"power shape: alpha = {shape_constants('power')['alpha']}, N_unit = {shape_constants('power')['n_unit']:g}; "
        f"ℓ weighted by n/φ, φ of {WEIGHT_SHAPE} (module docstring)\n"
    )
    frame = score_rows([r for name in TABLES for r in table_rows(name)])
    shown = frame[
        [
            "table",
            "family",
            "benchmark",
            "held_out",
            "S",
            "n",
            "phi",
            *(f"{k}_{s}" for s in SHAPES for k in ("p", "z", "l")),
            "winner",
        ]
    ]
    print("Per family × benchmark (p: predicted score of the held-out member, z: R5z's z, l: held-out log-likelihood):")
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    failed = frame[~frame["compared"]]
    if len(failed):
        print("\nLeft out (a shape's refit fails):")
        for r in failed.itertuples(index=False):
            print(
                f"  {r.table} {r.family} {r.benchmark}: "
                + "; ".join(f"{s}: {getattr(r, 'why_' + s)}" for s in SHAPES if getattr(r, "why_" + s))
            )
    summary = pd.DataFrame([totals(frame, "all")] + [totals(frame[frame["table"] == t], t) for t in TABLES])
    print("\nTotals (sum_l: Σ held-out log-likelihood; the larger decides):")
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    both = frame[frame["compared"]]
    per_family = both.groupby(["table", "family"])["winner"].value_counts().unstack(fill_value=0)
    print("\nWins per family (benchmarks each shape predicts better):")
    print(per_family.to_string())
    sums = {s: summary.loc[0, f"sum_l_{s}"] for s in SHAPES}
    winner = "power" if sums["power"] > sums["logistic_ln_n"] else "logistic_ln_n"
    print(
        f"\nWinner by the criterion: {winner} (Σℓ power {sums['power']:.1f}, logistic_ln_n {sums['logistic_ln_n']:.1f})"
    )


if __name__ == "__main__":
    main()
