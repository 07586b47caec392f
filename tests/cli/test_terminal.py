"""Every command that prints a table, run in a real pseudo-terminal of 80×40 columns (``TERM=xterm-256color``): rich's
styles reach the terminal as escape codes, never as their text (``\\x1b[1m`` written out), no line is wider than the
terminal, and a model name's escape sequence is shown, never acted on; with ``NO_COLOR=1`` the bytes hold no escape
code at all. Each command runs once per module (:func:`terminal_output`)."""

from __future__ import annotations

import fcntl
import io
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pandas as pd
import pytest
from rich.cells import cell_len

from tests.conftest import REPO_ROOT

COLUMNS, LINES = 80, 40
#: The longest a command may run in the pseudo-terminal before the test gives up on it.
LIMIT_S = 300

#: ``densing eval``'s result table, rendered by the command's own function through the output layer: a sweep needs
#: lm-eval and a model.
EVAL_TABLE = """
import pandas as pd
from densing.cli.eval import _render
_render(pd.DataFrame({"model": ["EleutherAI/pythia-160m", "EleutherAI/pythia-410m"],
                      "benchmark": ["arc_easy", "arc_easy"], "metric": ["acc_norm", "acc_norm"],
                      "value": [0.4356, 0.5181], "n_shot": [0, 0], "loss": [1.2342, 1.1056],
                      "loss_unit": ["nats", "nats"], "loss_per_token": [0.3101, 0.2788],
                      "loss_per_byte": [0.0712, 0.0633]}), "table")
"""

#: The commands, each as the arguments of the Python interpreter run in the repository's root.
COMMANDS = {
    "trend": ["cli.py", "trend"],
    "trend --by benchmark": ["cli.py", "trend", "--by", "benchmark"],
    "trend --detail": ["cli.py", "trend", "--detail"],
    "density": ["cli.py", "density"],
    "measure": [
        "cli.py",
        "measure",
        "--scores",
        "tests/placement/fixtures/lm_eval_results.json",
        "--release-date",
        "2024-06-07",
    ],
    "eval's table": ["-c", EVAL_TABLE],
}
#: ``NO_COLOR`` is the same switch in every command (one console in densing.cli.output): the quick ones show it.
PLAIN_COMMANDS = ["trend", "trend --detail", "density", "measure", "eval's table"]

#: An escape sequence as a terminal reads it: CSI (styles, cursor moves), OSC (a window title), or a two-byte one.
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
#: A style code (SGR), the only escape sequence a table may hold.
STYLE = re.compile(r"\x1b\[[0-9;]*m")
HOSTILE = "evil\x1b[2J\x1b[31m\x1b]0;pwned\x07\u202eman"


def _environment(extra: dict[str, str]) -> dict[str, str]:
    """The test's environment as a terminal user's: 80×40, xterm, no colour switches but ``extra``'s."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
    }
    return {**environment, "COLUMNS": str(COLUMNS), "LINES": str(LINES), "TERM": "xterm-256color", **extra}


def _read_all(master: int, process: subprocess.Popen) -> bytes:
    """Everything the process writes to the pseudo-terminal, until it closes its side (or :data:`LIMIT_S`)."""
    chunks, deadline = [], time.monotonic() + LIMIT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if not ready:
            continue
        try:
            data = os.read(master, 65536)
        except OSError:  # Linux: EIO once every writer has closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    else:
        process.kill()
    return b"".join(chunks)


def in_terminal(arguments: list[str], **extra: str) -> bytes:
    """``python arguments`` with stdout and stderr on a pseudo-terminal of :data:`COLUMNS` × :data:`LINES`: the bytes
    the terminal receives."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    process = subprocess.Popen(
        [sys.executable, *arguments],
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=_environment(extra),
    )
    os.close(slave)
    try:
        received = _read_all(master, process)
    finally:
        os.close(master)
    code = process.wait(timeout=30)
    assert code == 0, received.decode("utf-8", "replace")[-2000:]
    return received


def shown_lines(received: bytes) -> list[str]:
    """The lines a person sees: escape sequences taken out, split at line feeds and carriage returns (a spinner's
    frames)."""
    return re.split(r"\r\n|\n|\r", ANSI.sub("", received.decode("utf-8")))


@pytest.fixture(scope="module")
def terminal_output():
    """``(command, no_color) → bytes``: each command run once in the module."""
    runs: dict[tuple[str, bool], bytes] = {}

    def output(command: str, no_color: bool = False) -> bytes:
        if (command, no_color) not in runs:
            extra = {"NO_COLOR": "1"} if no_color else {}
            runs[command, no_color] = in_terminal(COMMANDS[command], **extra)
        return runs[command, no_color]

    return output


@pytest.mark.parametrize("command", COMMANDS)
def test_styles_reach_the_terminal_as_styles_not_text(terminal_output, command):
    received = terminal_output(command)
    text = received.decode("utf-8")
    assert "\\x1b" not in text, text[:2000]
    assert not any("[1m" in line or "[0m" in line for line in shown_lines(received)), text[:2000]
    assert STYLE.search(text), "the header is not styled: rich took the terminal for a pipe"


@pytest.mark.parametrize("command", COMMANDS)
def test_no_line_is_wider_than_the_terminal(terminal_output, command):
    widths = {line: cell_len(line) for line in shown_lines(terminal_output(command))}
    too_wide = {line: width for line, width in widths.items() if width > COLUMNS}
    assert not too_wide, too_wide


@pytest.mark.parametrize("command", PLAIN_COMMANDS)
def test_no_color_gives_plain_text(terminal_output, command):
    received = terminal_output(command, no_color=True)
    assert b"\x1b" not in received, received.decode("utf-8")[:2000]
    assert max(cell_len(line) for line in shown_lines(received)) <= COLUMNS


def test_a_name_with_escape_codes_is_shown_not_acted_on(tmp_path):
    table = pd.read_csv(REPO_ROOT / "results" / "public_models.csv")
    table.loc[table["model"] == "Qwen/Qwen2-72B", "model"] = f"Qwen/{HOSTILE}"
    path = tmp_path / "table.csv"
    table.to_csv(path, index=False)
    received = in_terminal(["cli.py", "density", "--detail", "--targets", str(path)])
    text = received.decode("utf-8")
    assert set(ANSI.findall(text)) <= set(STYLE.findall(text)), set(ANSI.findall(text))  # styles only: no 2J, no title
    assert "\u202e" not in text and "\x07" not in text
    assert "\\x1b[2J" in text and "\\u202e" in text  # the name, as its visible escapes
    assert STYLE.search(text), "the header is not styled: rich took the terminal for a pipe"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_color_spinner_is_plain_lines(monkeypatch):
    from densing.cli.output import working

    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setenv("NO_COLOR", "1")
    with working("measuring the trend of evil\x1b[2J.csv …", after=0.05) as say:
        time.sleep(0.3)
        say("fitting")
    assert terminal.getvalue() == "measuring the trend of evil\\x1b[2J.csv …\nfitting\n"
