"""The example notebooks of docs/notebooks/ run offline as written (nbclient, a fresh kernel each, from their own
folder) and each draws its figures; in git they carry no outputs."""

from __future__ import annotations

import os

import pytest
from conftest import REPO_ROOT, SHARED_DATA

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = sorted((REPO_ROOT / "docs" / "notebooks").glob("*.ipynb"))
#: What each notebook needs beyond the shipped files, and how many figures it draws.
NEEDS = {"training_trace.ipynb": SHARED_DATA / "traces" / "hta" / "ddp_2rank"}
FIGURES = {"densing_law.ipynb": 2, "your_model.ipynb": 1, "training_trace.ipynb": 2}
PLOTLY = "application/vnd.plotly.v1+json"


def test_the_three_notebooks_are_there_without_outputs():
    assert {p.name for p in NOTEBOOKS} == set(FIGURES)
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        code = [c for c in notebook.cells if c.cell_type == "code"]
        assert code and all(not c.outputs and c.execution_count is None for c in code), f"{path.name}: outputs in git"
        assert sum(c.cell_type == "markdown" for c in notebook.cells) >= 4, f"{path.name}: a tutorial has words"


def test_docs_link_each_notebook():
    pages = " ".join(p.read_text() for p in (REPO_ROOT / "docs").glob("*.md"))
    for path in NOTEBOOKS:
        assert f"notebooks/{path.name}" in pages, f"{path.name} is linked from no page of docs/"


def _figures(notebook) -> list[dict]:
    return [
        o["data"][PLOTLY]
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.get("output_type") in ("display_data", "execute_result") and PLOTLY in o.get("data", {})
    ]


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_each_notebook_runs_and_draws_its_figures(path, monkeypatch):
    if path.name in NEEDS and not NEEDS[path.name].exists():
        pytest.skip(f"public data not found at {NEEDS[path.name]}")
    monkeypatch.setenv("DENSING_SHARED_DATA", str(SHARED_DATA))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    notebook = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, f"{path.name}: {errors[0]['ename']}: {errors[0]['evalue']}"
    figures = _figures(notebook)
    assert len(figures) == FIGURES[path.name], f"{path.name}: {len(figures)} figures drawn"
    for figure in figures:  # a figure with something in it: traces with points
        assert figure["data"] and any(len(t.get("x", t.get("base", []))) for t in figure["data"]), path.name


def test_a_notebook_that_lists_the_statuses_names_every_state():
    """Where a notebook's words list a row's statuses in code font (`measured`, `not measured: …`), every state of
    :data:`densing.present.words.STATE_WORDS` is among them."""
    from densing.present.words import STATE_WORDS

    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        for cell in (c for c in notebook.cells if c.cell_type == "markdown"):
            if "`not measured" in cell.source:
                missing = [w for w in STATE_WORDS.values() if f"`{w}" not in cell.source]
                assert missing == [], f"{path.name}: a list of statuses without {', '.join(missing)}"
