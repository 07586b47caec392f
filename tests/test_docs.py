"""The commands the README and docs/ show: every one names a real command and options it has; the fast ones
(reading shipped data only, seconds each) run as written, exit 0 and print what the page says they measure. ``densing trend`` and ``densing report``
take tens of seconds at their default draws; their own tests run them (tests/test_api.py, tests/report/)."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from conftest import REPO_ROOT, SHARED_DATA

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
#: Commands that read only shipped data (or the public traces) and finish in seconds.
FAST = ("densing trend --design olmes", "densing overlap analyze", "densing density")


def _commands() -> list[tuple[str, str]]:
    """(page, command) for each ``densing …`` line in the pages' bash blocks, continuations joined, comments cut."""
    found = []
    for page in PAGES:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(), flags=re.S):
            text = re.sub(r"\\\n\s*", " ", block)
            for line in text.splitlines():
                line = line.split(" #", 1)[0].strip()
                if line.startswith("densing "):
                    found.append((page.name, line))
    return found


COMMANDS = _commands()


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


def _fast(command: str) -> bool:
    return command.startswith(FAST) and "[" not in command and not re.search(r"\b[A-Z]{2,}\b|my_|\bruns\b|stores/", command)


@pytest.mark.slow
@pytest.mark.parametrize("page,command", [(p, c) for p, c in COMMANDS if _fast(c)])
def test_the_fast_commands_run_as_written(page, command, run_cli, tmp_path, monkeypatch):
    words = _words(command)
    if "--out" in words:  # the page's output file goes to a scratch folder
        words[words.index("--out") + 1] = str(tmp_path / Path(words[words.index("--out") + 1]).name)
    words = [str(SHARED_DATA / w.removeprefix("../shared/data/")) if w.startswith("../shared/data/") else w for w in words]
    if not all(Path(w).exists() for w in words if w.startswith(str(SHARED_DATA))):
        pytest.skip(f"public data not found at {SHARED_DATA}")
    monkeypatch.chdir(REPO_ROOT)
    code, out, err = run_cli(*words)
    assert code == 0, f"{page}: `{command}` exited {code}: {err.strip()[:300]}"
    check_output(command, " ".join(out.split()), out)


def check_output(command: str, text: str, out: str) -> None:
    """What each fast command prints: ``text`` is its output with whitespace runs made one space."""
    if command.startswith("densing trend --design olmes"):
        from densing.trend.olmes import TASKS

        assert "doubling time in months per OLMES task" in text
        assert all(task in text for task in TASKS), f"{command}: a task's row is missing"
        assert re.search(r"olmes_\w+ \d+\.\d+ ", text), f"{command}: no task with a number of months"
    elif command.startswith("densing density"):
        found = re.search(r"capacity density of the headline's targets \((\d+) models released since \S+ densest first\)", text)
        assert found and int(found[1]) >= 50, f"{command}: {text[:200]}"
        first = next(line for line in out.splitlines() if "/" in line.split(" ", 1)[0])
        assert float(first.split()[3]) > 0, f"{command}: the densest model's ρ: {first}"
    elif command.startswith("densing overlap analyze") and "--format json" in command:
        import json

        ranks = json.loads(out)
        assert [r["rank"] for r in ranks] == [0] and ranks[0]["world_size"] == 2
        r = ranks[0]
        assert 0 < r["overlap_us"] <= r["comm_us"] <= r["kernel_span_us"] and r["kernel_count"] > 0
        assert r["exposed_comm_us"] == r["comm_us"] - r["overlap_us"]
        assert r["idle_pct"] + r["compute_pct"] + r["non_compute_pct"] == pytest.approx(100, abs=0.1)
    elif command.startswith("densing overlap analyze"):
        assert "ranks 2" in text and "kernels" in text
        assert float(re.search(r"comm-comp overlap \(%\) (\S+)", text)[1]) > 0
    else:
        raise AssertionError(f"`{command}` runs in the docs test: state what it prints in check_output")
