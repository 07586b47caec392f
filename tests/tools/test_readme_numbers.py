"""Every number of the checked documents (README.md's results section, DEVIATIONS.md, the results READMEs' marked
parts) is the record field ``tools/readme_numbers.map`` names for it (``tools/readme_numbers.py``), and the public
table's records are what the commands print."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT
from tools import readme_numbers


def test_the_shipped_documents_say_what_their_records_say():
    assert readme_numbers.differences() == []


def test_every_results_readme_has_a_checked_part():
    readmes = sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "results").glob("*/README.md"))
    assert readmes and set(readmes) <= set(readme_numbers.documents())
    mapped = readme_numbers.read_map()
    assert all(mapped.get(name) for name in readme_numbers.documents())


@pytest.mark.parametrize(
    "document,old,new,field",
    [
        (
            "README.md",
            "5.16 months [3.71–17.7]",
            "5.06 months [3.71–17.7]",
            "results/openllm_v2/trend.json#/rows/row=v2_native/months",
        ),
        (
            "README.md",
            "2.69 to (41.4–132)",
            "2.79 to (41.4–132)",
            "results/swallow/trend/swallow.json#/rows/row=paper/ci_low",
        ),
        (
            "results/openllm_v2/DEVIATIONS.md",
            "reads 5.63 months [3.71–19.2]",
            "reads 5.63 months [3.72–19.2]",
            "results/openllm_v2/trend.json#/forecast/declared/early_doubling_time_months_ci_low",
        ),
        (
            "results/openllm_v2/DEVIATIONS.md",
            "on 94 models, 1 of 22",
            "on 94 models, 2 of 22",
            "results/openllm_v2/trend.json@1b09d7cc#/forecast/declared/above_line",
        ),
        (
            "results/openllm_v2/README.md",
            "| upload dates | 4.99 [3.65–16.7]",
            "| upload dates | 4.99 [3.65–17.7]",
            "results/openllm_v2/curation_sensitivity.csv#/choice=upload dates/ci_high",
        ),
        (
            "results/overlap_runs/README.md",
            "| 2.5305 (+0.142) |",
            "| 2.5305 (+0.152) |",
            "results/overlap_runs/co2_ablation.csv#/variant=adaptive penalty&local_steps=4/delta_vs_ddp",
        ),
    ],
)
def test_a_changed_number_is_named_with_its_document_and_field(document, old, new, field):
    text = (REPO_ROOT / document).read_text(encoding="utf-8")
    assert text.count(old) == 1
    planted = _changed_number(old, new)
    found = readme_numbers.differences({document: text.replace(old, new)})
    assert len(found) == 1, found
    assert found[0].startswith(f"{document} line ") and f" {planted} differs from {field}," in found[0]


def _changed_number(old: str, new: str) -> str:
    """The number of ``new`` that ``old`` does not print."""
    before = [s.printed for s in readme_numbers.stated(old)]
    after = [s.printed for s in readme_numbers.stated(new)]
    return next(n for n, o in zip(after, before) if n != o)


def test_a_number_without_a_mapping_line_is_named():
    document = "results/openllm_v2/DEVIATIONS.md"
    text = (REPO_ROOT / document).read_text(encoding="utf-8")
    found = readme_numbers.differences(
        {document: text.replace("on 94 models, 1 of 22", "on 94 models (7.25), 1 of 22")}
    )
    assert len(found) == 1 and "7.25 has no line in readme_numbers.map" in found[0] and found[0].startswith(document)


def test_a_mapping_line_its_document_no_longer_prints_is_named():
    text = readme_numbers.README.read_text(encoding="utf-8")
    found = readme_numbers.differences(
        {
            "README.md": text.replace(
                " (Qwen2's place at the top drawn or fixed", " (Qwen2's place at the top drawn or fixed"
            ).replace(", and without Alibaba the pooled estimator reads 8.29 (6.33 with it)", "")
        }
    )
    assert found == [line for line in found if "is not printed there" in line] and any("8.29" in f for f in found)


def test_a_field_that_no_longer_prints_its_number_is_named(tmp_path):
    """A regenerated record that moved a number: the mapping line's field, read anew, prints another."""
    mapping = readme_numbers.MAP.read_text(encoding="utf-8")
    line = "5.16 | results/openllm_v2/trend.json#/rows/row=v2_native/months"
    assert line in mapping
    moved = tmp_path / "readme_numbers.map"
    moved.write_text(
        mapping.replace(line, "5.16 | results/openllm_v2/trend.json#/rows/row=mmlu_pro/months"), encoding="utf-8"
    )
    found = readme_numbers.differences(mapping=moved)
    assert found and all("5.16 is results/openllm_v2/trend.json#/rows/row=mmlu_pro/months" in f for f in found)


