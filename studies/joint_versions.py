"""Every headline row under the three versions of the joint inversion, side by side; asserts nothing.

The joint inversion (:mod:`densing.laws.joint`) gives one size per model from its scores on a set of benchmarks. The
rule reads each benchmark alone and pools the readings in ln N with random-effects weights taken at each reading
(``space="ln_n"``, docs/method.md "Each benchmark read in ln N"); the two versions before it solve a chi-square in
score with each benchmark's effective variance σ_b² + τ_b² + S_b'²·s² taken at the start point x₀ (the first,
``space="score", weights_at="start"``) or at the solution, iterated (the second, ``weights_at="solution"``,
docs/method.md "The weights at the solution"). This study runs ``densing trend --format json`` on each shipped table
under each version (the CLI run with :class:`densing.laws.inversion.Joint` given that version as its default) and
prints, per table:

- the headline's doubling time, its interval's printed ends and its state;
- for each earlier version, the targets whose kind (exact, lower or upper bound) differs from the rule's under some
  reference, and the median and largest |Δ ln ρ| over the readings exact under both;

and the pooled law of the three tables (``densing trend --table all``) under each; then, under the second version,
how many of each headline row's targets settle within the rounds' cap under each joint reference.

Run::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/joint_versions.py > studies/joint_versions.results.txt
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

TABLES = {"public": [], "openllm_v2": ["--table", "openllm_v2"], "swallow": ["--table", "swallow"]}
#: version → (space, weights_at), the rule first
VERSIONS = {
    "in ln N (the rule)": ("ln_n", "solution"),
    "in score, weights at the solution (second)": ("score", "solution"),
    "in score, weights at the start (first)": ("score", "start"),
}


def run_cli_under(version: str, arguments: list[str]) -> None:
    """Run densing's CLI in this process with ``Joint``'s ``space`` and ``weights_at`` defaulting to ``version``'s."""
    from densing.laws import inversion

    space, weights_at = VERSIONS[version]
    original_init = inversion.Joint.__init__

    def init_with_version(self, *args, space: str = space, weights_at: str = weights_at, **kwargs):
        original_init(self, *args, space=space, weights_at=weights_at, **kwargs)

    inversion.Joint.__init__ = init_with_version
    from densing.cli import main

    main(arguments)


def headline(version: str, arguments: list[str]) -> dict:
    """The headline of ``densing trend <arguments> --format json`` under ``version`` of the weights."""
    command = [sys.executable, __file__, "--run-under", version, "--", "trend", *arguments, "--format", "json"]
    found = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(found.stdout)["headline"]


def readings(head: dict) -> dict[tuple[str, str], tuple[str, float]]:
    """(model, reference) → (kind, ln ρ) of the headline's per-target readings."""
    return {(r["model"], r["reference"].split("[")[0]): (r["kind"], r["log_density"]) for r in head["targets"]}


def describe(table: str, heads: dict[str, dict]) -> list[str]:
    lines = [f"## {table}"]
    for version in VERSIONS:
        head = heads[version]
        lines.append(
            f"  {version}: {head['months']:.2f} months, 95% CI from {head['low']['printed']} "
            f"to {head['high']['printed']}, {head['state']} ({head['n_draws']} draws)"
        )
    rule_name = next(iter(VERSIONS))
    rule = readings(heads[rule_name])
    for version in list(VERSIONS)[1:]:
        other = readings(heads[version])
        changed = sorted(k for k in rule.keys() & other.keys() if rule[k][0] != other[k][0])
        both = [k for k in rule.keys() & other.keys() if rule[k][0] == other[k][0] == "exact"]
        moves = np.array([rule[k][1] - other[k][1] for k in both])
        lines.append(
            f"  the rule against {version}: readings exact under both {len(both)}; |Δ ln ρ| median "
            f"{np.median(np.abs(moves)):.3f}, largest {np.max(np.abs(moves)):.3f} "
            f"({both[int(np.argmax(np.abs(moves)))][0]}); readings whose kind differs {len(changed)}"
        )
        for model, reference in changed:
            lines.append(
                f"    {model} under {reference}: {other[(model, reference)][0]} → {rule[(model, reference)][0]}"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-under", choices=list(VERSIONS), help="(internal) run the CLI under this version")
    parser.add_argument("cli", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_under:
        run_cli_under(args.run_under, args.cli)
        return 0
    print(__doc__.splitlines()[0])
    for table, arguments in TABLES.items():
        heads = {version: headline(version, arguments) for version in VERSIONS}
        print("\n".join(describe(table, heads)))
    print("## the three tables pooled (densing trend --table all)")
    for version in VERSIONS:
        pooled = pooled_law(version)
        high = "∞" if pooled["ci_high"] is None else f"{pooled['ci_high']:.3g}"
        print(
            f"  {version}: {pooled['doubling_time_months']:.2f} months [{pooled['ci_low']:.3g}–{high}], "
            f"{pooled['state']} ({pooled['n_boot']} draws, {pooled['n_points']} points)"
        )
    print("\n".join(settling_lines()))
    return 0


def settling_lines() -> list[str]:
    """Per table and joint reference of its headline row: how many targets' rounds settle (docs/method.md, "The weights
    at the solution"), the median and largest count of rounds, and the targets that do not settle within the cap."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from ceiling_direction import headline_targets

    from densing.laws.inversion import arrays
    from densing.laws.joint import MAX_ROUNDS, invert_joint

    lines = [
        f"## the second version's rounds of weights-then-solve (at most {MAX_ROUNDS}), per headline row and joint "
        "reference"
    ]
    for table in TABLES:
        common = headline_targets(table)
        scores, sigma = arrays(common.frame, common.benchmarks)
        models = common.frame["model"].astype(str).to_numpy()
        for r, inversion in enumerate(common.inversions):
            if getattr(inversion, "kind", "") != "joint":
                continue
            found = invert_joint(list(inversion.fits), scores, sigma, space="score", weights_at="solution")
            unsettled = list(models[~found.settled])
            lines.append(
                f"  {table}, {common.names[r].family}: {len(models)} targets, {len(models) - len(unsettled)} settled; "
                f"rounds median {np.median(found.rounds):g}, largest {found.rounds.max()}"
                + (f"; not settled: {', '.join(unsettled)}" if unsettled else "")
            )
    return lines


def pooled_law(version: str) -> dict:
    """The pooled law of ``densing trend --table all --format json`` under ``version`` of the weights."""
    command = [sys.executable, __file__, "--run-under", version, "--", "trend", "--table", "all", "--format", "json"]
    found = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(found.stdout)["pooled"]


if __name__ == "__main__":
    raise SystemExit(main())
