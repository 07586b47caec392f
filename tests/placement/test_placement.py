"""``densing measure`` / ``densing.measure``: bad input stops before any evaluation, the suite's scores land on the
public table's names, a smaller item count widens the interval, and the frontier verdict on planted data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import densing
import densing.present as present
from densing.laws.inversion import PerBenchmark
from densing.laws.reference_fit import ReferenceFit
from densing.paths import REFERENCE_FITS
from densing.placement import measure as placement
from densing.placement.measure import MeasureResult, binomial_items_stderr, place_models, public_scores
from densing.present.placed import placed_words
from tests.conftest import SHARED_DATA


@pytest.fixture
def no_evaluation(monkeypatch):
    """The runner fails the test if anything reaches it."""
    import densing.eval.runner as runner

    def refuse(*args, **kwargs):
        raise AssertionError("an evaluation started")

    monkeypatch.setattr(runner, "run_sweep", refuse)
    monkeypatch.setattr(runner, "load_model", refuse)


def _models(tmp_path, body: str):
    path = tmp_path / "my.yaml"
    path.write_text(body)
    return path


MISSING_PATH = "models:\n  - name: mine\n    model: ./no/such/model\n"
HUB_ID = "models:\n  - name: mine\n    model: nobody-here/not-a-model-7b\n"


@pytest.mark.parametrize(
    "case",
    ["no_file", "unknown_suite", "missing_path", "hub_id_offline", "bad_limit", "no_data_root", "out_is_directory"],
)
def test_bad_input_is_one_line_exit_2_and_nothing_runs(tmp_path, run_cli, monkeypatch, no_evaluation, case):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    models = _models(tmp_path, MISSING_PATH)
    args = {
        "--models": models,
        "--suite": "leaderboard-v1",
        "--out": tmp_path / "report.html",
        "--store": tmp_path / "store",
    }
    extra: list[str] = []
    expected = {
        "no_file": "no such models file",
        "unknown_suite": "unknown suite 'leaderboard-v9'",
        "missing_path": "no such model directory",
        "hub_id_offline": "HF_HUB_OFFLINE is set",
        "bad_limit": "limit",
        "no_data_root": "data_root: expected an existing folder",
        "out_is_directory": "is a directory",
    }[case]
    if case == "no_file":
        args["--models"] = tmp_path / "absent.yaml"
    elif case == "unknown_suite":
        args["--suite"] = "leaderboard-v9"
    elif case == "hub_id_offline":
        args["--models"] = _models(tmp_path, HUB_ID)
    elif case == "bad_limit":
        args["--models"] = _models(tmp_path, "models:\n  - name: mine\n    model: " + str(tmp_path) + "\n")
        (tmp_path / "config.json").write_text("{}")
        (tmp_path / "tokenizer.json").write_text("{}")
        extra = ["--limit", "-3"]
    elif case == "no_data_root":
        (tmp_path / "m").mkdir()
        (tmp_path / "m" / "config.json").write_text("{}")
        (tmp_path / "m" / "tokenizer.json").write_text("{}")
        args["--models"] = _models(tmp_path, f"models:\n  - name: mine\n    model: {tmp_path / 'm'}\n")
        extra = ["--local-data", "--data-root", str(tmp_path / "nowhere")]
    elif case == "out_is_directory":
        args["--out"] = tmp_path
    flat = [str(x) for k, v in args.items() for x in (k, v)]
    code, out, err = run_cli("measure", *flat, *extra)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("error: ") and expected in err, err
    assert "Traceback" not in err and out == ""
    assert not (tmp_path / "store").exists() and not (tmp_path / "report.html").exists()


def test_the_python_entry_checks_before_evaluating(tmp_path, no_evaluation):
    with pytest.raises(densing.EvalError, match="no such model directory"):
        densing.measure(_models(tmp_path, MISSING_PATH), suite="leaderboard-v1", store=tmp_path / "store")
    with pytest.raises(densing.InputError, match="unknown suite"):
        densing.measure(_models(tmp_path, MISSING_PATH), suite="nope", store=tmp_path / "store")
    assert not (tmp_path / "store").exists()


# ---------------------------------------------------------------------------------------------
# the suite's scores on the public table's names


def _store_rows(limit_items: dict[str, int]) -> pd.DataFrame:
    """Store rows as the runner writes them (two metrics where the suite has them)."""
    values = {
        "openllm_v1_arc_challenge": ("acc_norm", 0.31),
        "openllm_v1_mmlu": ("acc", 0.42),
        "openllm_v1_winogrande": ("acc", 0.55),
        "openllm_v1_gsm8k": ("exact_match,strict-match", 0.0),
    }
    rows = []
    for bench, (metric, value) in values.items():
        rows.append(
            {
                "model": "mine",
                "benchmark": bench,
                "metric": metric,
                "value": value,
                "items": limit_items[bench],
                "params": 1.5e9,
            }
        )
        rows.append(
            {
                "model": "mine",
                "benchmark": bench,
                "metric": "other",
                "value": 0.99,
                "items": limit_items[bench],
                "params": 1.5e9,
            }
        )
    return pd.DataFrame(rows)


def test_scores_take_the_public_names_metric_and_item_stderr():
    from densing.eval.models import model_spec_from_mapping

    spec = model_spec_from_mapping({"name": "mine", "model": "x", "release_date": "2024-09-01"}, where="t")
    items = {"openllm_v1_arc_challenge": 5, "openllm_v1_mmlu": 285, "openllm_v1_winogrande": 5, "openllm_v1_gsm8k": 5}
    table = public_scores(_store_rows(items), [spec]).set_index("benchmark")
    assert set(table.index) == {"arc_challenge", "mmlu", "winogrande", "gsm8k"}
    assert (table["metric"] == "score").all() and table.loc["mmlu", "value"] == 0.42  # the suite's metric, not "other"
    assert table.loc["mmlu", "stderr"] == pytest.approx(np.sqrt(0.42 * 0.58 / 285))
    assert table.loc["gsm8k", "stderr"] == pytest.approx(np.sqrt(0.1 * 0.9 / 5))  # a 0 keeps half an item's error
    assert (table["release_date"] == "2024-09-01").all() and (table["release_date_source"] == "models file").all()
    undated = model_spec_from_mapping({"name": "mine", "model": "x"}, where="t")
    table = public_scores(_store_rows(items), [undated], today="2031-01-02")
    assert (table["release_date"] == "2031-01-02").all() and table["release_date_source"].str.startswith("today").all()


# ---------------------------------------------------------------------------------------------
# the placement on planted data


class FlatLine:
    """A frontier line ln ρmax = value at every date."""

    epoch = "2023-02-24"

    def __init__(self, value: float) -> None:
        self.value = value

    def predict(self, dates) -> np.ndarray:
        return np.full(len(dates), self.value)


@pytest.fixture(scope="module")
def inversion():
    return PerBenchmark(ReferenceFit.load(REFERENCE_FITS / "family_llama-3.1_mmlu.json"))


def _planted(score: float, items: int, model: str = "mine") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "model": model,
                "benchmark": "mmlu",
                "metric": "score",
                "value": score,
                "stderr": float(binomial_items_stderr(score, items)),
                "items": items,
                "params": 1e10,
                "release_date": "2024-06-01",
                "release_date_source": "models file",
                "family": model,
            }
        ]
    )


def test_a_placed_model_holds_values_and_the_present_layer_says_them(inversion):
    """place_models holds values and codes (no ``words``, no ``frontier_note``); densing.present.placed makes the
    words in their place, in the column order the values hold (a model not inverted first, then one near chance)."""
    from densing.placement.place import NO_SCORE, SPAN_VALUES, VERDICT_VALUES
    from densing.present.placed import chance_words, placed_frame

    other = _planted(0.5, 100, "other").assign(benchmark="hellaswag")
    frame = place_models(pd.concat([other, _planted(0.27, 285)], ignore_index=True), inversion, FlatLine(0.0))
    assert not {"words", "frontier_note"} & set(frame.columns) and set(VERDICT_VALUES + SPAN_VALUES) <= set(frame)
    unscored, near = frame.to_dict("records")
    assert unscored["not_inverted"] == NO_SCORE and unscored["chance_scores"] == () and near["not_inverted"] == ""
    ((benchmark, score, stderr, chance),) = near["chance_scores"]
    assert (benchmark, score, chance) == ("mmlu", 0.27, 0.25) and stderr == pytest.approx(
        float(binomial_items_stderr(0.27, 285))
    )
    assert near["chance_items"][0] == "mmlu" and near["chance_items"][1] == pytest.approx(285)
    assert near["chance_items"][2] > 285  # items needed to stand 2 standard errors clear of chance
    shown = placed_frame(frame)
    columns = [c for c in frame.columns if c not in VERDICT_VALUES[1:] + SPAN_VALUES[1:]]
    names = {VERDICT_VALUES[0]: "words", SPAN_VALUES[0]: "frontier_note"}
    assert list(shown.columns) == [names.get(c, c) for c in columns]
    assert shown["words"].iloc[0] == "not inverted: no score on mmlu" and shown["frontier_note"].eq("").all()
    assert "within 2 standard errors (0.0263) of chance (0.25)" in chance_words(near) in shown["words"].iloc[1]


def test_fewer_items_give_a_wider_interval(inversion):
    full = place_models(_planted(0.7, 14042), inversion, FlatLine(0.0)).iloc[0]
    limited = place_models(_planted(0.7, 57 * 5), inversion, FlatLine(0.0)).iloc[0]
    assert full["density"] == pytest.approx(limited["density"])  # same score, same point
    assert limited["density_ci_low"] < full["density_ci_low"] and limited["density_ci_high"] > full["density_ci_high"]
    assert full["items:mmlu"] == 14042 and limited["items:mmlu"] == 285


def test_above_and_below_the_frontier(inversion):
    point = place_models(_planted(0.7, 14042), inversion, FlatLine(0.0)).iloc[0]
    rho = point["density"]
    above = place_models(_planted(0.7, 14042), inversion, FlatLine(np.log(rho) - 2)).iloc[0]
    below = place_models(_planted(0.7, 14042), inversion, FlatLine(np.log(rho) + 2)).iloc[0]
    assert (above["reading"], above["frontier"]) == ("value", "above") and placed_words(above).startswith("ρ = ")
    assert below["frontier"] == "below" and "below the frontier line" in placed_words(below)


def test_a_score_near_chance_is_a_bound_in_words(inversion):
    near = place_models(_planted(0.27, 285), inversion, FlatLine(0.0)).iloc[0]
    assert near["reading"] == "upper bound" and near["frontier"] == "below"
    assert "not a number" in placed_words(near) and "chance" in placed_words(near) and "ρ ≤" in placed_words(near)
    floor = place_models(_planted(0.2, 285), inversion, FlatLine(0.0)).iloc[0]
    assert floor["bound"] == "upper bound" and floor["reading"] == "upper bound"
    low = place_models(_planted(0.2, 285), inversion, FlatLine(np.log(floor["density"]) - 1)).iloc[0]
    assert low["frontier"] == "undetermined"  # an upper bound above the line says nothing


def test_measure_returns_a_frame_and_a_summary(monkeypatch, tmp_path, inversion):
    """densing.measure over a stubbed runner and a stubbed headline: the result's frame and its words."""
    import densing.eval.runner as runner

    items = {"openllm_v1_arc_challenge": 5, "openllm_v1_mmlu": 285, "openllm_v1_winogrande": 5, "openllm_v1_gsm8k": 5}
    monkeypatch.setattr(runner, "run_sweep", lambda *a, **k: _store_rows(items))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    (tmp_path / "m" / "tokenizer.json").write_text("{}")
    models = _models(tmp_path, f"models:\n  - name: mine\n    model: {tmp_path / 'm'}\n    release_date: 2024-09-01\n")

    class Measured:
        rules = {"quantile": type("L", (FlatLine,), {"slope_per_day": 0.0, "intercept": 0.0})(0.0)}
        densities = pd.DataFrame(columns=["model"])  # placed beside none of the table's models

    Measured.inversion = inversion
    result = densing.measure(
        models,
        suite="leaderboard-v1",
        local_data=True,
        data_root=SHARED_DATA,
        limit=5,
        store=tmp_path / "store",
        measurement=Measured(),
    )
    assert isinstance(result, MeasureResult)
    frame = result.to_frame()
    assert list(frame["model"]) == ["mine"] and frame["inverted"].iloc[0] == "mmlu"
    assert {"density", "density_ci_low", "density_ci_high", "frontier", "reading", "score:gsm8k"} <= set(frame.columns)
    assert result.inverted_benchmarks == ("mmlu",) and result.limit == 5.0
    text = str(present.summary(result))
    assert "mine:" in text and "at most 5 items per task" in text and "openllm_v1_hellaswag" in text
    assert result.to_dict()["models"][0]["model"] == "mine"


