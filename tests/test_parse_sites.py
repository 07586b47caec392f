"""No module reads an identifier, a rule code or a state out of joined text, and no decision is read from prose:
every place in densing/ that splits, partitions or matches text (:data:`PATTERN`), or reads a sentence by its first or
last words, cuts one sentence out of another or looks for an option in a command's words (:data:`PROSE`, the patterns
of the issue's ``parse_sites.sh``), is one of :data:`ALLOWED`, each with why it may (a file's or a tool's format, the
user's input, text laid out for a reader), or one of :data:`LEFT`, the places that still read a value out of text (each
with what it reads), which this list holds from growing."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What the test looks for (the issue's grep): a split, a partition, a regex match or a pandas extract.
PATTERN = re.compile(r"split\(|partition\(|re\.(match|search|findall)|str\.extract")
#: Prose read to decide (the issue's ``parse_sites.sh``): a sentence, source, label or command read by its first or last
#: words, a literal with a space cut off a text, a ``--option value`` looked for in a command line, a label's "D0".
PROSE = re.compile(
    r"(source|why|reason|label|inversion|command|said|legend|sentence)[^.]{0,14}\.(startswith|endswith)\("
    r"|\.(removeprefix|removesuffix)\(['\"][^'\"]* [^'\"]*['\"]\)"
    r'|f"--[a-z-]+ \{[a-z_]+\}" in |startswith\("D0'
)

#: file → {a piece of the line: why the text may be read there}.
ALLOWED: dict[str, dict[str, str]] = {
    "densing/states.py": {
        'text.partition(":")': "ReferenceName.parse: a file's or the command line's family:benchmark"
    },
    "densing/laws/inversion.py": {'.split(",")': "a reference fit's JSON provenance: its families joined by commas"},
    "densing/display.py": {'name.partition(":")': "a wide table's column name field:benchmark (the output's format)"},
    "densing/present/forest.py": {
        '" ".join(str(text).split())': "whitespace folded in a label for a reader",
        'text.split(" (", 1)': "a status shortened for a figure's hover text (display)",
        'rsplit(" ", 1)': "a label cut at a word for a figure (display)",
    },
    "densing/present/figures.py": {'rsplit("/", 1)': "a Hugging Face model id's last part for a figure (display)"},
    "densing/trend/targets.py": {'n.split("@")': "a model name's revision suffix (the table's format)"},
    "densing/report/html.py": {"str(header).split()": "a header's longest word for the layout"},
    "densing/numbers.py": {'.split("e")': "a number's own scientific notation"},
    "densing/validation.py": {
        '" ".join(text.split())': "whitespace folded in an error message",
        'text.split(",")': "user input: an option's comma list (validation.comma_items)",
    },
    "densing/cli/output.py": {
        '.split("\\n")': "terminal output split into lines",
        'str(text).split("\\n")': "terminal paragraphs",
    },
    "densing/cli/laws.py": {
        'text.split(",")': "user input: --benchmarks",
        'families.split(",")': "user input: --families",
        'benchmarks.split(",")': "user input: --benchmark",
    },
    "densing/cli/overlap.py": {
        "split(path)": "not text: a function named split",
        'tp_overlap.split(",")': "user input: --tp-overlap",
    },
    "densing/cli/overlap_fast.py": {'word.partition("=")': "user input: an option's --name=value"},
    "densing/cli/layout.py": {'text.split(" ")': "a cell's words for the terminal layout"},
    "densing/cli/eval.py": {
        'split("/")': "user input: --shard I/N",
        '(benchmarks or "").split(",")': "user input: --benchmarks",
    },
    "densing/cli/app.py": {
        "command_path.split": "click's command path",
        'split("\\n\\n", 1)': "a help text's first paragraph",
        "re.split": "a help text's first sentence",
        'word.split("=", 1)': "user input: --name=value on the command line",
    },
    "densing/data/names.py": {'metric.partition(",")': "lm-eval's metric,filter key (its file format)"},
    "densing/data/readers.py": {
        'part.partition("=")': "lm-eval's model_args string (its file format)",
        'key.partition("_stderr")': "lm-eval's results keys (its file format)",
        'key.partition(",")': "lm-eval's metric,filter key (its file format)",
        'metric.partition(",")': "lm-eval's metric,filter key (its file format)",
    },
    "densing/eval/tasks/local_data.py": {
        ".split()": "a dataset's label file",
        'removeprefix("Level ")': "the MATH dataset's level field, 'Level 3' (its file format)",
    },
    "densing/eval/olmes.py": {'removeprefix(" ")': "an lm-eval request's continuation, led by one space (its format)"},
    "densing/eval/tasks/utils.py": {'rpartition("####")': "GSM8K's answer format"},
    "densing/eval/ingest.py": {'rsplit("_", 1)': "lm-eval's arg_0, arg_1 keys (its file format)"},
    "densing/eval/runner.py": {"line.split()": "nvidia-smi's output"},
    "densing/eval/models.py": {
        'value.split(",")': "user input: --model-args",
        'item.partition("=")': "user input: --model-args key=value",
    },
    "densing/eval/loading.py": {'device.partition(":")': "user input: --device cuda:N"},
    "densing/eval/store.py": {'rsplit(".", 2)': "the store's temporary file name (its own format)"},
    "densing/eval/task_index.py": {
        'text[start:].split("\\n")': "an lm-eval task YAML",
        'first.strip("[]").split(",")': "an lm-eval task YAML's inline list",
    },
    "densing/eval/pair.py": {'key.partition(",")': "lm-eval's metric,filter key (its file format)"},
    "densing/eval/benchmarks.py": {'text.split(",")': "user input: a comma list of benchmarks"},
    "densing/overlap/run_schema.py": {"str(exc).split()": "whitespace folded in a parser's error message"},
    "densing/overlap/strategies/sync.py": {"flat.split(": "not text: torch.Tensor.split"},
    "densing/overlap/strategies/co2.py": {"flat.split(": "not text: torch.Tensor.split"},
    "densing/overlap/stream.py": {"np.split(": "not text: numpy.split"},
}
#: file → {a piece of the line: the value it still reads out of text}: to become values, never to grow.
LEFT: dict[str, dict[str, str]] = {}


def _sites() -> list[tuple[str, str]]:
    found = []
    for path in sorted((ROOT / "densing").rglob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if PATTERN.search(line) or PROSE.search(line):
                found.append((str(path.relative_to(ROOT)), line))
    return found


def _covered(path: str, line: str) -> list[str]:
    return [piece for table in (ALLOWED, LEFT) for piece in table.get(path, {}) if piece in line]


def test_every_text_read_in_the_package_is_allowed_with_its_reason():
    unlisted = [f"{path}: {line.strip()}" for path, line in _sites() if not _covered(path, line)]
    assert not unlisted, "text read out of joined text, not in ALLOWED or LEFT:\n" + "\n".join(unlisted)


def test_every_listed_site_is_still_there():
    sites = _sites()
    stale = [
        f"{path}: {piece}"
        for table in (ALLOWED, LEFT)
        for path, pieces in table.items()
        for piece in pieces
        if not any(p == path and piece in line for p, line in sites)
    ]
    assert not stale, "listed but no longer in the package (take it off the list):\n" + "\n".join(stale)


def test_the_prose_pattern_finds_what_it_looks_for():
    """Each decision read from prose that issue 106 named is found by :data:`PROSE` (the list above is not vacuous)."""
    named = [
        'if str(r.get("release_date_source", "")).startswith("today") else ""',
        "its {why.removeprefix('95% interval ')}, so",
        '"reference" if not str(r["inversion"]).startswith("D0") else "D0 of the given fit"',
        'reasons = sorted({p for p in parts if p.startswith("D0 ")})',
        'legend = range_legend(head.n_boot).removeprefix("an end in parentheses (a–b) is its ")',
        'drawn = "" if f"--seed {seed}" in command else ""',
    ]
    assert [line for line in named if not PROSE.search(line)] == []


def test_no_decision_is_read_from_prose_where_it_was():
    """The places issue 106 named decide from values now: a date's source, a bound's reach, a sensitivity row's
    variant, an extrapolation note's kind, the Monte Carlo range's words, the footer's options, a record's references."""
    text = {
        p: (ROOT / p).read_text(encoding="utf-8")
        for p in (
            "densing/placement/place.py",
            "densing/trend/measure.py",
            "densing/laws/density.py",
            "densing/present/verdict.py",
            "densing/report/render.py",
            "densing/report/designs/openllm_v2.py",
        )
    }
    found = {path: [line for line in t.splitlines() if PROSE.search(line)] for path, t in text.items()}
    assert found == dict.fromkeys(text, [])
    assert '.split(", ")' not in text["densing/report/designs/openllm_v2.py"]


def test_no_identifier_rule_code_or_state_is_read_from_text_where_it_was():
    """The places issue 96 named: references, rule codes, states and check lists are values there now."""
    text = {
        p: (ROOT / p).read_text(encoding="utf-8")
        for p in (
            "densing/trend/pooling.py",
            "densing/trend/capability.py",
            "densing/laws/eligibility.py",
            "densing/present/verdict.py",
            "densing/present/words.py",
            "densing/present/forest.py",
            "densing/designs/olmes/trend.py",
        )
    }
    assert not any("STATE_OF_WORDS" in t or "family_of" in t for t in text.values())
    assert not any(re.search(r'\["why"\]\.[^\n]*(extract|startswith|split)', t) for t in text.values())
    assert 'split(" | ")' not in text["densing/present/verdict.py"]
    assert 'failed_checks or "").split' not in text["densing/designs/olmes/trend.py"]
    assert sum(len(v) for v in LEFT.values()) <= 0
