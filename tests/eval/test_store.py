"""The results store: atomic parts, config-hash skips, readable by read_results."""

from __future__ import annotations

import pandas as pd
import pytest

from densing.data import read_results
from densing.errors import InputError
from densing.eval.store import is_done, part_path, read_store, write_part


def _rows(**extra):
    row = {"model": "m/1", "benchmark": "arc_easy", "metric": "acc", "value": 0.5, "params": 7e9, "loss": 1.25}
    row.update(extra)
    return pd.DataFrame([row])


def test_write_then_skip_by_hash(tmp_path):
    path = write_part(tmp_path, "m/1", "arc_easy", _rows(loss_per_byte=0.5, config_hash="abc"), "abc")
    assert path == part_path(tmp_path, "m/1", "arc_easy") and path.parent.parent == tmp_path
    assert is_done(tmp_path, "m/1", "arc_easy", "abc")
    assert not is_done(tmp_path, "m/1", "arc_easy", "abd")
    assert not is_done(tmp_path, "m/1", "hellaswag", "abc")
    frame = read_results(tmp_path)  # the `densing fit --data` reader
    assert frame.loss_per_byte.tolist() == [0.5] and frame.config_hash.tolist() == ["abc"]
    assert read_store(tmp_path).params.tolist() == [7e9]
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [path.name]  # no temporary left


def test_invalid_rows_write_nothing(tmp_path):
    write_part(tmp_path, "m/1", "arc_easy", _rows(), "one")
    before = part_path(tmp_path, "m/1", "arc_easy").read_bytes()
    with pytest.raises(InputError, match="field 'params' is empty"):
        write_part(tmp_path, "m/1", "arc_easy", _rows(params=None), "two")
    assert part_path(tmp_path, "m/1", "arc_easy").read_bytes() == before
    assert len([p for p in tmp_path.rglob("*") if p.is_file()]) == 1


def test_names_that_slug_alike_stay_apart(tmp_path):
    assert part_path(tmp_path, "a/b", "x") != part_path(tmp_path, "a_b", "x")


def test_stale_temporary_from_a_killed_writer_is_removed(tmp_path):
    path = part_path(tmp_path, "m", "b")
    path.parent.mkdir(parents=True)
    stale = path.with_name(f".{path.name}.999999.tmp")
    stale.write_bytes(b"half a parquet file")
    write_part(tmp_path, "m", "b", _rows(model="m", benchmark="b"), "h")
    assert not stale.exists() and read_store(tmp_path).shape[0] == 1