needs_local = pytest.mark.skipif(not (SHARED_DATA / "benchmarks").is_dir(), reason="no local benchmark splits")
test_measure_returns_a_frame_and_a_summary = needs_local(test_measure_returns_a_frame_and_a_summary)


def test_suite_outside_the_headline_sets_is_refused_before_evaluating(tmp_path, monkeypatch, no_evaluation):
    from densing.eval import benchmarks

    monkeypatch.setitem(benchmarks.SUITES, "truthfulqa-only", ("openllm_v1_truthfulqa_mc2",))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    (tmp_path / "m" / "tokenizer.json").write_text("{}")
    with pytest.raises(densing.InputError, match="benchmark set the headline is measured on"):
        placement.plan(_models(tmp_path, f"models:\n  - name: mine\n    model: {tmp_path / 'm'}\n"), "truthfulqa-only")


def test_a_suite_of_another_table_needs_that_table(tmp_path, monkeypatch, no_evaluation):
    from densing.eval import benchmarks

    assert benchmarks.SUITE_TABLES["swallow-en"] == benchmarks.SWALLOW_TABLE == "swallow/swallow_2025-06.csv"
    monkeypatch.setitem(benchmarks.SUITE_TABLES, "swallow-en", "swallow/no_such_table.csv")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    (tmp_path / "m" / "tokenizer.json").write_text("{}")
    with pytest.raises(
        densing.InputError,
        match="^--suite swallow-en: its target table results/swallow/no_such_table.csv is not shipped",
    ):
        placement.plan(_models(tmp_path, f"models:\n  - name: mine\n    model: {tmp_path / 'm'}\n"), "swallow-en")


