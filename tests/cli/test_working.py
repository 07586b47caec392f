"""densing.cli.output.working: the spinner of a long command shows on a terminal once the block has run its delay,
never for a quick block, and its timer thread ends with the block."""

from __future__ import annotations

import io
import threading
import time

from densing.cli.output import working


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_quick_block_shows_no_spinner_and_leaves_no_thread(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    before = threading.active_count()
    with working("measuring the trend …", after=5.0):
        pass
    assert terminal.getvalue() == "" and threading.active_count() == before


def test_a_long_block_shows_its_words_after_the_delay(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    before = threading.active_count()
    with working("measuring the trend …", after=0.05):
        time.sleep(0.5)
    assert "measuring the trend" in terminal.getvalue()
    time.sleep(0.2)  # rich's refresh thread ends with stop()
    assert threading.active_count() == before


def test_no_terminal_no_spinner(monkeypatch):
    captured = io.StringIO()
    monkeypatch.setattr("sys.stderr", captured)
    with working("measuring the trend …", after=0.0):
        time.sleep(0.1)
    assert captured.getvalue() == ""
