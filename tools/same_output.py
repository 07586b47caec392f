"""Record, then compare, the output of the headline commands of two checkouts (a refactor changes no byte).

    python tools/same_output.py capture OUT_DIR [--source DIR]
    python tools/same_output.py compare OUT_DIR [--source DIR]

``capture`` runs, with the package found under ``--source`` (a checkout's root; default this
one), the commands below and writes each one's stdout (and, on failure, its exit status and
stderr) to ``OUT_DIR/<name>.json``; ``compare`` runs them again and reports every output whose
bytes differ from the recorded one (exit 1). To record a commit before a refactor::

    git archive REV | tar -x -C BEFORE && python tools/same_output.py capture OUT --source BEFORE
    python tools/same_output.py compare OUT        # this checkout, after

Commands: ``densing trend --format json`` and ``densing density --format json`` (the shipped
fits and targets, both checkouts reading the same shipped files: ``DENSING_HOME`` is the
checkout given), ``densing fit`` (two-step and composed on the Pythia evaluations, the family law on the public
table's Llama-3.1 rows, 20 bootstrap draws), ``densing validate`` and ``densing ladder check`` on the shared
reference data, and ``densing overlap analyze SET --format json`` on every trace set under
``../shared/data/traces/*/``. Each command runs as ``python -c 'from densing.cli import run; run()'``
with ``PYTHONPATH`` set to the checkout, which comes before an editable install's finder.
Three notebook paths run as ``python -c CODE`` beside them (:data:`NOTEBOOK`): ``densing.fit_trend``
on the public table with its defaults (the README's path to the headline), ``densing.fit_trend`` against the
shipped Llama-3.1 family fits inverted jointly, and ``compute_density``'s geometric-mean rows under those fits.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = Path(os.environ.get("DENSING_SHARED_DATA", REPO.parent / "shared" / "data"))
TRACES = SHARED / "traces"


_SHOW = """
import json
def show(r):
    keys = ("inversion", "rule", "frontier", "doubling_time_months", "doubling_time_months_ci_low",
            "doubling_time_months_ci_high", "n_models")
    print(json.dumps({k: v for k, v in r.to_dict().items() if k in keys}))
"""
#: Notebook paths (output name → Python code), run in the checkout's root.
NOTEBOOK = {
    "notebook.fit_trend": _SHOW
    + """
import densing
show(densing.fit_trend(densing.read_results("results/public_models.csv")))
""",
    "notebook.joint_fit_trend": _SHOW
    + """
import densing
from densing.laws.reference_fit import ReferenceFit
public = densing.read_results("results/public_models.csv")
fits = [ReferenceFit.load(f"reference_fits/family_llama-3.1_{b}.json") for b in ("mmlu", "hellaswag", "winogrande")]
show(densing.fit_trend(public, fits))
""",
    "notebook.geomean_densities": """
import densing
from densing.laws.reference_fit import ReferenceFit
public = densing.read_results("results/public_models.csv")
fits = [ReferenceFit.load(f"reference_fits/family_llama-3.1_{b}.json") for b in ("mmlu", "hellaswag", "winogrande")]
table = densing.compute_density(public, fits)
rows = table[table["benchmark"] == "geomean"].sort_values("model")
print(rows[["model", "density", "density_ci_low", "density_ci_high"]].to_json(orient="records", double_precision=6))
""",
}
CLI = "from densing.cli import run; run()"


def commands() -> dict[str, list[str]]:
    """Output name → the arguments of ``python``."""
    out = {"trend": ["-c", CLI, "trend", "--format", "json"], "density": ["-c", CLI, "density", "--format", "json"]}
    pythia, ladder = SHARED / "pythia_evals" / "pythia-v1", SHARED / "olmo_ladder"
    if pythia.is_dir():  # the reference fits' paths: the two laws, the family law, the held-out check
        fit = ["-c", CLI, "fit", "--data", str(pythia), "--n-boot", "20", "--format", "json"]
        out["fit.two_step"] = [*fit, "--benchmark", "lambada_openai"]
        out["fit.composed"] = [*fit, "--benchmark", "arc_easy", "--law", "composed"]
        out["validate"] = [
            "-c",
            CLI,
            "validate",
            "--data",
            str(pythia),
            "--benchmark",
            "lambada_openai",
            "--max-params",
            "1.5e9",
            "--format",
            "json",
        ]
    out["fit.family"] = [
        "-c",
        CLI,
        "fit",
        "--data",
        "results/public_models.csv",
        "--benchmark",
        "mmlu",
        "--family",
        "Llama-3.1",
        "--n-boot",
        "20",
        "--format",
        "json",
    ]
    if ladder.is_dir():
        out["ladder_check"] = ["-c", CLI, "ladder", "check", "--data", str(ladder), "--format", "json"]
    if TRACES.is_dir():
        for group in sorted(p for p in TRACES.iterdir() if p.is_dir()):
            for trace_set in sorted(p for p in group.iterdir() if p.is_dir()):
                out[f"overlap_analyze.{group.name}.{trace_set.name}"] = [
                    "-c",
                    CLI,
                    "overlap",
                    "analyze",
                    str(trace_set),
                    "--format",
                    "json",
                ]
    out.update({name: ["-c", code] for name, code in NOTEBOOK.items()})
    return out


def run(source: Path, args: list[str]) -> bytes:
    package = source / "src" if (source / "src" / "densing").is_dir() else source  # the src layout, or a flat tree
    env = dict(os.environ, PYTHONPATH=str(package), DENSING_HOME=str(source), DENSING_SHARED_DATA=str(SHARED))
    done = subprocess.run([sys.executable, *args], capture_output=True, env=env, cwd=source)
    if done.returncode:
        return done.stdout + f"\nexit {done.returncode}\n".encode() + done.stderr
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["capture", "compare"])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--source", type=Path, default=REPO, help="checkout root whose densing/ runs")
    args = parser.parse_args()
    source = args.source.resolve()
    got = {name: run(source, cmd) for name, cmd in commands().items()}
    if args.action == "capture":
        args.out_dir.mkdir(parents=True, exist_ok=True)
        for name, data in got.items():
            (args.out_dir / f"{name}.json").write_bytes(data)
        print(f"captured {len(got)} outputs of {source} into {args.out_dir}")
        return
    differ = []
    for name, data in got.items():
        recorded = args.out_dir / f"{name}.json"
        same = recorded.is_file() and recorded.read_bytes() == data
        print(f"{'same   ' if same else 'DIFFERS'} {name} ({len(data)} bytes)")
        if not same:
            differ.append(name)
    print(f"{len(got) - len(differ)} of {len(got)} outputs identical to {args.out_dir} ({source})")
    raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
