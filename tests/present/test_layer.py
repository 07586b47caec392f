"""The presentation layer stands above the results it renders: no module under it imports it, every rendering a result
asks for is registered by it (:func:`densing.results.presented`), and plain ``densing trend`` prints the second table's
stored line without loading the report."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from densing import results
from densing.results import Result, presented, register

PACKAGE = Path(__file__).resolve().parents[2] / "densing"
#: The packages above the presentation layer, which may import it.
ABOVE = ("present", "report", "cli", "designs")


def _imports_present(path: Path) -> list[int]:
    """The lines of ``path`` that import densing.present (at the top, inside a function or under TYPE_CHECKING)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        )
        if any(n == "densing.present" or n.startswith("densing.present.") for n in names):
            found.append(node.lineno)
    return found


def test_no_module_under_the_presentation_layer_imports_it():
    under = {
        str(p.relative_to(PACKAGE)): lines
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.relative_to(PACKAGE).parts[0] not in ABOVE and (lines := _imports_present(p))
    }
    assert under == {}


def test_the_check_sees_a_deferred_import(tmp_path):
    planted = tmp_path / "m.py"
    planted.write_text("def f():\n    from densing.present.words import fold\n    return fold\n", encoding="utf-8")
    assert _imports_present(planted) == [2]


@dataclass(frozen=True)
class _Planted(Result):
    value: float


@dataclass(frozen=True)
class _Child(_Planted):
    pass


def test_a_rendering_is_found_for_the_type_or_its_nearest_base(monkeypatch):
    monkeypatch.setattr(results, "_RENDERINGS", dict(results._RENDERINGS))
    register(_Planted, words=lambda r, unit: f"{r.value:g} {unit}")
    assert presented(_Child(2.5), "words", "months") == "2.5 months"
    register(_Child, words=lambda r, unit: f"child {r.value:g}")
    assert presented(_Child(2.5), "words", "months") == "child 2.5"
    assert presented(_Planted(1.0), "words", "days") == "1 days"
    with pytest.raises(LookupError, match="_Planted has no 'colour' rendering"):
        presented(_Planted(1.0), "colour")


def test_every_result_summary_comes_from_the_layer():
    """A result with no summary of its own gets the layer's default: its type's name and its fields."""
    text = str(_Planted(0.5).summary())
    assert text.splitlines()[0] == "_Planted" and "value" in text and "0.5" in text


def test_plain_trend_prints_the_stored_line_without_the_report():
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('LOADED', ','.join(m for m in ('densing.report', 'densing.report.html', "
        "'densing.designs.openllm_v2.report', 'plotly') if m in sys.modules), file=sys.stderr))\n"
        "from densing.cli import main\nmain(['trend'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Through 2025-03 on a second table" in " ".join(done.stdout.split())
    assert done.stderr.splitlines()[-1] == "LOADED ", done.stderr[-500:]
