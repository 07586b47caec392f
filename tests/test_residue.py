"""The residue of the first corpus: ``densing trend --table swallow_2026`` (its breakpoint's before-ChatGPT window
holds no target, and the design's median over an empty window indexed past its end) and ``overlap whatif --workers``
beyond any world size."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "argv", [["trend", "--table", "swallow_2026", "--detail"], ["trend", "--table", "swallow_2026", "--format", "json"]]
)
def test_trend_on_swallow_2026_says_the_breakpoint_window_is_empty(argv, run_cli):
    code, out, err = run_cli(*argv, "--n-boot", "50")
    assert code == 0 and "Traceback" not in err, err
    if "json" in argv:
        before = json.loads(out)["breakpoint"]["before"]
        assert before["n_models"] == 0 and "of 0 targets" in before["note"]
    else:
        assert "slope before not fitted" in " ".join(out.split())


@pytest.mark.parametrize("workers,shown", [("1e300", "1e+300"), ("2147483648", "2147483648")])
def test_whatif_refuses_a_worker_count_beyond_any_world_size(workers, shown, tmp_path, run_cli):
    sys.path.insert(0, str(Path(__file__).parent / "overlap"))
    from overlap_tracegen import hand_trace, write_trace

    trace = write_trace(tmp_path / "rank0.json", hand_trace(shift=1000))
    for fmt in ("table", "json", "csv"):
        code, out, err = run_cli("overlap", "whatif", trace, "--workers", workers, "--format", fmt)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith("error: workers: expected an integer in [1, ") and err.rstrip().endswith(shown), err
