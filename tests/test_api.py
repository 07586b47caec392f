"""The public API is discoverable from a notebook: ``dir(densing)`` and ``densing.__all__`` list it
before anything heavy loads, ``help(densing)`` opens with a map of it, and each public function's
first docstring line says what it returns."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import densing

PUBLIC_FUNCTIONS = [n for n in densing.__all__ if inspect.isfunction(getattr(densing, n))]
#: First docstring lines that still name an action instead of the result; strict: fixing one fails this list.
ACTION_FIRST_LINES: set[str] = set()


def test_dir_lists_the_public_api_without_loading_it():
    code = (
        "import sys, densing\nnames = dir(densing)\n"
        "missing = [n for n in densing.__all__ if n not in names]\n"
        "heavy = [m for m in ('pandas', 'numpy', 'scipy', 'densing.laws', 'densing.trend') if m in sys.modules]\n"
        "print(missing, heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[] []", done.stdout + done.stderr


def test_dir_holds_no_name_the_module_uses_inside():
    assert not {"import_module", "functools", "_LAZY", "_version"} & set(dir(densing))


def test_all_holds_the_lazy_names_and_each_resolves():
    for name in (
        "fit_reference",
        "compute_density",
        "read_results",
        "measure_trend",
        "fit_trend",
        "ReferenceFit",
        "WorkerError",
    ):
        assert name in densing.__all__ and name in dir(densing)
    for name in densing.__all__:
        assert getattr(densing, name) is not None, name


def test_help_opens_with_a_map_of_every_public_name():
    doc = densing.__doc__
    for name in densing.__all__:
        if name != "__version__":
            assert name in doc, name
    for name in PUBLIC_FUNCTIONS:  # the map says what each function gives back
        line = next(l for l in doc.splitlines() if l.strip().startswith(name + "("))
        assert "->" in line, line


def _names_its_result(function) -> bool:
    first = inspect.getdoc(function).splitlines()[0]
    annotation = inspect.signature(function).return_annotation
    named = str(getattr(annotation, "__name__", annotation)).split("[")[0].split(".")[-1].split(" ")[0]
    words = (
        {named, "→", "return"}
        | ({"table", "frame"} if named == "DataFrame" else set())
        | ({"(fit, table)"} if named == "tuple" else set())
    )
    return any(w in first for w in words)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="the first line names the action"))
        if n in ACTION_FIRST_LINES
        else n
        for n in PUBLIC_FUNCTIONS
    ],
)
def test_first_docstring_line_says_what_it_returns(name):
    assert _names_its_result(getattr(densing, name)), inspect.getdoc(getattr(densing, name)).splitlines()[0]


def test_the_overlap_package_is_an_attribute_and_a_rank_trace_repr_is_one_line():
    from conftest import SHARED_DATA

    import densing

    assert densing.overlap.__name__ == "densing.overlap" and "overlap" in dir(densing)
    traces = SHARED_DATA / "traces" / "hta" / "ddp_2rank"
    if not traces.is_dir():
        pytest.skip(f"public traces not found at {traces}")
    rank = densing.overlap.read_traces(traces)[0]
    text = repr(rank)
    assert "\n" not in text and len(text) < 160 and f"{rank.kernel_count:,} kernels" in text
    assert "<table" in rank._repr_html_()
