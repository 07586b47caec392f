"""No room below the presentation layer makes a reader's word (issue 106, "values out, displays in"): every f-string
in a room's modules is an exception's message (or a piece of one), a warning, a key or column name, or is listed here
with why it may stay (:data:`ALLOWED`) or what is still to move (:data:`LEFT`). A new f-string that builds a label, a
note or a sentence fails :func:`test_no_room_below_makes_words` until it moves to :mod:`densing.present`.

The rooms scanned are a parameter (:data:`ROOMS`): ``densing/trend`` and ``densing/placement`` here; another room joins
by adding its folder and its allow-list entries."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The rooms scanned, as folders of the repository.
ROOMS = ("densing/trend", "densing/placement")

#: Callees whose f-string arguments are never a reader's words made here: exceptions, warnings, attribute and module
#: names.
_CALLEES = ("warn", "getattr", "hasattr", "import_module")

#: (path, the f-string's source as :func:`ast.unparse` writes it) → why it may stay: an error message's piece built
#: before its ``raise``, an identifier or a key.
ALLOWED = {
    ("densing/trend/bias.py", "f'{path.name} (made by studies/headline_bias.py --write)'"): "an error message's file",
    ("densing/trend/bias.py", "f'{where}: row {i}'"): "an error message's place",
    ("densing/trend/capability.py", "f'{family}:{benchmark}'"): "a reference's key (ReferenceName's form)",
    ("densing/trend/doubling.py", "f\"; close: {', '.join(close)}\""): "the tail of an InputError's message",
    ("densing/trend/doubling.py", "f'reference[{i}]'"): "an error message's place",
    ("densing/trend/forecast.py", "f'forecast {row!r}'"): "an error message's place",
    (
        "densing/trend/measure.py",
        "f'{(record.display if record is not None and record.display else benchmark)} (column {columns})'",
    ): "a piece of require_set_benchmarks' InputError",
    ("densing/trend/plan.py", "f'budget@{self.d0:g}'"): "a job's key",
    ("densing/trend/pooled_bias.py", "f'{path.name} (made by {STUDY} --summary --write)'"): "an error message's file",
    ("densing/trend/pooled_bias.py", "f'{where}: world {i}'"): "an error message's place",
    ("densing/trend/pooled_tables.py", "f'model {m}'"): "the grouping key of a model without a family",
    ("densing/trend/targets.py", "f'\\x00model {i}'"): "the grouping key of a model without a family",
    ("densing/trend/targets.py", "f'{source}: row {i}'"): "an error message's place",
    ("densing/trend/targets.py", "f'row {i}'"): "a row's name in an error message",
    ("densing/trend/targets.py", "f'{name}: item {i}'"): "an error message's place",
    ("densing/trend/uncertainty.py", "f'score:{b}'"): "a column's name",
    (
        "densing/placement/measure.py",
        'f"measuring the headline trend on the suite\'s target table ({draws} draws) …"',
    ): "a progress message (the documented on_progress(line) callback)",
    ("densing/placement/measure.py", "f'{model} / {bench}: '"): (
        "a progress message (the documented on_progress(line) callback)"
    ),
    ("densing/placement/measure.py", "f'--suite {suite}: its'"): "a piece of an InputError's message",
    (
        "densing/placement/measure.py",
        "f'results/{target.path.relative_to(RESULTS).as_posix()}'",
    ): "an InputError's file",
    ("densing/placement/own_scores.py", "f\"--{k.replace('_', '-')}\""): "an InputError's option names",
    (
        "densing/placement/pooled_place.py",
        "f\"the headline benchmarks of {' and '.join(fitting)}\"",
    ): "a piece of an InputError's message",
    ("densing/placement/pooled_place.py", "f'density_ci_{end}'"): "a column's name",
}

#: Words still made below the layer, to move to :mod:`densing.present` (each a value with its words made there): none
#: left in the rooms scanned.
LEFT: dict[tuple[str, str], str] = {}


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _spared(node: ast.JoinedStr, parents: dict) -> bool:
    """Whether the f-string ``node`` is no reader's word: inside a ``raise``, an exception's or a warning's call, a
    key (of a dict, a subscript) or another f-string's format spec."""
    child = node
    while child in parents:
        parent = parents[child]
        if isinstance(parent, ast.Raise):
            return True
        if isinstance(parent, ast.Call) and (
            _callee(parent).endswith(("Error", "Exception", "Warning")) or _callee(parent) in _CALLEES
        ):
            return True
        if (
            (isinstance(parent, ast.Dict) and child in parent.keys)
            or (isinstance(parent, ast.DictComp) and child is parent.key)
            or (isinstance(parent, ast.Subscript) and child is parent.slice)
            or (isinstance(parent, ast.FormattedValue) and child is parent.format_spec)
        ):
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        child = parent
    return False


def made_words(room: str, root: Path = ROOT) -> set[tuple[str, str]]:
    """(path, f-string) of every f-string in ``room``'s modules (a folder under ``root``) that is not spared
    (:func:`_spared`)."""
    found = set()
    for path in sorted((root / room).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr) and not _spared(node, parents):
                found.add((str(path.relative_to(root)), ast.unparse(node)))
    return found


@pytest.mark.parametrize("room", ROOMS)
def test_no_room_below_makes_words(room):
    made = made_words(room)
    unlisted = sorted(made - set(ALLOWED) - set(LEFT))
    assert not unlisted, "an f-string below the presentation layer, not in ALLOWED or LEFT:\n" + "\n".join(
        f"{p}: {s}" for p, s in unlisted
    )


@pytest.mark.parametrize("room", ROOMS)
def test_every_listed_f_string_is_still_there(room):
    made = made_words(room)
    stale = sorted(k for k in (*ALLOWED, *LEFT) if k[0].startswith(room + "/") and k not in made)
    assert not stale, "listed but no longer made (take it off the list):\n" + "\n".join(f"{p}: {s}" for p, s in stale)


def test_the_scan_finds_a_label_made_below(tmp_path):
    """A planted label, returned and assigned, is found; its error message and its key are not."""
    room = tmp_path / "densing" / "room"
    room.mkdir(parents=True)
    (room / "m.py").write_text(
        "def label(x):\n"
        '    said = f"{x} at D0"\n'
        '    if not x:\n        raise ValueError(f"x: {x!r}")\n'
        '    return {f"k_{x}": said, "v": f"{x}, the law"}\n',
        encoding="utf-8",
    )
    assert {s for _, s in made_words("densing/room", tmp_path)} == {"f'{x} at D0'", "f'{x}, the law'"}