def test_a_measure_result_plots_its_models_against_the_headline_line():
    """densing.present.figure of a MeasureResult: the report's density figure with the user's models as labelled stars; without a kept
    measurement, one line saying so."""
    import pandas as pd

    from densing.data import read_results
    from densing.errors import InputError
    from densing.trend.measure import measure_trend

    measured = measure_trend(read_results("results/public_models.csv"), n_boot=40, n_boot_side=40)
    mine = pd.DataFrame(
        {
            "model": ["mine"],
            "release_date": [pd.Timestamp("2024-11-01")],
            "density": [0.5],
            "density_ci_low": [0.2],
            "density_ci_high": [0.9],
            "reading": ["value"],
            "bound": [""],
            "frontier_density": [0.4],
            "frontier": ["above"],
            "band": ["undetermined"],
            "missing": [""],
            "interval_includes_line": [False],
            "chance_scores": [()],
            "chance_items": [None],
            "not_inverted": [""],
        }
    )
    result = MeasureResult(
        suite="leaderboard-v1",
        limit=None,
        reference=measured.reference,
        inverted_benchmarks=("mmlu",),
        frontier_rule=measured.headline_rule,
        slope_per_day=0.0,
        intercept=0.0,
        epoch="2023-02-24",
        models=mine,
        measurement=measured,
    )
    figure = present.figure(result)
    stars = [trace for trace in figure.data if str(trace.name).startswith("your models")]
    assert len(stars) == 1 and list(stars[0].text) == ["mine"]
    kept_none = MeasureResult(
        suite="leaderboard-v1",
        limit=None,
        reference="",
        inverted_benchmarks=(),
        frontier_rule="quantile",
        slope_per_day=0.0,
        intercept=0.0,
        epoch="2023-02-24",
    )
    with pytest.raises(InputError, match="keeps no headline measurement"):
        present.figure(kept_none)


