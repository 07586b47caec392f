"""The same rows wherever the per-rank jobs run: this process, a local process pool, or a Dask
LocalCluster with 2 workers (skipped where dask.distributed is not installed)."""

import json
import os
import sys
from pathlib import Path

import pytest

from densing.errors import InputError, TraceError, WorkerError
from densing.overlap.analysis import rank_outcome, set_rows
from densing.overlap.engine import Job, ProcessEngine, SerialEngine, make_engine
from densing.overlap.kineto import GPU
from densing.overlap.trace import run_ranks
from overlap.overlap_tracegen import hand_trace, write_trace
from overlap.test_cpu_trace import hand_cpu_trace, write
from overlap.test_hta_parity import HTA_TRACES

REPO = Path(__file__).resolve().parents[2]


def _synthetic():
    from tools import overlap_synthetic

    return overlap_synthetic


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    root = tmp_path_factory.mktemp("sets")
    synthetic = _synthetic()
    (root / "synthetic").mkdir()
    for r in range(4):
        synthetic.write_rank(root / "synthetic" / f"rank-{r}.json.gz", r, 4, 4000, seed=7)
    for rank, shift in ((0, 1000), (1, 1013)):
        write(root / "gloo" / f"rank{rank}.json", hand_cpu_trace(shift=shift), rank=rank)
    write_trace(root / "hand" / "rank-0.json", hand_trace(shift=1000), rank=0, world_size=2)
    write_trace(root / "hand" / "rank-1.json", hand_trace(shift=1003, corr_base=100), rank=1, world_size=2)
    found = {name: root / name for name in ("synthetic", "gloo", "hand")}
    if HTA_TRACES.is_dir():
        found |= {p.name: p for p in sorted(HTA_TRACES.iterdir()) if p.is_dir()}
    return found


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("distributed")
    from densing.overlap.engine import local_cluster

    engine = local_cluster(2)
    yield engine
    engine.close()


def _text(rows):
    return json.dumps(rows, sort_keys=True)


def test_process_pool_gives_the_serial_rows(sets):
    for name, path in sets.items():
        assert _text(set_rows(path, ProcessEngine(2))) == _text(set_rows(path, SerialEngine())), name


def test_dask_local_cluster_gives_the_serial_rows(sets, cluster):
    assert cluster.workers == 2
    for name, path in sets.items():
        assert _text(set_rows(path, cluster)) == _text(set_rows(path, SerialEngine())), name


def test_a_file_split_into_part_jobs_on_dask_workers(sets, cluster):
    """One large file cut into part jobs, run and combined on the workers: the same rows."""
    path = sorted(sets["synthetic"].iterdir())[0]
    (serial,) = run_ranks([path], GPU, SerialEngine(), rank_outcome)
    (split,) = run_ranks([path], GPU, cluster, rank_outcome, split_min_bytes=0)
    assert split.facts == serial.facts
    assert _text(split.rows[True][0]) == _text(serial.rows[True][0])  # (row, step rows)
    assert _text(split.rows[True][1]) == _text(serial.rows[True][1])


def test_errors_are_the_same_wherever_the_jobs_run(tmp_path, cluster):
    write_trace(tmp_path / "a.json", hand_trace(), rank=0)
    write_trace(tmp_path / "b.json", hand_trace(), rank=0)
    for engine in (SerialEngine(), cluster):
        with pytest.raises(TraceError, match="two trace files claim the same distributedInfo.rank"):
            set_rows(tmp_path, engine)
    (tmp_path / "b.json").write_text("{not json")
    for engine in (SerialEngine(), ProcessEngine(2), cluster):
        with pytest.raises(TraceError, match=f"{tmp_path / 'b.json'}: malformed JSON"):
            set_rows(tmp_path, engine)


def test_scheduler_names():
    assert isinstance(make_engine("serial", []), SerialEngine)
    assert isinstance(make_engine("processes", [], 3), ProcessEngine)
    with pytest.raises(InputError, match="--scheduler: expected auto, serial, processes, local"):
        make_engine("fast", [])


def _refuse(text):
    raise ValueError(text)


def _children() -> set:
    own = os.getpid()
    return {int(c) for task in Path(f"/proc/{own}/task").iterdir() for c in (task / "children").read_text().split()}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks and reads /proc")
@pytest.mark.parametrize(
    "first,expected",
    [
        (Job(abs, (-1,)), [1, 2]),  # the forked leaf's result comes back through its pipe
        (Job(_refuse, ("bad leaf",)), ValueError("bad leaf")),  # its exception is raised here
        (Job(os._exit, (3,)), WorkerError("a trace worker process died")),  # it died before writing
    ],
)
def test_a_few_leaves_fork_and_every_child_is_reaped(first, expected):
    before = _children()
    jobs = [first, Job(abs, (-2,))]  # the first leaf is forked, the last runs in this process
    if isinstance(expected, list):
        assert ProcessEngine(2).run(jobs) == expected
    else:
        with pytest.raises(type(expected), match=str(expected)):
            ProcessEngine(2).run(jobs)
    assert _children() == before
