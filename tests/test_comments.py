"""Comments say what the code is: no story of how it came to be, no one machine's timings.

Every comment and docstring of the package is read (Python's tokenizer finds them). A comment that narrates history
("the earlier form", "previously", "used to be", "was replaced") describes code a reader cannot see; a timing
("≈2.5 s here", "about 0.4 s on two cores") is one machine's measurement, true on no other. The history lives in
git; a speed is measured by a script in bench/ that prints its ratios.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "densing"

HISTORY = re.compile(
    r"\b(previously|formerly|used to be|(it|we|this|densing) used to"
    r"|(the|an?) (earlier|previous|former|old) (form|shape|choice|fit|version|code|behaviou?r|default|design|engine"
    r"|implementation|layout|name)s?"
    r"|(was|were) (changed|replaced|removed|renamed|rewritten|refactored)"
    r"|before (this|the) (change|refactor)|refactor(ed|ing)?|this [s]ession)\b",
    re.I,
)
_DURATION = r"\d[\d.,]*(\s?[–-]\s?\d[\d.,]*)?\s?(ns|µs|ms|s|CPU-s|sec|seconds?|minutes?)\b"
TIMING = re.compile(
    rf"((≈|~)\s?|\b(about|around|roughly|takes?|took|costs?) ){_DURATION}"
    rf"|{_DURATION},? (here|on (this|my|our|one) machine)"
    rf"|{_DURATION} of (start-up|system time|the report|a command)"
    r"|\bon (two|four|eight|sixteen|\d+) cores\b",
    re.I,
)


def _texts(path: Path):
    """(line, text) of every comment and every docstring-like string statement of ``path``."""
    previous = tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
        elif token.type == tokenize.STRING and previous in (
            tokenize.NEWLINE,
            tokenize.NL,
            tokenize.INDENT,
            tokenize.DEDENT,
        ):
            yield token.start[0], token.string
        if token.type != tokenize.COMMENT:
            previous = token.type


def findings(pattern: re.Pattern) -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, text in _texts(path):
            for match in pattern.finditer(text):
                at = line + text[: match.start()].count("\n")
                out.append(f"{path.relative_to(PACKAGE.parent)}:{at}: {match.group(0)!r}")
    return out


@pytest.mark.parametrize(("what", "pattern"), [("history", HISTORY), ("a machine's timing", TIMING)])
def test_no_comment_tells_history_or_one_machines_timings(what, pattern):
    assert findings(pattern) == [], what


@pytest.mark.parametrize(
    "text",
    [
        "# the earlier form compared two fits",
        "# previously a loop",
        "# ≈2.5 s here",
        "# about 0.4 s of system time on two cores",
        "# (10-12 ms here)",
        "# this was replaced by the engine",
    ],
)
def test_the_patterns_catch_what_they_are_for(text):
    assert HISTORY.search(text) or TIMING.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "# the latest earlier occurrence of its last tokens",
        "# the previous round's all-reduce",
        "# a 5 s limit on git",
        "# 1 s of trace time by default",
        "# the draws used to compute the interval",
        "# no longer running",
    ],
)
def test_the_patterns_leave_plain_descriptions_alone(text):
    assert not HISTORY.search(text) and not TIMING.search(text)
