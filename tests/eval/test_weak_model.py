"""Loss tasks survive weak models: the conditional loss is aggregated in log space (no OverflowError from lm-eval's
``math.exp(-mean)``), and a metric whose aggregation fails never takes the (model, benchmark) pair's other results."""

from __future__ import annotations

import math

import pandas as pd
import pytest

pytest.importorskip("lm_eval")
pytestmark = pytest.mark.eval

from densing.eval.loss import LOG_FLOAT_MAX, log_space_perplexity
from densing.eval.store import part_path
from tests.cli_run import run as _run
from tests.conftest import SHARED_DATA
from tests.eval.fake_backend import NAME, fake_models_file


def test_log_space_perplexity_is_lm_evals_where_it_fits_and_inf_past_it():
    from lm_eval.api.metrics import perplexity

    items = [-1.5, -2.25, -0.125]
    assert log_space_perplexity(items) == pytest.approx(perplexity(items), rel=1e-15)
    with pytest.raises(OverflowError):
        perplexity([-3000.0, -5000.0])
    assert log_space_perplexity([-3000.0, -5000.0]) == math.inf
    assert log_space_perplexity([-LOG_FLOAT_MAX]) == pytest.approx(1.7976931348623157e308, rel=1e-12)
    assert math.isnan(log_space_perplexity([]))


def test_lm_evals_perplexity_aggregation_is_put_in_log_space():
    from lm_eval.api.metrics import perplexity

    from densing.eval.pair import guard_aggregations

    class Task:
        task_name = "loss"

        def __init__(self):
            self._aggregations = {"perplexity": perplexity}

        def aggregation(self):
            return self._aggregations

    task = Task()
    guard_aggregations(task, "m / b")
    assert task.aggregation()["perplexity"]([-3000.0, -5000.0]) == math.inf
    assert task.aggregation()["perplexity"]([-1.0, -2.0]) == pytest.approx(math.exp(1.5), rel=1e-15)


def test_a_failing_aggregation_is_nan_for_its_metric_alone(caplog):
    from densing.eval.pair import guard_aggregations

    class Task:
        task_name = "t"

        def __init__(self):
            self._aggregations = {"acc": lambda items: sum(items) / len(items), "bad": lambda items: 1 / 0}

        def aggregation(self):
            return self._aggregations

    task = Task()
    guard_aggregations(task, "m / b")
    guard_aggregations(task, "m / b")  # once is enough: a second guard wraps nothing again
    assert task.aggregation()["acc"]([1, 0]) == 0.5
    assert math.isnan(task.aggregation()["bad"]([1]))
    assert "m / b / t / bad: aggregation failed (ZeroDivisionError" in caplog.text


@pytest.mark.skipif(not (SHARED_DATA / "benchmarks").is_dir(), reason="no local benchmark splits")
def test_a_model_whose_answers_cost_thousands_of_nats_evaluates_gsm8k_end_to_end(tmp_path, capsys, fake_source):
    store = tmp_path / "store"
    models = fake_models_file(tmp_path, "{answer_nats: 2000}")  # every answer costs 2,000 nats and more
    argv = [
        "eval",
        "--models",
        str(models),
        "--benchmarks",
        "gsm8k",
        "--local-data",
        "--data-root",
        str(SHARED_DATA),
        "--limit",
        "4",
        "--backend",
        NAME,
        "--out",
        str(store),
        "--format",
        "csv",
    ]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    rows = pd.read_parquet(part_path(store, "fake", "gsm8k"))
    assert "exact_match,strict-match" in set(rows.metric)  # the generation results are kept
    loss = rows.loss_per_sample.iloc[0]
    assert loss > 2 * LOG_FLOAT_MAX and rows.loss_samples.iloc[0] == 4
    assert rows.loss_total.iloc[0] == pytest.approx(4 * loss)
