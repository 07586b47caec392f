"""``tools/build_tables.py openllm-v2`` on a damaged extract: every damage named in one line (a column missing, a row
cut short, a model twice, a size of 0, a date after today), exit 2, and nothing written; the shipped extract builds
the shipped table, which passes the package's own validation before it is written. Ctrl-C ends it with one line and
exit 130."""

from __future__ import annotations

import csv
import io
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO_ROOT

SHIPPED = REPO_ROOT / "results" / "openllm_v2"
EXTRACT = "source/huggingface_v2_official.csv"
KEPT = ("meta-llama/Meta-Llama-3-8B", "bfloat16")


def _rows():
    rows = list(csv.reader((SHIPPED / EXTRACT).open(newline="", encoding="utf-8")))
    head = rows[0]
    at = next(i for i, r in enumerate(rows) if (r[head.index("model_name")], r[head.index("model_precision")]) == KEPT)
    return rows, head, at


def _set(field, value):
    def change(rows, head, at):
        rows[at][head.index(field)] = value
        return rows

    return change


DAMAGE = {
    "missing column": (
        lambda rows, head, at: [
            [c for j, c in enumerate(r) if j != head.index("features_is_official_provider")] for r in rows
        ],
        "missing column(s) features_is_official_provider",
    ),
    "damaged row": (
        lambda rows, head, at: rows[:at] + [rows[at][:5]] + rows[at + 1 :],
        "5 field(s) where the header names",
    ),
    "duplicated model": (lambda rows, head, at: rows + [rows[at]], f"model {KEPT[0]} ({KEPT[1]}) appears on more"),
    "size 0": (_set("metadata_params_billions", "0"), "field 'metadata_params_billions': expected a positive number"),
    "date 2099": (
        _set("metadata_upload_date", "2099-01-01"),
        "field 'metadata_upload_date': 2099-01-01 is in the future",
    ),
    "score 1.5": (_set("evaluations_bbh_value", "1.5"), "field 'evaluations_bbh_value': expected a fraction"),
}


def _folder(tmp_path, rows):
    out = tmp_path / "v2"
    (out / "source").mkdir(parents=True)
    shutil.copy(SHIPPED / "curated.csv", out / "curated.csv")
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    (out / EXTRACT).write_text(text.getvalue(), encoding="utf-8")
    return out


@pytest.mark.parametrize("case", list(DAMAGE))
def test_each_damage_is_named_in_one_line_and_nothing_is_written(case, tmp_path, capsys):
    from tools.build_tables import main

    damage, words = DAMAGE[case]
    out = _folder(tmp_path, damage(*_rows()))
    code = main(["openllm-v2", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"error: {out / EXTRACT}: ") and words in err, err
    assert sorted(p.name for p in out.iterdir()) == ["curated.csv", "source"]


def test_a_built_table_the_package_refuses_is_not_written():
    import pandas as pd

    from densing.errors import InputError
    from tools.openllm_v2_table.build import check_table

    table = pd.read_csv(SHIPPED / "openllm_v2_2025-03.csv", dtype=str, keep_default_na=False)
    check_table(table, SHIPPED / EXTRACT)  # the shipped table passes
    table.loc[3, "release_date"] = "2099-01-01"
    with pytest.raises(InputError, match="the table built from it: row 4.*release_date"):
        check_table(table, SHIPPED / EXTRACT)


@pytest.mark.parametrize("after", [0.5, 1.5, 4.0])  # from the script's first line (not the interpreter's start)
def test_ctrl_c_ends_the_build_with_one_line_and_130(after, tmp_path):
    out = _folder(tmp_path, _rows()[0])
    process = subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "tools" / "build_tables.py"), "openllm-v2", "--out", str(out)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    time.sleep(after)
    process.send_signal(signal.SIGINT)
    err = process.communicate(timeout=120)[1]
    if process.returncode == 0:
        pytest.skip(f"the build ended before {after} s")
    assert process.returncode == 130 and err.strip() == "error: interrupted", err
    assert not [p for p in out.rglob("*") if p.name.startswith(".") or p.suffix == ".tmp"]


def test_an_obsscaling_extract_without_its_model_column_is_named_in_one_line(tmp_path, capsys):
    from tools.build_tables import main

    out = _folder(tmp_path, _rows()[0])
    theirs = tmp_path / "obsscaling_v2.csv"
    text = (REPO_ROOT / "results" / "obsscaling" / "base_llm_leaderboard_v2_eval.csv").read_text(encoding="utf-8")
    theirs.write_text(text.replace("Model,", "Name,", 1), encoding="utf-8")
    code = main(["openllm-v2", "--out", str(out), "--obsscaling-v2", str(theirs)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"error: {theirs}: missing column(s) Model "), err
    assert sorted(p.name for p in out.iterdir()) == ["curated.csv", "source"]


@pytest.mark.parametrize("cut", ["mid-row", "at a line"])
def test_a_cut_public_table_is_blamed_not_curated_csv(cut, tmp_path, capsys):
    from tools.build_tables import main

    out = _folder(tmp_path, _rows()[0])
    text = (REPO_ROOT / "results" / "public_models.csv").read_text(encoding="utf-8")
    half = text[: len(text) // 2]
    public = tmp_path / "public.csv"
    public.write_text(half if cut == "mid-row" else half[: half.rindex("\n") + 1], encoding="utf-8")
    code = main(["openllm-v2", "--out", str(out), "--public", str(public)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"error: {public}: "), err
    assert sorted(p.name for p in out.iterdir()) == ["curated.csv", "source"]
