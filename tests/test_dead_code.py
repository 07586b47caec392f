"""No dead code: every function, method, class and property of the package has a caller outside the tests.

vulture (a finder of unused code by name) reads the package together with everything else that calls it: cli.py,
tools/, bench/, studies/, the Python blocks of README.md and docs/*.md, the code cells of docs/notebooks/, and the names
that other files hand over by string (lm-eval task configs' ``!function module.name``). A name it reports is either
deleted or, if something vulture cannot read calls it, listed with that caller in tests/dead_code_allowlist.py.
Typer's commands (``@app.command``, ``@app.callback``) are called by the command line and never reported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from vulture import Vulture

REPO_ROOT = Path(__file__).resolve().parents[1]
CALLERS = ["densing", "tools", "bench", "studies", "cli.py"]
ALLOWLIST = REPO_ROOT / "tests" / "dead_code_allowlist.py"
#: What vulture reports here: code a caller would call (attributes and variables are data, read by name at run time).
KINDS = {"function", "method", "class", "property"}
_FUNCTION_TAG = re.compile(r"!function\s+([\w.]+)")
_PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _texts_calling_by_name() -> str:
    """The names other files call by string, written as Python names for vulture to count as used."""
    names = set()
    for path in (REPO_ROOT / "densing").rglob("*"):
        if path.suffix in (".yaml", ".yml", ".py"):
            names |= {ref.rsplit(".", 1)[-1] for ref in _FUNCTION_TAG.findall(path.read_text(encoding="utf-8"))}
    return "\n".join(sorted(n for n in names if n.isidentifier()))


def _documented_code() -> list[tuple[str, str]]:
    """(file, code) of every Python block of the README and docs/, and every code cell of the example notebooks."""
    out = []
    for path in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]:
        out += [(str(path), block) for block in _PYTHON_BLOCK.findall(path.read_text(encoding="utf-8"))]
    for path in sorted((REPO_ROOT / "docs" / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        out += [(str(path), "".join(c["source"])) for c in cells if c["cell_type"] == "code"]
    return out


def unused_code() -> list[str]:
    """``file:line: kind 'name'`` of each function, method, class or property of densing/ with no caller."""
    finder = Vulture(ignore_decorators=["@*.command", "@*.callback"])
    finder.scavenge([str(REPO_ROOT / p) for p in CALLERS] + [str(ALLOWLIST)])
    finder.scan(_texts_calling_by_name(), filename="<names called by string>")
    for filename, code in _documented_code():
        # IPython's lines (%magic, !shell) are not Python: blank them so that the rest of the cell is read
        finder.scan(
            "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines()),
            filename=filename,
        )
    package = REPO_ROOT / "densing"
    return [
        f"{item.filename.relative_to(REPO_ROOT)}:{item.first_lineno}: {item.typ} {item.name!r}"
        for item in finder.get_unused_code(min_confidence=60)
        if item.typ in KINDS and package in Path(item.filename).parents
    ]


def test_every_function_and_class_of_the_package_has_a_caller_outside_the_tests():
    assert unused_code() == []


def test_the_allowlist_names_only_what_is_still_defined():
    """An entry of the allow-list whose name the package no longer defines is itself dead."""
    finder = Vulture()
    finder.scavenge([str(REPO_ROOT / "densing")])
    defined = {
        item.name
        for kind in ("defined_funcs", "defined_methods", "defined_classes", "defined_props")
        for item in getattr(finder, kind)
    }
    listed = set(re.findall(r"^(\w+)\s+#", ALLOWLIST.read_text(encoding="utf-8"), re.M))
    assert listed and listed <= defined, sorted(listed - defined)
