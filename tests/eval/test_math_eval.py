"""densing.eval.tasks.math_eval: lm-eval's Minerva answer extraction and normalisation, read from lm-eval's source."""

from __future__ import annotations

import pytest

pytest.importorskip("lm_eval")

from densing.eval.tasks import math_eval

SOLUTION = "So the domain is $\\boxed{[2,5)}$.\nFinal Answer: The final answer is $[2,5)$. I hope it is correct."


def test_the_functions_are_lm_evals():
    functions = math_eval.minerva()
    for name in math_eval.MINERVA_NAMES:
        assert name in functions
    assert functions["normalize_final_answer"].__code__.co_filename == str(math_eval.minerva_utils_path())


def test_reference_answer_and_scoring():
    assert math_eval.reference_answer("Thus $x = \\boxed{\\frac{1}{2}}$.") == "\\frac{1}{2}"
    assert math_eval.reference_answer(SOLUTION) == "[2,5)"
    answer = math_eval.reference_answer(SOLUTION)
    assert math_eval.is_correct(SOLUTION, answer)
    assert math_eval.is_correct("Final Answer: The final answer is $[2, 5)$. I hope it is correct.", answer)  # spaces
    assert not math_eval.is_correct("Final Answer: The final answer is $[2,5]$. I hope it is correct.", answer)
    assert not math_eval.is_correct("the answer is [2,5)", answer)  # no "Final Answer: …": lm-eval's [invalidanswer]
    assert math_eval.process_results({"answer": answer}, [SOLUTION]) == {"exact_match": 1}
    # identity of the normalised strings only: lm-eval's sympy equivalence is not run
    assert not math_eval.is_correct("Final Answer: The final answer is $0.5$. I hope it is correct.", "\\frac{1}{2}")


def test_prompt_and_documents():
    datasets = pytest.importorskip("datasets")
    docs = datasets.Dataset.from_list([{"problem": "P?", "solution": "so $\\boxed{7}$", "level": 1, "unique_id": "u"}])
    (doc,) = math_eval.process_docs(docs)
    assert doc == {"problem": "P?", "solution": "so $\\boxed{7}$", "answer": "7"}
    assert math_eval.doc_to_text(doc) == "Problem:\nP?\n\nSolution:"
