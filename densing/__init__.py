"""densing: LLM evaluation and capacity-density analytics (Xiao et al. 2024, the Densing Law).

The pandas API, for notebooks::

    import densing
    ref = densing.read_pythia_evals("../shared/data/pythia_evals/pythia-v1")
    fit = densing.fit_reference(ref, "lambada_openai", law="two-step", min_train_tokens=3e9)
    table = densing.compute_density(densing.read_results("results/pythia_final.csv"), fit, d0=3e11)
    # the trend needs models released on many dates: the public table, as `densing trend` does
    public = densing.read_results("results/public_models.csv")
    trend = densing.fit_trend(public, n_boot=100)       # the doubling time: the CLI's defaults and reference
    result = densing.measure_trend(public, n_boot=100)  # the same engine with its checks and the verdict
    print(densing.present.verdict_of(result))            # what a reader sees comes from densing.present

Heavy modules load on first use, so ``import densing`` (and ``densing --help``) stays quick.

The public names (``densing.__all__``; ``dir(densing)`` lists them before they load)::

    read_results(path)               -> DataFrame: a tidy table from any known format (CSV, store, lm-eval JSON)
    read_table(path)                 -> DataFrame: a tidy CSV/Parquet table, validated
    read_pythia_evals(folder)        -> DataFrame: the Pythia suite's evaluations
    read_lm_eval_json(path)          -> DataFrame: one lm-eval results file, raw
    fit_reference(frame, benchmark)  -> ReferenceFit: the Densing Law on reference models, bootstrapped
    held_out_validation(frame, ...)  -> (ReferenceFit, DataFrame): a fit on the small models, judged on the large ones
    ReferenceFit                        a fitted reference law (load, save, invert, predict)
    invert(fit, scores)              -> DataFrame: effective parameter size of each score
    compute_density(targets, fit)    -> DataFrame: effective size and capacity density per model, its words in place
    density                             the density tables' module (:mod:`densing.laws.density`: values, no words)
    fit_trend(targets, reference)    -> TrendUncertainty: ln ρmax = A·t + B, the doubling time, fit × score × models × reference
    measure_trend(targets)           -> TrendMeasurement: the headline, rows per benchmark, checks
    pooled_trend()                   -> PooledTrend: one Densing Law from the three tables (densing trend --table all)
    overlap                             the training-trace profiler's package (read_traces, metrics, what-if)
    paths                               where the shipped data is: paths.RESULTS / "public_models.csv", paths.REFERENCE_FITS
    present                             what a reader sees of a result: summary(r), figure(r), status(r), verdict_of(r), record(r)
    measure(models, suite=...)       -> MeasureResult: your models evaluated and placed against the headline's frontier
    place(scores)                    -> MeasureResult: a scores file (table or lm-eval JSON) placed against the headline
    DensingError, InputError, FitError, TraceError, EvalError, WorkerError: the errors densing raises
"""

import functools as _functools
from importlib import import_module as _import_module

from densing.errors import DensingError, EvalError, FitError, InputError, TraceError, WorkerError

_LAZY = {
    "fit_reference": ("densing.laws.reference", "fit_reference"),
    "held_out_validation": ("densing.laws.held_out", "held_out_validation"),
    "ReferenceFit": ("densing.laws.reference_fit", "ReferenceFit"),
    "invert": ("densing.laws.inversion", "invert"),
    "read_results": ("densing.data.formats", "read_results"),
    "read_table": ("densing.data.readers", "read_table"),
    "read_pythia_evals": ("densing.data.readers", "read_pythia_evals"),
    "read_lm_eval_json": ("densing.data.readers", "read_lm_eval_json"),
    # the table with its words in place (fit_verdict, the extrapolation notes); densing.density's holds values
    "compute_density": ("densing.present.laws", "compute_density"),
    "density": ("densing.laws.density", None),  # the per-model density tables' module
    "fit_trend": ("densing.trend.doubling", "fit_trend"),
    "measure_trend": ("densing.trend.measure", "measure_trend"),
    "pooled_trend": ("densing.trend.pooled_trend", "pooled_trend"),
    "overlap": ("densing.overlap", None),  # the training-trace profiler (read_traces, metrics, what-if)
    "paths": ("densing.paths", None),  # where the shipped tables and fits are: paths.RESULTS, paths.REFERENCE_FITS
    "present": ("densing.present", None),  # what a reader sees of a result: summary, figure, status, record, …
    "measure": ("densing.placement.measure", "measure"),
    "place": ("densing.placement.own_scores", "place"),
}


@_functools.lru_cache(maxsize=1)
def _version() -> str:
    """The installed distribution's version, read once (every fit records it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("densing")
    except PackageNotFoundError:  # running from a source tree
        return "0.1.0"


def __getattr__(name: str):
    if name == "__version__":  # importlib.metadata is slow to import; only a caller asking pays for it
        return _version()
    if name not in _LAZY:
        raise AttributeError(f"module 'densing' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = _import_module(module_name)
    _import_module("densing.present")  # installs the display a notebook's cell shows every result by
    return module if attribute is None else getattr(module, attribute)


__all__ = ["DensingError", "EvalError", "FitError", "InputError", "TraceError", "WorkerError", "__version__", *_LAZY]


def __dir__() -> list[str]:
    """``__all__`` and the submodules already imported (``dir()``, tab completion): nothing the module uses inside."""
    loaded = {
        name for name, value in globals().items() if type(value).__name__ == "module" and not name.startswith("_")
    }
    return sorted(set(__all__) | loaded)
