"""Few-shot exemplars for the companion loss tasks, read from the installed lm-evaluation-harness (MIT licence):
the literal lists its ``list_fewshot_samples`` return in lm_eval/tasks/mbpp/utils.py,
lm_eval/tasks/minerva_math/utils.py and lm_eval/tasks/leaderboard/math/utils.py, and the
``fewshot_config.samples`` of lm_eval/tasks/gsm8k/gsm8k-cot.yaml; and the GSM8K loss target.

They are read, not imported, because importing those modules needs the network (mbpp loads the
``code_eval`` metric from the Hub) or optional packages (minerva_math and leaderboard/math need sympy
and math-verify), which the loss does not need.
"""
import ast
import re
from pathlib import Path


def _lm_eval_tasks() -> Path:
    import lm_eval

    return Path(lm_eval.__file__).parent / "tasks"


def _lm_eval_samples(*parts: str) -> list[dict]:
    """The literal list that ``list_fewshot_samples`` returns in lm-eval's task module ``tasks/<parts>``."""
    tree = ast.parse(_lm_eval_tasks().joinpath(*parts).read_text(encoding="utf-8"))
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "list_fewshot_samples")
    returned = next(n for n in ast.walk(function) if isinstance(n, ast.Return))
    return ast.literal_eval(returned.value)


def mbpp_fewshot_samples() -> list[dict]:
    """The 3 exemplars of lm-eval's ``mbpp`` (task_ids 2-4)."""
    return _lm_eval_samples("mbpp", "utils.py")


def minerva_math_fewshot_samples() -> list[dict]:
    """The 4 exemplars of lm-eval's ``minerva_math`` tasks."""
    return _lm_eval_samples("minerva_math", "utils.py")


def gsm8k_cot_fewshot_samples() -> list[dict]:
    """The 8 chain-of-thought exemplars of lm-eval's ``gsm8k_cot`` (gsm8k/gsm8k-cot.yaml, Wei et al. 2022)."""
    import yaml

    config = yaml.safe_load((_lm_eval_tasks() / "gsm8k" / "gsm8k-cot.yaml").read_text(encoding="utf-8"))
    return config["fewshot_config"]["samples"]


def gsm8k_cot_target(doc: dict) -> str:
    """The reference chain of a GSM8K problem in the form of ``gsm8k_cot``'s exemplar targets.

    ``answer`` is the original worked solution: lines of reasoning with calculator annotations
    ``<<48/2=24>>``, then ``#### <number>``. The chain is those lines without the annotations,
    joined by spaces, followed by ``The answer is <number>.`` — the one-paragraph form of the 8
    exemplars (whose ``target`` fields already have it).
    """
    chain, _, number = doc["answer"].rpartition("####")
    lines = [line.strip() for line in re.sub(r"<<[^>]*>>", "", chain).splitlines() if line.strip()]
    return " ".join(lines + [f"The answer is {number.strip()}."])


def gsm8k_cot_continuation(doc: dict) -> str:
    """What the GSM8K loss companion scores after ``Q: …\nA:``: ``" " + gsm8k_cot_target(doc)``
    (lm-eval 0.4 adds no ``target_delimiter`` to a loglikelihood request's continuation)."""
    return " " + gsm8k_cot_target(doc)


def leaderboard_math_fewshot_samples() -> list[dict]:
    """The 4 exemplars of lm-eval's ``leaderboard_math_*_hard`` tasks."""
    return _lm_eval_samples("leaderboard", "math", "utils.py")


def leaderboard_math_hard_docs(dataset):
    """The level-5 problems, as lm-eval's ``leaderboard_math_*_hard`` keep them (its ``process_docs``)."""
    return dataset.filter(lambda doc: doc["level"] == "Level 5").map(
        lambda doc: {"problem": doc["problem"], "solution": doc["solution"]}
    )
