"""The two kernel-category rules (``--kernel-rules``): HTA 0.5.0's and traceinsight 0.6.1's, on a
synthesised trace whose kernels they classify differently (``ncclDev*``, ``hccl*``, ``hip*``, a bare ``nccl*``)."""

import importlib.util
import json
import subprocess
import sys

import pytest

from densing.cli import main
from densing.errors import InputError
from densing.overlap import analyze
from densing.overlap.model import COMMUNICATION, COMPUTATION, MEMORY, OTHER, kernel_category
from tests.overlap.overlap_tracegen import rules_trace

EXPECTED = {
    "hta": {"kernel_span_us": 40, "idle_us": 5, "compute_us": 28, "comm_us": 10, "overlap_us": 5, "non_compute_us": 7},
    "traceinsight": {
        "kernel_span_us": 40,
        "idle_us": 5,
        "compute_us": 18,
        "comm_us": 23,
        "overlap_us": 6,
        "non_compute_us": 17,
    },
}


@pytest.mark.parametrize("rules", sorted(EXPECTED))
def test_hand_computed_numbers(tmp_path, rules):
    row = analyze(rules_trace(tmp_path / "rank0.json"), rules=rules).iloc[0]
    for column, expected in EXPECTED[rules].items():
        assert float(row[column]) == expected, (rules, column)
    assert float(row["comm_comp_overlap_pct"]) == pytest.approx(
        100 * EXPECTED[rules]["overlap_us"] / EXPECTED[rules]["comm_us"]
    )


@pytest.mark.parametrize(
    "name,hta,traceinsight",
    [
        ("ncclKernel_AllReduce_RING", COMMUNICATION, COMMUNICATION),
        ("ncclDevKernel_Generic", COMMUNICATION, COMMUNICATION),
        ("ncclDevFunc_Broadcast", COMPUTATION, COMMUNICATION),
        ("hccl_AllReduce", COMPUTATION, COMMUNICATION),
        ("hipMemcpyDtoD", OTHER, COMMUNICATION),
        ("Memcpy DtoH (Device -> Pinned)", MEMORY, MEMORY),
        ("fused_dma_copy", COMPUTATION, OTHER),
        ("Stream Wait Event", COMPUTATION, OTHER),
        ("volta_sgemm_128x64_nn", COMPUTATION, COMPUTATION),
        ("cudaStreamSynchronize", OTHER, OTHER),
    ],
)
def test_categories(name, hta, traceinsight):
    assert kernel_category(name, "hta") == hta
    assert kernel_category(name, "traceinsight") == traceinsight


def test_unknown_rules_refused(tmp_path, capsys):
    with pytest.raises(InputError, match="kernel rules"):
        analyze(rules_trace(tmp_path / "rank0.json"), rules="hta-0.7")
    with pytest.raises(SystemExit) as exc:
        main(["overlap", "analyze", str(tmp_path / "rank0.json"), "--kernel-rules", "nope"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_cli_option(tmp_path, capsys):
    path = rules_trace(tmp_path / "rank0.json")
    main(["overlap", "analyze", str(path), "--format", "json", "--kernel-rules", "traceinsight"])
    assert json.loads(capsys.readouterr().out)[0]["comm_us"] == 23


HTA_CODE = r"""
import json, logging, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
ta = TraceAnalysis(trace_dir=sys.argv[1])
ov = ta.get_comm_comp_overlap(visualize=False)
br = ta.get_temporal_breakdown(visualize=False)
b = br.iloc[0]
print(json.dumps({"overlap_pct": float(ov["comp_comm_overlap_pctg"].iloc[0]), "idle_us": float(b["idle_time(us)"]),
                  "compute_us": float(b["compute_time(us)"]), "non_compute_us": float(b["non_compute_time(us)"])}))
"""


@pytest.mark.skipif(importlib.util.find_spec("hta") is None, reason="traceinsight (bench extra) not installed")
def test_traceinsight_rules_equal_traceinsight(tmp_path):
    """Where traceinsight is installed (the ``bench`` extra), its own numbers on the synthesised trace."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("traceinsight")
    except PackageNotFoundError:  # the module `hta` of holistictraceanalysis, not traceinsight's
        pytest.skip("the installed `hta` is not traceinsight")
    if found != "0.6.1":
        pytest.skip("traceinsight is not 0.6.1")
    rules_trace(tmp_path / "set" / "rank0.json")
    done = subprocess.run(
        [sys.executable, "-c", HTA_CODE, str(tmp_path / "set")], capture_output=True, text=True, check=True
    )
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    ours = analyze(tmp_path / "set", rules="traceinsight").iloc[0]
    assert abs(theirs["overlap_pct"] - float(ours["comm_comp_overlap_pct"])) <= 0.01
    for column in ("idle_us", "compute_us", "non_compute_us"):
        assert theirs[column] == float(ours[column]), column
