"""Bad values by kind, fed to every command that takes that kind of input.

The command tree is read from the typer app (click introspection), so a new command or option is
covered the day it is added. Each option is classified by kind:

- number: an ``int``/``float`` option, or a text option that holds a number or a list of them
  (:data:`NUMBER_TEXT`: ``--d0 1e12``, ``--workers 1,2,4``);
- date: :data:`DATE_NAMES` (``--epoch``, ``--since``);
- path: a ``pathlib.Path`` option or argument, an input (:data:`INPUT_KINDS`: a file, a folder, or
  either) or an output (:data:`OUTPUT_KINDS`);
- encoding: every input that may be a file, given a file of its kind (:data:`SUFFIXES`) whose bytes are not text
  (:data:`NOT_TEXT`).

Each kind has a catalogue of bad values (:data:`NUMBER_VALUES`, :data:`DATE_VALUES`, the path
cases of :func:`_path_value`). Every (command, option, bad value) runs through the command line in
this process (:func:`tests.cli_run.run`) with the command's other required inputs set to ordinary
ones (:data:`BASELINE`), in an empty working folder, and must end with exit code 2, one line on
stderr that names the option (or the bad path), nothing on stdout, no traceback, no file left in
the working folder, and no process started. A value valid for one option (0 is a seed) is listed
in :data:`VALID`, with the reason, and not run: it would start the command's work.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import click
import pytest
import typer.main

from densing.cli.app import app
from tests.cli_run import run
from tests.overlap.overlap_tracegen import hand_trace, write_trace

REPO_ROOT = Path(__file__).resolve().parents[1]

#: Text options that hold a number (a count, a score) or a comma-separated list of numbers.
NUMBER_TEXT = {"d0", "max_params", "min_train_tokens", "model_params", "bandwidth_gbps", "batch_size", "chance"}
#: Options that hold a date.
DATE_NAMES = {"epoch", "since"}

NUMBER_VALUES = {
    "nan": "nan",
    "inf": "inf",
    "-inf": "-inf",
    "negative": "-1",
    "zero": "0",
    "huge": "1e30",
    "word": "many",
}
DATE_VALUES = {
    "word": "someday",
    "impossible": "2023-13-45",
    "nan": "nan",
    "before-gpt-1": "1900-01-01",
    "future": "2999-01-01",
}
PATH_CASES = ("empty", "missing", "wrong-kind")
#: Bytes that are no UTF-8 text (a lone continuation byte, an invalid start byte, a NUL), inside a shape of the
#: file's kind so that a reader gets as far as decoding them.
NOT_TEXT = {
    ".csv": b"model,benchmark,value\n\xff\xfe\x81,arc_easy,0.5\n",
    ".yaml": b"models:\n  - model: \xff\xfe\x81\n",
    ".json": b'{"schemaVersion": 1, "x": "\xff\xfe\x81\x00"}\n',
}
#: The file kind an input reads (by parameter name); others are tables (``.csv``).
SUFFIXES = {"models": ".yaml", "fit": ".json", "path": ".json", "base": ".json", "candidate": ".json"}

#: Outputs, by (command, parameter): what is written there. An output's "missing" case is a path under a file.
OUTPUT_KINDS = {
    ("fit", "out"): "file",
    ("convert", "out"): "file",
    ("report", "out"): "file",
    ("measure", "out"): "file",
    ("measure", "csv"): "file",
    ("measure", "store"): "folder",
    ("eval", "out"): "folder",
    ("eval ingest", "out"): "folder",
    ("eval merge-cache", "into"): "folder",
    ("ladder fit", "out_dir"): "folder",
    ("ladder check", "out_dir"): "folder",
    ("overlap run", "out"): "folder",
}
#: Inputs that are a file or a folder only (either is given a wrong kind); an input not listed may be either.
INPUT_KINDS = {
    ("density", "fit"): "file",
    ("density", "targets"): "file",
    ("trend", "results"): "file",
    ("trend", "fit"): "file",
    ("report", "results"): "file",
    ("report", "fit"): "file",
    ("report", "traces"): "folder",
    ("measure", "models"): "file",
    ("measure", "data_root"): "folder",
    ("eval", "models"): "file",
    ("eval", "data_root"): "folder",
    ("eval", "include_path"): "folder",
    ("eval ingest", "directory"): "folder",
    ("eval ingest", "models"): "file",
    ("eval merge-cache", "sources"): "folder",
    ("overlap whatif", "contention_from"): "folder",
    ("overlap validate", "sync_dir"): "folder",
    ("overlap validate", "runs"): "folder",
    ("overlap sublayers", "run_dir"): "folder",
    ("overlap convergence", "ddp_dir"): "folder",
    ("overlap convergence", "co2_dir"): "folder",
    ("ladder fit", "data"): "folder",
    ("ladder check", "data"): "folder",
    ("ladder check", "fits_dir"): "folder",
}

#: Ordinary values of each command's required inputs (by parameter name), so that one bad value is the only
#: thing wrong with a command line. ``{trace}``, ``{run}``, ``{folder}``, ``{models}`` and ``{results}`` are
#: files made by :func:`inputs`.
BASELINE = {
    "fit": {"data": "{results}", "benchmark": "arc_easy", "law": "composed"},
    "convert": {"data": "{results}", "out": "{work}/table.csv"},
    "validate": {"data": "{results}", "benchmark": "arc_easy", "max_params": "1e9", "law": "composed"},
    "measure": {"models": "{models}"},
    "eval": {"models": "{models}", "benchmarks": "arc_easy"},
    "eval ingest": {"directory": "{folder}"},
    "eval merge-cache": {"sources": "{folder}", "into": "{work}/store"},
    "overlap analyze": {"path": "{trace}"},
    "overlap skew": {"path": "{trace}"},
    "overlap compare": {"base": "{trace}", "candidate": "{trace}"},
    "overlap whatif": {"path": "{trace}"},
    "overlap run": {"out": "{work}/runs"},
    "overlap validate": {"sync_dir": "{run}"},
    "overlap sublayers": {"run_dir": "{run}"},
    "overlap convergence": {"ddp_dir": "{run}", "co2_dir": "{run}"},
    "ladder fit": {"data": "{folder}"},
    "ladder check": {"data": "{folder}", "fits_dir": str(REPO_ROOT / "reference_fits")},
}

#: Catalogue values that are valid for an option, with the reason; these are not run (a valid value starts the
#: command's work). Keyed by (command, parameter, case); "*" matches any command.
VALID = {
    ("*", "seed", "zero"): "0 is a seed",
    ("fit", "n_shot", "zero"): "zero-shot evaluation",
    ("fit", "chance", "zero"): "a floor d of 0 (no chance level)",
    ("fit", "n_boot", "zero"): "no bootstrap: the point fit alone",
    ("ladder fit", "n_boot", "zero"): "no bootstrap: the point fit alone",
    ("validate", "chance", "zero"): "a floor d of 0 (no chance level)",
    ("overlap run", "profile_skip", "zero"): "the profiler may start at the first step",
    ("overlap run", "node_rank", "zero"): "the first node",
    ("overlap run", "outer_momentum", "zero"): "CO2 without outer momentum (the authors' setting at ≤ 16 GPUs)",
    ("overlap whatif", "contention", "zero"): "T3 without compute contention",
    ("overlap whatif", "latency_us", "zero"): "an ideal link without per-message latency",
    ("overlap validate", "contention", "zero"): "T3 without compute contention",
    ("overlap skew", "threshold_pct", "zero"): "flag any rank slower than the median",
    ("overlap skew", "threshold_pct", "huge"): "a threshold no rank exceeds: no straggler flagged",
    ("overlap whatif", "contention", "huge"): "γ has no upper bound (a slowdown factor)",
    ("overlap whatif", "latency_us", "huge"): "a per-message latency has no upper bound",
    ("overlap validate", "contention", "huge"): "γ has no upper bound (a slowdown factor)",
    ("overlap run", "lr", "huge"): "a learning rate has no upper bound (training diverges; the run reports it)",
    ("overlap run", "outer_lr", "huge"): "CO2's outer learning rate has no upper bound",
    ("overlap run", "outer_clip", "huge"): "a clipping threshold above every update: no clipping",
    ("overlap run", "gap_penalty", "huge"): "CO2's penalty divisor has no upper bound",
    ("overlap whatif", "bandwidth_gbps", "huge"): "a link bandwidth has no upper bound (an ideal link)",
}

#: Seconds one case may take: every case is refused before any work, in well under a second.
TIMEOUT_S = 20


def _walk(command: click.Command, path: tuple[str, ...] = ()):
    """(command path, click command) for every command, and every group with options of its own (``eval``)."""
    if isinstance(command, click.Group):
        if path and any(not _ignored(p) for p in command.params):
            yield " ".join(path), command
        context = click.Context(command)
        for name in command.list_commands(context):
            yield from _walk(command.get_command(context, name), (*path, name))
    else:
        yield " ".join(path), command


def _ignored(param: click.Parameter) -> bool:
    return param.name in ("help", "version") or getattr(param, "is_flag", False)


def _kind(command: str, param: click.Parameter) -> str | None:
    if isinstance(param.type, (click.types.IntParamType, click.types.FloatParamType)):
        return "number"
    if type(param.type).__name__ == "TyperPath" or isinstance(param.type, click.Path):
        return "path"
    if param.name in DATE_NAMES:
        return "date"
    if param.name in NUMBER_TEXT and isinstance(param.type, click.types.StringParamType):
        return "number"
    return None


def _cases():
    root = typer.main.get_command(app)
    cases = []
    for command, click_command in _walk(root):
        for param in click_command.params:
            if _ignored(param) or (kind := _kind(command, param)) is None:
                continue
            values = {"number": NUMBER_VALUES, "date": DATE_VALUES, "path": dict.fromkeys(PATH_CASES)}[kind]
            for case in values:  # an integer option's "1e30", "nan": no integer, refused by the parser
                cases.append(pytest.param(command, param.name, kind, case, id=f"{command}:{param.name}:{case}"))
            if (
                kind == "path"
                and (command, param.name) not in OUTPUT_KINDS
                and INPUT_KINDS.get((command, param.name)) != "folder"
            ):
                cases.append(
                    pytest.param(command, param.name, "encoding", "not-text", id=f"{command}:{param.name}:not-text")
                )
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Ordinary inputs: a trace, a run folder, an empty folder, a models file, the public results table."""
    root = tmp_path_factory.mktemp("inputs")
    write_trace(root / "trace.json", hand_trace())
    (root / "run").mkdir()
    (root / "run" / "run.yaml").write_text("config: {strategy: sync}\n")
    (root / "run" / "metrics.csv").write_text(
        "rank,step,step_time_s,tokens,loss,profiled,allreduce_wall_s,allreduce_cpu_s\n"
    )
    (root / "folder").mkdir()
    (root / "models.yaml").write_text("models:\n  - model: org/model\n    params: 1e9\n    train_tokens: 1e12\n")
    (root / "a_file.txt").write_text("not a folder\n")
    return {
        "trace": root / "trace.json",
        "run": root / "run",
        "folder": root / "folder",
        "models": root / "models.yaml",
        "results": REPO_ROOT / "results" / "pythia_final.csv",
        "file": root / "a_file.txt",
        "root": root,
    }


