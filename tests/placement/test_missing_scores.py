"""Missing data said where the answer is said: a scores file without a score the headline inverts (a column absent, a
cell empty) is refused naming the benchmark, unless ``--allow-missing`` (``densing.place(allow_missing=True)``), and
then the last line names what was left out; two values of one benchmark are refused with both named; the API takes the
command line's minimum of draws."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from densing.errors import InputError

HEADER = "model,params,release_date,MMLU,BBH,MATH-hard,HumanEval\n"
FIXTURE = Path(__file__).parent / "fixtures" / "lm_eval_results.json"


@pytest.mark.parametrize(
    "table,named",
    [
        (HEADER + "m,1.5e9,2025-01-15,0.6,0.42,,0.35\n", "MATH-hard"),  # an empty cell
        ("model,params,release_date,MMLU,BBH,MATH-hard\nm,1.5e9,2025-01-15,0.6,0.42,0.15\n", "HumanEval"),  # no column
    ],
)
def test_a_missing_headline_score_is_refused_naming_it(table, named, tmp_path, run_cli):
    path = tmp_path / "scores.csv"
    path.write_text(table)
    code, out, err = run_cli("measure", "--scores", path)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"error: {path}: m: no score on {named} ") and "--allow-missing" in err, err
    with pytest.raises(InputError, match=f"no score on {named} .*allow_missing=True"):
        import densing

        densing.place(path)


@pytest.mark.slow
def test_with_the_option_the_last_line_names_what_was_left_out(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    path = tmp_path / "scores.csv"
    path.write_text("model,params,release_date,MMLU,BBH,MATH-hard\nm,1.5e9,2025-01-15,0.6,0.42,0.15\n")
    code, out, err = run_cli("measure", "--scores", path, "--n-boot", "40", "--allow-missing")
    assert code == 0, err
    last = out.rstrip("\n").split("\n")[-1]
    assert last.startswith("m without HumanEval (no score; placed from MMLU, BBH, MATH-hard): ρ"), last


@pytest.mark.parametrize("option", [["--models", "m.yaml"], ["--template", "{tmp}/t.csv"]])
def test_allow_missing_is_refused_where_nothing_is_placed_from_a_file(option, tmp_path, run_cli):
    args = [a.format(tmp=tmp_path) for a in option]
    code, out, err = run_cli("measure", *args, "--allow-missing")
    assert code == 2 and err.startswith("error: --allow-missing: cannot apply with ") and out == "", err
    assert list(tmp_path.iterdir()) == []


def _two_tasks(tmp_path) -> Path:
    data = json.loads(FIXTURE.read_text())
    data["results"]["MMLU"] = {"alias": "MMLU", "acc,none": 0.5}
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(data))
    return path


def _one_key_twice(tmp_path) -> Path:
    path = tmp_path / "key.json"
    path.write_text(FIXTURE.read_text().replace('"results": {', '"results": {"mmlu": {"acc,none": 0.3},', 1))
    return path


def _score_and_acc(tmp_path) -> Path:
    rows = [
        {"model": "m", "params": 1.5e9, "release_date": "2025-01-15", "benchmark": "mmlu", "metric": m, "value": v}
        for m, v in (("score", 0.6), ("acc", 0.55))
    ]
    path = tmp_path / "tidy.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    "make,words",
    [
        (_two_tasks, ("two values of mmlu", "mmlu acc", "MMLU acc = 0.5")),
        (_one_key_twice, ("key 'mmlu' appears twice",)),
        (_score_and_acc, ("two values of mmlu", "mmlu score = 0.6", "mmlu acc = 0.55")),
    ],
    ids=["two tasks", "a key twice", "score and acc"],
)
def test_two_values_of_one_benchmark_are_refused_naming_both(make, words, tmp_path, run_cli):
    path = make(tmp_path)
    code, out, err = run_cli("measure", "--scores", path, "--release-date", "2024-06-07")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert all(w in err for w in words), err


def test_the_same_value_twice_is_one_value():
    from densing.placement.own_scores import scores_rows

    frame = pd.DataFrame(
        [
            {"model": "m", "params": 1.5e9, "release_date": "2025-01-15", "benchmark": b, "metric": "acc", "value": 0.6}
            for b in ("mmlu", "MMLU")
        ]
    )
    assert len(scores_rows(frame, "scores")) == 1


@pytest.mark.parametrize("n_boot", [39, 5, 0, -1])
def test_the_api_takes_the_command_lines_minimum_of_draws(n_boot):
    import densing

    with pytest.raises(InputError, match="^n_boot: "):
        densing.place(FIXTURE, release_date="2024-06-07", n_boot=n_boot)
    with pytest.raises(InputError, match="^n_boot: "):
        densing.measure([{"model": "m", "params": 1e9}], n_boot=n_boot)
