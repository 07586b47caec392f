"""Readers and validation: units, lm-eval 0.3/0.4 JSON, and one-line errors with exit code 2."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st

from densing.data import parse_count, read_lm_eval_json, read_pythia_evals, read_table, validate_results
from densing.errors import InputError
from tests.conftest import PYTHIA, needs_pythia


@pytest.mark.parametrize(
    "text, value",
    [
        ("7B", 7e9),
        ("1.1b", 1.1e9),
        ("350M", 3.5e8),
        ("2T", 2e12),
        ("7e9", 7e9),
        ("125k", 1.25e5),
        (6.9e9, 6.9e9),
        ("70m", 7e7),
    ],
)
def test_parse_count(text, value):
    assert parse_count(text) == pytest.approx(value)


@given(st.floats(1e-3, 1e4), st.sampled_from(["K", "M", "B", "T"]))
def test_parse_count_suffix_scales(number, suffix):
    scale = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[suffix]
    assert parse_count(f"{number!r}{suffix}") == pytest.approx(number * scale)


@pytest.mark.parametrize("bad", ["seven", "7 billion", "-7B", "0", "", "nan", "7X"])
def test_parse_count_rejects(bad):
    with pytest.raises(InputError, match="field 'params'"):
        parse_count(bad, where="f.csv: row 3")


GOOD = "model,benchmark,metric,value,params,train_tokens,release_date\nm1,arc_easy,acc,0.5,7B,2T,2023-07-18\n"


@pytest.mark.parametrize(
    "body, message",
    [
        ("model,benchmark,metric,value\nm1,arc_easy,acc,0.5\n", "missing required column(s) params"),
        (
            "model,benchmark,metric,value,params\nm1,arc_easy,acc,,7B\n",
            "line 2: field 'value': expected a finite number",
        ),
        ("model,benchmark,metric,value,params\nm1,arc_easy,acc,0.5,-7B\n", "line 2: field 'params'"),
        (
            "model,benchmark,metric,value,params\nm1,arc_easy,acc,0.5,7 billion\n",
            "line 2: field 'params': cannot parse '7 billion'",
        ),
        (
            "model,benchmark,metric,value,params,release_date\nm1,a,acc,0.5,7B,2023-07-18\nm2,a,acc,0.6,7B,July 2023\n",
            "line 3: field 'release_date': cannot parse 'July 2023'",
        ),
        (
            "model,benchmark,metric,value,params,train_tokens\nm1,a,acc,0.5,7B,2 trillion\n",
            "line 2: field 'train_tokens'",
        ),
        ("model,benchmark,metric,value,params\n", "has no rows"),
    ],
)
def test_bad_tables_give_one_line_errors_and_exit_2(tmp_path, run_cli, body, message):
    path = tmp_path / "targets.csv"
    path.write_text(body)
    with pytest.raises(InputError) as info:
        read_table(path)
    assert message in str(info.value) and str(path) in str(info.value)
    code, out, err = run_cli("density", "--targets", path)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in err


def test_fit_with_missing_data_and_bad_json(tmp_path, run_cli):
    code, _, err = run_cli("fit", "--data", tmp_path / "nope.csv", "--benchmark", "x")
    assert code == 2 and "no such file" in err
    broken = tmp_path / "fit.json"
    broken.write_text("{not json")
    code, _, err = run_cli("density", "--fit", broken)
    assert code == 2 and "malformed JSON" in err and len(err.strip().splitlines()) == 1


def test_fit_unknown_benchmark_and_no_partial_output(tmp_path, run_cli):
    path = tmp_path / "t.csv"
    path.write_text(GOOD)
    out = tmp_path / "fit.json"
    code, _, err = run_cli("fit", "--data", path, "--benchmark", "mmlu", "--out", out)
    assert code == 2 and "benchmark 'mmlu'" in err
    assert not out.exists() and list(tmp_path.iterdir()) == [path]


def test_validate_parses_units_and_dates():
    frame = validate_results(pd.read_csv(pd.io.common.StringIO(GOOD)), source="x")
    assert frame.loc[0, "params"] == 7e9 and frame.loc[0, "train_tokens"] == 2e12
    assert frame.loc[0, "release_date"] == pd.Timestamp("2023-07-18")


def test_lm_eval_04_format(tmp_path):
    data = {
        "results": {
            "arc_easy": {
                "alias": "arc_easy",
                "acc,none": 0.61,
                "acc_stderr,none": 0.01,
                "acc_norm,none": 0.57,
                "acc_norm_stderr,none": 0.01,
            },
            "lambada_openai": {
                "perplexity,none": 5.0,
                "perplexity_stderr,none": 0.1,
                "acc,none": 0.62,
                "acc_stderr,none": 0.006,
            },
            "gsm8k": {"exact_match,strict-match": 0.1, "exact_match,flexible-extract": 0.12},
        },
        "n-shot": {"arc_easy": 0, "lambada_openai": 0, "gsm8k": 5},
        "config": {"model_args": "pretrained=org/model-7b,revision=main"},
        "model_name": "org/model-7b",
    }
    path = tmp_path / "results_2024.json"
    path.write_text(json.dumps(data))
    frame = read_lm_eval_json(path).set_index(["benchmark", "metric"])
    assert frame.loc[("arc_easy", "acc"), "value"] == 0.61
    assert frame.loc[("arc_easy", "acc"), "stderr"] == 0.01
    assert frame.loc[("lambada_openai", "acc"), "loss"] == pytest.approx(math.log(5.0))
    assert frame.loc[("gsm8k", "exact_match,strict-match"), "n_shot"] == 5
    assert (frame["model"] == "org/model-7b").all()


def test_lm_eval_json_errors(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"config": {}}')
    with pytest.raises(InputError, match="field 'results'"):
        read_lm_eval_json(bad)


@needs_pythia
def test_pythia_03_format_reader():
    frame = read_pythia_evals(PYTHIA, suite="standard", final_only=True)
    lam = frame[(frame.benchmark == "lambada_openai") & (frame.metric == "acc")].set_index("model")
    assert len(lam) == 7  # the standard 1b has no published evals here
    row = lam.loc["pythia-1.4b@step143000"]
    assert row["value"] == pytest.approx(0.6161459344071415)
    assert row["loss"] == pytest.approx(math.log(6.0857145325729105))
    assert row["params"] == 1_414_647_808 and row["train_tokens"] == 143000 * 2_097_152
    assert np.all(frame["n_shot"] == 0)


def test_a_table_read_and_unchanged_is_checked_once_and_a_changed_one_again(monkeypatch):
    """The report reads its table (validated) and hands it to the measurement (table_argument): one check. The same
    table changed in place afterwards (an impossible score, a row's date) is checked again and refused or renormalised."""
    from densing import paths
    from densing.data import read_results, schema

    table = read_results(paths.RESULTS / "public_models.csv")
    calls = []
    check = schema._validated
    monkeypatch.setattr(schema, "_validated", lambda frame, source: calls.append(source) or check(frame, source))
    assert schema.table_argument(table, "targets") is table and calls == []
    table.loc[3, "value"] = 1.5
    with pytest.raises(InputError, match="row 4: field 'value'"):
        schema.table_argument(table, "targets")
    assert calls == ["targets"]
    copy = read_results(paths.RESULTS / "public_models.csv").copy()  # a copy is not the table that was checked
    schema.table_argument(copy, "targets")
    assert calls == ["targets", paths.RESULTS.joinpath("public_models.csv").as_posix(), "targets"]


@pytest.mark.parametrize(
    "body, where",
    [
        ("m1,arc_easy,acc,0.5,7B\nm2,arc_easy,acc,1.5,7B\n", "line 3"),
        ("m1,arc_easy,acc,0.5,7B\n\n   \nm2,arc_easy,acc,1.5,7B\n", "line 5"),  # blank lines are lines of the file
        ('"m\n1",arc_easy,acc,0.5,7B\nm2,arc_easy,acc,1.5,7B\n', "line 4"),  # a quoted cell over two lines
        ("m1,arc_easy,acc,0.5,7B\nm1,arc_easy,acc,0.6,7B\n", "lines 2 and 3"),
    ],
)
def test_a_text_tables_refusal_names_the_line_of_the_file(tmp_path, body, where):
    """A CSV's row is named by its line in the file (the header is line 1), blank lines and a cell over several lines
    counted as a text editor counts them; a Parquet table, which has no lines, by its row (1-based)."""
    path = tmp_path / "targets.csv"
    path.write_text("model,benchmark,metric,value,params\n" + body)
    with pytest.raises(InputError, match=f"targets.csv: {where}: "):
        read_table(path)
    parquet = tmp_path / "targets.parquet"
    pd.read_csv(path).to_parquet(parquet)
    with pytest.raises(InputError, match=r"targets.parquet: rows? (2|1 and 2): "):
        read_table(parquet)
