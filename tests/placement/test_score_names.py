"""One names contract for scores (:mod:`densing.data.names`): the same four scores named as the public table, the
report, densing's ids, a tidy file or lm-eval's metrics give one density; a name that maps to nothing, a score out of
its domain or a size without its unit is refused in one line naming it."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

#: A 1.5B model released 2025-01-15 with MMLU 0.60, BBH 0.42, MATH-hard 0.15, HumanEval 0.35.
SCORES = (0.60, 0.42, 0.15, 0.35)
META = {"model": "my-model", "params": "1.5e9", "release_date": "2025-01-15"}


def _wide(path, names, scores=SCORES):
    path.write_text(",".join([*META, *names]) + "\n" + ",".join([*META.values(), *map(str, scores)]) + "\n")
    return path


def _tidy(path, names, metrics):
    rows = [{**META, "benchmark": b, "metric": m, "value": v} for b, m, v in zip(names, metrics, SCORES)]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


SPELLINGS = {
    "public table": lambda p: _wide(p, ["MMLU", "leaderboard_bbh", "leaderboard_math_hard", "HumanEval"]),
    "report": lambda p: _wide(p, ["MMLU", "BBH", "MATH-hard", "HumanEval"]),
    "lower case": lambda p: _wide(p, ["mmlu", "bbh", "math_hard", "humaneval"]),
    "tidy bbh": lambda p: _tidy(p, ["mmlu", "bbh", "math_hard", "humaneval"], ["score"] * 4),
    "tidy lm-eval metrics": lambda p: _tidy(
        p,
        ["mmlu", "leaderboard_bbh", "leaderboard_math_hard", "humaneval"],
        ["acc,none", "acc_norm", "exact_match", "pass@1"],
    ),
}


@pytest.fixture(scope="module")
def measurement():
    from densing import paths
    from densing.data import read_results
    from densing.registry import table_for_path
    from densing.trend.measure import measure_trend

    table = paths.DEFAULT_DENSITY_TARGETS
    return measure_trend(read_results(table), n_boot=40, table=table_for_path(table))


@pytest.fixture(scope="module")
def expected(measurement, tmp_path_factory):
    import densing

    path = SPELLINGS["public table"](tmp_path_factory.mktemp("names") / "public.csv")
    return densing.place(path, measurement=measurement).to_frame().iloc[0]


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_every_spelling_gives_the_public_tables_density(spelling, expected, measurement, tmp_path):
    import densing

    r = densing.place(SPELLINGS[spelling](tmp_path / "scores.csv"), measurement=measurement).to_frame().iloc[0]
    assert r["inverted"] == "mmlu,leaderboard_bbh,math_hard,humaneval"
    assert math.isclose(r["density"], expected["density"], rel_tol=1e-9)
    assert math.isclose(r["effective_params"], r["density"] * 1.5e9, rel_tol=1e-9)
    assert r["effective_params_ci_low"] < r["effective_params"] < r["effective_params_ci_high"]


def test_a_dataframe_is_read_by_the_same_contract(expected, measurement):
    import densing

    frame = pd.DataFrame([{**META, "MMLU": 0.60, "BBH": 0.42, "MATH-hard": 0.15, "HumanEval": 0.35}])
    r = densing.place(frame, measurement=measurement).to_frame().iloc[0]
    assert math.isclose(r["density"], expected["density"], rel_tol=1e-9)


@pytest.mark.slow
def test_the_command_prints_the_same_density_and_n_hat_for_the_report_names(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    public = SPELLINGS["public table"](tmp_path / "public.csv")
    report = SPELLINGS["report"](tmp_path / "report.csv")
    last = []
    for path in (public, report):
        code, out, err = run_cli("measure", "--scores", str(path), "--n-boot", "40")
        assert code == 0, err
        last.append(out.rstrip("\n").split("\n")[-1])
    assert last[0] == last[1] and "N̂ = " in last[0] and "B (95% CI " in last[0], last


@pytest.mark.parametrize(
    "names,named,near",
    [
        (["MMLU", "BBHH", "MATH-hard", "HumanEval"], "column 'BBHH'", "bbh"),
        (["MMLU", "BBH", "MATH-hard", "HumanEval", "nonsense"], "column 'nonsense'", None),
    ],
)
def test_a_column_that_names_no_benchmark_is_refused_naming_it(names, named, near, tmp_path, run_cli):
    path = _wide(tmp_path / "scores.csv", names, SCORES + (0.5,) * (len(names) - 4))
    code, out, err = run_cli("measure", "--scores", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert named in err and (near is None or f"did you mean '{near}'" in err), err


def test_a_tidy_metric_that_is_not_the_benchmarks_score_is_refused(tmp_path, run_cli):
    path = _tidy(tmp_path / "scores.csv", ["mmlu", "bbh", "math_hard", "humaneval"], ["score", "score", "acc", "score"])
    code, _, err = run_cli("measure", "--scores", str(path))
    assert code == 2 and "math_hard" in err and "exact_match" in err and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "cell,words", [("85.0", "outside [0, 1]"), ("high", "expected a number"), ("true", "expected a number")]
)
def test_a_score_out_of_its_domain_is_refused(cell, words, tmp_path, run_cli):
    path = tmp_path / "scores.csv"
    path.write_text("model,params,release_date,MMLU,BBH\nm,1.5e9,2025-01-15,0.6," + cell + "\n")
    code, _, err = run_cli("measure", "--scores", str(path))
    assert code == 2 and words in err and "BBH" in err and err.count("\n") == 1, err


def test_a_fractions_stderr_of_one_half_or_more_is_refused_on_every_path(tmp_path, run_cli):
    import densing
    from densing.errors import InputError

    frame = pd.DataFrame([{**META, "benchmark": "mmlu", "metric": "acc", "value": 0.6, "stderr": 0.9}])
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    code, _, err = run_cli("measure", "--scores", str(path))
    assert code == 2 and "stderr" in err and err.count("\n") == 1, err
    with pytest.raises(InputError, match="stderr"):
        densing.place(frame)


@pytest.mark.parametrize(
    "change,words",
    [
        (lambda d: d["config"].update(model_num_parameters=7), "field 'params'"),
        (lambda d: d["results"]["mmlu"].update({"acc,none": "0.7"}), "results.mmlu.acc,none"),
        (lambda d: d["results"]["mmlu"].update({"acc,none": True}), "results.mmlu.acc,none"),
        (lambda d: d.update({"n-shot": "five"}), "field 'n-shot'"),
        (lambda d: d.update({"config": []}), "field 'config'"),
        (lambda d: d["results"].update(boolq={"acc,none": 0.7}), "'boolq'"),
    ],
)
def test_an_lm_eval_json_is_checked_as_a_table_is(change, words, tmp_path, run_cli):
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "fixtures" / "lm_eval_results.json").read_text())
    change(data)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    code, out, err = run_cli("measure", "--scores", str(path), "--release-date", "2024-06-07")
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err


def test_the_aliases_are_the_registrys_names():
    from densing.data.benchmarks import BENCHMARKS
    from densing.data.names import aliases

    known = aliases()
    for name, record in BENCHMARKS.items():
        for column in record.columns:
            assert known[column.lower()] == name
    assert known["bbh"] == "leaderboard_bbh" and known["math-hard"] == "math_hard" and known["mmlu"] == "mmlu"


def _names_rows() -> list[str]:
    """docs/measure.md's table of names, one row per benchmark of the public table, from the alias table."""
    from densing.data.names import METRIC_PREFERENCE, aliases, score_metric
    from densing.registry import TABLES

    names: dict[str, list[str]] = {}
    for name, benchmark in aliases().items():
        names.setdefault(benchmark, []).append(f"`{name}`")
    rows = []
    for benchmark in TABLES["public"].candidates:
        metric = score_metric(benchmark) or f"the first of {', '.join(METRIC_PREFERENCE)}"
        rows.append(f"| {benchmark} | {', '.join(sorted(names[benchmark]))} | {metric} |")
    return rows


