"""Every check that can withhold a row's number, calibrated on the power world: its false-alarm rate where the threat
it names is absent and its power where the threat is planted, as it is run.

**As run.** A check is computed the way ``densing trend`` computes it: under every reference of the row, failing when
it fails under any (:func:`densing.trend.checks.under_references`), on the row's complete-case targets, its
references chosen by the reference rule and the set rule from the replicate's own planted table
(:func:`studies.capability_coverage.run_replicate`, which records every check of every row).

**The worlds** (:mod:`studies._power_world`: the public table's models, families, sizes, dates and missing scores,
the paper's family law, a planted 4-month slope on the paper-like set):

- ``none``: the world as planted: no size term, the canonical curves, one slope for every reference; the coverage
  study's own replicates (``studies/capability_coverage.py --store``) are read for it.
- ``ceiling``: the frontier raised by :data:`CEILING_SHIFT` in ln ρ, so frontier models sit at the references'
  asymptotes (the threat of the saturation check).
- ``conditioning``: every curve's γ_b scaled by :data:`GAMMA_SCALE` (a score moves a quarter as much with density:
  one standard error of a score moves ρ about four times as far; the threat of the conditioning check).
- ``size``: ln ρ gains :data:`SIZE_SLOPE`·(ln N − ln 7·10⁹) (density depends on size at a fixed date, twice the
  size check's margin; the threat of the size-confounding check).

The heterogeneity test's power needs references of different slopes on one table, which the power world cannot
plant without changing its estimand; its power is ``studies/heterogeneity_level.py``'s (its own planted world, one
reference at about twice the others' slope), its false-alarm rate is measured here as run.

**The rule, written before this study was run** (the verdict issue of the project): a check is a gate only where
its false-alarm rate as run is at most 10% on every row that runs it and its power is measured; otherwise it is a
finding shown beside the number. The table gives each rate with its Monte Carlo SE √(p(1 − p)/n).

Run (resumable, one JSON line per replicate; each threat world's headline row only)::

    PYTHONPATH=. OMP_NUM_THREADS=1 python studies/gate_calibration.py --threat size --replicates 60 --store S_size
    PYTHONPATH=. python studies/gate_calibration.py --table --none STORE_none --ceiling S_ceiling \\
        --conditioning S_conditioning --size S_size
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from densing.trend import checks
from studies import _power_world as W, capability_coverage as C

#: The threat worlds' planted departures (module docstring).
CEILING_SHIFT = 1.5
GAMMA_SCALE = 0.25
SIZE_SLOPE = 0.5
#: The largest false-alarm rate of a gate.
MAX_FALSE_ALARM = 0.10
#: check → (the threat it names, the world that plants it (None: planted elsewhere), whether it runs on every row or
#: on the headline row only, as ``densing trend`` runs it)
GATES = {
    "saturation": ("a frontier at the reference's asymptote", "ceiling", True),
    "conditioning": ("ill-conditioned inversions", "conditioning", True),
    "size_confounding": ("density that depends on size at a fixed date", "size", False),
    "heterogeneity": ("references with different slopes", None, True),
}
#: The heterogeneity test's power from its own study (one reference at about twice the others' slope).
HETEROGENEITY_STUDY = Path(__file__).with_name("heterogeneity_level.results.txt")


def plant(threat: str) -> None:
    """Plant ``threat`` in the power world (module docstring)."""
    C.use_world("power")
    if threat == "ceiling":
        W.FRONTIER = W.FRONTIER + CEILING_SHIFT
    elif threat == "conditioning":
        W.GAMMA_SCALE = GAMMA_SCALE
    elif threat == "size":
        W.SIZE_SLOPE = SIZE_SLOPE


def fires(name: str, entry) -> bool:
    """Whether a recorded check fires: failed, or for the saturation finding any frontier model at the cap."""
    status, value = entry
    if name == "saturation":
        return value is not None and value > 0
    return status == checks.FAILED


def rates(records: list[dict], row: str) -> dict[str, tuple[float, int]]:
    """Each check's firing rate on ``row`` over the replicates that measured it: (rate, replicates)."""
    found: dict[str, list[bool]] = {}
    for rec in records:
        entry = rec.get("rows", {}).get(row, {})
        for name, value in entry.get("checks", {}).items():
            found.setdefault(name, []).append(fires(name, value))
    return {name: (sum(v) / len(v), len(v)) for name, v in found.items() if v}


def coverage(records: list[dict], row: str) -> tuple[float, int]:
    """The share of the replicates that fitted ``row`` whose 95% interval holds the planted slope (the threat's
    effect on the estimate itself)."""
    found = [r["rows"][row] for r in records if row in r.get("rows", {}) and "error" not in r["rows"][row]]
    held = [x["low"] <= x["latent"] <= x["high"] for x in found]
    return (sum(held) / len(held), len(held)) if held else (math.nan, 0)


def _read(path: str | None) -> list[dict]:
    if not path:
        return []
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def _se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n) if n else math.nan


