"""The package's long modules and long functions, counted from its syntax tree.

    python tools/room_sizes.py [--max-modules N] [--max-functions N] [--root DIR]

Prints every module of ``densing/`` (or ``--root``) over 400 lines and every function or method over 80 lines,
longest first, then the two counts. A module's length is its number of lines; a function's runs from its ``def``
line to its last line (decorators left out, its docstring and nested functions in). With ``--max-modules`` or
``--max-functions`` it exits 1 when a count is above its maximum (a check for CI), 0 otherwise.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: A module longer than this, a function longer than that, is counted.
MODULE_LINES = 400
FUNCTION_LINES = 80


def room_sizes(root: Path) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(long modules, long functions) under ``root``: (lines, ``path`` or ``path:function``), longest first; paths
    relative to ``root``."""
    modules, functions = [], []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        name = path.relative_to(root).as_posix()
        lines = len(source.splitlines())
        if lines > MODULE_LINES:
            modules.append((lines, name))
        for node in ast.walk(ast.parse(source, filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > FUNCTION_LINES:
                    functions.append((length, f"{name}:{node.name}"))
    return sorted(modules, key=lambda m: (-m[0], m[1])), sorted(functions, key=lambda f: (-f[0], f[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO / "densing", help="the package folder (default densing/)")
    parser.add_argument("--max-modules", type=int, help=f"most modules over {MODULE_LINES} lines allowed")
    parser.add_argument("--max-functions", type=int, help=f"most functions over {FUNCTION_LINES} lines allowed")
    args = parser.parse_args(argv)
    modules, functions = room_sizes(args.root)
    print(f"modules over {MODULE_LINES} lines: {len(modules)}")
    for lines, name in modules:
        print(f"  {lines:5d}  {name}")
    print(f"functions over {FUNCTION_LINES} lines: {len(functions)}")
    for lines, name in functions:
        print(f"  {lines:5d}  {name}")
    over = [
        f"{len(found)} {what} over {limit} lines, more than {most}"
        for found, what, limit, most in (
            (modules, "modules", MODULE_LINES, args.max_modules),
            (functions, "functions", FUNCTION_LINES, args.max_functions),
        )
        if most is not None and len(found) > most
    ]
    for line in over:
        print(f"too many: {line}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
