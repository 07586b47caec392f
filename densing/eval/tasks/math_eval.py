"""MATH scoring of lm-eval's ``minerva_math`` tasks without lm-eval's ``math`` extra, for the local MATH tasks.

lm-eval's ``tasks/minerva_math/utils.py`` cannot be imported without sympy, ``math_verify`` and
``antlr4-python3-runtime`` 4.11 (its module body raises otherwise). Its answer extraction and normalisation are
plain Python, so they are read from that file as installed (the functions ``last_boxed_only_string``,
``remove_boxed``, ``get_unnormalized_answer``, ``normalize_final_answer`` and the lists they use), compiled alone
and used unchanged: the prompt and the extracted answer are lm-eval's own.

What differs: ``exact_match`` counts an answer correct when its normalised string equals the reference's.
lm-eval's ``is_equiv`` also accepts a different string that sympy's LaTeX parser finds equal (``2/4`` for
``\\frac{1}{2}``), and its ``math_verify`` metric needs the ``math_verify`` package; neither runs here, so this
``exact_match`` is at most lm-eval's.
"""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

#: What is read from lm-eval's ``minerva_math/utils.py``.
MINERVA_NAMES = (
    "last_boxed_only_string", "remove_boxed", "get_unnormalized_answer", "normalize_final_answer",
    "SUBSTITUTIONS", "REMOVED_EXPRESSIONS",
)


def minerva_utils_path() -> Path:
    import lm_eval

    return Path(lm_eval.__file__).parent / "tasks" / "minerva_math" / "utils.py"


@lru_cache(maxsize=1)
def minerva() -> dict[str, Any]:
    """The functions and lists of :data:`MINERVA_NAMES`, compiled from lm-eval's source (module docstring)."""
    path = minerva_utils_path()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kept = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in MINERVA_NAMES:
            kept.append(node)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in MINERVA_NAMES for t in node.targets):
            kept.append(node)
    namespace: dict[str, Any] = {"re": re, "__name__": "lm_eval_minerva_math_utils"}
    exec(compile(ast.Module(body=kept, type_ignores=[]), str(path), "exec"), namespace)
    missing = [name for name in MINERVA_NAMES if name not in namespace]
    if missing:
        raise RuntimeError(f"{path}: lm-eval's minerva_math utilities lack {', '.join(missing)}")
    return namespace


def doc_to_text(doc: dict) -> str:
    """lm-eval's Minerva prompt: ``Problem:\\n{problem}\\n\\nSolution:``."""
    return "Problem:" + "\n" + doc["problem"] + "\n\n" + "Solution:"


def reference_answer(solution: str) -> str:
    """The normalised answer in the last ``\\boxed{}`` of a reference solution (lm-eval's ``process_docs``)."""
    m = minerva()
    return m["normalize_final_answer"](m["remove_boxed"](m["last_boxed_only_string"](solution)))


def process_docs(dataset):
    """lm-eval's ``process_docs``: keep problem and solution, add the normalised reference ``answer``."""
    return dataset.map(
        lambda doc: {"problem": doc["problem"], "solution": doc["solution"], "answer": reference_answer(doc["solution"])},
        remove_columns=[c for c in dataset.column_names if c not in ("problem", "solution")],
    )


def is_correct(generation: str, answer: str) -> bool:
    """The answer read from "Final Answer: The final answer is …", normalised, equals the reference ``answer``."""
    m = minerva()
    extracted = m["normalize_final_answer"](m["get_unnormalized_answer"](generation))
    return bool(extracted) and extracted == answer


def process_results(doc: dict, results: list[str]) -> dict[str, int]:
    return {"exact_match": int(is_correct(results[0], doc["answer"]))}
