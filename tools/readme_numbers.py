"""Every number the results documents state is the named field of a named record, printed to the digits it shows.

    python tools/readme_numbers.py records          # write the public table's records (the two commands below)
    python tools/readme_numbers.py check            # name every number that differs from its field or has none (exit 1)
    python tools/readme_numbers.py draft DOCUMENT   # the document's numbers in order as mapping lines, for editing
    python tools/readme_numbers.py update           # rewrite each number whose record moved (then read the diff)

The checked documents (:data:`DOCUMENTS`): README.md's section "The numbers, beside the paper", the second table's
``results/openllm_v2/DEVIATIONS.md`` in full, and in every results README (``results/*/README.md``) the parts between
``<!-- numbers checked -->`` and ``<!-- end of numbers checked -->`` (each results README has at least one).

The mapping, ``tools/readme_numbers.map``, ties each number of those parts, in the order the document prints them, to
one record field: under a line ``[DOCUMENT]``, one line a number, ``AS PRINTED | RECORD#FIELD [| FORM]``, where

* RECORD is a file of the repository, or ``FILE@COMMIT`` as that commit holds it (``.json``: FIELD is a JSON pointer, RFC 6901; ``.csv``: ``/ROW/COLUMN``; a
  ``.results.txt``: ``/TEXT`` the first line that holds TEXT, ``/TEXT/K`` the K-th) or ``densing.constants`` (FIELD is
  ``/NAME`` or ``/NAME/KEY``); a step into a list is an index or ``key=value`` (``&`` joins two): the first item with
  that value (``/rows/row=v2_native/months``);
* FORM is how the field is printed: ``rounded`` (the default: the field rounded to the decimals the document shows,
  thousands' commas and a sign aside: 4.8761 prints "4.88", 2400 prints "2,400"), ``percent`` (a share, ×100 then
  rounded: 0.0971 prints "9.7%"), ``rounded in text`` or ``percent in text`` (a text field, a CSV's cell or a text
  file's line with a number that prints so: "5.7" in "measured, 5.7-fold", "48%" in "0.48 ± 0.05") or ``count``
  (how many items of the list before the field's last step that step selects: ``models.csv#/decision=kept``,
  ``*`` every item);
* a number that is not a result (the method's fixed settings, a count that no record holds) is ``AS PRINTED | not a
  result: WHY``.

``check`` aligns each document's numbers with its mapping lines and fails when a number differs from its line's field,
when a number has no line (a new number is mapped before it ships), when a line's number is no longer printed, and
when a line's field no longer prints its number (a regenerated record moved it). What is not a number here: dates
(2024-09-30, 2025-03), arXiv identifiers, code spans (commands, file names), commit hashes, Markdown links' targets
and comments, and the D0 of a design's name ("D0 = 1T"). Moving a number to another document moves its line to that
document's block; ``draft`` prints a document's numbers with their present lines and, for a number without one, the
record fields that print it, nearest to the previous line's field first.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import io
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
PUBLIC = REPO / "results" / "public"
MAP = REPO / "tools" / "readme_numbers.map"
#: the public table's records: their file name and the command line that writes each (densing's arguments)
COMMANDS = {
    "trend.json": ["trend", "--detail", "--format", "json"],
    "trend_by_benchmark.json": ["trend", "--by", "benchmark", "--detail", "--format", "json"],
}
#: the README's section this checks: from its heading to the next
SECTION = "## The numbers, beside the paper"
DEVIATIONS = "results/openllm_v2/DEVIATIONS.md"
#: a results README's checked part: from the first marker to the second
MARK_START, MARK_END = "<!-- numbers checked -->", "<!-- end of numbers checked -->"
#: a number as the documents write it: digits with thousands' commas and a decimal part, a sign, a percent
NUMBER = re.compile(r"(?<![\w.\-/])[+\-−]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(%?)(?![\w/]|\.\d|-\d\d-)")
#: what is not a number here: a date, an arXiv identifier, a code span, a link's target, a comment, D0 = 1T
NOT_RESULTS = re.compile(
    r"`[^`]*`|<!--.*?-->|\]\([^)]*\)|\b\d{4}-\d{2}(?:-\d{2})?\b|arXiv \d{4}\.\d{4,5}|"
    r"\d{4}\.\d{5}|\b[Dd]0 = \d+[TB]\b",
    re.S,
)
#: a number in a record's text
ANY = re.compile(r"[+\-]?\d+(?:\.\d+)?(?:[eE][+\-]?\d+)?")
FORMS = ("rounded", "percent", "rounded in text", "percent in text", "count")
NOT_A_RESULT = "not a result:"


@dataclass(frozen=True)
class Line:
    """One mapping line: the number as printed, its record and field (or why it is not a result), its form."""

    document: str
    printed: str
    record: str
    field: str
    form: str
    number: int  # the line's number in the mapping file

    @property
    def target(self) -> str:
        return self.form if self.form.startswith(NOT_A_RESULT) else f"{self.record}#{self.field}"


@dataclass(frozen=True)
class Stated:
    """A number of a document's checked part: as printed and the document's line it is on."""

    printed: str
    line: int


def documents() -> list[str]:
    """The checked documents, relative to the repository: the README, DEVIATIONS.md, each results README."""
    readmes = sorted(str(p.relative_to(REPO)) for p in (REPO / "results").glob("*/README.md"))
    return ["README.md", DEVIATIONS, *readmes]


def checked_spans(document: str, text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of each part of ``document`` whose numbers are checked (module docstring);
    raises ValueError naming the document when it has no such part."""
    if document == "README.md":
        if SECTION not in text:
            raise ValueError(f"{document}: no section {SECTION!r}")
        start = text.index(SECTION)
        end = text.find("\n## ", start + 1)
        return [(start, end if end > 0 else len(text))]
    if document == DEVIATIONS:
        return [(0, len(text))]
    spans, at = [], text.find(MARK_START)
    while at >= 0:
        end = text.find(MARK_END, at)
        if end < 0:
            raise ValueError(f"{document}: {MARK_START} without {MARK_END}")
        spans.append((at, end))
        at = text.find(MARK_START, end)
    if not spans:
        raise ValueError(f"{document}: no part between {MARK_START} and {MARK_END}")
    return spans


