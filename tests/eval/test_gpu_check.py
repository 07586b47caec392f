"""``bench/gpu_check.py --dry-run``: the GPU check's every step on the CPU with a tiny model, its results file whole,
and the two backends agreeing in float32 (to 1e-4 relative, the same argmax choices)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT, SHARED_DATA

pytest.importorskip("lm_eval")
pytest.importorskip("tokenizers")
pytestmark = pytest.mark.eval


@pytest.mark.skipif(not (SHARED_DATA / "benchmarks").is_dir(), reason="no local benchmark splits")
def test_the_dry_run_writes_a_whole_results_file(tmp_path):
    done = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "gpu_check.py"), str(tmp_path), "--dry-run",
                           "--data-root", str(SHARED_DATA)], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert report["dry_run"] and report["requests"]["densing_sizing"] == {"tokens_per_batch": 512, "rows_per_batch": 16}
    assert report["requests"]["requests"] > 0 and 0 < report["requests"]["distinct_prefix_tokens"] <= report["requests"]["tokens"]
    fp32 = report["agreement_float32"]
    assert fp32["within_1e4_relative"] and fp32["argmax_identical"] and fp32["max_relative"] <= 1e-4
    for name in ("densing-hf", "densing-hf 1/2 tokens", "densing-hf 2x tokens"):
        row = report["throughput"][name]
        assert len(row["ratio_to_hf"]) == 1 and row["ratio_to_hf"][0] > 0 and row["seconds_over_limit"][0] > 0
    profile = report["profile_densing_hf"]
    assert 0 < profile["device"]["busy_share"] and profile["device"]["operators"] and "plan_forwards" in profile["host"]["steps"]
    assert report["generation"]["identical_strings"] == report["generation"]["requests"] == 2  # float32: the same text
    assert (tmp_path / "gpu_check.txt").read_text() == done.stdout and "ratio to hf" in done.stdout
