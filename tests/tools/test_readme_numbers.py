"""The README's results section states only numbers its records hold (``tools/readme_numbers.py``), and the public
table's records are what the commands print."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT
from tools import readme_numbers


def test_every_number_of_the_results_section_is_in_a_record():
    assert readme_numbers.differences() == []


@pytest.mark.parametrize("old,new,named", [("4.88 months [3.46", "4.98 months [3.46", "4.98"),
                                           ("MATH-hard 5.66 [3.30", "MATH-hard 5.76 [3.30", "5.76"),
                                           ("3.96 months, at least 2.78", "3.96 months, at least 2.68", "2.68")])
def test_a_number_no_record_holds_is_named(old, new, named, tmp_path):
    text = readme_numbers.README.read_text(encoding="utf-8")
    assert old in text
    changed = tmp_path / "README.md"
    changed.write_text(text.replace(old, new), encoding="utf-8")
    assert any(named in line for line in readme_numbers.differences(changed))


def test_what_is_read_as_a_number():
    said = {(w, v) for w, v, _ in readme_numbers.stated("3.61 months; 2,400 draws; +9.7% ± 0.8; 2024-09-30; Q = 2.5 "
                                                        "on 3 df; arXiv 2604.24827; `--n-boot 600`")}
    assert said == {("3.61", 3.61), ("2,400", 2400.0), ("+9.7%", 9.7), ("+9.7%", 9.7 / 100), ("0.8", 0.8), ("2.5", 2.5)}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(readme_numbers.COMMANDS))
def test_the_public_records_are_what_the_commands_print(name):
    printed = subprocess.run([sys.executable, "-c", "from densing.cli import run; run()",
                              *readme_numbers.COMMANDS[name]], cwd=REPO_ROOT, capture_output=True, text=True,
                             check=True).stdout
    assert json.loads(printed) == json.loads((readme_numbers.PUBLIC / name).read_text(encoding="utf-8"))
