"""The prefix backend's settings, statistics and registration with lm-eval (``densing-hf``)."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from densing.errors import EvalError, InputError
from densing.eval.backends.prefix.drafts import NgramIndex
from densing.eval.backends.prefix.grouping import distinct_token_count, shared_prefix_length
from densing.eval.backends.prefix.settings import DecodeStats, PrefixSettings


@pytest.mark.parametrize(
    "bad",
    [
        {"rows_per_batch": 0},
        {"rows_per_batch": 2.5},
        {"rows_per_batch": True},
        {"draft": -1},
        {"ngram": 0},
        {"step_base": -0.5},
        {"step_base": math.nan},
        {"step_base": "fast"},
        {"slack": -1},
        {"part_cost": 1.5},
        {"tokens_per_batch": 0},
        {"recompute_tolerance": -2},
        {"fixed_batches": 1},
        {"fixed_batches": "yes"},
    ],
)
def test_bad_settings_raise_one_line_input_errors_naming_the_field(bad):
    ((name, value),) = bad.items()
    with pytest.raises(InputError) as raised:
        PrefixSettings(**bad)
    message = str(raised.value)
    assert message.startswith(f"{name}: expected ") and "\n" not in message and repr(value) in message


def test_settings_are_frozen_and_take_their_documented_extremes():
    settings = PrefixSettings(draft=0, step_base=math.inf, slack=0, part_cost=0, recompute_tolerance=0)
    assert settings.draft == 0 and settings.step_base == math.inf
    with pytest.raises(AttributeError):
        settings.draft = 3  # type: ignore[misc]
    assert PrefixSettings() == PrefixSettings(rows_per_batch=None, tokens_per_batch=None, draft=4, step_base=1.5)


def test_decode_stats_add_counts():
    total = DecodeStats(generated_tokens=3, decode_steps=1)
    total.add(DecodeStats(generated_tokens=4, decode_steps=2, draft_proposed=5, draft_accepted=1))
    assert total == DecodeStats(generated_tokens=7, decode_steps=3, draft_proposed=5, draft_accepted=1)


def test_grouping_on_tiny_inputs():
    assert shared_prefix_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert shared_prefix_length([], [1]) == 0
    assert distinct_token_count([[1, 2, 3], [1, 2, 4], [1, 2, 3]]) == 4  # 1, 1·2, 1·2·3, 1·2·4


def test_ngram_drafts_on_tiny_inputs():
    index = NgramIndex([5, 6, 7, 5, 6], longest=2)
    assert index.draft(3) == [7, 5, 6]  # "5 6" last followed at position 2
    index.append(9)
    assert index.draft(2) == []  # 9 never occurred before
    assert NgramIndex([1, 2, 1], longest=1).draft(4) == [2, 1]


# ---------------------------------------------------------------------------------------------
# registration with lm-eval


@pytest.mark.eval
def test_get_model_returns_densings_class_once_registered():
    pytest.importorskip("lm_eval")
    from lm_eval.api.registry import get_model
    from lm_eval.models.huggingface import HFLM

    from densing.eval.backends import BACKENDS, ensure_registered
    from densing.eval.backends.densing_hf import NAME
    from densing.eval.backends.prefix.lm import PrefixCachedHFLM
    from densing.eval.loading import registered_model

    ensure_registered()
    assert NAME == "densing-hf" and BACKENDS.get(NAME).engine
    assert get_model("densing-hf") is PrefixCachedHFLM
    assert get_model("hf") is HFLM  # lm-eval's own names stay
    assert registered_model("densing-hf") is PrefixCachedHFLM and registered_model("hf") is HFLM
    with pytest.raises(EvalError, match="no-such-backend"):
        registered_model("no-such-backend")


@pytest.mark.eval
def test_model_args_string_carries_the_settings(tiny_model):
    """lm-eval's ``--model_args`` parsing (``create_from_arg_string``) reaches PrefixSettings; a bad
    value fails before the model loads."""
    pytest.importorskip("lm_eval")
    from lm_eval.api.registry import get_model

    from densing.eval.backends import ensure_registered

    ensure_registered()
    model = get_model("densing-hf")
    lm = model.create_from_arg_string(
        f"pretrained={tiny_model},device=cpu,dtype=float32,draft=2,step_base=inf,fixed_batches=true,rows_per_batch=3"
    )
    assert lm.settings == PrefixSettings(draft=2, step_base=math.inf, fixed_batches=True, rows_per_batch=3)
    assert lm.generation_rows() == 3
    with pytest.raises(InputError, match="draft"):
        model.create_from_arg_string("pretrained=/nowhere,draft=-1")
    with pytest.raises(InputError, match="not both"):
        model(pretrained=str(tiny_model), settings=PrefixSettings(), draft=2)


@pytest.mark.eval
def test_load_model_takes_settings_for_the_prefix_backend_only(tiny_model):
    pytest.importorskip("lm_eval")
    from densing.eval.backends.prefix.lm import PrefixCachedHFLM
    from densing.eval.loading import load_model
    from densing.eval.models import ModelSpec

    spec = ModelSpec(name="tiny", model=str(tiny_model), dtype="float32")
    lm, counts = load_model(
        spec, backend="densing-hf", device="cpu", batch_size=2, settings=PrefixSettings(rows_per_batch=5)
    )
    assert (
        isinstance(lm, PrefixCachedHFLM) and lm.generation_rows() == 5 and counts.total > 0
    )  # batch_size does not scale it
    with pytest.raises(InputError, match="settings"):
        load_model(spec, backend="hf", device="cpu", batch_size=1, settings=PrefixSettings())


@pytest.mark.eval
@pytest.mark.slow
def test_lm_evals_command_line_runs_densing_hf(tiny_model, tiny_tasks, tmp_path):
    """``python -m densing.eval.backends`` is lm-eval's command line with ``--model densing-hf``."""
    pytest.importorskip("lm_eval")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "densing.eval.backends",
            "run",
            "--model",
            "densing-hf",
            "--model_args",
            f"pretrained={tiny_model},dtype=float32,draft=2",
            "--device",
            "cpu",
            "--tasks",
            "tiny_gen",
            "--include_path",
            str(tiny_tasks),
            "--output_path",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "tiny_gen" in done.stdout and "exact_match" in done.stdout


def test_the_cache_goes_by_the_keyword_the_models_forward_takes():
    from densing.eval.backends.prefix.slots import cache_kwargs

    class New:
        def forward(self, input_ids, cache=None):
            return cache

    class Old:
        def forward(self, input_ids, past_key_values=None):
            return past_key_values

    marker = object()
    assert cache_kwargs(New(), marker) == {"cache": marker} and cache_kwargs(Old(), marker) == {
        "past_key_values": marker
    }
