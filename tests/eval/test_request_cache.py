"""A store's lm-eval request cache read back (tools/lm_eval_requests.py), cached strings put on a task's requests
(studies/bbh_per_task.py), and caches merged (densing.eval.store)."""

import pickle
import sqlite3
import time

import pytest

from densing.errors import InputError
from tools.lm_eval_requests import bbh_task_names, read_request_cache


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

    from studies.bbh_per_task import fill_from_cache  # the study sets lm-eval's offline switches when imported

    done, missing = _Instance(("Q: 1+1?", {"until": ["\n"]})), _Instance(("Q: 2+2?", {"until": ["\n"]}))
    task = _Task([done, missing])
    filled = fill_from_cache(task, {hash_args("generate_until", done.args): " 2"})
    assert filled == [done] and done.resps == [" 2"] and task._instances == [done] and task.filtered
    empty = _Task([missing])
    assert fill_from_cache(empty, {}) == [] and not empty.filtered


def test_bbh_names_are_the_prefixed_tasks_sorted():
    class Manager:
        all_tasks = ["densing_local_bbh_cot_fewshot_snarks", "bbh", "densing_local_bbh_cot_fewshot_navigate"]

    assert bbh_task_names(Manager()) == [
        "densing_local_bbh_cot_fewshot_navigate",
        "densing_local_bbh_cot_fewshot_snarks",
    ]


