"""Wall time and peak memory of ``densing overlap analyze`` on one large single-rank trace, by size.

    python bench/overlap_big_trace.py [--gigabytes 1,2,4] [--formats json,json.gz] [--baseline-gigabytes 0.125]
                                      [--whole-max-gigabytes 1] [--scratch DIR] [--log FILE]

For each size and format a trace is synthesised under ``--scratch`` (never in the repository) by repeating the steps
of the shared HTA trace ``ddp_2rank/rank-0.json.gz`` (tools/overlap_repeat_trace.py), analysed by
``python cli.py overlap analyze FILE --format json --stream`` of this tree (:mod:`densing.overlap.stream`; from
1 GiB of JSON or 128 MiB of gzip ``auto`` streams as well) as a fresh process, and deleted. Peak memory is the largest sum of RSS over the
process and its children, polled every 50 ms. Up to ``--whole-max-gigabytes`` the same file is also analysed whole
(``--no-stream``, the in-memory path) and the two outputs are compared number by number.

Baseline: traceinsight 0.6.1 (``--traceinsight-python``, this environment's by default) on a trace of
``--baseline-gigabytes`` (gzip), beside densing (streamed and whole, ``--kernel-rules traceinsight``) on the same
file, with the largest difference in percentage points of overlap, idle, compute and non-compute.

Prints per run: size (GiB uncompressed, MiB on disk), wall seconds, seconds per GiB, CPU seconds (user + system of
the process and its children) and CPU seconds per GiB, peak MiB. On a machine shared with other work the CPU seconds
vary far less than the wall seconds. The sizes run first,
the baseline last. With ``--log FILE`` every printed line is appended to FILE as well, and a run whose line FILE
already holds (same run label and size) is not run again, so an interrupted invocation resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
from tools.overlap_baselines import HTA_CODE, METRICS, tree_rss_bytes
from tools.overlap_repeat_trace import write_repeated

SHARED = Path(os.environ.get("DENSING_SHARED_DATA", REPO.parent / "shared" / "data"))
SOURCE = SHARED / "traces" / "hta" / "ddp_2rank" / "rank-0.json.gz"


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(cmd: list[str], poll: float = 0.05) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (user + system of the process and the children it waited for), peak RSS of the
    process tree (bytes) and stdout of ``cmd``."""
    cpu, start = _cpu_seconds(), time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak, chunks = 0, []
    os.set_blocking(proc.stdout.fileno(), False)
    while proc.poll() is None:
        peak = max(peak, tree_rss_bytes(proc.pid))
        chunk = proc.stdout.read()
        if chunk:
            chunks.append(chunk)
        time.sleep(poll)
    elapsed, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    chunks.append(proc.stdout.read() or b"")
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.read().decode()[-2000:]}")
    return elapsed, cpu, peak, b"".join(chunks).decode()


def densing(path: Path, *flags: str) -> list[str]:
    return [sys.executable, str(REPO / "cli.py"), "overlap", "analyze", str(path), "--format", "json", *flags]


def rows(out: str) -> dict:
    return {str(r["rank"]): r for r in json.loads(out)}


LOG: Path | None = None


def say(text: str) -> None:
    """Print ``text`` and append it to the ``--log`` file."""
    print(text, flush=True)
    if LOG is not None:
        with LOG.open("a") as f:
            f.write(text + "\n")


def done(label: str, gigabytes: float) -> bool:
    """Whether the ``--log`` file already holds the run ``label`` at ``gigabytes`` (GiB, as asked)."""
    if LOG is None or not LOG.exists():
        return False
    return any(row.startswith(f"{label:<34}{gigabytes:>8.2f}") for row in LOG.read_text().splitlines())


def line(label: str, path: Path, size: int, measured: tuple, note: str = "") -> None:
    """One printed run: ``measured`` is (wall s, CPU s, peak bytes)."""
    gib = size / 2**30
    seconds, cpu, peak = measured
    say(
        f"{label:<34}{gib:>8.2f}{path.stat().st_size / 2**20:>10.0f}{seconds:>10.1f}{seconds / gib:>10.1f}"
        f"{cpu:>10.1f}{cpu / gib:>10.1f}{peak / 2**20:>10.0f}  {note}"
    )