def heterogeneity_power() -> tuple[float, float, int] | None:
    """(power, its MC SE, replicates) of the heterogeneity test from ``studies/heterogeneity_level.py``'s results."""
    import re

    if not HETEROGENEITY_STUDY.exists():
        return None
    for line in HETEROGENEITY_STUDY.read_text().splitlines():
        found = re.search(r"twice the slope.*rejects at 5% in ([\d.]+) ± ([\d.]+) of (\d+)", line)
        if found:
            return float(found.group(1)), float(found.group(2)), int(found.group(3))
    return None


def table(args) -> list[str]:
    """The gate table: gate, threat, false-alarm rate (headline row; the worst benchmark row), power, replicates."""
    none = _read(args.none)
    rows = sorted({name for rec in none for name in rec.get("rows", {})} - {"headline"})
    worlds = {w: _read(getattr(args, w)) for w in ("ceiling", "conditioning", "size")}
    cover, k = coverage(none, "headline")
    out = [
        f"false alarm: the power world as planted ({len(none)} replicates, every row as run; the headline's interval "
        f"holds the planted slope in {cover:.2f} ± {_se(cover, k):.2f} of them); power: the headline row (the "
        "paper-like set) in the world that plants the threat, and how often its interval still holds the planted "
        "slope there; ± the Monte Carlo SE √(p(1 − p)/n)",
        "gate | threat | false alarm, headline | false alarm, worst row | power | replicates (none / threat) | verdict",
    ]
    head = rates(none, "headline")
    per_row = {row: rates(none, row) for row in rows}
    for name, (threat, world, every_row) in GATES.items():
        fa, n = head.get(name, (math.nan, 0))
        worst = max(
            ((per_row[row][name][0], per_row[row][name][1], row) for row in rows if every_row and name in per_row[row]),
            default=(math.nan, 0, "—"),
        )
        if world is not None:
            pw, m = rates(worlds[world], "headline").get(name, (math.nan, 0))
            cover, k = coverage(worlds[world], "headline")
            power = (f"{pw:.2f} ± {_se(pw, m):.2f}" if m else "not run") + (
                f"; the planted slope covered in {cover:.2f} ± {_se(cover, k):.2f}" if k else ""
            )
        else:
            found = heterogeneity_power()
            pw, m = (found[0], found[2]) if found else (math.nan, 0)
            power = f"{found[0]:.2f} ± {found[1]:.2f} (heterogeneity_level.py)" if found else "not measured"
        gate = (
            n > 0 and m > 0 and fa <= MAX_FALSE_ALARM and (not math.isfinite(worst[0]) or worst[0] <= MAX_FALSE_ALARM)
        )
        verdict = "gate" if gate else "finding (not a gate)"
        worst_words = (
            f"{worst[0]:.2f} ± {_se(worst[0], worst[1]):.2f} ({worst[2]})"
            if worst[1]
            else "headline row only"
            if not every_row
            else "not run"
        )
        out.append(f"{name} | {threat} | {fa:.2f} ± {_se(fa, n):.2f} | {worst_words} | {power} | {n} / {m} | {verdict}")
    out.append(
        "gates of the package (densing.trend.capability.calibrated): heterogeneity; every other check is a "
        "finding beside the number"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threat", choices=("ceiling", "conditioning", "size"), help="the world to run (headline row)")
    parser.add_argument("--replicates", type=int, default=60)
    parser.add_argument("--population", type=int, default=2000, help="targets of the population slopes")
    parser.add_argument("--store", default=None, help="JSON lines, one per replicate (resumable)")
    parser.add_argument("--shard", default="0/1", help="I/K: only the replicates r with r mod K = I")
    parser.add_argument("--table", action="store_true", help="print the gate table from the stores")
    for world in ("none", "ceiling", "conditioning", "size"):
        parser.add_argument(f"--{world}", default=None, help=f"the {world} world's store")
    args = parser.parse_args()
    if args.table:
        print("\n".join(table(args)))
        return
    if args.threat is None:
        parser.error("--threat or --table")
    plant(args.threat)
    C.rows_measured = lambda: [("headline", W.HEADLINE_SET)]
    run_args = argparse.Namespace(
        seed=0,
        targets=120,
        n_boot=C.DEFAULT_N_BOOT,
        n_side=C.DEFAULT_N_BOOT_SIDE,
        n_share=0,
        ref_boot=1000,
        population=args.population,
        rule="v3",
    )
    config = f"threat={args.threat} population={args.population} families={','.join(W.FAMILY_NAMES)}"
    shard = tuple(int(v) for v in args.shard.split("/"))
    done, fresh, elapsed = C.run_replicates(
        args.replicates, lambda r: C.run_replicate(r, run_args), config, args.store, shard=shard
    )
    print(f"{fresh} replicates run in {elapsed:.0f} s, {len(done) - fresh} read from the store")
    for name, (rate, n) in sorted(rates(done, "headline").items()):
        print(f"{name}: fires in {rate:.2f} ± {_se(rate, n):.2f} of {n}")


if __name__ == "__main__":
    main()
