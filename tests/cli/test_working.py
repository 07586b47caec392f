"""Long commands (``overlap run``, ``ladder fit``, ``eval``) say at once what they are doing: a spinner with the words
and the elapsed time on a terminal's stderr, nothing on a captured one (a failing command keeps its one line)."""
from __future__ import annotations

import io

from densing.cli import output


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_working_shows_the_words_on_a_terminal_and_updates_them(monkeypatch):
    stream = Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    with output.working("fitting 5 tasks") as say:
        say("training sync (run 1 of 3)")
    shown = stream.getvalue()
    assert "fitting 5 tasks" in shown and "training sync (run 1 of 3)" in shown and "0:00:0" in shown


def test_working_is_silent_on_a_captured_stderr(capsys):
    with output.working("fitting 5 tasks") as say:
        say("more")
    assert capsys.readouterr().err == ""
