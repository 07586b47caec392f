"""Every public function of ``densing.__all__`` that takes data or options refuses a bad argument with a
:class:`densing.DensingError` whose message names the argument, never a bare ``ValueError``/``TypeError``/
``AttributeError``/``KeyError`` or a silent reinterpretation.

An option a function declares a constraint for (a count, a fraction, a date, a choice: its
``parameter_constraints``, :func:`densing.validation.validate_params`) is tried by ``tests/test_constraints.py``,
which reads the constraints off the function. What is left here are the arguments that carry data, which the
readers check as they read it: a table, a fit, scores, a list of benchmark names, a path to read. One catalogue of
bad values per kind of such argument; :data:`SIGNATURES` names each data argument's kind. A path that does not exist
is named as given (the file-level message the CLI prints too). The few good cases at the end check that the checks
let real use through.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import densing
from densing import registry
from densing.data import formats

REPO_ROOT = Path(__file__).resolve().parents[1]
PUBLIC = REPO_ROOT / "results" / "public_models.csv"
FIT_NAME = "llama-3.1_mmlu"


@pytest.fixture(scope="module")
def public() -> pd.DataFrame:
    return densing.read_results(PUBLIC)


@pytest.fixture(scope="module")
def fit():
    return densing.ReferenceFit.load(densing.paths.resolve_fit(FIT_NAME))


@pytest.fixture(scope="module")
def tiny(public) -> pd.DataFrame:
    """A few MMLU rows of the public table: enough for every check, too few to fit or measure anything."""
    return public[public["benchmark"] == "mmlu"].head(6).reset_index(drop=True)


# -- the catalogue: bad values by kind (each a function of the good table, for the table kind) ------------------


def _bad_tables(table: pd.DataFrame) -> dict[str, object]:
    return {
        "not-a-frame": "results/public_models.csv",
        "a-dict": {"model": ["m"]},
        "no-value-column": table.drop(columns="value"),
        "no-params-column": table.drop(columns="params"),
        "no-rows": table.iloc[0:0],
        "score-55": table.assign(value=55.0),
        "score-negative": table.assign(value=-1.0),
        "score-nan": table.assign(value=math.nan),
        "params-unparsable": table.assign(params="seven"),
        "params-negative": table.assign(params=-7e9),
        "model-twice": pd.concat([table, table.reindex(columns=["model"])], axis=1),
        "value-twice": pd.concat([table, table.reindex(columns=["value"])], axis=1),
    }


CATALOGUE: dict[str, dict[str, object]] = {
    "fit": {
        "int": 3,
        "empty-string": "",
        "blank": "  ",
        "unknown-name": "no-such-fit_mmlu",
        "missing-file": "nowhere/fit.json",
        "a-dict": {"kind": "two-step"},
    },
    "fits": {
        "int": 3,
        "empty-string": "",
        "empty-tuple": (),
        "empty-list": [],
        "unknown-name": "no-such-fit_mmlu",
        "list-with-int": [3],
    },
    "names": {
        "int": 3,
        "empty-string": "",
        "empty-tuple": (),
        "tuple-with-blank": ("mmlu", ""),
        "tuple-with-int": ("mmlu", 3),
    },
    "path": {"int": 3, "none": None, "empty-string": "", "blank": "   "},
    "missing-path": {"missing-file": "no/such/file.csv"},
    "tokens": {"negative": -1.0, "zero": 0.0, "nan": math.nan, "inf": math.inf, "string": "3e11", "huge": 1e30},
    "scores": {
        "string": "0.5",
        "empty-tuple": (),
        "score-55": [55.0],
        "score-negative": [-1.0],
        "nan": [math.nan],
        "inf": [math.inf],
        "a-dict": {"a": 0.5},
    },
    "text": {"int": 3, "empty-string": "", "none": None},
    "counts": {
        "negative": -5,
        "zero": 0,
        "nan": math.nan,
        "inf": math.inf,
        "word": "seven",
        "empty": [],
        "a-dict": {"n": 7e9},
    },
}


# -- which argument of which function is of which kind ----------------------------------------------------------
# Each entry: (function name, argument, kind, call(value, ctx)); ctx holds the good table, the fit and the tiny table.


def _sig(function: str, argument: str, kind: str, call):
    return (function, argument, kind, call)


SIGNATURES = [
    _sig("read_results", "path", "path", lambda v, c: densing.read_results(v)),
    _sig("read_results", "path", "missing-path", lambda v, c: densing.read_results(v)),
    _sig("read_table", "path", "path", lambda v, c: densing.read_table(v)),
    _sig("read_table", "path", "missing-path", lambda v, c: densing.read_table(v)),
    _sig("read_pythia_evals", "root", "path", lambda v, c: densing.read_pythia_evals(v)),
    _sig("read_pythia_evals", "root", "missing-path", lambda v, c: densing.read_pythia_evals(v)),
    _sig("read_lm_eval_json", "path", "path", lambda v, c: densing.read_lm_eval_json(v)),
    _sig("read_lm_eval_json", "path", "missing-path", lambda v, c: densing.read_lm_eval_json(v)),
    _sig("place", "scores", "path", lambda v, c: densing.place(v)),
    _sig("place", "scores", "missing-path", lambda v, c: densing.place(v)),
    _sig("invert", "fit", "fit", lambda v, c: densing.invert(v, [0.5])),
    _sig("invert", "scores", "scores", lambda v, c: densing.invert(c["fit"], v)),
    _sig("invert", "d0", "tokens", lambda v, c: densing.invert(c["fit"], [0.5], d0=v)),
    _sig("ReferenceFit.effective_params", "scores", "scores", lambda v, c: c["fit"].effective_params(v)),
    _sig("ReferenceFit.predict_score", "n_params", "counts", lambda v, c: c["fit"].predict_score(v, 1e12)),
    _sig("ReferenceFit.predict_score", "train_tokens", "counts", lambda v, c: c["fit"].predict_score(7e9, v)),
    _sig("ReferenceFit.predict_loss", "train_tokens", "counts", lambda v, c: c["fit"].predict_loss(7e9, v)),
    _sig("compute_density", "targets", "table", lambda v, c: densing.compute_density(v, c["fit"], intervals=False)),
    _sig("compute_density", "fits", "fits", lambda v, c: densing.compute_density(c["tiny"], v, intervals=False)),
    _sig("fit_trend", "targets", "table", lambda v, c: densing.fit_trend(v, c["fit"], n_boot=40, n_boot_share=0)),
    _sig("fit_trend", "reference", "fits", lambda v, c: densing.fit_trend(c["tiny"], v, n_boot=40, n_boot_share=0)),
    _sig(
        "fit_trend",
        "benchmarks",
        "names",
        lambda v, c: densing.fit_trend(c["tiny"], "Llama-3.1", benchmarks=v, n_boot=40, n_boot_share=0),
    ),
    _sig("measure_trend", "targets", "table", lambda v, c: densing.measure_trend(v, n_boot=40, n_boot_side=40)),
    _sig(
        "measure_trend", "fit", "fit", lambda v, c: densing.measure_trend(c["tiny"], fit=v, n_boot=40, n_boot_side=40)
    ),
    _sig("measure_trend", "table", "text", lambda v, c: densing.measure_trend(c["tiny"], table=v)),
    _sig("fit_reference", "frame", "table", lambda v, c: densing.fit_reference(v, "mmlu", n_boot=0)),
    _sig("fit_reference", "benchmark", "names", lambda v, c: densing.fit_reference(c["tiny"], v, n_boot=0)),
    _sig(
        "held_out_validation",
        "frame",
        "table",
        lambda v, c: densing.held_out_validation(v, "mmlu", max_params=1e10, n_boot=0),
    ),
    _sig(
        "held_out_validation",
        "benchmark",
        "names",
        lambda v, c: densing.held_out_validation(c["tiny"], v, max_params=1e10, n_boot=0),
    ),
    _sig("measure", "models", "names", lambda v, c: densing.measure(v)),
    _sig("measure", "suite", "text", lambda v, c: densing.measure([{"model": "hf-internal-testing/tiny"}], suite=v)),
]

# the table kind's cases are built from the tiny table; the others are fixed values
CASES = []
for function, argument, kind, call in SIGNATURES:
    names = list(_bad_tables(pd.DataFrame(columns=["value", "params"]))) if kind == "table" else list(CATALOGUE[kind])
    if kind == "names" and function == "measure":  # a models argument: a lone string is a models file's path
        names = [n for n in names if n not in ("tuple-with-blank", "tuple-with-int")]
    for case in names:
        CASES.append(pytest.param(function, argument, kind, case, call, id=f"{function}-{argument}-{kind}-{case}"))


@pytest.fixture(scope="module")
def ctx(public, fit, tiny):
    return {"public": public, "fit": fit, "tiny": tiny}


def _value(kind: str, case: str, ctx):
    return _bad_tables(ctx["tiny"])[case] if kind == "table" else CATALOGUE[kind][case]


@pytest.mark.parametrize("function, argument, kind, case, call", CASES)
def test_bad_argument_is_a_densing_error_naming_it(function, argument, kind, case, call, ctx):
    value = _value(kind, case, ctx)
    with pytest.raises(Exception) as caught:
        call(value, ctx)
    error = caught.value
    assert isinstance(error, densing.DensingError), f"{type(error).__name__}: {error}"
    message = str(error)
    assert "\n" not in message.strip(), message
    named = argument in message or (kind == "missing-path" and str(value) in message)
    # measure's models and suite name the item at fault (models[0], --suite) as the CLI prints them
    named = named or function == "measure" and (argument in message or "suite" in message or "model" in message)
    assert named, message


def test_every_public_function_taking_data_is_in_the_catalogue():
    """A function added to densing.__all__ joins SIGNATURES or declares its constraints (or is named here as taking
    no data)."""
    without_data = {
        "DensingError",
        "EvalError",
        "FitError",
        "InputError",
        "TraceError",
        "WorkerError",
        "__version__",
        "density",
        "overlap",
        "paths",
        "present",
        "ReferenceFit",
    }
    covered = {f for f, *_ in SIGNATURES}
    covered |= {name for name in densing.__all__ if hasattr(getattr(densing, name), "parameter_constraints")}
    assert set(densing.__all__) - without_data <= covered, set(densing.__all__) - without_data - covered


def test_no_data_argument_here_is_a_declared_option():
    """An argument with a declared constraint is tried by tests/test_constraints.py, not twice here."""
    for function, argument, _, _ in SIGNATURES:
        target = getattr(densing, function.split(".")[0])
        declared = getattr(target, "parameter_constraints", {})
        assert argument not in declared, (function, argument)


# -- good arguments still work --------------------------------------------------------------------------------


def test_a_short_fit_name_resolves_everywhere(fit, tiny):
    by_name = densing.invert(FIT_NAME, [0.5, 0.6])
    assert np.allclose(by_name["effective_params"], densing.invert(fit, [0.5, 0.6])["effective_params"])
    named = densing.compute_density(tiny, FIT_NAME, intervals=False)
    assert np.allclose(named["density"], densing.compute_density(tiny, fit, intervals=False)["density"])
    path = densing.compute_density(tiny, densing.paths.resolve_fit(FIT_NAME), intervals=False)
    assert np.allclose(path["density"], named["density"])


def test_one_string_is_one_benchmark(public):
    one = densing.fit_trend(public, "Llama-3.1", benchmarks="mmlu", n_boot=40, n_boot_share=0)
    same = densing.fit_trend(public, "Llama-3.1", benchmarks=("mmlu",), n_boot=40, n_boot_share=0)
    assert one.doubling_time_months == same.doubling_time_months


def test_counts_written_as_text_are_parsed(tiny, fit):
    written = tiny.assign(params=[f"{p / 1e9:g}B" for p in tiny["params"]])
    assert np.allclose(
        densing.compute_density(written, fit, intervals=False)["density"],
        densing.compute_density(tiny, fit, intervals=False)["density"],
    )


def test_a_scalar_score_and_the_bounds_invert(fit):
    assert len(densing.invert(fit, 0.5)) == 1
    assert len(densing.invert(fit, [0.0, 1.0])) == 2
    assert fit.effective_params([0.5]).shape == (1,)


# -- module-level functions the documentation reaches, and numpy's numbers --------------------------------------


def test_numpy_scalars_are_numbers_to_a_constraint(fit):
    """``conf_int(np.float32(0.05))`` is the 0.05 it holds; ``np.float32(1.5)`` is refused as 1.5 is, in words that
    agree with themselves."""
    pd.testing.assert_frame_equal(fit.conf_int(np.float32(0.05)), fit.conf_int(0.05), rtol=1e-6)
    assert fit.conf_int(np.float16(0.1)) is not None
    with pytest.raises(densing.InputError, match=r"^alpha: expected a number in \(0, 1\), got np.float32\(1.5\)"):
        fit.conf_int(np.float32(1.5))
    with pytest.raises(densing.InputError, match="^alpha: expected a number"):
        fit.conf_int(np.bool_(True))


def test_a_results_alpha_in_single_precision_is_its_level(public):
    """A result holding 95% intervals answers ``conf_int(np.float32(0.05))`` (0.05 to single precision); another
    level is refused naming both, each written as a number."""
    trend = densing.fit_trend(public, n_boot=40, n_boot_share=0)
    pd.testing.assert_frame_equal(trend.conf_int(np.float32(0.05)), trend.conf_int(0.05))
    with pytest.raises(
        densing.InputError,
        match=r"^alpha: TrendUncertainty holds 0.95 intervals \(alpha = 0.05\), "
        r"got 0.1; refit at level 0.9",
    ):
        trend.conf_int(np.float32(0.1))


def test_invert_joint_refuses_what_is_no_fit_list_or_no_score(fit):
    from densing.laws.joint import invert_joint

    for fits in ([], "fits", [3], None):
        with pytest.raises(densing.InputError, match="^fits: expected a non-empty list of ReferenceFit"):
            invert_joint(fits, [[0.5]], [[0.01]])
    for scores, stderr in (([[1.5]], [[0.01]]), ([[0.5]], [[-0.01]]), ([["x"]], [[0.01]]), ([[math.inf]], [[0.0]])):
        with pytest.raises(
            densing.InputError, match=r"^(scores, stderr|(scores|stderr) \(model 0, benchmark \w+\)): expected"
        ):
            invert_joint([fit], scores, stderr)
    assert np.isfinite(invert_joint([fit], [[0.5]], [[0.01]]).log_size).all()


def test_the_overlap_api_refuses_strings_empty_frames_and_wrong_types(tmp_path):
    import sys

    from densing import overlap

    sys.path.insert(0, str(REPO_ROOT / "tests" / "overlap"))
    from overlap_tracegen import hand_trace, write_trace

    trace = write_trace(tmp_path / "rank0.json", hand_trace(shift=1000))
    rows, steps = overlap.analyze(trace), overlap.analyze_steps(trace)
    calls = {
        "analyze(5)": lambda: overlap.analyze(5),
        "analyze([])": lambda: overlap.analyze([]),
        "analyze(workers=0)": lambda: overlap.analyze(trace, workers=0),
        "analyze_steps('  ')": lambda: overlap.analyze_steps("  "),
        "compare('a', 'b')": lambda: overlap.compare("a", "b"),
        "compare(empty)": lambda: overlap.compare(pd.DataFrame(), rows),
        "compare(rows, rows, rows)": lambda: overlap.compare(rows, rows, rows),
        "step_skew('x')": lambda: overlap.step_skew("x"),
        "step_skew(empty)": lambda: overlap.step_skew(pd.DataFrame()),
        "step_skew(rows)": lambda: overlap.step_skew(rows),
        "predict('x')": lambda: overlap.predict("x"),
        "predict(rows)": lambda: overlap.predict(rows),
        "calibrate(3)": lambda: overlap.calibrate(3),
    }
    for name, call in calls.items():
        with pytest.raises(densing.DensingError) as caught:
            call()
        assert "\n" not in str(caught.value), (name, str(caught.value))
    assert len(overlap.compare(rows, rows)) and len(overlap.step_skew(steps))
    assert len(overlap.predict(overlap.calibrate(trace), workers=[1, 2]))


def test_candidate_table_and_the_draws_refuse_impossible_values(public):
    from densing.laws.eligibility import candidate_table

    for targets in ("targets", pd.DataFrame(), public.drop(columns="value")):
        with pytest.raises(densing.InputError, match="^targets: expected a DataFrame with column"):
            candidate_table(targets)
    for call in (
        lambda: densing.measure_trend(public, n_boot=10**20),
        lambda: densing.fit_trend(public, n_boot=10**20),
    ):
        with pytest.raises(densing.InputError, match=r"^n_boot: expected an integer in \[40, 100000\] \(.*ceiling\)"):
            call()


@pytest.mark.parametrize("draws", [{"n_boot": 39}, {"n_boot": 2}, {"n_boot_side": 39}])
def test_the_api_gives_an_interval_from_as_many_draws_as_the_command_line(public, draws):
    """An interval the API gives is read from at least the 40 draws ``--n-boot`` requires (each end of a 95%
    interval a draw beyond it): fewer are refused in one line naming the argument and the minimum, before any work."""
    from densing.trend import cost_halving_time

    name = next(iter(draws))
    calls = [lambda: densing.measure_trend(public, **draws)]
    if name == "n_boot":
        calls += [
            lambda: densing.fit_trend(public, **draws),
            lambda: cost_halving_time(public, **draws),
            lambda: densing.place("tests/placement/fixtures/lm_eval_results.json", **draws),
        ]
    for call in calls:
        with pytest.raises(densing.InputError, match=rf"^{name}: .*\b40\b") as refused:
            call()
        assert "\n" not in str(refused.value)


def test_the_trace_figures_refuse_each_others_arguments(tmp_path):
    import sys

    from densing import overlap
    from densing.overlap import figures

    sys.path.insert(0, str(REPO_ROOT / "tests" / "overlap"))
    from overlap_tracegen import hand_trace, write_trace

    trace = write_trace(tmp_path / "rank0.json", hand_trace(shift=1000))
    traces, rows = overlap.read_traces(trace), overlap.analyze(trace)
    what_if = overlap.predict(overlap.calibrate(trace), workers=[1, 2])
    given = {
        "traces": traces,
        "rows": rows,
        "runs": {"a": rows},
        "what-if rows": what_if,
        "text": "x",
        "empty": pd.DataFrame(),
    }
    takes = {
        figures.breakdown_figure: "rows",
        figures.timeline_figure: "traces",
        figures.runs_figure: "runs",
        figures.whatif_figure: "what-if rows",
    }
    for figure, own in takes.items():
        assert figure(given[own]) is not None
        for name, value in given.items():
            if name == own:
                continue
            with pytest.raises(densing.InputError) as caught:
                figure(value)
            assert "\n" not in str(caught.value) and len(str(caught.value)) < 600, (figure.__name__, name)


SCORES = REPO_ROOT / "tests" / "placement" / "fixtures" / "lm_eval_results.json"
#: Values of the wrong type where a path, a name or a count is needed.
WRONG_TYPES = {"int": 3, "list": ["public"], "none": None, "bytes": b"public", "dict": {"name": "public"}}
#: The entries that take a path, a table's name or a count: (name, call, whether None is a valid value there).
TYPED_ENTRIES = {
    "place(scores)": (lambda v: densing.place(v), False),
    "place(params)": (lambda v: densing.place(SCORES, params=v), True),
    "place(table)": (lambda v: densing.place(SCORES, table=v), True),
    "place(results)": (lambda v: densing.place(SCORES, results=v), True),
    "place(target)": (lambda v: densing.place(SCORES, target=v), True),
    "measure_trend(targets)": (lambda v: densing.measure_trend(v), False),
    "measure_trend(table)": (lambda v: densing.measure_trend(pd.DataFrame(), table=v), True),
    "registry.table": (lambda v: registry.table(v), True),
    "registry.resolve_table(results)": (lambda v: registry.resolve_table(v), True),
    "registry.resolve_table(table)": (lambda v: registry.resolve_table(None, v), True),
    "registry.table_for_path": (lambda v: registry.table_for_path(v), True),
    "registry.tables()[name]": (lambda v: registry.tables()[v], False),
    "registry.designs().get": (lambda v: registry.designs().get(v), False),
    "registry.register_table": (lambda v: registry.register_table(v), False),
    "data.formats.register_format": (lambda v: formats.register_format(v), False),
}


@pytest.mark.parametrize(
    "entry, kind",
    [(e, k) for e, (_, none_ok) in TYPED_ENTRIES.items() for k in WRONG_TYPES if not (none_ok and k == "none")],
)
def test_a_wrong_type_where_a_path_name_or_count_is_needed_is_one_line(entry, kind):
    """``densing.place``, ``densing.measure_trend`` and the registries given an int, a list, None, bytes or a dict
    where a path, a name or a count is needed: densing's InputError in one line, never Python's TypeError or
    AttributeError (an unknown name is also the KeyError a mapping raises)."""
    call, _ = TYPED_ENTRIES[entry]
    with pytest.raises(densing.InputError) as refused:
        call(WRONG_TYPES[kind])
    assert "\n" not in str(refused.value) and str(refused.value).strip(), refused.value
    if entry == "registry.tables()[name]":
        assert isinstance(refused.value, KeyError) and WRONG_TYPES[kind] not in registry.tables()
