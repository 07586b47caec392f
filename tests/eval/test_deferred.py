"""A sweep's model loads on its first request (densing/eval/deferred.py): the first pair's requests are built and
handed over before the weights load, the rows are those of a model loaded first, and a load that fails is one
error with no thread left behind."""

from __future__ import annotations

import random
import threading

import pandas as pd
import pytest

from .conftest import models_entries

torch = pytest.importorskip("torch")
pytest.importorskip("lm_eval")
pytestmark = pytest.mark.eval


def _watched_sweep(monkeypatch, tmp_path, tiny_model, tiny_tasks, benchmarks) -> tuple[pd.DataFrame, list]:
    """``run_sweep`` of the tiny model with its load, progress and requests recorded in the order they came."""
    from densing.eval import runner

    order: list = []
    original = runner.load_model

    def watched(spec, **kwargs):
        order.append(("weights load", spec.name))
        return original(spec, **kwargs)

    monkeypatch.setattr(runner, "load_model", watched)
    rows = runner.run_sweep(
        models_entries([tiny_model]),
        benchmarks,
        tmp_path / "store",
        include_paths=[tiny_tasks],
        device="cpu",
        on_progress=lambda model, bench, status: order.append((status, bench)),
        on_requests=lambda model, bench, handed: order.append(("requests", bench, handed)),
    )
    return rows, order


def test_the_first_requests_are_handed_over_before_the_weights_load(monkeypatch, tmp_path, tiny_model, tiny_tasks):
    rows, order = _watched_sweep(monkeypatch, tmp_path, tiny_model, tiny_tasks, ["tiny_mc", "tiny_gen"])
    steps = [event[:2] for event in order]
    assert steps[:6] == [
        ("running", "tiny_mc"),
        ("requests", "tiny_mc"),
        ("loading", "tiny_mc"),
        ("weights load", "tiny-0"),
        ("loaded", "tiny_mc"),
        ("done", "tiny_mc"),
    ]
    assert steps.count(("weights load", "tiny-0")) == 1  # the second pair's model is the loaded one
    handed = order[1][2]
    assert handed.request_type == "loglikelihood" and handed.count == 15  # tiny_mc: 5 questions of 3 choices
    assert handed.context.endswith("Answer:") and handed.continuation.startswith(" ")
    generation = next(event[2] for event in order if event[:2] == ("requests", "tiny_gen"))
    assert generation.request_type == "generate_until" and generation.continuation is None
    assert set(rows["benchmark"]) == {"tiny_mc", "tiny_gen"}


def test_the_rows_are_those_of_the_model_loaded_before_its_requests(tmp_path, tiny_model, tiny_tasks):
    """The pair's rows from the sweep equal ``evaluate_pair`` on the model loaded beforehand (the weights' place in
    the order changes no number)."""
    from densing.eval.harness import resolve_benchmarks, task_manager
    from densing.eval.loading import load_model
    from densing.eval.models import model_spec_from_mapping
    from densing.eval.pair import evaluate_pair
    from densing.eval.runner import run_sweep

    entry = models_entries([tiny_model])[0]
    swept = run_sweep([entry], ["tiny_mc"], tmp_path / "store", include_paths=[tiny_tasks], device="cpu")
    spec = model_spec_from_mapping(entry, where="test")
    manager = task_manager([tiny_tasks], ["tiny_mc"])
    lm, counts = load_model(spec, backend="hf", device="cpu", batch_size=1)
    direct = evaluate_pair(
        lm, manager, spec, resolve_benchmarks(["tiny_mc"], manager)[0], lambda: counts, limit=None, use_cache=None
    )
    compared = [
        "metric",
        "value",
        "stderr",
        "params",
        "non_embedding_params",
        "loss",
        "loss_per_token",
        "loss_per_byte",
        "loss_total",
        "loss_tokens",
        "items",
    ]
    pd.testing.assert_frame_equal(swept[compared], direct[compared], check_dtype=False, check_exact=True)


def test_the_load_leaves_the_random_generators_as_it_found_them():
    import numpy as np

    from densing.eval.deferred import LoadsOnFirstRequest
    from densing.eval.loading import ParameterCounts

    class Answers:
        rank, world_size = 0, 1

        def set_cache_hook(self, hook):
            self.hook = hook

        def loglikelihood(self, requests):
            return [(random.random(), np.random.rand(), float(torch.rand(1)))]

    def load():  # a load that draws from every generator
        random.random(), np.random.rand(), torch.rand(3)
        return Answers(), ParameterCounts(1.0, 1.0, 1.0)

    class Request:
        args = ("context", " continuation")

    random.seed(0), np.random.seed(1), torch.manual_seed(2)
    drawn = LoadsOnFirstRequest(load, Answers).loglikelihood([Request()])
    random.seed(0), np.random.seed(1), torch.manual_seed(2)
    assert drawn == Answers().loglikelihood([Request()])


@pytest.mark.parametrize("raised", ["EvalError", "KeyboardInterrupt"])
def test_a_load_that_fails_on_the_first_request_is_one_error_and_leaves_no_thread(
    monkeypatch, tmp_path, tiny_model, tiny_tasks, raised
):
    """The load's error (or a Ctrl-C during it) comes out of the sweep as it was raised, the pair unwritten, and
    every thread the sweep started (the request cache's writer among them) has ended; tqdm's monitor aside, which
    ends itself once its bars are closed."""
    from tqdm import TMonitor

    from densing.errors import EvalError
    from densing.eval import runner

    error = EvalError("model 'tiny-0': cannot load it: broken") if raised == "EvalError" else KeyboardInterrupt()

    def broken(spec, **kwargs):
        raise error

    monkeypatch.setattr(runner, "load_model", broken)
    handed = []
    before = set(threading.enumerate())
    with pytest.raises(type(error)) as caught:
        runner.run_sweep(
            models_entries([tiny_model]),
            ["tiny_mc"],
            tmp_path / "store",
            include_paths=[tiny_tasks],
            device="cpu",
            on_requests=lambda *event: handed.append(event),
        )
    assert caught.value is error and len(handed) == 1
    assert not list((tmp_path / "store").glob("**/*.parquet"))
    assert {thread for thread in threading.enumerate() if not isinstance(thread, TMonitor)} <= before
