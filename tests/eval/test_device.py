"""``--device``: parsed before any model (or torch) loads; a device no backend knows is one line, exit 2, nothing written."""

from __future__ import annotations

import subprocess
import sys

import pytest

from densing.errors import InputError
from densing.validation import Device, validate

GOOD = ["cpu", "cuda", "cuda:0", "cuda:1", "cuda:15", "mps", "xpu", "xpu:1", "hpu", "npu:0", "xla", "mtia", "cpu:0"]
BAD = [
    "nope",
    "",
    "gpu",
    "CUDA",
    "cuda:",
    "cuda:-1",
    "cuda:x",
    "cuda:01",
    "cuda:1.5",
    "cuda:0,1",
    " cuda",
    "cuda ",
    "cuda:99999",
    "cpu;rm",
    "meta",
    "auto",
]


@pytest.mark.parametrize("device", GOOD)
def test_a_torch_device_is_accepted(device):
    validate({"device": [Device(), None]}, device=device)


@pytest.mark.parametrize("device", BAD + [0, 1.0, ["cuda"]], ids=repr)
def test_a_device_no_backend_knows_is_refused(device):
    with pytest.raises(InputError, match="^device: "):
        validate({"device": [Device(), None]}, device=device)


def test_the_library_refuses_it_too():
    from densing.eval.loading import SWEEP_CONSTRAINTS

    validate(SWEEP_CONSTRAINTS, device=None)
    with pytest.raises(InputError, match="^device: "):
        validate(SWEEP_CONSTRAINTS, device="nope")


COMMANDS = {
    "eval": ["eval", "--benchmarks", "arc_easy", "--out", "{tmp}/store"],
    "measure": [
        "measure",
        "--suite",
        "leaderboard-v1",
        "--out",
        "{tmp}/report.html",
        "--store",
        "{tmp}/store",
        "--csv",
        "{tmp}/rows.csv",
    ],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("device", ["nope", "cuda:x", "gpu", "cuda:-1"])
def test_the_command_refuses_a_bad_device_in_one_line_before_any_model_loads(tmp_path, command, device):
    """In a fresh interpreter: exit 2, one line naming the field, no file written, and torch never imported."""
    models = tmp_path / "m.yaml"
    models.write_text("models:\n  - name: tiny\n    model: ./no-such-model\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[command]] + [
        "--models",
        str(models),
        "--device",
        device,
    ]
    code = (
        "import sys\nfrom densing.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n"
        "    print('exit', exc.code, 'torch' in sys.modules, 'lm_eval' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["exit", "2", "False", "False"], (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: device: ") and repr(device) in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.yaml"]
