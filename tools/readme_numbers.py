"""Every number the README's results section states is a number of a shipped record, to the digits it shows.

    python tools/readme_numbers.py records     # write the public table's records (the two commands below)
    python tools/readme_numbers.py check       # name every number of the section that no record holds (exit 1)

The records are what the commands write: the public table's headline and rows
(``densing trend --detail --format json > results/public/trend.json``, ``densing trend --by benchmark --detail
--format json > results/public/trend_by_benchmark.json``), the second table's and Swallow's (``results/openllm_v2/
trend.json``, ``results/swallow/trend/*.json``), the OLMES rows, the fixed-size rows, the curation sensitivity, the
bias study (``results/headline_bias.json``) and the studies' printed results (``studies/*.results.txt``), beside the
paper's figures and the package's constants (:mod:`densing.constants`) and each shipped table's model count.

A number of the section "The numbers, beside the paper" agrees when some number of the records, rounded to the
significant digits the README shows, is that number (3.61 is 3.6084; "2,400" is 2400; "9.7%" is 9.7 or 0.097), and an interval's point and ends ("4.88 months [3.46–19.8]",
"3.61, at least 2.56", an end printed as its Monte Carlo range "(15.5–24.8)") stand together in one row of a record;
single digits, dates, arXiv identifiers and the figures of a command line are not checked (too short to name one
number, or not results).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
PUBLIC = REPO / "results" / "public"
#: the public table's records: their file name and the command line that writes each (densing's arguments)
COMMANDS = {"trend.json": ["trend", "--detail", "--format", "json"],
            "trend_by_benchmark.json": ["trend", "--by", "benchmark", "--detail", "--format", "json"]}
#: the README's section this checks: from its heading to the next
SECTION = "## The numbers, beside the paper"
#: a number as the README writes it: digits with thousands' commas and a decimal part, a sign, a percent
NUMBER = re.compile(r"(?<![\w.\-/])[+\-−]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(%?)(?![\w/]|\.\d|-\d\d-)")
#: what is not a result: a date, an arXiv identifier, code spans (commands, file names)
NOT_RESULTS = re.compile(r"`[^`]*`|\b\d{4}-\d{2}(?:-\d{2})?\b|arXiv \d{4}\.\d{4,5}|\d{4}\.\d{5}|\b[Dd]0 = \d+[TB]\b")
#: a number anywhere in a record's text
ANY = re.compile(r"[+\-]?\d+(?:\.\d+)?(?:[eE][+\-]?\d+)?")


def records() -> list[Path]:
    """The shipped records the section's numbers are read against."""
    results = REPO / "results"
    named = [*sorted(PUBLIC.glob("*.json")), results / "openllm_v2" / "trend.json",
             results / "openllm_v2" / "curation_sensitivity.csv", *sorted((results / "swallow" / "trend").glob("*.json")),
             results / "olmes" / "trend.csv", results / "fixed_size.csv", results / "headline_bias.json",
             *sorted((REPO / "studies").glob("*.results.txt"))]
    return [p for p in named if p.is_file()]


#: an interval as the README writes it: a point, then its 95% interval or its determined end
INTERVAL = re.compile(r"(\d[\d.,]*)(?: months)?(?: \[(\d[\d.,]*)–(?:\((\d[\d.,]*)–(\d[\d.,]*)\)|(\d[\d.,]*)|∞)\]|"
                      r"(?:;|,) at least (\d[\d.,]*))")


