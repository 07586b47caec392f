"""The designs are found, not wired: each folder of densing/designs registers itself (and its target tables), the
command line and the report read the registries, densing/registry.py names no design, and a design whose folder is
removed is not there while the rest of the package works."""

from __future__ import annotations

import pytest

from densing.errors import RegistryError
from densing.registry import DESIGNS, Design, designs
from tests.cli_run import run


def test_every_folder_of_the_designs_package_is_a_registered_design():
    from pathlib import Path

    import densing.designs

    folders = {p.name for p in Path(densing.designs.__path__[0]).iterdir() if (p / "__init__.py").is_file()}
    assert folders and set(designs()) == folders
    olmes = designs()["olmes"]
    assert olmes.name == "olmes" and callable(olmes.side)


def test_each_design_is_shown_by_the_layers_above_it_under_its_name():
    """The report registers each design's section (densing.report.designs), the command line its printing
    (densing.cli.designs), each under a registered design's name; the design registers neither."""
    from dataclasses import fields

    from densing.cli.designs import PRINTERS
    from densing.report.designs import SECTIONS, ranked_sections

    assert {f.name for f in fields(Design)} == {"name", "help", "side"}
    assert set(SECTIONS) <= set(designs()) and set(PRINTERS) <= set(designs())
    assert [name for name, _ in ranked_sections()] == ["openllm_v2", "swallow", "three_tables", "olmes"]
    assert callable(PRINTERS["olmes"].run) and callable(PRINTERS["openllm_v2"].line)


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
    from densing.cli.designs import PRINTERS, Printer
    from densing.report.designs import SECTIONS, DesignSection

    with pytest.raises(RegistryError, match="field 'side'"):
        DESIGNS.register("bad", Design("bad", "words", side=42))
    with pytest.raises(RegistryError, match="field 'run'"):
        PRINTERS.register("bad", Printer(run=42))
    with pytest.raises(RegistryError, match="field 'section'"):
        SECTIONS.register("bad", DesignSection(lambda result: None, lambda section: None))
    assert "bad" not in DESIGNS and "bad" not in PRINTERS and "bad" not in SECTIONS


def test_a_designs_steps_load_on_their_first_call_and_keep_their_count():
    """densing.registry.lazy: the step's module is imported when the step is called, and the registry's check sees
    the step's count of arguments."""
    import inspect

    from densing.registry import lazy

    step = lazy("json", "dumps", 1)
    assert step([1, 2]) == "[1, 2]" and len(inspect.signature(step).parameters) == 1
    with pytest.raises(RegistryError, match="field 'side'"):
        DESIGNS.register("bad", Design("bad", "words", side=lazy("json", "dumps", 2)))


def test_the_registry_names_no_design():
    """densing/registry.py holds the mechanism only: no design's name, no import of a design's folder."""
    from pathlib import Path

    import densing.registry

    text = Path(densing.registry.__file__).read_text()
    for name in designs():
        assert f'"{name}"' not in text and f"designs.{name}" not in text, name
    assert "import densing.designs" not in text and "from densing.designs" not in text


def test_one_table_leads_and_a_second_leading_table_is_refused():
    from dataclasses import replace

    from densing.registry import TABLES, leading_table, register_table, table, table_for_path

    lead = leading_table()
    assert lead.leads and table() is lead and table_for_path(None) is lead and next(iter(TABLES)) == lead.name
    assert [t.name for t in TABLES.values() if t.leads] == [lead.name]
    with pytest.raises(RegistryError, match="field 'leads'"):
        register_table(replace(lead, name="another_lead"))
    assert "another_lead" not in TABLES


def _without(tmp_path, *folders: str):
    """A copy of the package with the design ``folders`` removed (the copy's root, for PYTHONPATH)."""
    import shutil
    from pathlib import Path

    import densing

    root = tmp_path / "tree"
    shutil.copytree(Path(densing.__file__).parent, root / "densing", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in folders:
        shutil.rmtree(root / "densing" / "designs" / folder)
    return root


_PROBE = """
import json
from densing import registry
from densing.errors import InputError
try:
    lead = registry.leading_table().name
except InputError as exc:
    lead = str(exc)
print(json.dumps({"designs": list(registry.designs()), "tables": list(registry.tables()), "lead": lead}))
"""


@pytest.mark.parametrize("removed", [("olmes",), ("swallow", "openllm_v2"), ("public",)])
def test_a_removed_design_folder_leaves_a_working_package(tmp_path, removed):
    """The designs of a copy of the package without some folders are the others, with their tables; without the
    leading table's folder, asking for the leading table is one InputError that lists the tables left."""
    import json
    import os
    import subprocess
    import sys

    root = _without(tmp_path, *removed)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(root)),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert set(found["designs"]) == set(designs()) - set(removed)
    kept = {
        "olmes": set(),
        "three_tables": set(),
        "openllm_v2": {"openllm_v2"},
        "public": {"public"},
        "swallow": {"swallow", "swallow_2026"},
    }
    assert set(found["tables"]) == set().union(*(kept[d] for d in found["designs"]))
    if "public" in removed:
        assert found["lead"].startswith("--table: no registered table leads") and "swallow" in found["lead"]
    else:
        assert found["lead"] == "public"
