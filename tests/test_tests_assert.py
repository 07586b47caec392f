"""Every test can fail: each test function checks something.

The rule, read from the source with :mod:`ast`: a function named ``test…`` in a ``test_*.py`` module under tests/
(at module level or in a class) passes the check when its body, nested blocks included, holds at least one of

- an ``assert`` statement;
- a call named ``raises``, ``warns``, ``deprecated_call`` or ``fail`` (``pytest.raises(...)``, ``with pytest.warns``,
  ``pytest.fail(...)``), or a call whose name starts with ``assert`` (``np.testing.assert_allclose``,
  ``pd.testing.assert_frame_equal``);
- a call, by name, to a helper function defined anywhere under tests/ (any function not named ``test…``) that itself
  passes this check, directly or through other helpers.

A test whose claim is only that a call returns without raising (a raise fails it) may stand in :data:`ALLOWED`, with
the reason; an entry that names no such test any more fails the check too.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CHECKING_CALLS = {"raises", "warns", "deprecated_call", "fail"}

#: "path relative to tests/::function" -> why it checks something without an assertion of its own.
ALLOWED = {
    "eval/test_device.py::test_a_torch_device_is_accepted": "claims only that validate() returns for a device torch accepts; an InputError fails it",
    "test_validation.py::test_valid_values_pass": "claims only that validate() returns for each declared-valid value; an InputError fails it",
    "test_validation.py::test_undeclared_arguments_are_not_checked": "claims only that validate() returns for an argument with no declaration; an InputError fails it",
}


def _call_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _checks_directly(function: ast.AST) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            name = _call_name(node) or ""
            if name in CHECKING_CALLS or name.startswith("assert"):
                return True
    return False


def _called(function: ast.AST) -> set[str]:
    return {_call_name(n) for n in ast.walk(function) if isinstance(n, ast.Call)} - {None}


def _functions() -> tuple[dict[str, ast.AST], dict[str, list[ast.AST]]]:
    """(tests by "path::name", helpers by name) of every module under tests/."""
    tests, helpers = {}, {}
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if node.name.startswith("test") and path.name.startswith("test_"):
                tests[f"{path.relative_to(TESTS).as_posix()}::{node.name}"] = node
            else:
                helpers.setdefault(node.name, []).append(node)
    return tests, helpers


def unchecked(tests: dict[str, ast.AST], helpers: dict[str, list[ast.AST]]) -> list[str]:
    """The keys of ``tests`` that pass the rule of this module's docstring by none of its three ways."""
    checking = {name for name, defs in helpers.items() if any(_checks_directly(d) for d in defs)}
    while True:  # helpers that call a checking helper check too
        more = {
            name for name, defs in helpers.items() if name not in checking and any(_called(d) & checking for d in defs)
        }
        if not more:
            break
        checking |= more
    return sorted(key for key, node in tests.items() if not (_checks_directly(node) or _called(node) & checking))


def test_every_test_function_asserts_or_expects_an_exception():
    tests, helpers = _functions()
    found = unchecked(tests, helpers)
    assert len(tests) > 500  # the walk reads the whole suite
    assert set(found) <= set(ALLOWED), f"tests that check nothing: {sorted(set(found) - set(ALLOWED))}"
    assert set(ALLOWED) <= set(found), (
        f"ALLOWED names tests that now assert or are gone: {sorted(set(ALLOWED) - set(found))}"
    )
    assert all(len(why) > 20 for why in ALLOWED.values())


def test_the_rule_catches_a_test_that_checks_nothing():
    """The rule on planted source: a test that only runs code is caught; an assert reached through two helpers, an
    expected exception and an ``assert…`` call pass."""
    source = """
def helper(x):
    assert x

def outer(x):
    helper(x)

def quiet(x):
    print(x)

def test_only_runs():
    quiet(1)

def test_via_helpers():
    outer(1)

def test_raises():
    with pytest.raises(ValueError):
        int("x")

def test_numpy():
    np.testing.assert_allclose(1.0, 1.0)
"""
    nodes = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
    tests = {n.name: n for n in nodes if n.name.startswith("test")}
    helpers = {n.name: [n] for n in nodes if not n.name.startswith("test")}
    assert unchecked(tests, helpers) == ["test_only_runs"]
    assert unchecked(tests, {k: v for k, v in helpers.items() if k != "helper"}) == [
        "test_only_runs",
        "test_via_helpers",
    ]
