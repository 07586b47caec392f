"""densing.trend.plan and densing.runtime's job executor: declared jobs, computed in one process per core (this one
among them) or here, with the same results; a job waits for the jobs it needs; the processes end on every path; the
plan holds the jobs of the sections asked for."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from densing.runtime import executor, processes
from densing.trend import plan


@dataclass(frozen=True)
class Square:
    """A planted job: the context's offset plus its value squared, plus what it needs."""

    value: int
    needs: tuple = ()

    @property
    def key(self) -> str:
        return f"square:{self.value}"

    def run(self, context, needed: dict):
        return context["offset"] + self.value**2 + sum(v[0] for v in needed.values()), os.getpid()


@dataclass(frozen=True)
class Fails:
    key: str = "fails"
    needs: tuple = ()

    def run(self, context, needed: dict):
        raise ValueError("planted failure")


@dataclass(frozen=True)
class Dies:
    key: str = "dies"
    needs: tuple = ()

    def run(self, context, needed: dict):
        if os.getpid() != context["parent"]:
            os._exit(3)  # a worker killed mid-job
        return "computed here"


def _jobs():
    return [Square(3), Square(4, needs=("square:3",)), Square(5), Square(6, needs=("square:4", "square:5"))]


def test_workers_and_here_give_the_same_results(monkeypatch):
    context = {"offset": 10, "parent": os.getpid()}
    pooled = executor.run(_jobs(), context)
    monkeypatch.setenv("DENSING_SERIAL", "1")
    here = executor.run(_jobs(), context)
    assert {k: v[0] for k, v in pooled.items()} == {k: v[0] for k, v in here.items()}
    assert here["square:4"][0] == 10 + 16 + (10 + 9)  # a job gets the results it needs
    assert here["square:6"][0] == 10 + 36 + here["square:4"][0] + here["square:5"][0]
    if (os.cpu_count() or 1) > 1:  # a worker took the first job, this process the next one ready (square:5)
        assert os.getpid() in {pid for _, pid in pooled.values()} and {pid for _, pid in pooled.values()} - {
            os.getpid()
        }
        assert pooled["square:5"][1] == os.getpid() and pooled["square:3"][1] != os.getpid()


def test_a_pool_of_one_worker_is_sent_each_needed_result_once(monkeypatch):
    """With one worker beside this process, a result several of its jobs need reaches it once (or never, where it
    computed it), and every result is the one computed here."""
    if (os.cpu_count() or 1) != 2:
        pytest.skip("the pool holds one worker on two cores")
    sent = []
    make = executor.process_pool

    def recorded(*args, **kwargs):
        pool = make(*args, **kwargs)
        submit = pool.submit

        def recording(fn, job, needed, **keep):
            sent.extend(needed)
            return submit(fn, job, needed, **keep)

        pool.submit = recording
        return pool

    monkeypatch.setattr(executor, "process_pool", recorded)
    jobs = [Square(3), *(Square(v, needs=("square:3",)) for v in range(4, 12))]
    context = {"offset": 10, "parent": os.getpid()}
    pooled = executor.run(jobs, context)
    monkeypatch.setenv("DENSING_SERIAL", "1")
    assert {k: v[0] for k, v in pooled.items()} == {k: v[0] for k, v in executor.run(jobs, context).items()}
    assert len(sent) == len(set(sent)) <= 1
    assert pooled["square:3"][1] != os.getpid() and not sent  # the worker computed the result the others need