def test_a_results_readme_without_a_checked_part_is_named():
    document = "results/olmo_ladder/README.md"
    text = (REPO_ROOT / document).read_text(encoding="utf-8")
    unmarked = text.replace(readme_numbers.MARK_START, "").replace(readme_numbers.MARK_END, "")
    assert readme_numbers.differences({document: unmarked}) == [
        f"{document}: no part between {readme_numbers.MARK_START} and {readme_numbers.MARK_END}"
    ]


def test_what_is_read_as_a_number():
    said = [
        s.printed
        for s in readme_numbers.stated(
            "3.61 months; 2,400 draws; +9.7% ± 0.8; 2024-09-30; Q = 2.5 on 3 df; arXiv 2604.24827; `--n-boot 600`; "
            "[method](docs/v2.md) <!-- 7 --> D0 = 1T; Qwen2.5-Coder, Falcon3-10B (14T)"
        )
    ]
    assert said == ["3.61", "2,400", "+9.7%", "0.8", "2.5", "3"]


@pytest.mark.parametrize(
    "value,printed,form,prints",
    [
        (4.876, "4.88", "rounded", True),
        (4.876, "4.87", "rounded", False),
        (2400, "2,400", "rounded", True),
        (0.0971, "9.7%", "percent", True),
        (0.004, "+0.4%", "percent", True),
        (-20.01, "−20.0", "rounded", True),
        ("measured, 5.7-fold", "5.7", "rounded in text", True),
        ("measured, 5.7-fold", "5.8", "rounded in text", False),
        ("0.48 ± 0.05", "48%", "percent in text", True),
        ("4.001", "4", "rounded", True),
        ("free", "1", "rounded", False),
    ],
)
def test_how_a_field_prints(value, printed, form, prints):
    assert readme_numbers.prints(value, printed, form) is prints


def test_a_count_field_counts_the_selected_items():
    line = readme_numbers.Line("x", "72", "results/swallow/models.csv", "/file=2025-06&decision=kept", "count", 0)
    assert readme_numbers.field_value(line, {}) == 72


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(readme_numbers.COMMANDS))
def test_the_public_records_are_what_the_commands_print(name):
    printed = subprocess.run(
        [sys.executable, "-c", "from densing.cli import run; run()", *readme_numbers.COMMANDS[name]],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(printed) == json.loads((readme_numbers.PUBLIC / name).read_text(encoding="utf-8"))


def test_update_rewrites_a_moved_number_in_the_document_and_its_mapping_line():
    """A record moved a number (here: the document and its mapping line say 5.06 where the field prints 5.16):
    ``update``'s rewrite puts the field's number back in both, and ``check`` then finds nothing."""
    mapping_text = readme_numbers.MAP.read_text(encoding="utf-8")
    line = "5.16 | results/openllm_v2/trend.json#/rows/row=v2_native/months"
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert line in mapping_text and text.count("5.16 months [3.71–17.7]") == 1
    stale_text = text.replace("5.16 months [3.71–17.7]", "5.06 months [3.71–17.7]")
    at = mapping_text.index(line, mapping_text.index("[README.md]"))  # README's own line (DEVIATIONS.md has one too)
    stale_mapping = mapping_text[:at] + line.replace("5.16", "5.06", 1) + mapping_text[at + len(line) :]
    texts, new_mapping, changes = readme_numbers.rewritten({"README.md": stale_text}, stale_mapping)
    assert texts["README.md"] == text and new_mapping == mapping_text
    assert changes == [
        f"README.md line {text[: text.index('5.16 months [3.71')].count(chr(10)) + 1}: 5.06 → 5.16 "
        "(results/openllm_v2/trend.json#/rows/row=v2_native/months)"
    ]


def test_printed_as_keeps_the_printed_form():
    assert readme_numbers.printed_as(0.0971, "8.7%", "percent") == "9.7%"
    assert readme_numbers.printed_as(2400, "1,200", "rounded") == "2,400"
    assert readme_numbers.printed_as(-0.31, "+0.45", "rounded") == "-0.31"
    assert readme_numbers.printed_as(-0.31, "−0.45", "rounded") == "−0.31"
    assert readme_numbers.printed_as(3.6356, "3.75", "rounded") == "3.64"
    assert readme_numbers.printed_as(131.96, "44.8", "rounded") == "132"
