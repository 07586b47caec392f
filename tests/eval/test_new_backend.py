"""A new evaluation backend needs nothing but its lm-eval class under ``@register_model``: ``densing eval --backend
NAME`` then runs a sweep through it into the store, with densing's default record (:class:`densing.eval.backends.Backend`).
An unknown backend name is one line, exit 2, naming lm-eval's registered models, before any work."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("lm_eval")
pytestmark = pytest.mark.eval

from densing.eval.store import part_path
from tests.cli_run import run as _run
from tests.eval.fake_backend import NAME, FakeLM, fake_models_file as _models


def test_a_registered_lm_eval_model_runs_a_sweep_with_nothing_else(tmp_path, tiny_tasks, capsys, fake_source):
    from densing.eval.backends import BACKENDS, Backend, get

    assert NAME not in BACKENDS and type(get(NAME)) is Backend  # no densing record: the defaults
    FakeLM.made.clear()
    store = tmp_path / "store"
    argv = [
        "eval",
        "--models",
        str(_models(tmp_path)),
        "--benchmarks",
        "tiny_mc,tiny_gen",
        "--include-path",
        str(tiny_tasks),
        "--backend",
        NAME,
        "--out",
        str(store),
        "--format",
        "csv",
    ]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert FakeLM.made == [{"pretrained": "org/fake-model", "dtype": "auto", "temperature": 0, "batch_size": 1}]
    for bench in ("tiny_mc", "tiny_gen"):
        rows = pd.read_parquet(part_path(store, "fake", bench))
        assert (
            set(rows.backend) == {NAME} and set(rows.params) == {1.2e8} and rows.source.str.endswith(f"({NAME})").all()
        )
    mc = pd.read_parquet(part_path(store, "fake", "tiny_mc")).set_index("metric")
    # the fake prefers the shortest choice, which is never the gold one of tiny_mc's five questions
    assert mc.loc["acc", "value"] == 0 and mc.loc["acc", "items"] == 5 and mc.loc["acc", "loss"] > 0
    assert pd.isna(mc.loc["acc", "loss_per_token"])  # no tokenizer to count with
    gen = pd.read_parquet(part_path(store, "fake", "tiny_gen")).set_index("metric")
    assert gen.loc["exact_match", "value"] == pytest.approx(0.25)  # " five" is the first question's answer
    assert "tiny_mc" in out and "tiny_gen" in out
    code, _, err = _run(argv, capsys)  # the same sweep again: every pair in the store, nothing loaded
    assert code == 0 and "0 pair(s) evaluated, 2 already in the store" in err and len(FakeLM.made) == 1


def test_an_unknown_backend_is_one_line_naming_the_registered_ones_before_any_work(tmp_path, tiny_tasks, capsys):
    store = tmp_path / "store"
    code, out, err = _run(
        [
            "eval",
            "--models",
            str(_models(tmp_path)),
            "--benchmarks",
            "tiny_mc",
            "--include-path",
            str(tiny_tasks),
            "--backend",
            "no-such-backend",
            "--out",
            str(store),
        ],
        capsys,
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: backend: expected one of ")
    assert err.rstrip().endswith("got 'no-such-backend'")
    names = err.split("expected one of ", 1)[1].split(" (lm-eval's model registry)", 1)[0].split(", ")
    assert {"hf", "vllm", "densing-hf", NAME} <= set(names)
    assert not store.exists()


def test_the_prefix_engines_options_name_the_backend_that_has_them(tmp_path, tiny_tasks, capsys, fake_source):
    """A shard, a time limit or the engine's settings on a backend without densing's prefix engine: one line naming
    the backend that has it; --prefix-cache on a backend that has none is refused as well."""
    base = [
        "eval",
        "--models",
        str(_models(tmp_path)),
        "--benchmarks",
        "tiny_mc",
        "--include-path",
        str(tiny_tasks),
        "--backend",
        NAME,
        "--out",
        str(tmp_path / "store"),
    ]
    for extra, words in (
        (["--shard", "1/2"], "shard: sharded runs need the prefix engine (--backend densing-hf)"),
        (["--time-limit", "5"], "time_limit: a time limit needs the prefix engine (--backend densing-hf)"),
        (
            ["--slots", "4"],
            "--trie-tokens/--slots: they set the prefix engine's passes and slots; add --backend densing-hf",
        ),
        (["--prefix-cache"], f"prefix_cache: only the hf backend has it, not '{NAME}'"),
    ):
        code, _, err = _run(base + extra, capsys)
        assert code == 2 and err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "store").exists()


def test_the_deprecated_prefix_cache_names_densing_hf_and_keeps_the_store_key(tmp_path, tiny_tasks):
    from densing.eval.backends import with_prefix_cache
    from densing.eval.harness import resolve_benchmarks, task_manager
    from densing.eval.models import model_spec_from_mapping
    from densing.eval.runner import sweep_keys

    assert with_prefix_cache("hf", True) == with_prefix_cache("densing-hf", True) == "densing-hf"
    assert with_prefix_cache(NAME, False) == NAME
    spec = model_spec_from_mapping({"name": "m", "model": "no/such/model", "params": 1e8}, where="test")
    manager = task_manager([tiny_tasks], ["tiny_mc"])
    benches = resolve_benchmarks(["tiny_mc"], manager)

    def key(**options):
        return sweep_keys([spec], benches, manager, include_paths=[tiny_tasks], **options)[0]["m", "tiny_mc"]

    assert key(backend="densing-hf") == key(backend=with_prefix_cache("hf", True)) != key(backend="hf")
    assert len({key(backend="hf"), key(backend="vllm"), key(backend=NAME)}) == 3


def test_no_module_outside_the_backends_compares_a_backend_name():
    """Backend-specific behaviour lives in the backend's record: no ``== "hf"``, ``!= "vllm"`` or ``in ("hf", …)``
    on a backend's name anywhere else in the package, and ``densing-hf`` is named in code by its own module only."""
    import ast
    from pathlib import Path

    import densing

    root = Path(densing.__file__).parent
    names = {"hf", "vllm", "densing-hf", "hf-auto", "huggingface"}
    found = []
    for path in sorted(root.rglob("*.py")):
        inside = path.is_relative_to(root / "eval" / "backends")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and not inside:
                for side in [node.left, *node.comparators]:
                    constants = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                    if any(isinstance(c, ast.Constant) and c.value in names for c in constants):
                        found.append(f"{path.relative_to(root)}:{node.lineno}")
            if (
                isinstance(node, ast.Constant)
                and node.value == "densing-hf"
                and path != root / "eval" / "backends" / "densing_hf.py"
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno} names densing-hf")
    assert found == []
