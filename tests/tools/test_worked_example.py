"""docs/measure.md's worked example and results/smollm2/ say what the command prints: its output block, its row, and
every number they state of the placement (ρ, an interval, ρmax, the band), by ``tools/worked_example.py``."""
from __future__ import annotations

import shutil

import pytest

from tools import worked_example


@pytest.fixture(scope="module")
def printed():
    return worked_example.run()


@pytest.mark.slow
def test_the_documents_say_what_the_command_prints(printed):
    assert worked_example.differences(*printed) == []
    assert printed[0].rstrip("\n").split("\n")[-2].startswith("smollm2-135m-instruct-q4_1: ρ ≤ ")  # the answer last


@pytest.mark.slow
@pytest.mark.parametrize("old,new,named", [("0.781–9.7", "0.924–8.3", "0.924"), ("is 5.01", "is 4.66", "4.66"),
                                           ("undetermined (`band`)", "below that band (`band`)", "below that band")])
def test_a_number_that_differs_is_named(old, new, named, printed, tmp_path, monkeypatch):
    for name in ("DOC", "NOTES", "CSV"):
        copy = tmp_path / f"{name}{getattr(worked_example, name).suffix}"
        shutil.copyfile(getattr(worked_example, name), copy)
        monkeypatch.setattr(worked_example, name, copy)
    for path in (worked_example.DOC, worked_example.NOTES):
        path.write_text(path.read_text().replace(old, new))
    found = worked_example.differences(*printed)
    assert any(named in line for line in found), found
