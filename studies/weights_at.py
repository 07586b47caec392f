"""Every headline row under both versions of the joint inversion's weights, side by side; asserts nothing.

The joint inversion (:mod:`densing.laws.joint`) weighs each benchmark by its effective variance σ_b² + τ_b² + S_b'²·s².
The rule takes τ_b² and S_b' at the joint solution x̂, iterated (``weights_at="solution"``, docs/method.md "The weights
at the solution"); the first version took them at the start point x₀, one solve (``weights_at="start"``). This study
runs ``densing trend --format json`` on each shipped table once under each version (the first version by running the
CLI with :class:`densing.laws.inversion.Joint` given ``weights_at="start"`` as its default) and prints, per table:

- the headline's doubling time, its interval's printed ends and its state;
- the targets whose kind (exact, lower or upper bound) differs between the versions under some reference;
- the median and largest |Δ ln ρ| over the readings exact under both;

and the pooled law of the three tables (``densing trend --table all``) under each; then, under the rule, how many of
each headline row's targets settle within the rounds' cap under each joint reference.

Run::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/weights_at.py > studies/weights_at.results.txt
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

TABLES = {"public": [], "openllm_v2": ["--table", "openllm_v2"], "swallow": ["--table", "swallow"]}
VERSIONS = ("solution", "start")


def run_cli_under(version: str, arguments: list[str]) -> None:
    """Run densing's CLI in this process with ``Joint``'s ``weights_at`` defaulting to ``version``."""
    import dataclasses

    from densing.laws import inversion

    if version != "solution":
        fields = {f.name: f for f in dataclasses.fields(inversion.Joint)}
        fields["weights_at"].default = version
        original_init = inversion.Joint.__init__

        def init_with_version(self, *args, weights_at: str = version, **kwargs):
            original_init(self, *args, weights_at=weights_at, **kwargs)

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
            f"  weights at the {version}: {head['months']:.2f} months, 95% CI from {head['low']['printed']} "
            f"to {head['high']['printed']}, {head['state']} ({head['n_draws']} draws)"
        )
    rule, first = readings(heads["solution"]), readings(heads["start"])
    changed = sorted(k for k in rule.keys() & first.keys() if rule[k][0] != first[k][0])
    both = [k for k in rule.keys() & first.keys() if rule[k][0] == first[k][0] == "exact"]
    moves = np.array([rule[k][1] - first[k][1] for k in both])
    lines.append(
        f"  readings exact under both: {len(both)}; |Δ ln ρ| (solution − start) median {np.median(np.abs(moves)):.3f}, "
        f"largest {np.max(np.abs(moves)):.3f} ({both[int(np.argmax(np.abs(moves)))][0]})"
    )
    lines.append(f"  readings whose kind differs: {len(changed)}")
    for model, reference in changed:
        lines.append(
            f"    {model} under {reference}: start {first[(model, reference)][0]} → solution {rule[(model, reference)][0]}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-under", choices=VERSIONS, help="(internal) run the CLI under this version")
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
            f"  weights at the {version}: {pooled['doubling_time_months']:.2f} months [{pooled['ci_low']:.3g}–{high}], "
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

    lines = [f"## rounds of weights-then-solve (at most {MAX_ROUNDS}), per headline row and joint reference"]
    for table in TABLES:
        common = headline_targets(table)
        scores, sigma = arrays(common.frame, common.benchmarks)
        models = common.frame["model"].astype(str).to_numpy()
        for r, inversion in enumerate(common.inversions):
            if getattr(inversion, "kind", "") != "joint":
                continue
            found = invert_joint(list(inversion.fits), scores, sigma)
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