def _db(path, entries: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("create table unnamed (key text primary key, value blob)")
        db.executemany("insert into unnamed values (?, ?)", [(k, pickle.dumps(v)) for k, v in entries.items()])


def test_merged_caches_hold_the_union_and_count_each_sources_share(tmp_path):
    """Two machines' shards (disjoint) and a third store repeating one answer and contradicting another: the merged
    cache holds the union, the first answer wins, and every count adds up."""
    pytest.importorskip("sqlitedict")
    from densing.eval.store import merge_request_caches

    a, b, c, into = (tmp_path / name for name in ("a", "b", "c", "into"))
    _db(a / ".cache" / "m-1" / "requests_rank0.db", {"k1": "one", "k2": (-1.5, True)})
    _db(b / ".cache" / "m-1" / "requests_rank0.db", {"k3": "three"})
    _db(b / ".cache" / "m-1" / "requests_rank1.db", {"k4": "four"})
    _db(c / ".cache" / "m-1" / "requests_rank0.db", {"k1": "one", "k3": "THREE"})
    _db(c / ".cache" / "other-2" / "requests_rank0.db", {"x": "y"})
    merged = {m.folder: m for m in merge_request_caches([a, b, c], into)}
    assert read_request_cache_folder(into, "m-1") == {"k1": "one", "k2": (-1.5, True), "k3": "three", "k4": "four"}
    assert read_request_cache_folder(into, "other-2") == {"x": "y"}
    first = merged["m-1"]
    assert (first.requests, first.added, first.same, first.different) == (4, (2, 2, 0), 1, 1)
    assert merged["other-2"].added == (0, 0, 1)
    assert sorted(p.name for p in (into / ".cache" / "m-1").iterdir()) == ["requests_rank0.db"]
    # merging again into the same store changes nothing: its own cache comes first, the sources repeat it
    again = {m.folder: m for m in merge_request_caches([a, b], into)}["m-1"]
    assert (again.requests, again.added, again.same, again.different) == (4, (0, 0), 4, 0)
    assert read_request_cache_folder(into, "m-1")["k3"] == "three"


def read_request_cache_folder(store, folder: str) -> dict:
    with sqlite3.connect(store / ".cache" / folder / "requests_rank0.db") as db:
        return {key: pickle.loads(value) for key, value in db.execute("select key, value from unnamed")}


def test_a_source_that_is_no_sharded_store_is_one_line_and_nothing_is_written(tmp_path):
    pytest.importorskip("sqlitedict")
    from densing.eval.store import merge_request_caches

    good = tmp_path / "good"
    _db(good / ".cache" / "m-1" / "requests_rank0.db", {"k": "v"})
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("x")
    for bad, words in [
        (tmp_path / "empty", "no request cache"),
        (tmp_path / "file", "not a directory"),
        (tmp_path / "missing", "not a directory"),
    ]:
        with pytest.raises(InputError, match=f"{bad}: {words}"):
            merge_request_caches([good, bad], tmp_path / "into")
        assert not (tmp_path / "into").exists()
    with pytest.raises(InputError, match="exists and is not a folder"):
        merge_request_caches([good], tmp_path / "file")
    with pytest.raises(InputError, match="no source store"):
        merge_request_caches([], tmp_path / "into")


class _Request:
    def __init__(self, args):
        self.args = args


def _cached(path) -> dict:
    with sqlite3.connect(path) as db:  # another connection: what is committed
        return {key: pickle.loads(value) for key, value in db.execute("select key, value from unnamed")}


def test_the_request_cache_in_transactions_writes_lm_evals_table_and_keeps_a_stopped_calls_answers(
    tmp_path, monkeypatch
):
    """Inside ``request_cache_in_transactions`` lm-eval's ``CachingLM`` writes the same keys and answers, every answer
    of a call that returns, those its partial hook saw when the call raises, and serves them from the file after;
    with ``COMMIT_SECONDS`` 0 an answer is in the file while its call still runs (what a kill -9 would keep)."""
    pytest.importorskip("lm_eval")
    from lm_eval.api import model
    from lm_eval.api.model import LM, hash_args

    import densing.eval.store
    from densing.eval.store import request_cache_in_transactions

    seen_during_call = []

    class Scored(LM):
        calls = 0

        def loglikelihood(self, requests):
            Scored.calls += 1
            answers = []
            for request in requests:
                if request.args[1] == "stop":
                    raise RuntimeError("time limit")
                answers.append((-float(len(request.args[1])), True))
                self.cache_hook.add_partial("loglikelihood", request.args, answers[-1])
                if request.args == ("q", " bb"):  # the answer before it, written without waiting: poll for it
                    key = hash_args("loglikelihood", ("q", " a"))
                    for _ in range(200):
                        if key in _cached(path):
                            seen_during_call.append(key)
                            break
                        time.sleep(0.01)
            return answers

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

        def generate_until(self, requests):
            raise NotImplementedError

    path = tmp_path / ".cache" / "m" / "requests_rank0.db"
    done = [_Request(("q", " a")), _Request(("q", " bb"))]
    monkeypatch.setattr(densing.eval.store, "COMMIT_SECONDS", 0.0)
    with request_cache_in_transactions():
        lm = model.CachingLM(Scored(), str(path))
        assert lm.loglikelihood(done) == [(-2.0, True), (-3.0, True)]
        with pytest.raises(RuntimeError, match="time limit"):
            lm.loglikelihood([_Request(("r", " ccc")), _Request(("r", "stop"))])
    assert model.CachingLM.__name__ == "CachingLM" and model.CachingLM.__module__ == "lm_eval.api.model"
    assert seen_during_call == [hash_args("loglikelihood", ("q", " a"))]
    assert _cached(path) == {
        hash_args("loglikelihood", ("q", " a")): (-2.0, True),
        hash_args("loglikelihood", ("q", " bb")): (-3.0, True),
        hash_args("loglikelihood", ("r", " ccc")): (-4.0, True),
    }
    before = Scored.calls
    assert model.CachingLM(Scored(), str(path)).loglikelihood(done) == [(-2.0, True), (-3.0, True)]
    assert Scored.calls == before  # every answer from the file


def test_the_transactions_are_written_for_a_bounded_range_of_lm_eval_releases():
    from importlib.metadata import version

    from densing.eval.store import CACHE_WRITTEN_FOR, cache_written_for

    assert CACHE_WRITTEN_FOR == ("0.4.8", "0.5")
    assert cache_written_for("0.4.8") and cache_written_for("0.4.13") and cache_written_for("0.4.99.post1")
    assert not any(cache_written_for(v) for v in ("0.4.7", "0.5.0", "0.5.0rc1", "1.0", "not a version"))
    pytest.importorskip("lm_eval")
    assert cache_written_for(version("lm_eval"))  # the installed release runs the transactional cache


def test_outside_those_releases_lm_evals_own_cache_stays_with_a_warning(monkeypatch, caplog):
    """An lm-eval release the subclasses were not written for: the block replaces nothing, and says so once."""
    pytest.importorskip("lm_eval")
    import importlib.metadata
    import logging

    from lm_eval.api import model

    from densing.eval.store import request_cache_in_transactions

    original = model.CachingLM
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.5.2")
    with caplog.at_level(logging.WARNING, logger="densing.eval"), request_cache_in_transactions():
        assert model.CachingLM is original
    assert model.CachingLM is original
    warned = [r.getMessage() for r in caplog.records if r.name == "densing.eval"]
    assert warned == [
        "lm-eval 0.5.2: the request cache is lm-eval's own (densing's transactions are written for 0.4.8 to before 0.5)"
    ]
