"""`densing validate` on the Pythia folder: numeric checkpoint order, no warm-up steps, a summary."""

from __future__ import annotations

import json
import re

from conftest import PYTHIA, needs_pythia


@needs_pythia
def test_pythia_validate_sorted_without_warmup(run_cli):
    code, out, err = run_cli(
        "validate", "--data", PYTHIA, "--benchmark", "lambada_openai", "--max-params", "6e9", "--format", "json"
    )
    assert code == 0, err
    rows = json.loads(out)
    assert rows and all(r["train_tokens"] >= 3e9 for r in rows)
    assert not any(r["model"].endswith("@step1") for r in rows)
    for run in {r["run"] for r in rows}:
        steps = [int(re.search(r"step(\d+)", r["model"]).group(1)) for r in rows if r["run"] == run]
        assert steps == sorted(steps)


@needs_pythia
def test_pythia_validate_prints_summary(run_cli):
    code, out, err = run_cli("validate", "--data", PYTHIA, "--benchmark", "lambada_openai", "--max-params", "6e9")
    assert code == 0, err
    summary = out.strip().splitlines()[-1]
    assert re.match(
        r"\d+ held-out point\(s\) from 2 run\(s\) with N ≥ 6e\+09 \(lambada_openai\): "
        r"mean relative error [\d.]+%, largest [\d.]+% \(pythia-",
        summary,
    ), summary
