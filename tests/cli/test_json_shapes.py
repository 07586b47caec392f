"""``--format json`` has one shape per family of commands (docs/cli_reference.md, "JSON output"): a table command prints a
list of row objects; a command with a headline prints ``{"rows": [row objects], ...}``. Each command here runs on
shipped data or a hand-made trace, so the file takes seconds."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _trace_dirs(tmp_path: Path) -> tuple[Path, Path]:
    sys.path.insert(0, str(HERE.parent / "overlap"))
    from overlap_tracegen import hand_trace, write_trace

    for name in ("a", "b"):
        write_trace(tmp_path / name / "rank-0.json", hand_trace())
    return tmp_path / "a", tmp_path / "b"


def _planted_table(tmp_path: Path) -> Path:
    """Eight sizes at three budgets each, losses and scores from a planted two-step law: a table the law can be fitted
    on (Pythia's final checkpoints share one budget, on which the data term cannot be determined)."""
    import numpy as np
    import pandas as pd

    rows = []
    for n in (7e7, 1.6e8, 4.1e8, 1e9, 1.4e9, 2.8e9, 6.9e9, 1.2e10):
        for t in (3e10, 1e11, 3e11):
            loss = 40 * n**-0.15 + 300 * t**-0.25
            rows.append(
                {
                    "model": f"m{n:g}@{t:g}",
                    "benchmark": "lambada_openai",
                    "metric": "acc",
                    "value": 0.7 / (1 + np.exp(4 * (loss - 2.2))) + 0.02,
                    "params": n,
                    "train_tokens": t,
                    "loss": loss,
                    "run": f"m{n:g}",
                }
            )
    path = tmp_path / "planted.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


#: Every table command (each form with a table of its own), with arguments that make it quick; None: the trace folder,
#: "P" the planted table (:func:`_planted_table`).
TABLE_COMMANDS = {
    "density": ["density"],
    "density --fit": ["density", "--fit", "llama-3.1_mmlu"],
    "fit": ["fit", "--data", "P", "--benchmark", "lambada_openai", "--n-boot", "0"],
    "validate": ["validate", "--data", "P", "--benchmark", "lambada_openai", "--max-params", "6e9"],
    "eval --list": ["eval", "--list"],
    "overlap analyze": ["overlap", "analyze", None],
    "overlap analyze --steps": ["overlap", "analyze", None, "--steps"],
    "overlap skew": ["overlap", "skew", None],
    "overlap compare": ["overlap", "compare", None, "B"],
    "overlap whatif": ["overlap", "whatif", None, "--model-params", "1B"],
    "overlap strategies": ["overlap", "strategies"],
}


def _plain_json(value) -> bool:
    """Only what the documented shapes hold: no NaN or infinity, no non-string key."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    return value is None or isinstance(value, (str, int, bool))


def _is_rows(value) -> bool:
    return isinstance(value, list) and all(isinstance(row, dict) for row in value)


@pytest.mark.parametrize("command", list(TABLE_COMMANDS))
def test_a_table_command_prints_a_list_of_row_objects(command, run_cli, tmp_path):
    a, b = _trace_dirs(tmp_path)
    planted = _planted_table(tmp_path)
    args = [a if x is None else b if x == "B" else planted if x == "P" else x for x in TABLE_COMMANDS[command]]
    code, out, err = run_cli(*args, "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert _is_rows(rows) and rows, out[:200]
    assert len({tuple(row) for row in rows}) == 1  # one set of fields, in one order, for every row
    assert _plain_json(rows)


def test_density_json_keeps_numbers_and_the_bound_column(run_cli):
    """The headline's rows: ρ and N̂ as numbers (a bound's value too), the ``bound`` column beside them."""
    code, out, err = run_cli("density", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) > 20 and all("bound" in r for r in rows)
    assert {r["bound"] for r in rows} <= {"", None, "upper bound", "lower bound"}
    # a value or a bound's value: a number wherever the row has one (the shipped headline has bounds or not)
    assert all(
        isinstance(r["density"], float) and isinstance(r["effective_params"], float)
        for r in rows
        if r["density"] is not None
    )


def test_a_command_with_a_headline_prints_rows_and_sections(run_cli):
    """``trend --design olmes`` (the quickest of the family): one object, its table under ``rows``."""
    code, out, err = run_cli("trend", "--design", "olmes", "--n-boot", "40", "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert isinstance(document, dict) and list(document)[0] == "rows"
    assert _is_rows(document["rows"]) and document["rows"]
    assert _is_rows(document["checks"]) and _is_rows(document["left_out"])
    assert _plain_json(document)


def test_the_output_layer_builds_the_headline_shape():
    """:func:`densing.cli.output.document`: a DataFrame section becomes row objects, NaN null, a date YYYY-MM-DD."""
    import numpy as np
    import pandas as pd

    from densing.cli.output import document

    frame = pd.DataFrame({"model": ["a"], "density": [np.nan], "release_date": [pd.Timestamp("2024-01-02")]})
    out = document(frame, verdict="words", checks=frame, nested={"x": np.float64(np.inf), "n": np.int64(3)})
    assert out == {
        "rows": [{"model": "a", "density": None, "release_date": "2024-01-02"}],
        "verdict": "words",
        "checks": [{"model": "a", "density": None, "release_date": "2024-01-02"}],
        "nested": {"x": None, "n": 3},
    }
    with pytest.raises(ValueError):
        document(frame, rows=frame)
