"""Make one large single-rank Kineto trace by repeating the steps of a real one.

    python tools/overlap_repeat_trace.py SOURCE OUT --gigabytes 4      # OUT ends in .json or .json.gz

The source's events (e.g. the shared HTA test trace ``ddp_2rank/rank-0.json.gz``) are written again and again,
each copy r shifted in time by r·P (P: the source's span from its first start to its last end plus 1 ms, rounded up
to a whole µs, so every copy keeps the source's sub-µs digits), its correlation ids by r·(largest id + 1) and its
``ProfilerStep#N`` numbers by r·(number of steps), until the file holds at least the asked number of (uncompressed)
bytes. Events without a timestamp (metadata) are written once. The document's other keys (``distributedInfo`` …)
are the source's. One event per line, as Kineto writes them, so the file can be read in batches; ``.json.gz`` is
written with ISA-L's gzip (level 1). Memory: the source's events; the output is written copy by copy.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import orjson
from isal import igzip

_STEP = re.compile(r"^ProfilerStep#(\d+)$")
GAP_US = 1000


def _source(path: Path) -> dict:
    data = igzip.open(path, "rb").read() if path.name.endswith(".gz") else path.read_bytes()
    return orjson.loads(data)


def write_repeated(source: Path, out: Path, target_bytes: int) -> tuple[int, int]:
    """Write ``out`` (module docstring) of at least ``target_bytes`` uncompressed bytes; returns (copies, bytes)."""
    doc = _source(source)
    events = doc.pop("traceEvents")
    timed = [e for e in events if isinstance(e.get("ts"), (int, float))]
    once = [e for e in events if not isinstance(e.get("ts"), (int, float))]
    ts0 = [e["ts"] for e in timed]
    first = min(ts0)
    last = max(e["ts"] + (e.get("dur") or 0) for e in timed)
    period = math.ceil(last - first) + GAP_US
    corr0 = [
        e["args"]["correlation"] if isinstance(e.get("args"), dict) and "correlation" in e["args"] else None
        for e in timed
    ]
    corr_step = max([c for c in corr0 if isinstance(c, int)], default=0) + 1
    step0 = [
        int(m.group(1)) if isinstance(e.get("name"), str) and (m := _STEP.match(e["name"])) else None for e in timed
    ]
    numbers = [n for n in step0 if n is not None]
    steps = max(numbers) - min(numbers) + 1 if numbers else 0
    head = orjson.dumps({k: v for k, v in doc.items() if k in ("schemaVersion", "distributedInfo")})[:-1]
    tail = orjson.dumps({k: v for k, v in doc.items() if k not in ("schemaVersion", "distributedInfo")})[1:]
    opener = igzip.open(out, "wb", compresslevel=1) if out.name.endswith(".gz") else out.open("wb")
    written, copies = 0, 0
    with opener as fh:
        written += fh.write(head + b', "traceEvents": [\n')
        if once:
            written += fh.write(b",\n".join(orjson.dumps(e) for e in once) + b",\n")
        while written < target_bytes or copies == 0:
            for e, ts, corr, number in zip(timed, ts0, corr0, step0):
                e["ts"] = ts + copies * period
                if isinstance(corr, int):
                    e["args"]["correlation"] = corr + copies * corr_step
                if number is not None:
                    e["name"] = f"ProfilerStep#{number + copies * steps}"
            block = b",\n".join(orjson.dumps(e) for e in timed)
            written += fh.write((b",\n" if copies else b"") + block)
            copies += 1
        written += fh.write(b"\n]" + (b", " + tail if len(tail) > 1 else b"}"))
    return copies, written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--gigabytes", type=float, required=True, help="uncompressed size to reach (GiB)")
    args = parser.parse_args()
    copies, size = write_repeated(args.source, args.out, int(args.gigabytes * 2**30))
    print(f"{args.out}: {copies} copies of {args.source}, {size / 2**30:.2f} GiB uncompressed", file=sys.stderr)


if __name__ == "__main__":
    main()