def _path_value(command: str, name: str, case: str, work: Path, inputs) -> str | None:
    """The bad path of ``case`` for the parameter, or None where the case has no bad value (either kind is read)."""
    output = OUTPUT_KINDS.get((command, name))
    expected = output or INPUT_KINDS.get((command, name), "either")
    if case == "empty":
        return ""
    if case == "missing":
        if output:  # an output is made where it is missing: under a file, it cannot be
            return str(inputs["file"] / "sub" / ("out.csv" if output == "file" else "out"))
        return str(work / "no_such_input.csv")
    if expected == "either":
        return None
    return str(inputs["folder"] if expected == "file" else inputs["file"])


def _argv(command: str, click_command: click.Command, name: str, value: str, work: Path, inputs) -> list[str]:
    """``command`` with its baseline inputs and ``name`` set to ``value``: arguments in order, options after."""
    given = {
        k: v.format(work=work, **{key: str(p) for key, p in inputs.items()})
        for k, v in BASELINE.get(command, {}).items()
    }
    given[name] = value
    argv = command.split()
    options = []
    for param in click_command.params:
        if param.name not in given:
            continue
        if isinstance(param, click.Argument):
            argv.append(given[param.name])
        else:
            options += [param.opts[0], given[param.name]]
    return argv + options


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def no_process(monkeypatch):
    """Fail any attempt to start a process (torchrun, an evaluation worker)."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a process was started: {args[0] if args else kwargs}")

    monkeypatch.setattr(subprocess, "Popen", refuse)


@pytest.mark.parametrize("command,name,kind,case", CASES)
def test_bad_value_is_one_line_exit_2(command, name, kind, case, tmp_path, monkeypatch, capsys, inputs, no_process):
    reason = VALID.get((command, name, case)) or VALID.get(("*", name, case))
    if reason:
        pytest.skip(f"valid: {reason}")
    root = typer.main.get_command(app)
    click_command = dict(_walk(root))[command]
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    if kind == "path":
        value = _path_value(command, name, case, work, inputs)
        if value is None:
            pytest.skip("either a file or a folder is read here: no wrong kind")
    elif kind == "encoding":
        suffix = SUFFIXES.get(name, ".csv")
        bad = tmp_path / f"not_text{suffix}"
        bad.write_bytes(NOT_TEXT[suffix])
        value = str(bad)
    else:
        value = (NUMBER_VALUES if kind == "number" else DATE_VALUES)[case]
    argv = _argv(command, click_command, name, value, work, inputs)
    before = _listing(inputs["root"])

    def too_long(signum, frame):
        raise TimeoutError(f"densing {' '.join(argv)} ran past {TIMEOUT_S} s: the value was not refused before work")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(TIMEOUT_S)
    try:
        code, out, err = run(argv, capsys)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    param = next(p for p in click_command.params if p.name == name)
    names = {name, name.replace("_", "-"), *param.opts, param.human_readable_name}
    if kind in ("path", "encoding") and value:
        names.add(value)
    assert code == 2, (argv, code, err)
    assert err.count("\n") == 1 and err.startswith("error: "), (argv, err)
    assert "Traceback" not in err
    assert any(n in err for n in names), f"{argv}: the error does not name {sorted(names)}: {err}"
    assert out == "", (argv, out)
    assert _listing(work) == [], (argv, _listing(work))
    assert _listing(inputs["root"]) == before, argv


def test_catalogue_covers_every_command_with_inputs():
    """Every command that takes a number, a date or a path is in the catalogue (a new one joins by itself)."""
    covered = {case.values[0] for case in CASES}
    root = typer.main.get_command(app)
    takes_input = {command for command, c in _walk(root) if any(_kind(command, p) for p in c.params if not _ignored(p))}
    assert covered == takes_input
    assert {"overlap run", "overlap compare", "overlap validate", "overlap convergence", "fit", "trend"} <= covered
