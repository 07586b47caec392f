"""The constraints a public function carries (:func:`densing.validation.validate_params`), read off the function.

One walk over every module of the package finds each function and method that declares constraints (its
``parameter_constraints``), ``densing.__all__``'s included. For each declared argument and each of its constraints
the test passes values outside that constraint (and outside the argument's other constraints too), every other
declared argument a valid value, and expects an :class:`~densing.errors.InputError` (a
:class:`~densing.errors.DensingError`) whose message is the one message of every constraint kind:
``NAME: expected WHAT, got VALUE``, WHAT the argument's constraints joined by "or". A function that declares a new
argument is checked by declaring it; no table of argument kinds is kept here.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
from functools import lru_cache
from numbers import Real
from pathlib import Path

import pytest

import densing
from densing.errors import DensingError, InputError
from densing.validation import (
    Date,
    Device,
    ExistingPath,
    Frame,
    InstanceOf,
    Interval,
    Options,
    Text,
    WholeNumber,
    shown,
    validate_params,
)

#: Modules a walk does not import: entry points that run when imported, a worker's child process.
NOT_IMPORTED = ("densing.cli.__main__", "densing.eval.backends.__main__", "densing.eval.isolated_child")


@lru_cache(maxsize=1)
def declared() -> dict[str, object]:
    """Qualified name → every function or method of the package that carries ``parameter_constraints``."""
    found = {}
    for info in pkgutil.walk_packages(densing.__path__, "densing."):
        if info.name in NOT_IMPORTED:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if getattr(value, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(value):
                for attribute, member in vars(value).items():
                    if hasattr(member, "parameter_constraints"):
                        found[f"{module.__name__}.{name}.{attribute}"] = member
            elif hasattr(value, "parameter_constraints"):
                found[f"{module.__name__}.{name}"] = value
    return found


def _outside(constraint) -> list:
    """Values outside one constraint, by its kind (a few each: below, above, not a number, not finite …)."""
    if constraint is None:
        return []
    if isinstance(constraint, Interval):
        values = ["seven", math.nan, math.inf, True]
        if constraint.left is not None:
            values += (
                [constraint.left - 1, constraint.left]
                if constraint.closed in ("right", "neither")
                else [constraint.left - 1]
            )
        if constraint.right is not None:
            values += [constraint.right + 1] + ([constraint.right] if constraint.closed in ("left", "neither") else [])
        if constraint.kind is not Real and constraint.left is not None:
            values.append(constraint.left + 0.5)
        return values
    if isinstance(constraint, WholeNumber):
        return [constraint.left - 1, constraint.right + 1, constraint.left + 0.5, "seven"]
    if isinstance(constraint, Options):
        return ["no-such-option", 3.5, ["a", "list"]]
    if isinstance(constraint, Text):
        return ["", "   ", 3]
    if isinstance(constraint, ExistingPath):
        return ["no/such/path", "", 3]
    if isinstance(constraint, Date):
        return ["yesterday", "1899-12-30", "2999-01-01", 20230224]
    if isinstance(constraint, Device):
        return ["gpu", "cuda:-1", 3]
    if isinstance(constraint, Frame):
        import pandas as pd

        return [
            "table",
            pd.DataFrame(),
            _frame(constraint.columns[1:]),
            _frame(constraint.columns).rename(columns={constraint.columns[-1]: constraint.columns[0]}),
        ]
    if isinstance(constraint, InstanceOf):
        return [None, "object", 3.5]
    if type(constraint).__name__ == "TraceSource":
        return ["", "   ", 3.5, [], ["not a trace"]]
    return ["no-such-value", 3.5]


def _frame(columns):
    """A one-row DataFrame with ``columns`` (each 1.0)."""
    import pandas as pd

    return pd.DataFrame({c: [1.0] for c in columns})


def _inside(constraints: list):
    """A value one of ``constraints`` accepts (the first kind that gives one)."""
    for constraint in constraints:
        if constraint is None:
            return None
        if isinstance(constraint, (Interval, WholeNumber)):
            left = 0 if constraint.left is None else constraint.left
            right = left + 2 if constraint.right is None else constraint.right
            for number in (int(left), int(left) + 1, (left + right) / 2):
                if constraint.matches(number):
                    return number
        if isinstance(constraint, Options):
            return sorted(constraint.values, key=str)[0]
        if isinstance(constraint, Text):
            return "text"
        if isinstance(constraint, ExistingPath):
            return str(Path(__file__)) if constraint.kind == "file" else str(Path(__file__).parent)
        if isinstance(constraint, Date):
            return "2023-02-24"
        if isinstance(constraint, Device):
            return "cpu"
        if isinstance(constraint, Frame):
            return _frame(constraint.columns)
        if constraint.matches("hf"):  # a backend's name (densing.eval.backends.BackendName)
            return "hf"
    raise AssertionError(f"no valid value known for {constraints}")


def _shown(value) -> str:
    return shown(value)


def _cases():
    cases = []
    for qualified, function in declared().items():
        for argument, allowed in function.parameter_constraints.items():
            for constraint in allowed:
                bad = [v for v in _outside(constraint) if not any(_accepts(c, v) for c in allowed)]
                for value in bad:
                    cases.append(
                        pytest.param(
                            qualified,
                            argument,
                            value,
                            id=f"{qualified}-{argument}-{type(constraint).__name__}-{value!r}",
                        )
                    )
    return cases


def _accepts(constraint, value) -> bool:
    return value is None if constraint is None else constraint.matches(value)


def _arguments(function, argument: str, value) -> dict:
    """Keyword arguments for ``function``: ``value`` for ``argument``, a valid value for every other declared one,
    None for any other argument without a default (the check runs before the body, which never sees them)."""
    constraints = function.parameter_constraints
    given = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if name == argument:
            given[name] = value
        elif name in constraints:
            given[name] = _inside(constraints[name])
        elif parameter.default is parameter.empty:
            given[name] = None
    return given


@pytest.mark.parametrize("qualified, argument, value", _cases())
def test_a_value_outside_a_declared_constraint_is_refused_with_its_kinds_message(qualified, argument, value):
    function = declared()[qualified]
    allowed = function.parameter_constraints[argument]
    with pytest.raises(DensingError) as caught:
        function(**_arguments(function, argument, value))
    assert isinstance(caught.value, InputError), type(caught.value)
    expected = " or ".join("None" if c is None else str(c) for c in allowed)
    assert str(caught.value) == f"{argument}: expected {expected}, got {_shown(value)}"


def test_the_walk_finds_the_public_functions_that_take_options():
    """``densing.__all__``'s estimators and every result's ``conf_int`` carry their constraints."""
    names = set(declared())
    for public in (
        "fit_reference",
        "held_out_validation",
        "compute_density",
        "fit_trend",
        "measure_trend",
        "read_pythia_evals",
        "read_lm_eval_json",
    ):
        assert hasattr(getattr(densing, public), "parameter_constraints"), public
    assert "densing.results.Result.conf_int" in names
    assert sum(n.endswith(".conf_int") for n in names) >= 5
    assert len(_cases()) > 100


def test_every_declared_constraint_has_a_value_outside_it():
    """A constraint kind the walk cannot refuse a value of would leave its argument unchecked here."""
    for qualified, function in declared().items():
        for argument, allowed in function.parameter_constraints.items():
            for constraint in allowed:
                if constraint is not None:
                    assert [v for v in _outside(constraint) if not _accepts(constraint, v)], (qualified, argument)


def test_valid_values_pass_the_check():
    """The values the walk passes as valid are valid: the check lets them through to the body."""
    seen = []

    @validate_params({"n": [Interval(int, 1, None)], "name": [Text()], "when": [Date(), None]})
    def probe(n, *, name, when=None):
        seen.append((n, name, when))

    probe(**_arguments(probe, "when", None))
    assert seen == [(1, "text", None)]


def test_a_constraint_on_an_argument_the_function_lacks_is_refused_at_import():
    with pytest.raises(TypeError, match="does not take: nope"):
        validate_params({"nope": [Text()]})(lambda n: n)


@pytest.mark.parametrize(
    "argv",
    [
        ["fit", "--data", "results/public_models.csv", "--benchmark", "mmlu", "--n-boot", "-1"],
        ["fit", "--data", "results/public_models.csv", "--benchmark", "mmlu", "--jobs", "0"],
        ["ladder", "fit", "--data", "results", "--seed", "-3"],
        ["ladder", "check", "--data", "no/such/folder"],
    ],
)
def test_a_refusal_at_the_cli_is_one_line_and_exit_2(argv, capsys):
    from densing.cli import main

    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err, err
