"""``densing eval`` and ``densing measure`` refuse a model they cannot load (here an uninstalled ``package:`` model)
before lm-eval, torch or transformers is imported: the error comes in the time of reading the models file, not of
building lm-eval's task index."""

from __future__ import annotations

import subprocess
import sys

import pytest

MODELS = "models:\n  - name: absent\n    model: package:densing_no_such_package\n"
COMMANDS = {
    "eval": ["eval", "--models", "{models}", "--benchmarks", "mmlu,arc_challenge", "--out", "{tmp}/store"],
    "measure": [
        "measure",
        "--models",
        "{models}",
        "--suite",
        "leaderboard-v1",
        "--store",
        "{tmp}/store",
        "--out",
        "{tmp}/report.html",
    ],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_model_that_cannot_load_is_refused_before_lm_eval_is_imported(command, tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text(MODELS)
    argv = [w.format(models=models, tmp=tmp_path) for w in COMMANDS[command]]
    code = (
        "import sys\nfrom densing.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit as exc:\n    print('exit', exc.code)\n"
        "print(','.join(m for m in ('lm_eval', 'torch', 'transformers') if m in sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
    )
    lines = run.stdout.splitlines()
    assert lines[-2] == "exit 2", run.stderr
    assert lines[-1] == "", f"imported before the refusal: {lines[-1]}"
    assert "densing_no_such_package" in run.stderr and run.stderr.count("\n") == 1
