"""tools/lm_eval_requests.build_instances: the lm-eval requests of named tasks, without a model."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED_DATA

pytest.importorskip("lm_eval")
pytest.importorskip("datasets")
pytestmark = pytest.mark.eval


def test_build_instances_of_an_included_task(tiny_tasks):
    from tools.lm_eval_requests import build_instances

    instances = build_instances(["tiny_mc"], limit=2, include_paths=[tiny_tasks])
    assert len(instances) == 6  # 2 docs x 3 choices
    assert {i.doc_id for i in instances} == {0, 1}
    assert {i.request_type for i in instances} == {"loglikelihood"}
    assert instances[0].args == ("Question: What colour is the sky on a clear day?\nAnswer:", " blue")


@pytest.mark.skipif(
    not (SHARED_DATA / "benchmarks").is_dir(), reason=f"{SHARED_DATA / 'benchmarks'}: no local benchmark splits"
)
def test_build_instances_of_a_local_task_with_shots():
    from tools.lm_eval_requests import build_instances

    zero = build_instances(["densing_local_arc_easy"], limit=2, data_root=SHARED_DATA)
    two = build_instances(["densing_local_arc_easy"], limit=2, num_fewshot=2, data_root=SHARED_DATA)
    assert {i.doc_id for i in zero} == {0, 1} and len(zero) == len(two) >= 6
    assert all(i.task_name == "densing_local_arc_easy" for i in zero)
    for a, b in zip(zero, two):  # the same continuations, two shots before each context
        assert a.args[1] == b.args[1] and b.args[0].endswith(a.args[0]) and len(b.args[0]) > len(a.args[0])


@pytest.mark.skipif(
    not (SHARED_DATA / "benchmarks").is_dir(), reason=f"{SHARED_DATA / 'benchmarks'}: no local benchmark splits"
)
def test_build_instances_draws_the_same_shots_with_lm_evals_seed():
    """Two calls build the same few-shot contexts, drawn with the seed ``lm_eval.simple_evaluate`` gives the
    few-shot sampler by default."""
    import inspect

    from lm_eval.evaluator import simple_evaluate

    from tools.lm_eval_requests import FEWSHOT_SEED, build_instances

    first, second = (
        build_instances(["densing_local_winogrande"], limit=3, num_fewshot=5, data_root=SHARED_DATA) for _ in range(2)
    )
    assert len(first) == 6 and [i.args for i in first] == [i.args for i in second]
    assert FEWSHOT_SEED == inspect.signature(simple_evaluate).parameters["fewshot_random_seed"].default


def test_lm_evals_warnings_about_what_densing_sets_on_purpose_are_dropped_and_no_other(caplog):
    """The two warnings densing's own settings cause (a custom_dataset loader, the protocol's shots) are dropped;
    any other warning of the same loggers passes; the fragments are still lm-eval's own words."""
    import inspect
    import logging

    import lm_eval.api.task
    import lm_eval.evaluator

    from densing.eval.harness import EXPECTED_LM_EVAL_WARNINGS, quiet_expected_lm_eval_warnings, unexpected_warning

    sources = {
        "lm_eval.api.task": inspect.getsource(lm_eval.api.task),
        "lm_eval.evaluator": inspect.getsource(lm_eval.evaluator),
    }
    for name, fragments in EXPECTED_LM_EVAL_WARNINGS.items():
        for fragment in fragments:
            assert fragment.lstrip(": ") in sources[name], (name, fragment)
    quiet_expected_lm_eval_warnings()
    quiet_expected_lm_eval_warnings()  # installed once
    assert logging.getLogger("lm_eval.evaluator").filters.count(unexpected_warning) == 1
    with caplog.at_level(logging.WARNING):
        logging.getLogger("lm_eval.api.task").warning(
            "densing_local_mmlu_anatomy: Custom kwargs can be passed to "
            "`--metadata` in console (as json string) or to the TaskManager."
        )
        logging.getLogger("lm_eval.evaluator").warning(
            "Overwriting default num_fewshot of %s from %s to %s", "t", None, 5
        )
        logging.getLogger("lm_eval.evaluator").warning("a warning densing does not expect")
        logging.getLogger("lm_eval.api.task").warning("another")
    assert [r.getMessage() for r in caplog.records] == ["a warning densing does not expect", "another"]


def test_lm_evals_environment_record_is_left_out_inside_and_put_back_after():
    """Inside :func:`without_environment_record` lm-eval's ``simple_evaluate`` adds no environment record (no
    ``pip list``, no ``git``); its own functions are back after, an error or not; it still calls them by these names."""
    import inspect

    from lm_eval import evaluator

    from densing.eval.harness import without_environment_record

    saved = evaluator.add_env_info, evaluator.get_git_commit_hash
    storage: dict = {}
    with pytest.raises(KeyError), without_environment_record():
        evaluator.add_env_info(storage)
        assert evaluator.get_git_commit_hash() is None
        raise KeyError("out")
    assert storage == {} and (evaluator.add_env_info, evaluator.get_git_commit_hash) == saved
    source = inspect.getsource(evaluator.simple_evaluate)
    assert "add_env_info(results)" in source and "get_git_commit_hash()" in source
