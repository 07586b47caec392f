"""Every command that starts worker processes ends them with itself: on a bad option, on an error
raised while a worker runs, on Ctrl-C (SIGINT) and on SIGTERM it exits within a few seconds and
leaves no process behind.

The commands run as the console script does (``densing.cli.run``), output sent to files, each in
its own setsid group (``start_new_session``: the group's id is its pid). A process "left behind" is any process
with that id still alive after the command has exited, or any descendant seen just before the signal
(torchrun starts its workers with setsid too) still alive. The commands that start workers: ``trend`` and ``report``
(the job executor's workers, :func:`densing.runtime.executor.run`; ``trend --by benchmark``: every
row), ``fit --jobs`` and ``ladder fit --jobs`` (the
bootstrap's processes), ``overlap analyze --scheduler processes`` (a process per file, or a pool)
and ``overlap run`` (torchrun and its workers).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import OLMO_LADDER, PYTHIA

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

EXIT_S = 20  # hang detection: a command that has not exited this long after its signal or error hangs
GONE_S = 5  # a worker ended by its parent (or by the kernel when the parent died) is gone within this
CLI = [sys.executable, "-c", "from densing.cli import run; run()"]


def _table() -> dict[int, tuple[int, int, str, str]]:
    """Every process: pid → (parent, setsid id, state, start time)."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        found[int(name)] = (int(fields[1]), int(fields[3]), fields[0], fields[19])
    return found


def _tree(root: int, table: dict) -> dict[int, str]:
    """``root`` and its descendants, pid → start time."""
    tree = {root: table[root][3]} if root in table else {}
    grew = True
    while grew:
        grew = False
        for pid, (parent, _, _, start) in table.items():
            if parent in tree and pid not in tree:
                tree[pid] = start
                grew = True
    return tree


def _alive(process: subprocess.Popen, seen: dict[int, str]) -> list[int]:
    """The processes of its setsid group and the ``seen`` ones that still run (zombies count as ended)."""
    table = _table()
    left = {pid for pid, (_, sid, state, _) in table.items() if sid == process.pid and state != "Z"}
    left |= {pid for pid, start in seen.items() if pid in table and table[pid][3] == start and table[pid][2] != "Z"}
    return sorted(left - {os.getpid()})


