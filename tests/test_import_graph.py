"""The house's shape (tools/import_graph.py): no import circle, nothing pointing back up the
pipeline (data → laws → trend → report; eval and overlap beside it; cli on top), and no private
name imported across packages."""

from pathlib import Path

import pytest

from tools import import_graph

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def graph():
    return import_graph.graph(ROOT)


def test_no_import_circle(graph):
    assert graph["package_cycles"] == [] and graph["module_cycles"] == []


def test_no_import_points_back_up_the_pipeline(graph):
    assert graph["upward"] == []


def test_no_private_name_is_imported_across_packages(graph):
    assert graph["private"] == []


def test_the_checker_sees_what_it_looks_for(tmp_path):
    """A planted circle, upward import and private import are found (the checks above are not vacuous)."""
    module = import_graph
    for package in ("data", "laws"):
        (tmp_path / "densing" / package).mkdir(parents=True)
        (tmp_path / "densing" / package / "__init__.py").write_text("")
    (tmp_path / "densing" / "__init__.py").write_text("")
    (tmp_path / "densing" / "data" / "b.py").write_text("from densing.laws.a import _hidden\nx = 1\n")
    (tmp_path / "densing" / "laws" / "a.py").write_text("from densing.data.b import x\n_hidden = 2\n")
    found = module.graph(tmp_path)
    assert found["package_cycles"] == [["data", "laws"]]
    assert found["upward"] == ["data -> laws (1)"]
    assert found["private"] == ["densing.data.b imports densing.laws.a._hidden"]


def test_a_result_importing_the_presentation_layer_points_back_up(tmp_path):
    """present stands above trend, placement and the base (results), below report: an import down is upward."""
    for package in ("trend", "present", "report"):
        (tmp_path / "densing" / package).mkdir(parents=True)
        (tmp_path / "densing" / package / "__init__.py").write_text("")
    (tmp_path / "densing" / "__init__.py").write_text("")
    (tmp_path / "densing" / "results.py").write_text("def f():\n    from densing.present.words import fold\n")
    (tmp_path / "densing" / "trend" / "a.py").write_text("def f():\n    from densing.present.words import fold\n")
    (tmp_path / "densing" / "present" / "words.py").write_text("from densing.trend import a\nfold = 1\n")
    (tmp_path / "densing" / "report" / "page.py").write_text("from densing.present.words import fold\n")
    assert import_graph.graph(tmp_path)["upward"] == ["results -> present (1)", "trend -> present (1)"]
