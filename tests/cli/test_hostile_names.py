"""A model name that holds an escape sequence, an OSC window title and a right-to-left override reaches the terminal
as visible escapes (densing.cli.guard.visible) on every command that prints names, and in error lines; JSON keeps the
same value with those characters escaped."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from tests.cli_run import run
from tests.conftest import REPO_ROOT

HOSTILE = "evil\x1b[2J\x1b[31m\x1b]0;pwned\x07\u202eman"
#: Raw characters a terminal would act on (C0 but line feed and tab, DEL, C1, bidirectional controls).
ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture(scope="module")
def hostile_table(tmp_path_factory):
    table = pd.read_csv(REPO_ROOT / "results" / "public_models.csv")
    table.loc[table["model"] == "Qwen/Qwen2-72B", "model"] = f"Qwen/{HOSTILE}"
    path = tmp_path_factory.mktemp("hostile") / "table.csv"
    table.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("argv", [["trend", "--detail"], ["density"], ["trend", "--format", "json"]])
def test_no_raw_control_character_reaches_the_terminal(capsys, hostile_table, argv):
    option = "--targets" if argv[0] == "density" else "--results"
    code, out, err = run([*argv, option, str(hostile_table)], capsys)
    assert code == 0, err
    assert not ACTING.search(out) and not ACTING.search(err)
    if "json" in argv:
        json.loads(out)  # the same JSON value, its controls escaped
    else:
        assert "\\x1b[2J" in out or "\\u202e" in out or argv == ["trend", "--detail"]


def test_an_error_line_shows_the_name_escaped(capsys, tmp_path):
    path = tmp_path / "bad.csv"
    table = pd.read_csv(REPO_ROOT / "results" / "public_models.csv").head(3)
    table.loc[0, "model"] = HOSTILE
    table.loc[0, "params"] = -5
    table.to_csv(path, index=False)
    code, out, err = run(["trend", "--results", str(path)], capsys)
    assert code == 2 and not ACTING.search(err) and len(err.strip().splitlines()) == 1
