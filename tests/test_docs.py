"""The commands the README and docs/ show: every one names a real command and options it has, and every one that
needs no network, no GPU and no model run runs as written from the root of a fresh clone's layout (the tracked and
untracked files of the checkout copied to a scratch folder, ``../shared/data`` beside it), printing what it should.

Which command runs is decided by one rule, :data:`SKIPPED`: a command is left out only for a reason written there
(it installs packages, it is a synopsis with placeholders, it evaluates a model or trains one, it reads what such a
command writes, it starts a server); every other line runs, and each that runs has its expected output in
:data:`EXPECTED` (a command that runs without one fails the test, so a new example cannot run unchecked)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO_ROOT, SHARED_DATA

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


def _lines() -> list[tuple[str, str]]:
    """(page, line) for each line of the pages' bash blocks, continuations joined, comments cut."""
    found = []
    for page in PAGES:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(), flags=re.S):
            text = re.sub(r"\\\n\s*", " ", block)
            for line in text.splitlines():
                line = line.split(" #", 1)[0].strip()
                if line and not line.startswith("#"):
                    found.append((page.name, line))
    return found


LINES = _lines()
COMMANDS = [(p, c) for p, c in LINES if c.startswith("densing ")]


def test_the_pages_show_commands():
    assert len(COMMANDS) >= 20 and {p for p, _ in COMMANDS} >= {"README.md", "cli.md", "evaluation.md", "profiling.md"}


def _words(command: str) -> list[str]:
    return [w for w in shlex.split(command)[1:]]


@pytest.mark.parametrize("page,command", COMMANDS, ids=[f"{p}:{c[:60]}" for p, c in COMMANDS])
def test_each_command_and_its_options_exist(page, command, run_cli):
    words = _words(command)
    if any(w.startswith("[") for w in words):  # a synopsis line: [--option …] lists what may be given
        words = [w.strip("[]") for w in words]
    path = [w for w in words[:2] if not w.startswith("-") and "/" not in w and "." not in w]
    code, out, err = run_cli(*path[:2], "--help")
    if code != 0:  # a one-word command whose second word is an argument
        path = path[:1]
        code, out, err = run_cli(*path, "--help")
    assert code == 0, f"{page}: `{command}`: {' '.join(path)} is not a command ({err.strip()})"
    options = {w.split("=", 1)[0] for w in words if w.startswith("--")} - {"--help"}
    helptext = " ".join(out.split())
    unknown = [o for o in options if not re.search(re.escape(o) + r"\b", helptext)]
    assert not unknown, f"{page}: `{command}`: {unknown} not in `densing {' '.join(path)} --help`"


def _command_paths() -> list[str]:
    """Every command of the app as typed after ``densing`` (``trend``, ``overlap analyze``), groups' own included."""
    import click
    import typer.main

    from densing.cli.app import app

    root = typer.main.get_command(app)
    found = []
    for name, command in root.commands.items():
        if isinstance(command, click.Group):
            found += [f"{name} {sub}" for sub in command.commands]
            if command.invoke_without_command:  # `densing eval` runs by itself
                found.append(name)
        else:
            found.append(name)
    return found


def test_cli_md_has_a_block_for_every_command_and_no_repeated_heading():
    page = REPO_ROOT / "docs" / "cli.md"
    lines = [c for p, c in COMMANDS if p == "cli.md"]
    missing = [path for path in _command_paths() if not any(f"{c} ".startswith(f"densing {path} ") for c in lines)]
    assert not missing, f"docs/cli.md has no example of: {missing}"
    for doc in (page, REPO_ROOT / "docs" / "profiling.md", REPO_ROOT / "docs" / "cli_reference.md"):
        prose = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)  # a comment in a block is no heading
        headings = [line for line in prose.splitlines() if line.startswith("#")]
        texts = [h.lstrip("#").strip() for h in headings]
        assert len(texts) == len(set(texts)), f"{doc.name}: a heading repeats"


#: Why a line of a bash block does not run, by a pattern over it: the first that matches is its reason.
SKIPPED = [
    (r"^(python3? -m venv|pip install|\.venv/)", "installs packages (network)"),
    (r"^python3? -m pytest", "runs the test suite itself"),
    (r"^dask ", "starts a Dask scheduler or worker that runs until stopped"),
    (
        r"\[|\$|\bpath/to/|(?<![\w.-])[A-Z]+(?:[-_][A-Z0-9]+)*(?![\w.])",
        "a synopsis or a template: [optional] parts, $variables or upper-case placeholders (PATH, TRACES, M)",
    ),
    (
        r"^densing eval --models(?!.*--out results/smollm2/store)",
        "evaluates models: their weights and minutes to hours of CPU",
    ),
    (r"^densing overlap run ", "trains a model in profiled processes (the train extra, minutes)"),
    (r"^densing ladder fit ", "refits the ladder's shipped references: minutes on 2 cores"),
    (
        r"(^|\s)(runs|tpruns|reps|stores)/|(^|\s)(runs|tpruns|reps)(\s|$)|\bstore-\d|--into store\b|\s--out store(\s|$)",
        "reads or writes what a command left out above writes (a training run, an evaluation store)",
    ),
]

