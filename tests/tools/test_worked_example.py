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
    answer = " ".join(printed[0].rstrip("\n").split("\n")[-2:])  # the answer last, as the terminal wraps it
    assert answer.startswith(
        "smollm2-135m-instruct-q4_1 without BBH, MATH-hard, HumanEval (no score; placed from MMLU): ρ ≤ "
    ), answer


def _stated(kind: str) -> tuple[str, str, str]:
    """A statement the worked example makes now, one changed to a value the command does not give, and the changed
    value: taken from the documents, so the test follows them when they are regenerated."""
    text = worked_example.BLOCK.sub("", worked_example._section(worked_example.DOC.read_text()))
    if kind == "band":
        match = worked_example.BAND.search(text)
        stated = match.group(0)
        other = "above that band" if (match.group(1) or "undetermined") != "above" else "below that band"
        return stated, other, other
    for match in worked_example.STATED.finditer(text):
        if kind == "interval" and match.group(1):
            low, high = match.group(1), match.group(2)
            changed = f"{float(low) * 1.37:.3g}"
            return match.group(0), f"{changed}–{high}", changed
        if kind == "rho" and match.group(3):
            number = match.group(3).rstrip(".")
            changed = f"{float(number) * 1.37:.3g}"
            return match.group(0), match.group(0).replace(number, changed), changed
    raise AssertionError(f"the worked example states no {kind}")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["interval", "rho", "band"])
def test_a_number_that_differs_is_named(kind, printed, tmp_path, monkeypatch):
    old, new, named = _stated(kind)
    for name in ("DOC", "NOTES", "CSV"):
        copy = tmp_path / f"{name}{getattr(worked_example, name).suffix}"
        shutil.copyfile(getattr(worked_example, name), copy)
        monkeypatch.setattr(worked_example, name, copy)
    for path in (worked_example.DOC, worked_example.NOTES):
        path.write_text(path.read_text().replace(old, new))
    assert worked_example.DOC.read_text().count(new) >= 1
    found = worked_example.differences(*printed)
    assert any(named in line for line in found), found
