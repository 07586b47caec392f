"""densing.eval.harness.build_instances: the lm-eval requests of named tasks, without a model."""
from __future__ import annotations

import pytest

from tests.conftest import SHARED_DATA

pytest.importorskip("lm_eval")
pytest.importorskip("datasets")
pytestmark = pytest.mark.eval


def test_build_instances_of_an_included_task(tiny_tasks):
    from densing.eval.harness import build_instances

    instances = build_instances(["tiny_mc"], limit=2, include_paths=[tiny_tasks])
    assert len(instances) == 6  # 2 docs x 3 choices
    assert {i.doc_id for i in instances} == {0, 1}
    assert {i.request_type for i in instances} == {"loglikelihood"}
    assert instances[0].args == ("Question: What colour is the sky on a clear day?\nAnswer:", " blue")


@pytest.mark.skipif(not (SHARED_DATA / "benchmarks").is_dir(), reason=f"{SHARED_DATA / 'benchmarks'}: no local benchmark splits")
def test_build_instances_of_a_local_task_with_shots():
    from densing.eval.harness import build_instances

    zero = build_instances(["densing_local_arc_easy"], limit=2, data_root=SHARED_DATA)
    two = build_instances(["densing_local_arc_easy"], limit=2, num_fewshot=2, data_root=SHARED_DATA)
    assert {i.doc_id for i in zero} == {0, 1} and len(zero) == len(two) >= 6
    assert all(i.task_name == "densing_local_arc_easy" for i in zero)
    for a, b in zip(zero, two):  # the same continuations, two shots before each context
        assert a.args[1] == b.args[1] and b.args[0].endswith(a.args[0]) and len(b.args[0]) > len(a.args[0])