def _groups(value) -> list[list[float]]:
    """The numbers that stand together in a record: a JSON object's own numbers (its nested objects are groups of
    their own), a CSV row's, a text line's."""
    if isinstance(value, dict):
        own = [float(v) for v in value.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        own += [float(n) for v in value.values() if isinstance(v, str) for n in ANY.findall(v)]
        return [own] + [g for v in value.values() if isinstance(v, (dict, list)) for g in _groups(v)]
    if isinstance(value, list):
        return [g for v in value for g in _groups(v)]
    return []


def record_groups() -> list[list[float]]:
    """Every record's groups of numbers (:func:`_groups`)."""
    found = []
    for path in records():
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            found += _groups(json.loads(text.replace("Infinity", "1e999").replace("NaN", "null")))
        else:
            found += [[float(n) for n in ANY.findall(line)] for line in text.splitlines()]
    return found


def known_numbers() -> set[float]:
    """Every number the records hold (in any field or text), the paper's figures, the package's constants, and each
    shipped table's model count."""
    from densing import constants, registry
    from densing.data import read_results

    found: set[float] = set()
    for path in records():
        found.update(float(n) for n in ANY.findall(path.read_text(encoding="utf-8")))
    found.update(float(v) for v in constants.PAPER.values())
    found.update(float(v) for k, v in vars(constants).items() if k.isupper() and isinstance(v, (int, float)))
    for name in registry.TABLES:
        found.add(float(read_results(registry.table(name).path)["model"].nunique()))
    return {n for n in found if n == n}


def stated(text: str) -> list[tuple[str, float, int]]:
    """(as written, value, significant digits) of every number of ``text`` this checks (module docstring); a
    percentage twice, as written and as a share."""
    out = []
    for match in NUMBER.finditer(NOT_RESULTS.sub(" ", text)):
        whole, decimals, percent = match.group(1).replace(",", ""), match.group(2) or "", match.group(3)
        digits = len((whole + decimals[1:]).lstrip("0")) or 1
        if digits < 2 and not decimals:
            continue  # a single digit (2 standard errors, 3 df) names no one number
        value = float(whole + decimals)
        out += [(match.group(0), value, digits)] + ([(match.group(0), value / 100, digits)] if percent else [])
    return out


def _agrees(value: float, digits: int, known) -> bool:
    """Whether a known number, rounded to ``digits`` significant digits, is ``value``."""
    target = float(f"{value:.{digits - 1}e}")
    return any(float(f"{abs(n):.{digits - 1}e}") == target for n in known if n)


def section(text: str) -> str:
    start = text.index(SECTION)
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def _together(numbers: list[str], groups: list[list[float]]) -> bool:
    """Whether one group of a record holds every one of ``numbers`` (each to the digits it shows)."""
    wanted = [(float(n.replace(",", "")), len(n.replace(",", "").replace(".", "").lstrip("0")) or 1) for n in numbers]
    return any(all(_agrees(v, d, group) for v, d in wanted) for group in groups)


def differences(readme: Path = README) -> list[str]:
    """Every number of the section no record holds, and every interval whose point and ends no one record row holds
    together, with its line (empty: the README says what the records say)."""
    known, groups = known_numbers(), record_groups()
    found = []
    for number, line in enumerate(section(readme.read_text(encoding="utf-8")).splitlines(), 1):
        for match in INTERVAL.finditer(NOT_RESULTS.sub(" ", line)):
            if not _together([n.rstrip(".,") for n in match.groups() if n], groups):
                found.append(f"{readme.name}, the section's line {number}: {match.group(0)!r}: no record row holds "
                             "its point and ends together")
        by_written: dict[str, bool] = {}
        for written, value, digits in stated(line):
            by_written[written] = by_written.get(written, False) or _agrees(abs(value), digits, known)
        found += [f"{readme.name}, the section's line {number}: {w} is in no record" for w, ok in by_written.items()
                  if not ok]
    return found


def write_records() -> None:
    """The public table's records, as the commands print them (each written whole, or not at all)."""
    from densing.io import atomic_write_text

    PUBLIC.mkdir(parents=True, exist_ok=True)
    for name, arguments in COMMANDS.items():
        done = subprocess.run([sys.executable, "-c", "from densing.cli import run; run()", *arguments], cwd=REPO,
                              capture_output=True, text=True, check=True)
        atomic_write_text(PUBLIC / name, done.stdout)
        print(f"wrote {PUBLIC.relative_to(REPO) / name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("records", "check"))
    args = parser.parse_args(argv)
    if args.what == "records":
        write_records()
        return 0
    found = differences()
    print("\n".join(found) if found else "every number of the README's results section is in a record")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
