"""The second designs are found, not wired: each folder of densing/designs registers itself, the command line and the
report read the registry, and a design that is not registered is not there."""
from __future__ import annotations

import pytest

from densing.errors import RegistryError
from densing.registry import DESIGNS, SecondDesign, designs
from tests.cli_run import run


def test_every_folder_of_the_designs_package_is_a_registered_design():
    from pathlib import Path

    import densing.designs

    folders = {p.name for p in Path(densing.designs.__path__[0]).iterdir() if (p / "__init__.py").is_file()}
    assert folders and set(designs()) == folders
    olmes = designs()["olmes"]
    assert olmes.name == "olmes" and all(callable(f) for f in (olmes.run, olmes.side, olmes.section, olmes.render))


def test_the_command_line_names_the_registered_designs_and_refuses_another(capsys):
    code, out, err = run(["trend", "--design", "nope"], capsys)
    assert code == 2 and "--design: expected one of leaderboard, olmes, got 'nope'" in err
    assert "Traceback" not in err


def test_a_design_removed_from_the_registry_is_gone_from_the_command_line(monkeypatch, capsys):
    designs()
    monkeypatch.delitem(DESIGNS, "olmes")
    code, _, err = run(["trend", "--design", "olmes"], capsys)
    assert code == 2 and "expected one of leaderboard, got 'olmes'" in err


def test_a_design_is_checked_at_registration():
    with pytest.raises(RegistryError, match="field 'run'"):
        DESIGNS.register("bad", SecondDesign("bad", "words", run=42))
    with pytest.raises(RegistryError, match="field 'section'"):
        DESIGNS.register("bad", SecondDesign("bad", "words", run=lambda options: None, section=lambda result: None))
    assert "bad" not in DESIGNS


def test_a_designs_steps_load_on_their_first_call_and_keep_their_count():
    """densing.registry.lazy: the step's module is imported when the step is called, and the registry's check sees
    the step's count of arguments."""
    import inspect

    from densing.registry import lazy

    step = lazy("json", "dumps", 1)
    assert step([1, 2]) == "[1, 2]" and len(inspect.signature(step).parameters) == 1
    with pytest.raises(RegistryError, match="field 'section'"):
        DESIGNS.register("bad", SecondDesign("bad", "words", None, section=lazy("json", "dumps", 1)))