def baseline(args, scratch: Path) -> None:
    if done("traceinsight 0.6.1", args.baseline_gigabytes):
        return
    path = scratch / "baseline.json.gz"
    _, size = write_repeated(SOURCE, path, int(args.baseline_gigabytes * 2**30))
    try:
        *measured, out = run([str(args.traceinsight_python), "-c", HTA_CODE, str(path.parent)], poll=0.2)
        theirs = json.loads(out.strip().splitlines()[-1])
        line("traceinsight 0.6.1", path, size, measured)
        for label, flags in (
            ("densing streamed (traceinsight rules)", ("--stream",)),
            ("densing whole (traceinsight rules)", ("--no-stream",)),
        ):
            *measured, out = run(densing(path, "--kernel-rules", "traceinsight", *flags))
            ours = rows(out)
            diff = max(abs(float(ours[r][k]) - theirs[r][k]) for r in theirs for k in METRICS)
            line(label, path, size, measured, f"max |Δ| vs traceinsight {diff:.2g} pp")
    finally:
        path.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", default="1,2,4", help="sizes (GiB), comma-separated; empty: the baseline only")
    parser.add_argument("--formats", default="json,json.gz")
    parser.add_argument("--baseline-gigabytes", type=float, default=0.125)
    parser.add_argument("--whole-max-gigabytes", type=float, default=1.0)
    parser.add_argument(
        "--scratch",
        type=Path,
        default=Path(tempfile.gettempdir()),
        help="where the traces and scratch files go (the system's temporary folder by default)",
    )
    parser.add_argument("--traceinsight-python", type=Path, default=Path(sys.executable))
    parser.add_argument("--log", type=Path, help="append every line here; skip the runs it already holds")
    args = parser.parse_args()
    global LOG
    LOG = args.log
    scratch = args.scratch / f"densing-big-trace-{os.getpid()}"
    scratch.mkdir(parents=True)
    os.environ["DENSING_SCRATCH"] = str(scratch)  # the streamed runs' window files go there too
    say(
        f"source: {SOURCE.relative_to(SHARED)} repeated; densing: cli.py ({Path(sys.executable).name}); "
        f"{os.cpu_count()} CPUs; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    say(
        f"{'run':<34}{'GiB':>8}{'disk MiB':>10}{'wall s':>10}{'s/GiB':>10}{'CPU s':>10}{'CPU s/GiB':>10}"
        f"{'peak MiB':>10}"
    )
    try:
        for fmt in args.formats.split(","):
            for gigabytes in (float(g) for g in args.gigabytes.split(",") if g):
                if done(f"densing ({fmt}, --stream)", gigabytes) and (
                    gigabytes > args.whole_max_gigabytes or done(f"densing ({fmt}, --no-stream)", gigabytes)
                ):
                    continue
                path = scratch / f"trace-{gigabytes:g}.{fmt}"
                _, size = write_repeated(SOURCE, path, int(gigabytes * 2**30))
                try:
                    *measured, streamed = run(densing(path, "--stream"))
                    line(f"densing ({fmt}, --stream)", path, size, measured)
                    if gigabytes <= args.whole_max_gigabytes:
                        *measured, whole = run(densing(path, "--no-stream"))
                        same = rows(streamed) == rows(whole)
                        line(
                            f"densing ({fmt}, --no-stream)",
                            path,
                            size,
                            measured,
                            "numbers equal the streamed run's" if same else "NUMBERS DIFFER from the streamed run's",
                        )
                finally:
                    path.unlink(missing_ok=True)
        if args.baseline_gigabytes > 0:
            baseline(args, scratch)
        say(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        for leftover in scratch.glob("**/*"):
            if leftover.is_file():
                leftover.unlink()
        for folder in sorted(scratch.glob("**/"), reverse=True):
            folder.rmdir()


if __name__ == "__main__":
    main()
