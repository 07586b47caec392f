"""tools/room_sizes.py: the count of long modules and functions, on planted source and on the package.

The package's check holds the counts at :data:`MAX_MODULES` and :data:`MAX_FUNCTIONS`, taken on the tree as
``ruff format`` lays it out (pyproject.toml's ``[tool.ruff]``): the formatter wraps what was written at 120 columns over
more lines, so the counts were taken again at its layout (3 modules and 2 functions before it, 24 and 23 after). Length
is no goal (CONTRIBUTING.md): the check keeps a module or function from growing past the limits unnoticed; a split that
serves the reader lowers a count, and a count is never raised to let a module grow.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tools.room_sizes import room_sizes

REPO = Path(__file__).resolve().parents[1]
#: The most modules over 400 lines and functions over 80 lines the package may hold.
MAX_MODULES = 24
MAX_FUNCTIONS = 23


def _function(name: str, lines: int) -> str:
    return f"def {name}():\n" + "".join(f"    x{i} = {i}\n" for i in range(lines - 1))


def test_counts_planted_modules_and_functions(tmp_path):
    (tmp_path / "long.py").write_text("\n".join(f"a{i} = {i}" for i in range(401)) + "\n")
    (tmp_path / "short.py").write_text("\n".join(f"a{i} = {i}" for i in range(400)) + "\n")
    (tmp_path / "funcs.py").write_text(
        _function("long", 81)
        + _function("edge", 80)
        + "class C:\n"
        + "".join("    " + line + "\n" for line in _function("method", 90).splitlines())
    )
    modules, functions = room_sizes(tmp_path)
    assert modules == [(401, "long.py")]
    assert functions == [(90, "funcs.py:method"), (81, "funcs.py:long")]


def test_the_check_exits_1_above_a_maximum(tmp_path):
    (tmp_path / "funcs.py").write_text(_function("long", 81))
    command = [sys.executable, str(REPO / "tools" / "room_sizes.py"), "--root", str(tmp_path)]
    assert subprocess.run([*command, "--max-functions", "1"], capture_output=True).returncode == 0
    done = subprocess.run([*command, "--max-functions", "0"], capture_output=True, text=True)
    assert done.returncode == 1 and "1 functions over 80 lines, more than 0" in done.stderr


def test_the_package_holds_its_counts():
    modules, functions = room_sizes(REPO / "densing")
    assert len(modules) <= MAX_MODULES, modules
    assert len(functions) <= MAX_FUNCTIONS, functions
