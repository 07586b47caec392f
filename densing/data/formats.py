"""The registry of reference-data formats, :data:`FORMATS`: one :class:`DataFormat` per layout on disk, tried in
order, the first whose ``sniff`` says yes reading the path. :func:`register_format` puts a new one ahead of the shipped
ones (docs/extending.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from densing import paths
from densing.data import olmo, readers
from densing.errors import InputError
from densing.io import kind_of_file
from densing.registry import Registry, check_callable, check_range, check_type
from densing.validation import as_path


@dataclass(frozen=True)
class DataFormat:
    """One layout of results on disk: ``sniff(path) -> bool`` and ``read(path, **options) -> DataFrame`` (the options
    of :func:`read_reference_data`, those it has no use for ignored). ``reference_only``: a layout of reference runs,
    which :func:`read_results` does not consider. ``min_train_tokens``: the default cut for fitting and held-out
    checks (Pythia's warm-up checkpoints), ``None`` for none."""

    name: str
    sniff: Callable[[Path], bool]
    read: Callable[..., pd.DataFrame]
    description: str = ""
    reference_only: bool = False
    min_train_tokens: float | None = None


def _pythia(path: Path, *, suite: str = "standard", final_only: bool = False, **_) -> pd.DataFrame:
    return readers.read_pythia_evals(path, suite=suite, final_only=final_only)


def _path_only(read: Callable[[Path], pd.DataFrame]) -> Callable[..., pd.DataFrame]:
    """``read(path)`` as a format's reader: :func:`read_reference_data`'s options are ignored."""
    return lambda path, **_: read(path)


#: Pythia's warm-up checkpoints (steps 1 to 1000: D < 3e9 tokens) sit off the law; the paper and the
#: shipped Pythia fits leave them out, and so does ``densing validate`` on the Pythia folder.
PYTHIA_MIN_TRAIN_TOKENS = 3e9


def _check_format(registry: Registry, name: str, data_format) -> None:
    """A :class:`DataFormat` whose ``sniff`` and ``read`` take a path and ``min_train_tokens`` is None or positive."""
    check_type(registry, name, data_format, DataFormat)
    check_callable(registry, name, "sniff", data_format.sniff, 1)
    check_callable(registry, name, "read", data_format.read, 1)
    check_range(registry, name, "min_train_tokens", data_format.min_train_tokens, 0, None, closed="neither")


#: The formats, by name, tried in registration order; the last (a tidy table) takes any path and names what is wrong.
FORMATS: Registry[DataFormat] = Registry(
    "data format",
    check=_check_format,
    items=(
        (f.name, f)
        for f in [
            DataFormat(
                "pythia_evals",
                readers.is_pythia_evals,
                _pythia,
                "the Pythia suite's evaluations folder",
                reference_only=True,
                min_train_tokens=PYTHIA_MIN_TRAIN_TOKENS,
            ),
            # the ladder's own runs: the full OLMo-2 runs are targets
            DataFormat(
                "olmo_ladder",
                olmo.is_olmo_ladder,
                _path_only(lambda p: olmo.split_ladder(olmo.read_olmo_ladder(p))[0]),
                "AI2's OLMo ladder folder",
                reference_only=True,
            ),
            DataFormat(
                "results_store",
                lambda p: p.is_dir() and any(p.rglob("*.parquet")),
                _path_only(readers.read_results_store),
                "a results store (Parquet parts)",
            ),
            DataFormat(
                "lm_eval_dir",
                lambda p: p.is_dir(),
                _path_only(readers.read_lm_eval),
                "a folder of lm-eval results JSON",
            ),
            DataFormat(
                "lm_eval_json",
                lambda p: p.suffix.lower() == ".json",
                _path_only(readers.read_lm_eval),
                "one lm-eval results JSON",
            ),
            DataFormat(
                "wide_csv",
                readers.is_wide_csv,
                _path_only(readers.read_wide_csv),
                "a one-row-per-model CSV with score columns",
            ),
            DataFormat("table", lambda p: True, _path_only(readers.read_table), "a tidy CSV or Parquet table"),
        ]
    ),
)


def register_format(data_format: DataFormat) -> DataFormat:
    """Add ``data_format`` ahead of the shipped formats (a name already registered is a ``RegistryError``)."""
    check_type(FORMATS, None, data_format, DataFormat)
    return FORMATS.register(data_format.name, data_format, first=True)


def _refuse_a_stream(path: Path) -> None:
    """An InputError where ``path`` is a named pipe, a socket or a device: a format is found by reading the file, and
    a stream gives its contents once, so the reader after the sniff would wait for a writer that never comes."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # missing, or unreadable: the reader names it
    kind = kind_of_file(mode)
    if kind is not None and kind != "a directory":
        raise InputError(
            f"{path}: is {kind}; results are read from a regular file or a folder (save the stream to a file first)"
        )


def sniff_format(path: str | Path, *, reference: bool = True) -> DataFormat:
    """The first format whose sniff accepts ``path`` (``reference=False``: leaving out reference layouts)."""
    path = Path(path)
    _refuse_a_stream(path)
    for data_format in FORMATS.values():
        if (reference or not data_format.reference_only) and data_format.sniff(path):
            return data_format
    raise InputError(f"{path}: no known data format ({', '.join(FORMATS)})")


def read_results(path: str | Path) -> pd.DataFrame:
    """A validated tidy table read from any format of :data:`FORMATS` but the reference runs' (a wide CSV is melted
    by :func:`densing.data.wide.wide_to_tidy`). An empty path is refused: it would read the working folder."""
    path = as_path(path)
    return sniff_format(path, reference=False).read(path)


def read_reference_data(path: str | Path, *, suite: str = "standard", final_only: bool = False) -> pd.DataFrame:
    """Reference results from any layout of :data:`FORMATS` as one tidy table (``suite``, ``final_only``: as
    :func:`densing.data.readers.read_pythia_evals` takes them; AI2's OLMo ladder: its own runs only)."""
    path = as_path(path)
    data_format = sniff_format(path)
    if not data_format.reference_only and not path.exists():
        raise InputError(f"{path}: no such file or directory{paths.shipped_hint(path)}")
    return data_format.read(path, suite=suite, final_only=final_only)


def pythia_only(data: Path, suite: str | None, final_only: bool = False) -> None:
    """An InputError when ``--suite`` (or ``--final-only``) is given with data not the Pythia evals folder."""
    if (suite is None and not final_only) or not data.exists():
        return
    if (found := sniff_format(data)).name != "pythia_evals":
        option = "--suite" if suite is not None else "--final-only"
        raise InputError(f"{option}: applies to the Pythia evals folder only; {data} is {found.description}")