def checked_parts(document: str, text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each part of ``document`` whose numbers are checked (:func:`checked_spans`)."""
    return [(text.count("\n", 0, start) + 1, text[start:end]) for start, end in checked_spans(document, text)]


def _blank(match: re.Match) -> str:
    """A match replaced by spaces, its newlines kept (line numbers stay)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def stated(text: str, first_line: int = 1) -> list[Stated]:
    """Every number of ``text`` (module docstring: what is not one), in order, with the line it is on."""
    cleared = NOT_RESULTS.sub(_blank, text)
    return [Stated(m.group(0), first_line + cleared.count("\n", 0, m.start())) for m in NUMBER.finditer(cleared)]


def number_offsets(document: str, text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets in ``text`` of the numbers :func:`document_numbers` gives, in the same order."""
    found = []
    for start, end in checked_spans(document, text):
        cleared = NOT_RESULTS.sub(_blank, text[start:end])
        found += [(start + m.start(), start + m.end()) for m in NUMBER.finditer(cleared)]
    return found


def document_numbers(document: str, text: str) -> list[Stated]:
    """The numbers of ``document``'s checked parts, in order."""
    return [s for first, part in checked_parts(document, text) for s in stated(part, first)]


def read_map(path: Path = MAP) -> dict[str, list[Line]]:
    """The mapping file's lines by document, in order (module docstring: the format); raises ValueError naming the
    file's line that does not follow it."""
    return read_map_text(path.read_text(encoding="utf-8"), path.name)


def read_map_text(text: str, name: str = MAP.name) -> dict[str, list[Line]]:
    """:func:`read_map` of a mapping's ``text`` (``name`` the file's, for the error's words)."""
    lines: dict[str, list[Line]] = {}
    document = None
    for number, raw in enumerate(text.splitlines(), 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("[") and text.endswith("]"):
            document = text[1:-1]
            lines.setdefault(document, [])
            continue
        cells = [c.strip() for c in text.split(" | ")]
        if document is None or len(cells) not in (2, 3):
            raise ValueError(f"{name} line {number}: not 'AS PRINTED | RECORD#FIELD [| FORM]' under a [DOCUMENT]")
        if cells[1].startswith(NOT_A_RESULT):
            lines[document].append(Line(document, cells[0], "", "", cells[1], number))
            continue
        record, _, field = cells[1].partition("#")
        form = cells[2] if len(cells) == 3 else "rounded"
        if form not in FORMS or not field.startswith("/"):
            raise ValueError(
                f"{name} line {number}: {cells[1]!r} | {form!r}: a field is RECORD#/PATH, a form one "
                f"of {', '.join(FORMS)}"
            )
        lines[document].append(Line(document, cells[0], record, field, form, number))
    return lines


def _step(value, key: str):
    """One step of a field path: a dict's key, a list's index or first item with ``key=value`` (``&`` joins)."""
    if isinstance(value, dict):
        return value[key.replace("~1", "/").replace("~0", "~")]
    if key.isdigit():
        return value[int(key)]
    for item in value:
        if _matches(item, key):
            return item
    raise KeyError(key)


def _load(record: str):
    """A record as a value a field path walks: JSON as read, a CSV as a list of rows, a text file as its lines,
    ``densing.constants`` as its upper-case names."""
    if record == "densing.constants":
        from densing import constants

        return {k: v for k, v in vars(constants).items() if k.isupper()}
    path, _, commit = record.partition("@")
    if commit:  # a record as a commit shipped it: the row before a change (DEVIATIONS.md)
        text = subprocess.run(
            ["git", "show", f"{commit}:{path}"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout
    else:
        text = (REPO / path).read_text(encoding="utf-8")
    if path.endswith(".json"):
        return json.loads(text.replace("-Infinity", "-1e999").replace("Infinity", "1e999").replace("NaN", "null"))
    if path.endswith(".csv"):
        return list(csv.DictReader(io.StringIO(text)))
    return text.splitlines()


def _matches(item, selector: str) -> bool:
    """Whether a list's item has every ``key=value`` of ``selector`` (``&`` joins them; ``*``: every item)."""
    if selector == "*":
        return True
    wanted = dict(pair.split("=", 1) for pair in selector.replace("~1", "/").replace("~0", "~").split("&"))
    return isinstance(item, dict) and all(str(item.get(k)) == v for k, v in wanted.items())


def field_value(line: Line, cache: dict):
    """The value of ``line``'s field (a text file's field is a line holding its text); raises KeyError, IndexError."""
    if line.record not in cache:
        cache[line.record] = _load(line.record)
    value = cache[line.record]
    if isinstance(value, list) and value and isinstance(value[0], str):  # a text file's lines
        wanted, _, nth = line.field[1:].rpartition("/")
        if not (nth.isdigit() and wanted):
            wanted, nth = line.field[1:], "1"
        return [text for text in value if wanted in text][int(nth) - 1]
    steps = line.field[1:].split("/")
    if line.form == "count":  # the items of the list the path leads to that its last step selects
        for key in steps[:-1]:
            value = _step(value, key)
        return sum(1 for item in value if _matches(item, steps[-1]))
    for key in steps:
        value = _step(value, key)
    return value


def prints(value, printed: str, form: str) -> bool:
    """Whether ``value`` printed in ``form`` is ``printed`` (module docstring: the forms)."""
    digits = printed.lstrip("+-−").rstrip("%").replace(",", "")
    if form.endswith("in text"):
        kind = form.removesuffix(" in text")
        return any(prints(float(n), printed, kind) for n in ANY.findall(str(value)))
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    number = abs(number) * (100 if form == "percent" else 1)
    decimals = len(digits.partition(".")[2])
    return f"{number:.{decimals}f}" == digits


def _field_problem(line: Line, cache: dict) -> str | None:
    """Why ``line``'s field does not print its number, or None."""
    if line.form.startswith(NOT_A_RESULT):
        return None
    try:
        value = field_value(line, cache)
    except (KeyError, IndexError, StopIteration, OSError, ValueError, TypeError, subprocess.CalledProcessError):
        return f"{line.document}: {line.printed} is {line.target}, which does not exist ({MAP.name} line {line.number})"
    if prints(value, line.printed, line.form):
        return None
    return (
        f"{line.document}: {line.printed} is {line.target} ({line.form}), which holds {value!r} "
        f"({MAP.name} line {line.number})"
    )


def _differs(document: str, said: Stated, line: Line, cache: dict) -> str:
    """The words for a number printed where its mapping line has another."""
    where = f"{MAP.name} line {line.number} prints {line.printed}"
    if line.form.startswith(NOT_A_RESULT):
        return f"{document} line {said.line}: {said.printed} stands where {where}, {line.form}"
    try:
        held = f"which holds {field_value(line, cache)!r}"
    except (KeyError, IndexError, StopIteration, OSError, ValueError, TypeError, subprocess.CalledProcessError):
        held = "which does not exist"
    return f"{document} line {said.line}: {said.printed} differs from {line.target}, {held} ({where})"


def _compare(document: str, numbers: list[Stated], lines: list[Line], cache: dict) -> list[str]:
    """The differences between a document's numbers and its mapping lines, aligned in order."""
    found = []
    matcher = difflib.SequenceMatcher(None, [s.printed for s in numbers], [m.printed for m in lines], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            problems = (_field_problem(m, cache) for m in lines[j1:j2])
            found += [problem for problem in problems if problem]
            continue
        paired = min(i2 - i1, j2 - j1) if op == "replace" else 0
        found += [
            _differs(document, said, line, cache)
            for said, line in zip(numbers[i1 : i1 + paired], lines[j1 : j1 + paired])
        ]
        found += [
            f"{document} line {s.line}: {s.printed} has no line in {MAP.name} (map it to a record's field, or "
            f"as not a result)"
            for s in numbers[i1 + paired : i2]
        ]
        found += [
            f"{MAP.name} line {m.number}: {document}'s {m.printed} ({m.target}) is not printed there"
            for m in lines[j1 + paired : j2]
        ]
    return found


def differences(texts: dict[str, str] | None = None, mapping: Path = MAP) -> list[str]:
    """Every number of the checked documents that differs from its mapped field or has no mapping line, and every
    mapping line that no longer holds (empty: the documents say what the records say). ``texts`` stands in for
    documents' text (by document, relative to the repository)."""
    texts = texts or {}
    try:
        lines = read_map(mapping)
    except ValueError as exc:
        return [str(exc)]
    found, cache = [], {}
    for document in documents():
        text = texts[document] if document in texts else (REPO / document).read_text(encoding="utf-8")
        try:
            numbers = document_numbers(document, text)
        except ValueError as exc:
            found.append(str(exc))
            continue
        found += _compare(document, numbers, lines.get(document, []), cache)
    found += [f"{mapping.name}: [{name}] is not a checked document" for name in lines if name not in documents()]
    return found


def records() -> list[str]:
    """The records ``draft`` looks in for a number's field, relative to the repository."""
    results = REPO / "results"
    named = [
        *sorted(PUBLIC.glob("*.json")),
        results / "openllm_v2" / "trend.json",
        results / "openllm_v2" / "trend_first.json",
        results / "openllm_v2" / "curation_sensitivity.csv",
        *sorted((results / "swallow" / "trend").glob("*.json")),
        results / "olmes" / "trend.csv",
        results / "fixed_size.csv",
        results / "headline_bias.json",
        results / "openllm_v2" / "draw_counts.json",
        results / "olmes" / "mc_offsets.csv",
        results / "overlap_runs" / "co2_ablation.csv",
        results / "smollm2" / "scores.csv",
    ]
    return [str(p.relative_to(REPO)) for p in named if p.is_file()]


#: the keys a list's item is named by in a field path, first the most telling
NAMING_KEYS = ("row", "choice", "name", "task", "benchmark", "variant", "format", "label", "table", "local_steps")


def _item_key(items: list, index: int) -> str:
    """The step that names ``items[index]``: ``key=value`` of the first naming key whose value is unique in the
    list (two joined by ``&`` where one is not), else the index."""
    item = items[index]
    if not isinstance(item, dict):
        return str(index)
    keys = [k for k in NAMING_KEYS if isinstance(item.get(k), str) and "/" not in item[k] and "&" not in item[k]]
    for chosen in [[k] for k in keys] + [[a, b] for a in keys for b in keys if a < b]:
        same = [other for other in items if isinstance(other, dict) and all(other.get(k) == item[k] for k in chosen)]
        if len(same) == 1:
            return "&".join(f"{k}={item[k]}" for k in chosen)
    return str(index)


def _leaves(value, path: str = ""):
    """(field path, value) of every number and text of a record's value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}/{_item_key(value, index)}")
    elif value is not None and not isinstance(value, bool):
        yield path, value


def _candidates(printed: str, leaves: list[tuple[str, str, object]]) -> list[tuple[str, str]]:
    """(RECORD#FIELD, form) of every leaf that prints ``printed``: numbers first, then texts."""
    forms = ("percent", "rounded") if printed.endswith("%") else ("rounded",)
    numeric = [(f"{r}#{f}", form) for form in forms for r, f, v in leaves if _is_number(v) and prints(v, printed, form)]
    if numeric:
        return numeric
    form = "percent in text" if printed.endswith("%") else "rounded in text"
    return [(f"{r}#{f}", form) for r, f, v in leaves if isinstance(v, str) and prints(v, printed, form)]


def _is_number(value) -> bool:
    """Whether a record's value is a number (a CSV's cells are texts: one that is a number counts)."""
    return not isinstance(value, str) or ANY.fullmatch(value) is not None


def _farness(previous: str, candidate: tuple[str, str]) -> int:
    """How far ``candidate``'s field is from ``previous``: minus the leading steps they share (the record one)."""
    target = candidate[0]
    shared = 0
    for a, b in zip(re.split(r"[#/]", target), re.split(r"[#/]", previous)):
        if a != b:
            break
        shared += 1
    return -shared


def draft(document: str) -> list[str]:
    """``document``'s numbers in order as mapping lines: its aligned line where the mapping has one, else the fields
    that print the number, nearest to the previous line's field first (``# ?``: to choose or correct by hand)."""
    lines = read_map().get(document, [])
    numbers = document_numbers(document, (REPO / document).read_text(encoding="utf-8"))
    leaves = [(r, f, v) for r in [*records(), "densing.constants"] for f, v in _leaves(_load(r))]
    matcher = difflib.SequenceMatcher(None, [s.printed for s in numbers], [m.printed for m in lines], autojunk=False)
    out, previous = [f"[{document}]"], ""
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for line in lines[j1:j2]:
                out.append(
                    " | ".join(
                        [line.printed, line.target]
                        + ([line.form] if line.form not in ("rounded",) and line.record else [])
                    )
                )
                previous = line.target
            continue
        for said in numbers[i1:i2]:
            found = sorted(_candidates(said.printed, leaves), key=partial(_farness, previous))
            if not found:
                out.append(f"{said.printed} | {NOT_A_RESULT} ?  # ? line {said.line}: no record prints it")
                continue
            target, form = found[0]
            previous = target
            out.append(
                " | ".join([said.printed, target] + ([form] if form != "rounded" else []))
                + f"  # ? line {said.line}, {len(found) - 1} other fields"
            )
    return out


#: the forms ``update`` rewrites: a number printed from a numeric field alone (a text field's number is left to the
#: editor, who rewords the sentence around it)
UPDATED_FORMS = ("rounded", "percent", "count")


def printed_as(value, printed: str, form: str) -> str:
    """``value`` printed as ``printed`` prints its own: the same decimals, sign style, thousands' commas and percent."""
    number = float(value) * (100 if form == "percent" else 1)
    digits = printed.lstrip("+-−").rstrip("%")
    decimals = len(digits.partition(".")[2])
    if abs(number) >= 100 and form != "percent":  # three significant figures, as the CLI prints: 132, not 132.0
        decimals = 0
    text = f"{abs(number):,.{decimals}f}" if "," in digits else f"{abs(number):.{decimals}f}"
    sign = ""
    if printed[:1] in "+-−":  # a signed number keeps its signs' characters
        minus = "−" if "−" in printed[:1] else "-"
        sign = "+" if number >= 0 else minus
    elif number < 0:
        sign = "-"
    return sign + text + ("%" if printed.endswith("%") else "")


def rewritten(texts: dict[str, str], mapping_text: str, mapping: Path = MAP) -> tuple[dict[str, str], str, list[str]]:
    """The documents' ``texts`` (by document) and the mapping's text with every checked number whose mapping line's
    field no longer prints it (forms :data:`UPDATED_FORMS`, the document's number the line's own) rewritten to the
    field's value, and one line per change. Numbers in text fields and numbers out of alignment are left: ``check``
    names them after."""
    lines = read_map_text(mapping_text, mapping.name)
    map_rows = mapping_text.splitlines(keepends=True)
    out, changes, cache = dict(texts), [], {}
    for document, text in texts.items():
        numbers, offsets = document_numbers(document, text), number_offsets(document, text)
        mapped = lines.get(document, [])
        matcher = difflib.SequenceMatcher(
            None, [s.printed for s in numbers], [m.printed for m in mapped], autojunk=False
        )
        edits = []
        for op, i1, i2, j1, _ in matcher.get_opcodes():
            if op != "equal":
                continue
            for said, at, line in zip(numbers[i1:i2], offsets[i1:i2], mapped[j1:]):
                if line.form not in UPDATED_FORMS or _field_problem(line, cache) is None:
                    continue
                try:
                    new = printed_as(field_value(line, cache), said.printed, line.form)
                except (KeyError, IndexError, ValueError, TypeError, StopIteration):
                    continue
                edits.append((at, new))
                map_rows[line.number - 1] = map_rows[line.number - 1].replace(line.printed, new, 1)
                changes.append(f"{document} line {said.line}: {said.printed} → {new} ({line.target})")
        for (start, end), new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        out[document] = text
    return out, "".join(map_rows), changes


def update(mapping: Path = MAP) -> list[str]:
    """:func:`rewritten` over the checked documents and the mapping file, each file written whole; returns the
    changes."""
    texts = {document: (REPO / document).read_text(encoding="utf-8") for document in documents()}
    mapping_text = mapping.read_text(encoding="utf-8")
    new_texts, new_mapping, changes = rewritten(texts, mapping_text, mapping)
    for document, text in new_texts.items():
        if text != texts[document]:
            atomic_write(REPO / document, text)
    if new_mapping != mapping_text:
        atomic_write(mapping, new_mapping)
    return changes


def atomic_write(path: Path, text: str) -> None:
    """``text`` written to ``path`` whole, or not at all."""
    from densing.io import atomic_write_text

    atomic_write_text(path, text)


def write_records() -> None:
    """The public table's records, as the commands print them (each written whole, or not at all)."""
    from densing.io import atomic_write_text

    PUBLIC.mkdir(parents=True, exist_ok=True)
    for name, arguments in COMMANDS.items():
        done = subprocess.run(
            [sys.executable, "-c", "from densing.cli import run; run()", *arguments],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        atomic_write_text(PUBLIC / name, done.stdout)
        print(f"wrote {PUBLIC.relative_to(REPO) / name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("records", "check", "draft", "update"))
    parser.add_argument("document", nargs="?", help="draft: the document, relative to the repository")
    args = parser.parse_args(argv)
    if args.what == "records":
        write_records()
        return 0
    if args.what == "draft":
        if args.document not in documents():
            parser.error(f"draft: the document is one of {', '.join(documents())}")
        print("\n".join(draft(args.document)))
        return 0
    if args.what == "update":
        changed = update()
        print("\n".join(changed) if changed else "no number needed rewriting")
        return 0
    found = differences()
    print("\n".join(found) if found else "every number of the checked documents is its record's field")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
