"""The commands the README and docs/ show: every one names a real command and options it has; the fast ones
(reading shipped data only, seconds each) run as written and exit 0. ``densing trend`` and ``densing report``
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
