"""The Open LLM Leaderboard v2 table's section of the report: its stored record (``densing trend --table openllm_v2
--by benchmark``'s measurement, written by :data:`RECORD_COMMAND`) beside the public table's rows, and the families
that make its late frontier.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from densing import paths
from densing.numbers import format_months
from densing.present.bias import bias_words
from densing.present.verdict import record_phrase
from densing.report.html import Section, esc, record_agreement, record_cell, table_html
from densing.states import family_of
from densing.trend.bias import looked_up

RECORD = paths.RESULTS / "openllm_v2" / "trend.json"
RECORD_COMMAND = "python tools/build_tables.py openllm-v2-trend --out results/openllm_v2/trend.json"
#: The public table's last release date: a family with a model after it is a late family.
PUBLIC_TABLE_END = "2024-07-31"
#: The rows both tables measure, and their names on the page.
PAIRS = (("v2_native", "MMLU-Pro + BBH + MATH-hard (the declared v2-native row)"),
         ("leaderboard_bbh", "BBH (3-shot, multiple choice)"), ("math_hard", "MATH level 5 (4-shot)"),
         ("mmlu_pro", "MMLU-Pro (5-shot)"), ("gpqa", "GPQA"), ("musr", "MuSR"))


@dataclass(frozen=True)
class SecondTableSection:
    """The second table's rows beside the public table's (module docstring)."""

    title: ClassVar[str] = "A second table through 2025-03: the Open LLM Leaderboard v2"
    design: ClassVar[str] = "openllm_v2"  # the registered design that renders it
    record: dict
    comparison: pd.DataFrame
    late: pd.DataFrame
    #: the declared row's bias in planted worlds built like it (:func:`densing.present.bias.bias_words`)
    bias: str | None = None


def _record() -> dict | None:
    """The stored record, None where it is not shipped."""
    return json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else None


def section(result, rows: pd.DataFrame, paper_months: float) -> SecondTableSection | None:
    """The section's data from the stored record (``result``: none) and the public table's ``rows``; None where the
    record is not shipped."""
    record = _record()
    if record is None:
        return None
    public = {r["row"]: r for r in rows.to_dict("records")}
    declared = next((r for r in record["rows"] if r["row"] == "v2_native"), {})
    bias = (bias_words(looked_up("openllm_v2", "v2_native", declared["months"]))
            if declared.get("months") is not None else None)
    return SecondTableSection(record, comparison(record, public), late_families(record), bias)


def comparison(record: dict, public: dict) -> pd.DataFrame:
    """One row per capability of :data:`PAIRS`: the public table's months [95% CI], the second table's, its
    references, and whether the two intervals overlap."""
    mine = {r["row"]: r for r in record["rows"]}
    return pd.DataFrame([{
        "row": label, "public table (ObsScaling's extract, to 2024-07)": record_cell(public.get(name)),
        "Open LLM Leaderboard v2 (to 2025-03)": record_cell(mine.get(name)),
        "its references": ", ".join(family_of(r) for r in (mine.get(name) or {}).get("references", "").split(", ")
                                    if r),
        "the two tables": record_agreement(public.get(name), mine.get(name))} for name, label in PAIRS])


def late_families(record: dict, row: str = "v2_native") -> pd.DataFrame:
    """The families with a model released after :data:`PUBLIC_TABLE_END` and the declared row's doubling time
    without each, the largest lengthening first (those that make the late frontier)."""
    table = pd.read_csv(paths.RESULTS / "openllm_v2" / "openllm_v2_2025-03.csv", usecols=["family", "release_date"])
    late = set(table.loc[table["release_date"].fillna("") > PUBLIC_TABLE_END, "family"])
    found = [r for r in record.get("influence", {}).get(row, []) if r["family"] in late]
    frame = pd.DataFrame(found, columns=["family", "n_models", "doubling_time_months", "move_months"])
    return frame.sort_values("move_months", ascending=False, kind="stable").reset_index(drop=True)


def late_words(late: pd.DataFrame) -> str:
    """The late frontier in words: every late family whose removal lengthens the doubling time, with its months."""
    making = late[late["move_months"] > 0]
    if making.empty:
        return "No family released after 2024-07-31 lengthens the doubling time when left out."
    listed = "; ".join(f"without {r.family} ({r.n_models} models) {format_months(r.doubling_time_months)} months"
                       for r in making.itertuples())
    return f"The families released after 2024-07-31 that make the late frontier (the row without each): {listed}."


def render(s: SecondTableSection) -> Section:
    """The second table's rows beside the public table's, its verdict and its late frontier."""
    intro = (f"A stored record, not computed by this command: the second column, the verdict and the families below "
             f"are {RECORD.relative_to(paths.RESULTS.parent)}, made by {RECORD_COMMAND}. The Open LLM Leaderboard v2 "
             f"(Hugging Face) scored every model in one harness — BBH 3-shot, MATH level 5 4-shot, MMLU-Pro 5-shot, "
             f"GPQA, MuSR — until it closed in March 2025; results/openllm_v2/ holds its official providers' "
             f"pretrained base models ({s.record['n_models']} models, built by python tools/build_tables.py "
             f"openllm-v2 with every row's decision and the ObsScaling cross-check). Its first row, MMLU-Pro + BBH + "
             f"MATH-hard, was declared before the table existed (results/openllm_v2/DECLARATION.md); the same set "
             f"on the public table is a finding, computed after that table's headline was seen. The public table's "
             f"paper-like row stays the headline; this row is the law through 2025-03 on an independent harness. "
             f"'estimate': the row has an interval but a check fails.")
    late = s.late.assign(doubling_time_months=s.late["doubling_time_months"].map(format_months),
                         move_months=s.late["move_months"].map(lambda v: f"{v:+.2f}"))
    late.columns = ["family", "models", "months without it", "move (months)"]
    parts = [table_html(s.comparison, scroll=False), f'<p class="sub">{esc(s.record["verdict"])}</p>',
             *([f'<p class="sub">The v2-native row. {esc(s.bias)}</p>'] if s.bias else []),
             "<h3>The late frontier</h3>", f'<p class="sub">{esc(late_words(s.late))}</p>',
             table_html(late, scroll=False)]
    return Section(s.title, intro, parts)


def line() -> str | None:
    """The declared row beside the public table's headline at the terminal, from the stored record (None where it is
    not shipped)."""
    record = _record()
    row = None if record is None else next((r for r in record["rows"] if r["row"] == "v2_native"), None)
    if row is None or row.get("months") is None:
        return None
    return (f"Through 2025-03 on a second table (the Open LLM Leaderboard v2's {record['n_models']} official base "
            f"models; MMLU-Pro + BBH + MATH-hard, declared before its data): {record_phrase(row)}; without "
            f"{row['most_influential_family']} {format_months(row['months_without_it'])} months (densing trend "
            f"--table openllm_v2 --by benchmark).")
