"""The registry of reference-data formats: a new format is one reader plus one registry entry, and
every reader that dispatches (read_results, read_reference_data, the held-out check) finds it."""

from pathlib import Path

import pandas as pd
import pytest

import densing
from densing.data.formats import FORMATS, DataFormat, read_reference_data, register_format, sniff_format
from densing.data.schema import validate_results
from densing.errors import InputError


def read_tsv(path: Path, **_) -> pd.DataFrame:
    """A trivial format: a tidy table with tabs between the fields."""
    return validate_results(pd.read_csv(path, sep="\t"), source=str(path))


@pytest.fixture
def tsv():
    fmt = register_format(DataFormat("tsv", sniff=lambda p: p.suffix == ".tsv", read=read_tsv, description="tidy TSV"))
    yield fmt
    FORMATS.unregister("tsv")


def _write(path: Path) -> Path:
    rows = [
        {
            "model": f"m{k}",
            "benchmark": "arc_easy",
            "metric": "acc",
            "value": 0.3 + 0.1 * k,
            "params": 1e8 * 2**k,
            "train_tokens": 3e11,
        }
        for k in range(4)
    ]
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)
    return path


def test_a_registered_format_is_read_by_the_public_readers(tsv, tmp_path):
    path = _write(tmp_path / "scores.tsv")
    assert sniff_format(path) is tsv
    frame = densing.read_results(path)
    assert list(frame["model"]) == ["m0", "m1", "m2", "m3"] and frame["value"].iloc[-1] == pytest.approx(0.6)
    assert read_reference_data(path).equals(frame)


def test_without_the_entry_the_file_is_not_a_known_table(tmp_path):
    path = _write(tmp_path / "scores.tsv")
    with pytest.raises(InputError, match="unknown table format '.tsv'"):
        densing.read_results(path)


def test_a_name_is_registered_once(tsv):
    with pytest.raises(InputError, match="already registered"):
        register_format(DataFormat("tsv", sniff=lambda p: False, read=read_tsv))
    assert FORMATS.names().count("tsv") == 1 and FORMATS.names()[0] == "tsv"


def test_the_shipped_formats_sniff_their_layouts(tmp_path):
    from densing import paths

    assert sniff_format(paths.RESULTS / "public_models.csv").name == "wide_csv"
    assert sniff_format(paths.RESULTS / "pythia_final.csv").name == "table"
    assert sniff_format(tmp_path / "x.json").name == "lm_eval_json"
    (tmp_path / "pythia-70m" / "zero-shot").mkdir(parents=True)
    assert sniff_format(tmp_path).name == "pythia_evals"
    assert sniff_format(tmp_path, reference=False).name == "lm_eval_dir"