#: What each command that runs prints (a pattern over its stdout) and the files it writes: by the longest prefix.
EXPECTED = {
    "densing trend --design olmes": (r"olmes_arc_challenge", ()),
    "densing trend --table swallow --by benchmark": (r"swallow_mmlu\s+\d", ()),
    "densing trend --by benchmark": (r"\nmmlu\s+\d[\d.]*\s+\d", ()),
    "densing trend": (r"(Doubling time|doubling time).*months", ()),
    "densing density --targets results/smollm2/store": (r"smollm2-135m-instruct-q4_1|ρ\s+\d", ()),
    "densing density --fit reference_fits/olmo_hellaswag_two_step.json": (r"ρ\s+\d", ()),
    "densing density --fit llama-3.1_mmlu": (r"ρ\s", ()),
    "densing density --table openllm_v2": (r"Densest: \S+, ρ = \d", ()),
    "densing density": (r"microsoft/phi-2\s", ()),
    "densing trend --format csv": (r"^rule,months,ci_low,ci_high", ()),
    "densing fit --data results/public_models.csv --family": (r"family reference fit · mmlu", ()),
    "densing fit --data ../shared/data/pythia_evals": (r"two-step reference fit · lambada_openai", ()),
    "densing convert": (r"wrote \d+ rows to tidy\.csv", ()),
    "densing eval --list": (r"\nmmlu\s+mmlu\s+5", ()),
    "densing report": (r"wrote report\.html", ("report.html",)),
    "densing eval --models": (r"smollm2-\S*\s+openllm_v1_mmlu\s+0\.\d+", ()),
    "densing measure --scores tests/placement/fixtures/v2_scores.csv --table openllm_v2": (
        r"inverted on\s+mmlu_pro,\s+leaderboard_bbh,\s+math_hard.*my-org/my-model-7b: ρ = \d",
        (),
    ),
    "densing measure --scores": (r"my-org/my-model-7b: ρ = \d[\d.]* \(95% CI .*the frontier's band", ()),
    "densing measure": (r"smollm2-135m-instruct-q4_1: arc_challenge \d", ("report.html",)),
    "densing overlap analyze ../shared/data/traces/hta/ddp_2rank --format json": (r'"comm_comp_overlap_pct": \d', ()),
    "densing overlap analyze ../shared/data/traces/hta/sampled_128rank": (r"\n\s*0\s+\d+\s+[\d.]+\s", ()),
    "densing overlap analyze": (r"comm-comp overlap \(%\)\s+\d", ()),
    "densing overlap skew": (r"\n\s*4\s+1\s+\d", ()),
    "densing overlap compare": (r"step_time_us\s+\d", ()),
    "densing overlap whatif": (r"\nco2\s+64\s+80\s", ()),
    "densing overlap strategies": (r"\bco2\b", ()),
    "densing validate": (r"held-out model\(s\).*mean relative error \d", ()),
    "densing ladder check": (r"mean relative error over the five tasks \d", ()),
}


def _skipped(line: str) -> str | None:
    return next((reason for pattern, reason in SKIPPED if re.search(pattern, line)), None)


RUNNABLE = [(p, c) for p, c in LINES if _skipped(c) is None]


def test_the_rule_runs_the_main_examples_and_skips_with_a_reason():
    assert all(c.startswith("densing ") for _, c in RUNNABLE), [c for _, c in RUNNABLE if not c.startswith("densing ")]
    ran = {c.split(" --", 1)[0] for _, c in RUNNABLE}
    assert {
        "densing trend",
        "densing density",
        "densing report",
        "densing eval",
        "densing measure",
        "densing overlap analyze ../shared/data/traces/hta/ddp_2rank",
    } <= ran
    assert _skipped("densing overlap skew TRACES") and _skipped("densing fit --data PATH --out reference_fits/X.json")
    assert _skipped("densing eval --models results/smollm2/models.yaml --benchmarks mmlu --out runs/store")


@pytest.fixture(scope="module")
def fresh_clone(tmp_path_factory) -> Path:
    """The checkout's files as a fresh clone has them (tracked and untracked, not ignored) in a scratch folder, with
    ``../shared/data`` beside it pointing at the public data."""
    root = tmp_path_factory.mktemp("clone")
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO_ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    clone = root / "densing"
    for name in filter(None, listed):
        source = REPO_ROOT / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    (root / "shared").mkdir()
    (root / "shared" / "data").symlink_to(SHARED_DATA, target_is_directory=True)
    return clone


@pytest.mark.slow
@pytest.mark.parametrize("page,command", RUNNABLE, ids=[f"{p}:{c[:60]}" for p, c in RUNNABLE])
def test_each_runnable_command_runs_as_written(page, command, run_cli, fresh_clone, monkeypatch):
    if "../shared/data/" in command and not SHARED_DATA.is_dir():
        pytest.skip(f"public data not found at {SHARED_DATA}")
    prefix = max((k for k in EXPECTED if command.startswith(k)), key=len, default=None)
    assert prefix is not None, f"{page}: `{command}` runs: add what it prints to EXPECTED"
    pattern, files = EXPECTED[prefix]
    for name in files:
        (fresh_clone / name).unlink(missing_ok=True)
    monkeypatch.chdir(fresh_clone)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("DENSING_SHARED_DATA", raising=False)  # the layout's ../shared/data, as on a fresh clone
    code, out, err = run_cli(*shlex.split(command)[1:])
    assert code == 0, f"{page}: `{command}` exited {code}: {err.strip()[-300:]}"
    assert re.search(pattern, out, flags=re.S), f"{page}: `{command}` printed no match for {pattern!r}:\n{out[:600]}"
    if "--format json" in command:
        assert json.loads(out), command
    for name in files:
        assert (fresh_clone / name).read_text()[:200].lstrip().lower().startswith("<!doctype html"), name
