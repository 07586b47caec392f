"""Impossible values are errors where the data is read: one line naming file, row and field, exit 2.

The rules are :data:`densing.impossible.IMPOSSIBLE`; each case below breaks one through the CLI
(``densing density --targets`` for the results table, ``densing overlap analyze`` for a trace), and the
shipped tables still load.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from densing.impossible import IMPOSSIBLE, MAX_TRACE_US

REPO_ROOT = Path(__file__).resolve().parents[1]
HEADER = "model,benchmark,metric,value,params,release_date,loss,stderr\n"
GOOD = "org/a,arc_easy,acc,0.6,1e9,2024-01-01,1.2,0.01\n"


def _one_line_exit_2(result, *words: str) -> None:
    code, out, err = result
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize(
    "row,words",
    [
        ("org/b,arc_easy,acc,0.5,1e9,2024-01-01,-1.5,0.01\n", ("line 3", "field 'loss'", "-1.5", "−log P is ≥ 0")),
        ("org/b,arc_easy,acc,0.5,1e9,2024-01-01,1.1,5\n", ("line 3", "field 'stderr'", "5", "above 0.5", "'acc'")),
        ("org/b,arc_easy,acc,0.5,1e9,2024-01-01,1.1,0.51\n", ("line 3", "field 'stderr'", "0.51", "above 0.5")),
        ("org/b,arc_easy,acc,0.5,1e9,2024-01-01,1.1,-0.01\n", ("line 3", "field 'stderr'", "negative")),
        ("org/b,lambada,perplexity,12.5,1e9,2024-01-01,,-2\n", ("line 3", "field 'stderr'", "negative")),
        (
            "ORG/A,arc_easy,acc,0.7,1e9,2024-01-01,1.2,0.01\n",
            ("lines 2 and 3", "field 'model'", "'org/a'", "'ORG/A'", "differ only by case", "'value'"),
        ),
    ],
    ids=[
        "negative loss",
        "stderr 5 on accuracy",
        "stderr above 0.5",
        "negative stderr",
        "negative stderr, any metric",
        "names equal but for case, different scores",
    ],
)
def test_an_impossible_value_in_a_table_is_one_line_exit_2(row, words, tmp_path, run_cli):
    table = tmp_path / "targets.csv"
    table.write_text(HEADER + GOOD + row)
    _one_line_exit_2(run_cli("density", "--targets", table), str(table), *words)


def test_the_limits_themselves_are_possible(tmp_path):
    """Zero loss, a standard error of 0.5 on a fraction (a coin on one item), a large one on a perplexity, and the
    same model under two spellings with the same scores are data."""
    from densing.data import read_results

    table = tmp_path / "t.csv"
    table.write_text(
        HEADER + GOOD + "ORG/A,arc_easy,acc,0.6,1e9,2024-01-01,1.2,0.01\n"
        "org/b,arc_easy,acc,0.5,1e9,2024-01-01,0,0.5\n"
        "org/b,lambada,perplexity,12.5,1e9,2024-01-01,,3.5\n"
    )
    frame = read_results(table)
    assert len(frame) == 4 and frame["stderr"].max() == 3.5 and frame["loss"].min() == 0


def test_a_store_part_with_an_impossible_value_is_refused_naming_the_part(tmp_path, run_cli):
    import pandas as pd

    store = tmp_path / "store"
    (store / "m").mkdir(parents=True)
    pd.DataFrame(
        {
            "model": ["org/a"],
            "benchmark": ["arc_easy"],
            "metric": ["acc"],
            "value": [0.6],
            "params": [1e9],
            "loss": [-0.2],
        }
    ).to_parquet(store / "m" / "arc_easy.parquet")
    _one_line_exit_2(run_cli("density", "--targets", store), "arc_easy.parquet", "row 1", "field 'loss'")


def _trace(tmp_path: Path, edit) -> Path:
    sys.path.insert(0, str(REPO_ROOT / "tests" / "overlap"))
    from overlap_tracegen import hand_trace, write_trace

    events = hand_trace(shift=1_700_000_000_000_000)  # µs since the epoch, as Kineto writes them
    edit(next(e for e in events if str(e["name"]).startswith("ncclKernel")))
    path = write_trace(tmp_path / "rank-0.json", events)
    path.write_text(path.read_text().replace("Infinity", "1e400"))  # JSON has no infinity; 1e400 decodes to one
    return path


def _set(**fields):
    return lambda event: event.update(fields)


@pytest.mark.parametrize(
    "edit,words",
    [
        (_set(dur=4e14), ("field 'dur'", "longer than 10 years")),
        (_set(dur=float("inf")), (".dur", "out of range")),  # the decoder itself refuses it
        (_set(ts=1e300), ("field 'ts'", "impossible timestamp")),
        (
            _set(ts=17),
            ("years", "not one real trace"),
        ),  # one event at 17 µs, the others at 1.7e15: µs mixed with another unit
    ],
    ids=["duration of 12 years", "infinite duration", "timestamp beyond 64 bits", "span of 54 years"],
)
def test_an_impossible_trace_value_is_one_line_exit_2(edit, words, tmp_path, run_cli):
    path = _trace(tmp_path, edit)
    _one_line_exit_2(run_cli("overlap", "analyze", path), str(path), *words)


def test_a_real_trace_near_the_limits_is_analysed(tmp_path, run_cli):
    path = _trace(tmp_path, _set(dur=MAX_TRACE_US / 2))  # a 5-year kernel is absurd but not impossible
    code, out, err = run_cli("overlap", "analyze", path, "--format", "json")
    assert code == 0 and '"rank"' in out, err


def test_every_rule_is_exercised_above():
    """Each registered rule has a case in this file (a rule added without a test fails here)."""
    words = {
        ("results", "value"): "outside [0, 1]",
        ("results", "loss"): "−log P",
        ("results", "stderr"): "standard error",
        ("trace", "ts"): "impossible timestamp",
        ("trace", "dur"): "duration",
    }
    assert {(r.table, r.field) for r in IMPOSSIBLE} == set(words)
    for rule in IMPOSSIBLE:
        assert words[rule.table, rule.field] in rule.why, rule


@pytest.mark.parametrize("name", ["public_models.csv", "pythia_final.csv"])
def test_the_shipped_results_still_load(name):
    from densing.data import read_results

    assert len(read_results(REPO_ROOT / "results" / name)) > 50


def test_the_shipped_fits_still_load():
    from densing.laws.reference_fit import ReferenceFit

    fits = sorted((REPO_ROOT / "reference_fits").glob("*.json"))
    assert len(fits) > 10 and all(ReferenceFit.load(p).benchmarks for p in fits)