def _alive(pid: int) -> bool:
    """Whether the operating system still has a process ``pid`` (a reaped worker has none)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def started(monkeypatch):
    """The pids of every worker the test's runs fork, read when called (each pool's table of processes: the dict the
    pool fills as it forks; end_pool reads the same one)."""
    made = []
    make = executor.process_pool

    def recorded(*args, **kwargs):
        pool = make(*args, **kwargs)
        made.append(pool._processes)
        return pool

    monkeypatch.setattr(executor, "process_pool", recorded)
    return lambda: [pid for processes in made for pid in processes]


def test_an_error_in_a_job_ends_the_workers(started):
    """Every worker the run started is gone from the operating system when the error reaches the caller (asked of
    the OS by pid: multiprocessing's own list can still show a child another thread of the pool has just reaped)."""
    with pytest.raises(ValueError, match="planted failure"):
        executor.run([Fails(), *_jobs()], {"offset": 0, "parent": os.getpid()})
    if (os.cpu_count() or 1) > 1:
        assert started() and not [pid for pid in started() if _alive(pid)]


def test_a_finished_run_leaves_its_workers_exiting_and_the_exit_handler_reaps_them(started):
    """A run that succeeds returns without waiting for its workers to exit (processes.close_pool); join_closed, the exit
    handler the command's exit runs, returns once every one of them is gone from the operating system (by pid: an
    exited worker not yet reaped still answers)."""
    done = executor.run(_jobs(), {"offset": 0, "parent": os.getpid()})
    assert len(done) == len(_jobs())
    processes.join_closed()
    if (os.cpu_count() or 1) > 1:
        assert started() and not [pid for pid in started() if _alive(pid)]


def test_a_dead_worker_costs_time_not_the_result():
    done = executor.run([Dies(), *_jobs()], {"offset": 0, "parent": os.getpid()})
    assert done["dies"] == "computed here" and len(done) == 5


def test_the_plan_holds_one_job_per_row_and_variant():
    import pandas as pd

    from densing import registry

    profile = registry.table("public")
    targets = pd.DataFrame({"benchmark": ["mmlu", "gsm8k", "hellaswag"]})
    context = plan.Context(
        targets, pd.DataFrame(), {}, profile, since=None, epoch="2023-02-24", seed=0, n_boot=10, n_boot_side=10
    )
    jobs = plan.plan(context)
    keys = [job.key for job in jobs]
    assert len(keys) == len(set(keys)) and keys[0] == "headline" and "fixed_size" in keys
    assert {"mmlu", "gsm8k", "hellaswag", "budget:mmlu", "budget:gsm8k", f"shape:{profile.headline_set}"} <= set(keys)
    assert profile.headline_set not in keys  # the headline's own row is the headline
    shape = next(job for job in jobs if job.key == plan.LOGISTIC.key)  # the other shape fits what its rows read
    assert shape.benchmarks == tuple(b for b in profile.candidates if b in profile.sets[profile.headline_set][1])
    for job in jobs:  # every job's needs are jobs of the plan listed before it
        assert all(keys.index(n) < keys.index(job.key) for n in job.needs)
    given = plan.plan(
        plan.Context(
            targets,
            pd.DataFrame(),
            {},
            profile,
            since=None,
            epoch="2023-02-24",
            seed=0,
            n_boot=10,
            n_boot_side=10,
            fit=object(),
        )
    )
    assert profile.headline_set in {job.key for job in given} and not any(
        k.startswith("shape:") for k in (job.key for job in given)
    )


def test_the_plan_holds_the_jobs_of_the_sections_asked_for():
    """No section beside the headline: the headline's job alone (computed here: no worker for one job);
    ``sensitivity``: the headline set under the other shape and at one budget, with their fits; ``rows``: every row,
    the fixed-size estimator and the budget's fits (their notes), no other shape; ``budget`` with ``rows``: the rows at
    one budget too."""
    import pandas as pd

    from densing import registry

    profile = registry.table("public")
    targets = pd.DataFrame({"benchmark": ["mmlu", "gsm8k", "hellaswag"]})

    def keys(sections) -> list:
        context = plan.Context(
            targets,
            pd.DataFrame(),
            {},
            profile,
            since=None,
            epoch="2023-02-24",
            seed=0,
            n_boot=10,
            n_boot_side=10,
            sections=plan.sections(sections),
        )
        return [job.key for job in plan.plan(context)]

    headline = profile.headline_set
    assert keys(()) == ["headline"]
    assert keys(("breakpoint", "densities", "budget", "order_breaks", "candidates")) == ["headline"]
    assert keys(("sensitivity",)) == [
        "headline",
        plan.LOGISTIC.key,
        plan.BUDGET.key,
        f"shape:{headline}",
        f"budget:{headline}",
    ]
    rows = keys(("rows",))
    assert "fixed_size" in rows and "mmlu" in rows and plan.BUDGET.key in rows
    assert not any(k.startswith(("shape:", "budget:")) for k in rows) and plan.LOGISTIC.key not in rows
    at_budget = keys(("rows", "budget"))
    assert f"budget:{headline}" in at_budget
    assert set(at_budget) - set(rows) == {k for k in at_budget if k.startswith("budget:")}
    assert set(keys("all")) == set(at_budget) | set(keys(("sensitivity",)))
    assert executor._workers(1) == 0


def test_the_heap_is_frozen_while_workers_are_forked_and_left_as_it_was(monkeypatch):
    """frozen_heap freezes the collector's objects for the fork and unfreezes them after; where something
    else had frozen objects already, it leaves that freezing alone (neither adds to it nor undoes it)."""
    import gc

    from densing.runtime.threads import frozen_heap

    assert gc.get_freeze_count() == 0
    with frozen_heap():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        calls = []  # a count would move as frozen objects are freed meanwhile: the calls are what is asked
        monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
        monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
        with frozen_heap():
            pass
        assert calls == []
    finally:
        monkeypatch.undo()
        gc.unfreeze()
    assert gc.get_freeze_count() == 0


def test_end_pool_joins_the_manager_thread_and_leaves_its_ending_errors_unreported(monkeypatch):
    """The pool's manager thread is read before shutdown drops it, and joined; an error a thread raises while its pool
    is being ended does not reach the hook before densing's, while another thread's error does."""
    import threading

    pool = processes.process_pool(1)
    assert pool.submit(abs, -3).result() == 3
    thread = pool._executor_manager_thread
    processes.end_pool(pool)
    assert not thread.is_alive() and not [p for p in (pool._processes or {}).values() if p.is_alive()]

    reported = []
    monkeypatch.setattr(threading, "excepthook", lambda args: reported.append(args.thread.name))

    def fails():
        raise RuntimeError("planted: a pipe closed under the thread")

    ending, other = threading.Thread(target=fails), threading.Thread(target=fails)
    processes._quiet_ending(ending)
    for each in (ending, other):
        each.start()
        each.join()
    assert reported == [other.name]