def test_the_docs_list_the_names_the_alias_table_accepts():
    from conftest import REPO_ROOT

    page = (REPO_ROOT / "docs" / "measure.md").read_text()
    for row in _names_rows():
        assert row in page, f"docs/measure.md lacks the row {row}"


def test_the_template_is_a_scores_file_to_fill_in(tmp_path, run_cli):
    path = tmp_path / "scores.csv"
    code, out, err = run_cli("measure", "--template", str(path))
    assert code == 0 and str(path) in out, err
    header, row = path.read_text().splitlines()
    assert header == "model,params,release_date,MMLU,leaderboard_bbh,leaderboard_math_hard,HumanEval"
    code, _, err = run_cli("measure", "--template", str(path))  # never over a file
    assert code == 2 and "exists" in err and err.count("\n") == 1
    code, out, _ = run_cli("measure", "--template", "-")
    assert code == 0 and out.splitlines()[0] == header
    path.write_text(f"{header}\nmy-model,1.5B,2025-01-15,0.6,0.42,0.15,0.35\n")
    code, out, err = run_cli("measure", "--scores", str(path), "--n-boot", "40")
    assert code == 0 and "my-model: ρ = " in out and "N̂ = " in out, err


@pytest.mark.parametrize("name", ["t.json", "t.parquet", "t.txt", "t"])
def test_the_template_is_written_only_in_the_format_scores_reads_back(name, tmp_path, run_cli):
    code, _, err = run_cli("measure", "--template", str(tmp_path / name))
    assert code == 2 and "writes a CSV scores file" in err and err.count("\n") == 1 and not list(tmp_path.iterdir())


@pytest.mark.parametrize("outputs", [["--out", "{scores}"], ["--csv", "{scores}"], ["--out", "{x}", "--csv", "{x}"]])
def test_an_output_that_is_an_input_or_another_output_is_refused(outputs, tmp_path, run_cli):
    scores = SPELLINGS["report"](tmp_path / "scores.csv")
    before = scores.read_text()
    words = [w.format(scores=scores, x=tmp_path / "x.csv") for w in outputs]
    code, out, err = run_cli("measure", "--scores", str(scores), *words)
    assert code == 2 and err.count("\n") == 1 and "a file of its own" in err, err
    assert scores.read_text() == before and not (tmp_path / "x.csv").exists()
