"""densing.eval.request_cache: a store's lm-eval request cache read back, and cached strings put on a task's requests."""
import pickle
import sqlite3

import pytest

from densing.errors import InputError
from densing.eval.request_cache import bbh_task_names, fill_from_cache, read_request_cache


def _store(tmp_path, entries: dict, models=("m",)):
    for model in models:
        folder = tmp_path / ".cache" / model
        folder.mkdir(parents=True)
        with sqlite3.connect(folder / "requests_rank0.db") as db:
            db.execute("create table unnamed (key text primary key, value blob)")
            db.executemany("insert into unnamed values (?, ?)", [(k, pickle.dumps(v)) for k, v in entries.items()])
    return tmp_path


def test_the_cache_reads_back_as_a_mapping(tmp_path):
    assert read_request_cache(_store(tmp_path, {"a": "yes", "b": [1.5, True]})) == {"a": "yes", "b": [1.5, True]}


@pytest.mark.parametrize("models", [(), ("m1", "m2")])
def test_no_cache_or_two_caches_is_one_line_naming_the_store(tmp_path, models):
    store = _store(tmp_path, {}, models) if models else tmp_path
    with pytest.raises(InputError, match=f"{tmp_path}: expected one request cache.*found {len(models)}"):
        read_request_cache(store)


class _Instance:
    def __init__(self, args):
        self.args, self.resps = args, []


class _Task:
    def __init__(self, instances):
        self.instances, self._instances, self.filtered = instances, instances, False

    def apply_filters(self):
        self.filtered = True


def test_cached_strings_fill_their_requests_and_the_rest_drop_out():
    from lm_eval.api.model import hash_args

    done, missing = _Instance(("Q: 1+1?", {"until": ["\n"]})), _Instance(("Q: 2+2?", {"until": ["\n"]}))
    task = _Task([done, missing])
    filled = fill_from_cache(task, {hash_args("generate_until", done.args): " 2"})
    assert filled == [done] and done.resps == [" 2"] and task._instances == [done] and task.filtered
    empty = _Task([missing])
    assert fill_from_cache(empty, {}) == [] and not empty.filtered


def test_bbh_names_are_the_prefixed_tasks_sorted():
    class Manager:
        all_tasks = ["densing_local_bbh_cot_fewshot_snarks", "bbh", "densing_local_bbh_cot_fewshot_navigate"]

    assert bbh_task_names(Manager()) == ["densing_local_bbh_cot_fewshot_navigate", "densing_local_bbh_cot_fewshot_snarks"]
