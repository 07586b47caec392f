"""densing/runtime/progress.py: the job executor tells the listener of the block each job it finishes, whether a
worker or this process computed it; outside a block, or after it, nobody is told."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from densing.runtime import executor, progress


@dataclass(frozen=True)
class _Job:
    key: str
    needs: tuple = ()

    def run(self, context, needed):
        return self.key.upper()


@pytest.mark.parametrize("serial", [False, True])
def test_every_finished_job_is_told_with_the_count_and_the_total(monkeypatch, serial):
    if serial:
        monkeypatch.setenv("DENSING_SERIAL", "1")
    heard = []
    jobs = [_Job("a"), _Job("b"), _Job("c", needs=("a",)), _Job("d")]
    with progress.listening(lambda finished, total: heard.append((finished, total))):
        done = executor.run(jobs, None)
    assert done == {"a": "A", "b": "B", "c": "C", "d": "D"}
    assert heard == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_nobody_is_told_outside_a_block_and_an_outer_listener_comes_back():
    heard = []
    executor.run([_Job("a")], None)
    with progress.listening(lambda finished, total: heard.append("outer")):
        with progress.listening(lambda finished, total: heard.append("inner")):
            executor.run([_Job("a")], None)
        executor.run([_Job("a")], None)
    executor.run([_Job("a")], None)
    assert heard == ["inner", "outer"]
