"""Any terminal: where stdout cannot encode ≤ ≥ ∞ ρ ± (``PYTHONIOENCODING=ascii``, a C locale) the output is spelled
in ASCII (:func:`densing.cli.guard.plain_terminal`), never a ``UnicodeEncodeError``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CLI = [sys.executable, "-c", "from densing.cli import run; run()"]


def test_the_ascii_spelling_of_what_densing_prints():
    import codecs

    from densing.cli.guard import plain_terminal

    plain_terminal()
    text = "ρ ≤ 2 ± 0.1, ≥ ∞ – é ✓ 中"
    assert codecs.encode(text, "ascii", "densing-ascii") == b"rho <= 2 +/- 0.1, >= inf - e ok \\u4e2d"
    assert codecs.encode("± ≤", "latin-1", "densing-ascii") == "± <=".encode("latin-1")
    assert codecs.encode("−5.88×10⁻⁴, 1.2×10⁶", "ascii", "densing-ascii") == b"-5.88x10^-4, 1.2x10^6"  # numbers


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize(
    "argv", [["trend", "--n-boot", "50"], ["density"], ["trend", "--help"], ["report", "--out", "{tmp}"]]
)
def test_a_terminal_that_cannot_encode_gets_ascii(argv, encoding, tmp_path):
    """Help screens are click's: it writes them in UTF-8 where the stream says ASCII (no error either)."""
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    argv = [a.format(tmp=tmp_path) for a in argv]  # report --out a folder: the refusal line
    done = subprocess.run([*CLI, *argv], capture_output=True, env=env, timeout=600)
    assert b"Traceback" not in done.stderr and b"UnicodeEncodeError" not in done.stderr, done.stderr[-800:]
    assert done.returncode == (2 if "report" in argv else 0), done.stderr[-800:]
    assert done.stdout or done.stderr
    if encoding == "ascii" and "--help" not in argv:
        assert done.stdout.isascii() and done.stderr.isascii()
