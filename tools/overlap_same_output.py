"""Capture, then compare, the output of ``densing overlap`` commands on a fixed list of trace sets.

    python tools/overlap_same_output.py capture OUT_DIR [--sets-dir DIR]
    python tools/overlap_same_output.py compare OUT_DIR [--sets-dir DIR]

A refactor of the trace reader must not change a single number: ``capture`` runs, on every
shared HTA trace set and on a few generated sets (a gloo CPU set, synthetic GPU sets large
enough to take the batched, split and multi-file decoding paths), the commands below and
writes their stdout to ``OUT_DIR/<set>.<command>.json``; ``compare`` runs them again and
reports every file whose bytes differ (exit 1). Generated sets are written once under
``--sets-dir`` (default ``OUT_DIR/sets``) with fixed seeds, so both runs read the same bytes.

Commands: ``overlap analyze SET --format json``, ``overlap analyze SET --steps --format json``,
``overlap skew SET --format json`` and ``overlap whatif SET --model-params 1B --format json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = Path(os.environ.get("DENSING_SHARED_DATA", REPO.parent / "shared" / "data")) / "traces" / "hta"

COMMANDS = {
    "analyze": ["analyze", "{set}", "--format", "json"],
    "steps": ["analyze", "{set}", "--steps", "--format", "json"],
    "skew": ["skew", "{set}", "--format", "json"],
    "whatif": ["whatif", "{set}", "--model-params", "1B", "--format", "json"],
}


def _gloo_set(out: Path) -> None:
    """Two gloo ranks as ``densing overlap run`` writes them (hand-made, like the tests')."""

    def op(name, ts, dur, tid=1, cat="cpu_op"):
        return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": {}}

    for rank, shift in ((0, 1000), (1, 1013)):
        events = []
        for k in range(6):
            s = shift + 100 * k
            events += [
                op(f"ProfilerStep#{k + 1}", s, 95, cat="user_annotation"),
                op("forward", s, 40, cat="user_annotation"),
                op("aten::mm", s, 40),
                op("aten::add", s + 5, 5),
                op("c10d::allreduce_", s + 40, 2 + rank),
                op("aten::copy_", s + 40, 1),
                op("aten::mm", s + 50, 30 + k),
                op("gloo:all_reduce", s + 42, 20 + 3 * k, tid=9, cat="user_annotation"),
            ]
        doc = {
            "distributedInfo": {"backend": "gloo", "rank": rank, "world_size": 2},
            "traceEvents": events + [{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler", "ts": 0, "dur": 1}],
        }
        out.mkdir(parents=True, exist_ok=True)
        (out / f"rank{rank}.json").write_text(json.dumps(doc))


def _synthetic(out: Path, ranks: int, events: int, seed: int) -> None:
    subprocess.run(
        [
            sys.executable,
            str(HERE / "overlap_synthetic.py"),
            str(out),
            "--ranks",
            str(ranks),
            "--events",
            str(events),
            "--seed",
            str(seed),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )


GENERATED = {
    "gloo_2rank": lambda p: _gloo_set(p),
    "synthetic_4rank_small": lambda p: _synthetic(p, 4, 20_000, 1),  # whole-file decoding
    "synthetic_1rank_large": lambda p: _synthetic(p, 1, 400_000, 2),  # one file split across CPUs
    "synthetic_3rank_large": lambda p: _synthetic(p, 3, 300_000, 3),  # several large files in parallel
}


def trace_sets(sets_dir: Path) -> dict[str, Path]:
    sets = {p.name: p for p in sorted(SHARED.iterdir()) if p.is_dir()} if SHARED.is_dir() else {}
    for name, make in GENERATED.items():
        path = sets_dir / name
        if not path.is_dir():
            tmp = sets_dir / (name + ".part")
            shutil.rmtree(tmp, ignore_errors=True)
            make(tmp)
            tmp.rename(path)
        sets[name] = path
    return sets


def outputs(sets: dict[str, Path], densing: str) -> dict[str, bytes]:
    out = {}
    for set_name, path in sets.items():
        for cmd_name, template in COMMANDS.items():
            cmd = [densing, "overlap"] + [a.replace("{set}", str(path)) for a in template]
            done = subprocess.run(cmd, capture_output=True)
            out[f"{set_name}.{cmd_name}.json"] = done.stdout + (
                f"\nexit {done.returncode}\n".encode() + done.stderr if done.returncode else b""
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["capture", "compare"])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--sets-dir", type=Path)
    parser.add_argument("--densing", default=str(Path(sys.executable).with_name("densing")))
    args = parser.parse_args()
    sets = trace_sets(args.sets_dir or args.out_dir / "sets")
    got = outputs(sets, args.densing)
    if args.action == "capture":
        args.out_dir.mkdir(parents=True, exist_ok=True)
        for name, data in got.items():
            (args.out_dir / name).write_bytes(data)
        print(f"captured {len(got)} outputs of {len(sets)} sets into {args.out_dir}")
        return
    differ = [name for name, data in got.items() if (args.out_dir / name).read_bytes() != data]
    for name in differ:
        print(f"DIFFERS: {name}")
    print(f"{len(got) - len(differ)} of {len(got)} outputs identical to {args.out_dir}")
    raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