def _kill(pids) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _start(args: list, where: Path, sigint=signal.SIG_DFL) -> subprocess.Popen:
    """``densing args`` started with SIGINT's disposition ``sigint`` (SIG_IGN: as a shell script's background job or a
    supervisor starts it; Python then installs no KeyboardInterrupt handler of its own)."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("DENSING_SERIAL", None)
    with open(where / "stdout", "w") as out, open(where / "stderr", "w") as err:
        return subprocess.Popen(
            [*CLI, *map(str, args)],
            stdout=out,
            stderr=err,
            env=env,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
        )


def _workers(process: subprocess.Popen, count: int, timeout: float = 90) -> dict[int, str]:
    """Wait until ``process`` has at least ``count`` descendants; the tree then (pid → start time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tree = _tree(process.pid, _table())
        if len(tree) > count:
            return tree
        assert process.poll() is None, f"exited ({process.returncode}) before starting {count} worker(s)"
        time.sleep(0.02)
    _kill(_alive(process, {}))
    pytest.fail(f"no {count} worker process(es) within {timeout} s")


def _ended(process: subprocess.Popen, seen: dict[int, str], where: Path) -> tuple[int, str]:
    """Exit code and stderr of ``process``, after checking it exits in time and leaves nothing behind."""
    try:
        code = process.wait(EXIT_S)
    except subprocess.TimeoutExpired:
        _kill(_alive(process, seen))
        process.wait()
        pytest.fail(f"still running {EXIT_S} s later (a hang); stderr: {(where / 'stderr').read_text()[-500:]}")
    deadline = time.monotonic() + GONE_S
    while (left := _alive(process, seen)) and time.monotonic() < deadline:
        time.sleep(0.05)
    _kill(left)
    assert not left, f"processes left behind: {left}"
    return code, (where / "stderr").read_text()


@pytest.fixture(scope="module")
def traces(tmp_path_factory) -> Path:
    """Three ranks' traces large enough that decoding them takes a few seconds."""
    sys.path.insert(0, str(Path(__file__).parent / "overlap"))
    from overlap_tracegen import hand_trace, write_trace

    folder = tmp_path_factory.mktemp("traces")
    events = [e for k in range(2000) for e in hand_trace(shift=k * 100, corr_base=k * 10)]
    for rank in range(3):
        write_trace(folder / f"rank{rank}.json", events, rank=rank, world_size=3)
    return folder


#: Each command that starts workers, on a workload long enough to be interrupted: (arguments, workers).
WORKLOADS = {
    # every row of the table: jobs enough that a signal sent once a worker is seen lands mid-run on a loaded machine
    "trend": (lambda tmp, tr: ["trend", "--n-boot", "400", "--by", "benchmark"], 1),
    "report": (lambda tmp, tr: ["report", "--n-boot", "400", "--out", tmp / "r.html"], 1),
    "fit --jobs": (
        lambda tmp, tr: ["fit", "--data", PYTHIA, "--benchmark", "lambada_openai", "--n-boot", "2000", "--jobs", "2"],
        2,
    ),
    "analyze, a process per file": (
        lambda tmp, tr: ["overlap", "analyze", tr, "--scheduler", "processes", "--workers", "3"],
        2,
    ),
    "analyze, a pool": (lambda tmp, tr: ["overlap", "analyze", tr, "--scheduler", "processes", "--workers", "2"], 2),
    "overlap run": (
        lambda tmp, tr: [
            "overlap",
            "run",
            tmp / "run",
            "--strategies",
            "ddp",
            "--steps",
            "2000",
            "--d-model",
            "32",
            "--n-layer",
            "1",
            "--seq-len",
            "16",
            "--batch-size",
            "2",
        ],
        3,
    ),
}


def _skip_missing(name: str) -> None:
    if name == "fit --jobs" and not PYTHIA.is_dir():
        pytest.skip(f"public Pythia evals not found at {PYTHIA}")
    if name == "overlap run":
        pytest.importorskip("torch")


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("name", list(WORKLOADS))
def test_a_signal_mid_run_ends_every_worker(name, how, tmp_path, traces):
    _skip_missing(name)
    build, count = WORKLOADS[name]
    process = _start(build(tmp_path, traces), tmp_path)
    seen = _workers(process, count)
    os.kill(process.pid, getattr(signal, how))
    code, err = _ended(process, seen, tmp_path)
    assert code == {"SIGINT": 130, "SIGTERM": 143}[how], err
    assert err.strip().splitlines()[-1] == {"SIGINT": "error: interrupted", "SIGTERM": "error: terminated"}[how]
    assert not (tmp_path / "r.html").exists()  # the report is written whole or not at all


@pytest.mark.parametrize(
    "name", ["trend", "report", "analyze, a process per file", "analyze, a pool", "analyze --format json"]
)
def test_sigint_to_the_process_alone_is_ctrl_c_even_when_started_with_it_ignored(name, tmp_path, traces):
    """``kill -INT PID`` from a script or a supervisor whose child inherits SIGINT ignored: exit 130, one line, no
    worker left, no partial report (``--format json``: the typer-free path)."""
    build, count = WORKLOADS.get(name) or (
        lambda tmp, tr: ["overlap", "analyze", tr, "--scheduler", "processes", "--workers", "2", "--format", "json"],
        2,
    )
    process = _start(build(tmp_path, traces), tmp_path, sigint=signal.SIG_IGN)
    seen = _workers(process, count)
    os.kill(process.pid, signal.SIGINT)
    code, err = _ended(process, seen, tmp_path)
    assert code == 130 and err.strip().splitlines() == ["error: interrupted"], err
    assert not (tmp_path / "r.html").exists()


def test_ctrl_c_in_a_terminal_reaches_the_workers_too(tmp_path, traces):
    """A terminal sends SIGINT to the whole process group: the workers ignore it, the command ends them."""
    process = _start(WORKLOADS["report"][0](tmp_path, traces), tmp_path)
    seen = _workers(process, 1)
    os.killpg(process.pid, signal.SIGINT)
    code, err = _ended(process, seen, tmp_path)
    assert code == 130 and err.strip().splitlines()[-1] == "error: interrupted"


@pytest.mark.parametrize("command", ["trend", "report"])
def test_an_error_while_the_workers_run_ends_them(command, tmp_path):
    """One model released since 2024-07-30 (a window with none is refused before any worker starts): too few to draw
    a trend through, so the headline fails while the workers run."""
    args = [command, "--n-boot", "50", "--since", "2024-07-30"] + (
        ["--out", tmp_path / "r.html"] if command == "report" else ["--detail"]
    )
    for _ in range(3):  # the error comes at a different moment of the worker's life each time
        process = _start(args, tmp_path)
        seen = _workers(process, 1)
        code, err = _ended(process, seen, tmp_path)
        assert code == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    assert not (tmp_path / "r.html").exists()


#: A bad option of each command that starts workers; report's is repeated (it hung in most runs once).
BAD_OPTIONS = [
    ["report", "--n-boot", "0"],
    ["report", "--n-boot", "-5"],
    ["report", "--n-boot", "0"],
    ["report", "--seed", "-1"],
    ["trend", "--n-boot", "0"],
    ["trend", "--seed", "-3"],
    ["fit", "--data", PYTHIA, "--benchmark", "lambada_openai", "--jobs", "0"],
    ["ladder", "fit", "--data", OLMO_LADDER, "--jobs", "0"],
    ["overlap", "analyze", "{traces}", "--scheduler", "nowhere"],
    ["overlap", "analyze", "{traces}", "--scheduler", "processes", "--workers", "-1"],
    ["overlap", "run", "{tmp}", "--workers", "0"],
]


def test_a_bad_option_exits_2_with_one_line_and_no_process(tmp_path, traces):
    started = []
    for k, args in enumerate(BAD_OPTIONS * 2):  # all at once, twice: the exit races the start-up of nothing
        where = tmp_path / str(k)
        where.mkdir()
        args = [str(a).format(traces=traces, tmp=where / "run") for a in args]
        started.append(
            (args, where, _start(args + (["--out", where / "r.html"] if args[0] == "report" else []), where))
        )
    for args, where, process in started:
        code, err = _ended(process, {}, where)
        assert code == 2 and err.count("\n") == 1 and err.startswith("error: "), (args, err)
        assert (where / "stdout").read_text() == "" and not (where / "r.html").exists(), args


@pytest.fixture(scope="module")
def tiny_sweep(tmp_path_factory) -> list[str]:
    """``densing eval`` arguments for a tiny model on a tiny task, each model in a process of its own."""
    pytest.importorskip("torch")
    pytest.importorskip("lm_eval")
    import yaml

    from tests.eval.conftest import MC_DOCS, MC_YAML, build_tiny_model

    root = tmp_path_factory.mktemp("sweep")
    (root / "mc.jsonl").write_text("".join(__import__("json").dumps(d) + "\n" for d in MC_DOCS))
    (root / "tiny_mc.yaml").write_text(MC_YAML.format(data=root / "mc.jsonl"))
    model = build_tiny_model(root / "tiny")
    (root / "models.yaml").write_text(
        yaml.safe_dump(
            {
                "models": [
                    {"name": f"tiny-{i}", "model": str(model), "train_tokens": "2M", "release_date": "2024-01-01"}
                    for i in range(3)
                ]
            }
        )
    )
    return [
        "eval",
        "--models",
        root / "models.yaml",
        "--benchmarks",
        "tiny_mc",
        "--include-path",
        root,
        "--device",
        "cpu",
        "--isolate",
    ]


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM"])
def test_a_signal_ends_a_models_own_process(how, tmp_path, tiny_sweep):
    """``densing eval --isolate`` (the vllm default): the model's process, in a process group of its own, ends with
    the command on Ctrl-C and on SIGTERM."""
    process = _start([*tiny_sweep, "--out", tmp_path / "store"], tmp_path)
    seen = _workers(process, 1)
    os.kill(process.pid, getattr(signal, how))
    code, err = _ended(process, seen, tmp_path)
    assert code == {"SIGINT": 130, "SIGTERM": 143}[how], err
    assert err.strip().splitlines()[-1] == {"SIGINT": "error: interrupted", "SIGTERM": "error: terminated"}[how]


def test_torchrun_killed_outright_takes_its_workers_with_it(tmp_path, traces):
    """torchrun starts its workers with setsid, out of reach of its process group; killed with SIGKILL (no chance to end them, as when
    its grace runs out) its workers die with it (PR_SET_PDEATHSIG), and the command exits with one line."""
    pytest.importorskip("torch")
    process = _start(WORKLOADS["overlap run"][0](tmp_path, traces), tmp_path)
    seen = _workers(process, 3)
    time.sleep(1.0)  # the workers' first statement ties them to torchrun; an interpreter starts in about 20 ms
    table = _table()
    torchrun = [pid for pid in seen if table.get(pid, (None,))[0] == process.pid]
    assert len(torchrun) == 1, seen
    workers = {pid: start for pid, start in seen.items() if table.get(pid, (None,))[0] == torchrun[0]}
    assert workers, seen
    os.kill(torchrun[0], signal.SIGKILL)
    deadline = time.monotonic() + GONE_S
    while (
        left := [
            pid
            for pid, start in workers.items()
            if pid in (now := _table()) and now[pid][3] == start and now[pid][2] != "Z"
        ]
    ) and time.monotonic() < deadline:
        time.sleep(0.05)
    _kill(left)
    assert not left, f"workers left behind by a killed torchrun: {left}"
    code, err = _ended(process, seen, tmp_path)
    assert code == 2 and err.strip().splitlines()[-1].startswith("error: "), err


def test_a_run_ended_by_sigterm_leaves_no_process_and_a_folder_every_reader_refuses_as_incomplete(
    tmp_path, traces, run_cli
):
    """SIGTERM while torchrun's workers train: the command exits 143 leaving no process, and the run folder it leaves
    (run.yaml written, no metrics.csv) says ``status: interrupted``, so validate, convergence and whatif refuse it
    in one line as an incomplete run rather than as a file or a column missing."""
    pytest.importorskip("torch")
    process = _start(WORKLOADS["overlap run"][0](tmp_path, traces), tmp_path)
    seen = _workers(process, 3)
    time.sleep(1.0)  # the workers have started training (and torchrun has read nothing it could still write)
    os.kill(process.pid, signal.SIGTERM)
    code, err = _ended(process, seen, tmp_path)
    assert code == 143 and err.strip().splitlines()[-1] == "error: terminated", err
    run = tmp_path / "run" / "ddp"
    assert "status: interrupted" in (run / "run.yaml").read_text() and not (run / "metrics.csv").exists()
    for argv in (
        ("overlap", "validate", run),
        ("overlap", "validate", tmp_path / "run"),
        ("overlap", "convergence", run, run),
        ("overlap", "whatif", run),
    ):
        code, out, err = run_cli(*argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
        assert f"{run}: an incomplete run (run.yaml says status: interrupted" in err, (argv, err)


def test_an_error_a_library_made_of_ctrl_c_is_read_as_the_interrupt(monkeypatch, capsys):
    """pandas' C reader reports a KeyboardInterrupt raised inside its read as "Calling read(nbytes) on source
    failed": the command exits 130 with one line, not 2 with the reader's words (the handler marks the interrupt)."""
    import time

    from densing.cli import app as cli_app
    from densing.errors import InputError

    def read_interrupted(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler runs here, raising KeyboardInterrupt
        except KeyboardInterrupt:
            raise InputError("x.csv: cannot read CSV: Calling read(nbytes) on source failed") from None

    monkeypatch.setattr(cli_app, "app", read_interrupted)
    with pytest.raises(SystemExit) as ended:
        cli_app.main(["trend"])
    assert ended.value.code == 130 and capsys.readouterr().err == "error: interrupted\n"

    def read_bad(*args, **kwargs):
        raise InputError("x.csv: bad")

    monkeypatch.setattr(cli_app, "app", read_bad)
    with pytest.raises(SystemExit) as ended:
        cli_app.main(["trend"])  # the same error with no interrupt: refused, exit 2
    assert ended.value.code == 2 and capsys.readouterr().err == "error: x.csv: bad\n"


def test_a_ctrl_c_a_library_swallowed_still_ends_the_command_interrupted():
    """A Ctrl-C whose KeyboardInterrupt is swallowed where it is raised (a library's ``except BaseException``, an
    ignored exception in a callback) and the command runs on to its end: still exit 130 and "error: interrupted", as
    a swallowed SIGTERM is still 143 (densing.cli.guard.guarded reads the handlers' flags)."""
    code = (
        "import os, signal, sys\n"
        "from densing.cli.guard import guarded, _exit_code\n"
        "def command():\n"
        "    with guarded():\n"
        "        try:\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "            sum(range(10))\n"
        "        except BaseException:\n"
        "            pass  # the library swallows it\n"
        "sys.exit(_exit_code(command))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130 and done.stderr.strip().splitlines()[-1] == "error: interrupted", done.stderr


def test_a_ctrl_c_python_could_not_raise_ends_the_command_in_one_line():
    """A Ctrl-C handled where Python cannot raise its KeyboardInterrupt and prints it as ignored instead (an at-fork
    hook run by ``os.fork`` while another thread took the signal, "Exception ignored in: <function _releaseLock>"; a
    finaliser here): exit 130 with "error: interrupted" and no traceback, while an unraisable error that is not the
    signal's is still printed, and the hook is put back after the command."""
    code = (
        "import os, signal, sys\n"
        "from densing.cli.guard import guarded, _exit_code\n"
        "class Broken:\n"
        "    def __del__(self):\n"
        "        raise ValueError('not a signal')\n"
        "class Finalised:\n"
        "    def __del__(self):\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "        sum(range(10))  # the handler runs here: what __del__ raises Python prints as ignored\n"
        "def command():\n"
        "    with guarded():\n"
        "        Broken()\n"
        "        Finalised()\n"
        "code = _exit_code(command)\n"
        "print(sys.unraisablehook is sys.__unraisablehook__)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130 and done.stdout == "True\n", (done.stdout, done.stderr)
    assert done.stderr.count("Exception ignored") == 1 and "ValueError: not a signal" in done.stderr, done.stderr
    assert "KeyboardInterrupt" not in done.stderr and done.stderr.splitlines()[-1] == "error: interrupted", done.stderr


def test_main_called_from_python_ends_a_swallowed_ctrl_c_with_exit_130(monkeypatch, capsys):
    """``densing.cli.main()`` called from Python (``python -c "from densing.cli import main; main()"``), a Ctrl-C
    whose KeyboardInterrupt a library swallowed and the command ran on: SystemExit 130 and one line, not an escaping
    KeyboardInterrupt, by which Python would end the process killed by SIGINT (exit -2)."""
    import time

    from densing.cli import app as cli_app

    def swallowing(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler runs here, raising KeyboardInterrupt
        except KeyboardInterrupt:
            pass  # the library swallows it; the command goes on to its end

    monkeypatch.setattr(cli_app, "app", swallowing)
    try:
        cli_app.main(["trend"])
        code = "no exit"
    except SystemExit as ended:
        code = ended.code
    except KeyboardInterrupt:  # caught here so that the failure does not end the test run
        code = "KeyboardInterrupt escaped main()"
    assert code == 130 and capsys.readouterr().err == "error: interrupted\n", code
    from densing.runtime import processes

    assert not processes.interrupted  # the flag is the command's: a sweep run after it in this process is not stopped
