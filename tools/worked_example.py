"""The worked example of docs/measure.md, written from the command itself.

    python tools/worked_example.py [--check]

Runs the example's ``densing measure`` on the shipped store (``results/smollm2/store``: nothing is evaluated, no
model is loaded) and writes what it prints into docs/measure.md's output block and its row into
``results/smollm2/measure_leaderboard_v1.csv``. ``--check`` writes nothing and exits 1, naming the file, when either
differs from what the command gives, or when a number that docs/measure.md's worked example or
``results/smollm2/measure.md`` states of the placement (ρ, an interval ``a–b``, ρmax, the band) is not the command's.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "measure.md"
NOTES = REPO / "results" / "smollm2" / "measure.md"
CSV = REPO / "results" / "smollm2" / "measure_leaderboard_v1.csv"
ARGS = [
    "measure",
    "--models",
    "results/smollm2/measure_models.yaml",
    "--suite",
    "leaderboard-v1",
    "--local-data",
    "--limit",
    "20",
    "--backend",
    "densing-hf",
    "--device",
    "cpu",
    "--store",
    "results/smollm2/store",
]
#: The output block of docs/measure.md's worked example: the fenced block after "It prints:".
BLOCK = re.compile(r"(It prints:\n\n```\n)(.*?)(```)", re.S)
#: The numbers a document states of the placement: an interval's ends, and the number after ρ, ρmax or "ρmax at D is".
STATED = re.compile(r"(\d[\d.]*)–(\d[\d.]*)|ρ(?:max)?(?: at \S+ is| =| ≤| ≥)\s*(\d[\d.]*)")
#: The band words a document may state.
BAND = re.compile(r"\b(below|above|within) (?:that|the) band\b|band[^.]*\bundetermined\b")


def run() -> tuple[str, str]:
    """(what the command prints, the CSV row it writes), the report and the CSV written to a scratch folder."""
    with tempfile.TemporaryDirectory() as scratch:
        out, csv = Path(scratch) / "report.html", Path(scratch) / "rows.csv"
        env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "COLUMNS": "80"}
        done = subprocess.run(
            [sys.executable, "-m", "densing.cli", *ARGS, "--out", str(out), "--csv", str(csv)],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"worked_example: the command failed: {done.stderr.strip()}")
        printed = done.stdout.replace(str(csv), "results/smollm2/measure_leaderboard_v1.csv")
        printed = printed.replace(f"file://{out.as_posix()}", "file:///…/report.html").replace(str(out), "report.html")
        return printed, csv.read_text()


def _section(text: str) -> str:
    """docs/measure.md's worked example: from its heading to the next heading of its level."""
    start = text.index("## Worked example")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def _agrees(stated: str, said: set[str]) -> bool:
    """Whether a number the command gives, rounded to the digits ``stated`` shows, is ``stated`` (0.038 is 0.0380058)."""
    digits = len(stated.replace(".", "").lstrip("0")) or 1
    return any(float(f"{float(n):.{digits - 1}e}") == float(stated) for n in said)


def _shown(path: Path) -> str:
    """``path`` as the repository names it."""
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)


def differences(printed: str, row: str) -> list[str]:
    """What the documents say that the command does not (empty: they agree)."""
    found = []
    doc = DOC.read_text()
    block = BLOCK.search(_section(doc))
    if block is None or block.group(2) != printed:
        found.append(f"{_shown(DOC)}: the worked example's output block is not what the command prints")
    if CSV.read_text() != row:
        found.append(f"{_shown(CSV)}: not the row the command writes")
    said = {n.rstrip(".") for n in re.findall(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?", printed + row)}
    band = re.search(r",(below|above|within|undetermined)\n?$", row.strip()).group(1)
    for path, text in ((DOC, _section(doc)), (NOTES, NOTES.read_text())):
        for match in STATED.finditer(BLOCK.sub("", text)):
            for number in filter(None, match.groups()):
                if not _agrees(number.rstrip("."), said):
                    found.append(f"{_shown(path)}: {match.group(0)!r}: {number} is not the command's")
        for match in BAND.finditer(text):
            stated = match.group(1) or "undetermined"
            if stated != band:
                found.append(f"{_shown(path)}: {match.group(0)!r}: the command's band is {band}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 where a document differs")
    args = parser.parse_args(argv)
    printed, row = run()
    if not args.check:
        doc = DOC.read_text()
        section = _section(doc)
        DOC.write_text(doc.replace(section, BLOCK.sub(lambda m: m.group(1) + printed + m.group(3), section)))
        CSV.write_text(row)
    found = differences(printed, row)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