def test_a_twenty_item_evaluation_says_its_items_are_too_few_and_how_many_would_do(inversion):
    """20 MMLU items at 0.40: σ = √(0.4·0.6/20) = 0.110, within 2σ of chance (0.25); n' = 20·(2σ/0.15)² ≈ 42.7."""
    few = place_models(_planted(0.40, 20), inversion, FlatLine(0.0)).iloc[0]
    assert few["reading"] == "upper bound"
    assert (
        "too few items for a number: mmlu's standard error is that of about 20 items, and about 43 would take its "
        "score 2 standard errors clear of chance"
    ) in placed_words(few)
    enough = place_models(_planted(0.40, 2000), inversion, FlatLine(0.0)).iloc[0]
    assert "too few items" not in placed_words(enough)
    at_chance = place_models(_planted(0.2, 20), inversion, FlatLine(0.0)).iloc[0]
    assert "more items cannot make it a number: no score is above chance" in placed_words(at_chance)


def test_a_model_the_targets_leave_out_is_said_with_the_reasons_detail(inversion):
    """A model not inverted keeps the targets' reason as a code and its detail (``not_inverted_detail``: a window's
    edge), and its words say both: a code said without its detail would read "released before None"."""
    from densing.states import LeftOut

    other = _planted(0.5, 100, "other").assign(benchmark="hellaswag")
    frame = place_models(pd.concat([other, _planted(0.27, 285)], ignore_index=True), inversion, FlatLine(0.0))
    record = frame.to_dict("records")[0]  # "other": no score on the inversion's benchmark
    assert record["not_inverted_detail"] is None  # no score: nothing to add
    record.update(not_inverted=LeftOut.BEFORE, not_inverted_detail="2023-02-24")
    assert placed_words(record) == "not inverted: released before 2023-02-24"
