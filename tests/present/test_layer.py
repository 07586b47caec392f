"""The presentation layer stands above the results it renders: no module under it imports it, no result asks for a
word by name (no registry of renderings), a result shows itself in a notebook through the one display the layer
installs, and plain ``densing trend`` prints the second table's stored line without loading the report or the
placement package."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from densing import results
from densing.results import Result

PACKAGE = Path(__file__).resolve().parents[2] / "densing"
#: The packages above the presentation layer, which may import it.
ABOVE = ("present", "report", "cli")


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


#: The packages and modules that hold results: values and state codes, no words.
RESULT_PLACES = ("trend", "laws", "placement", "data", "results.py", "states.py")
#: The names of a registry of words asked for by name (what the seam once was).
REGISTRY_NAMES = re.compile(r"\b(presented|presented_property|PRESENTATION)\b")


def test_no_result_module_names_a_registry_of_words():
    found = {
        str(p.relative_to(PACKAGE)): REGISTRY_NAMES.findall(p.read_text(encoding="utf-8"))
        for place in RESULT_PLACES
        for p in sorted((PACKAGE / place).rglob("*.py") if (PACKAGE / place).is_dir() else [PACKAGE / place])
    }
    assert {path: names for path, names in found.items() if names} == {}


def test_a_result_has_no_word_attributes():
    """The trend's result types carry no status, verdict or summary of their own: those are the layer's functions."""
    from densing.trend.capability import Row
    from densing.trend.checks import Check
    from densing.trend.forecast import ForecastCutoff
    from densing.trend.measurement import TrendMeasurement
    from densing.trend.uncertainty import TrendUncertainty

    said = {
        kind.__name__: sorted(
            name
            for name in ("status", "verdict", "why", "reference_rule", "rests_on", "summary", "plot", "outcome")
            if hasattr(kind, name)
        )
        for kind in (Row, Check, ForecastCutoff, TrendMeasurement, TrendUncertainty, Result)
    }
    assert said == {name: [] for name in said}  # a check's status is its code, a field of each instance


@dataclass(frozen=True)
class _Planted(Result):
    value: float


def test_a_result_shows_its_values_until_a_display_is_installed(monkeypatch):
    monkeypatch.setattr(results, "_display", None)
    assert _Planted(0.5)._repr_html_() is None and results.displayed_text(_Planted(0.5)) == "_Planted(value=0.5)"

    class Planted:
        def html(self, result):
            return f"<b>{result.value}</b>"

        def text(self, result):
            return f"planted {result.value}"

    results.install_display(Planted())
    assert _Planted(0.5)._repr_html_() == "<b>0.5</b>" and results.displayed_text(_Planted(0.5)) == "planted 0.5"


def test_the_layer_installs_the_display_as_it_loads():
    import densing.present

    assert isinstance(results._display, densing.present._Display)
    assert "<table>" in _Planted(0.5)._repr_html_()


def test_every_result_summary_comes_from_the_layer():
    """A result with no summary of its own gets the layer's default: its type's name and its fields."""
    import densing.present

    text = str(densing.present.summary(_Planted(0.5)))
    assert text.splitlines()[0] == "_Planted" and "value" in text and "0.5" in text


def test_plain_trend_prints_the_stored_line_without_the_report_or_the_placement():
    unwanted = "('densing.report', 'densing.report.html', 'densing.report.designs.openllm_v2', 'plotly')"
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print('LOADED', ','.join(m for m in sys.modules if m in {unwanted} "
        "or m.startswith('densing.placement')), file=sys.stderr))\n"
        "from densing.cli import main\nmain(['trend'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Through 2025-03 on a second table" in " ".join(done.stdout.split())
    assert done.stderr.splitlines()[-1] == "LOADED ", done.stderr[-500:]
