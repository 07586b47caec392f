"""The Open LLM Leaderboard v2 table's section of the report: its stored record (``densing trend --table openllm_v2
--by benchmark``'s measurement, written by :data:`RECORD_COMMAND`) beside the public table's rows, the forecast check at
the declared cutoff beside the declared row, the row under each contested curation choice (:data:`SENSITIVITY`,
written by :data:`SENSITIVITY_COMMAND`), and the families that make its late frontier.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from densing import paths, registry
from densing.designs.openllm_v2.record import RECORD, RECORD_COMMAND, read
from densing.numbers import counted_noun, format_months, signed
from densing.present.bias import bias_words
from densing.report.designs import SECTIONS, DesignSection, LeftOut
from densing.report.html import Section, esc, record_agreement, record_cell, table_html
from densing.states import ReferenceName
from densing.trend.bias import looked_up

SENSITIVITY = paths.RESULTS / "openllm_v2" / "curation_sensitivity.csv"
SENSITIVITY_COMMAND = (
    "python tools/build_tables.py openllm-v2-sensitivity --out results/openllm_v2/curation_sensitivity.csv"
)
SENSITIVITY_COLUMNS = ("choice", "months", "ci_low", "ci_high", "state", "status", "references")
#: The public table's last release date: a family with a model after it is a late family.
PUBLIC_TABLE_END = "2024-07-31"
#: The rows both tables measure, and their names on the page.
PAIRS = (
    ("v2_native", "MMLU-Pro + BBH + MATH-hard (the declared v2-native row)"),
    ("leaderboard_bbh", "BBH (3-shot, multiple choice)"),
    ("math_hard", "MATH level 5 (4-shot)"),
    ("mmlu_pro", "MMLU-Pro (5-shot)"),
    ("gpqa", "GPQA"),
    ("musr", "MuSR"),
)
#: The comparison's column of the public table's rows, and the column of this table's stored record.
PUBLIC_COLUMN = "public table (ObsScaling's extract, to 2024-07)"
RECORDED_COLUMN = "Open LLM Leaderboard v2 (to 2025-03)"


@dataclass(frozen=True)
class SecondTableSection:
    """The second table's rows beside the public table's (module docstring)."""

    title: ClassVar[str] = "A second table through 2025-03: the Open LLM Leaderboard v2"
    design: ClassVar[str] = "openllm_v2"  # the registered design that renders it
    record: dict
    comparison: pd.DataFrame
    late: pd.DataFrame
    sensitivity: pd.DataFrame | None = None  # the stored curation sensitivity; None where not shipped or damaged
    sensitivity_note: str = ""  # why it is left out, in one line
    #: the declared row's bias in planted worlds built like it (:func:`densing.present.bias.bias_words`)
    bias: str | None = None


def section(result, rows: pd.DataFrame, paper_months: float) -> SecondTableSection | LeftOut:
    """The section's data from the stored record (``result``: none) and the public table's ``rows``; where the record
    is missing, damaged or foreign, the one line that says so (:class:`LeftOut`)."""
    record, note = read()
    if record is None:
        return LeftOut(SecondTableSection.title, SecondTableSection.design, note)
    declared = next((r for r in record["rows"] if r["row"] == "v2_native"), {})
    bias = (
        bias_words(looked_up("openllm_v2", "v2_native", declared["months"]))
        if isinstance(declared.get("months"), (int, float))
        else None
    )
    return SecondTableSection(
        record,
        comparison(record, {r["row"]: r for r in rows.to_dict("records")}),
        late_families(record),
        *curation_sensitivity(),
        bias,
    )


def curation_sensitivity() -> tuple[pd.DataFrame | None, str]:
    """(the stored curation sensitivity, "") or (None, why it is left out in one line): a missing file, or one that
    does not parse or lacks a column of :data:`SENSITIVITY_COLUMNS`, is named, never raised."""
    where = SENSITIVITY.relative_to(paths.RESULTS.parent)
    if not SENSITIVITY.exists():
        return None, f"The curation sensitivity is left out: {where} is not shipped (made by {SENSITIVITY_COMMAND})."
    try:
        frame = pd.read_csv(SENSITIVITY)
        missing = [c for c in SENSITIVITY_COLUMNS if c not in frame.columns]
        if missing:
            raise ValueError(f"no column {', '.join(missing)}")
        if frame.empty:
            raise ValueError("no rows")
        frame[["months", "ci_low", "ci_high"]].astype(float)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        return (
            None,
            f"The curation sensitivity is left out: {where} cannot be read ({exc}); {SENSITIVITY_COMMAND} "
            f"makes it again.",
        )
    return frame, ""


def declared_words(record: dict) -> str:
    """The forecast check at the table's declared cutoff in one sentence, from the stored record ("" where none)."""
    from densing.present.findings import cutoff_words

    found = (record.get("forecast") or {}).get("declared")
    return (
        ""
        if not found
        else (f"Forecast check of the declared row at the declared cutoff (DECLARATION.md) {cutoff_words(found)}.")
    )


def recorded_references(row: dict | None) -> list[ReferenceName]:
    """A stored row's references as values: its ``reference_names`` list, each a ``family:benchmark`` name (the record's
    format; :func:`densing.designs.openllm_v2.record.read` reads only records whose rows hold that list)."""
    return [ReferenceName.parse(n) for n in (row or {}).get("reference_names") or () if n]


def comparison(record: dict, public: dict) -> pd.DataFrame:
    """Per capability of :data:`PAIRS`: both tables' months [95% CI], its references, whether the intervals overlap."""
    mine = {r["row"]: r for r in record["rows"]}
    return pd.DataFrame(
        [
            {
                "row": label,
                PUBLIC_COLUMN: record_cell(public.get(name)),
                RECORDED_COLUMN: record_cell(mine.get(name)),
                "its references": ", ".join(r.family for r in recorded_references(mine.get(name))),
                "the two tables": record_agreement(public.get(name), mine.get(name)),
            }
            for name, label in PAIRS
        ]
    )


def late_families(record: dict, row: str = "v2_native") -> pd.DataFrame:
    """The families with a model released after :data:`PUBLIC_TABLE_END` and the declared row's doubling time
    without each, the largest lengthening first (those that make the late frontier)."""
    try:
        table = pd.read_csv(registry.table("openllm_v2").path, usecols=["family", "release_date"])
    except (OSError, ValueError, pd.errors.ParserError, UnicodeDecodeError):  # no table, or no family or date column
        table = pd.DataFrame({"family": [], "release_date": []})
    late = set(
        table.loc[
            table["release_date"].astype(str).where(table["release_date"].notna(), "") > PUBLIC_TABLE_END, "family"
        ]
    )
    found = [r for r in record.get("influence", {}).get(row, []) if r["family"] in late]
    frame = pd.DataFrame(found, columns=["family", "n_models", "doubling_time_months", "move_months"])
    return frame.sort_values("move_months", ascending=False, kind="stable").reset_index(drop=True)


def late_words(late: pd.DataFrame) -> str:
    """The late frontier in words: every late family whose removal lengthens the doubling time, with its months."""
    listed = "; ".join(
        f"without {r.family} ({counted_noun(r.n_models, 'model')}) {format_months(r.doubling_time_months)} months"
        for r in late[late["move_months"] > 0].itertuples()
    )
    return (
        f"The families released after 2024-07-31 that make the late frontier (the row without each): {listed}."
        if listed
        else "No family released after 2024-07-31 lengthens the doubling time when left out."
    )


def render(s: SecondTableSection | LeftOut) -> Section:
    """The second table's rows beside the public table's, its verdict and late frontier (or why they are left out)."""
    if isinstance(s, LeftOut):
        return Section(s.title, s.note)
    intro = (
        f'A stored record, not computed by this command: the column "{RECORDED_COLUMN}" and its references, '
        f"the verdict and the families below are {RECORD.relative_to(paths.RESULTS.parent)}, made by "
        f"{RECORD_COMMAND}. The Open LLM Leaderboard v2 (Hugging Face) scored every model in one harness — "
        f"BBH 3-shot, MATH level 5 4-shot, MMLU-Pro 5-shot, GPQA, MuSR — until it closed in March 2025; "
        f"results/openllm_v2/ holds its official providers' pretrained base models ({s.record['n_models']} "
        f"models, built by python tools/build_tables.py openllm-v2 with every row's decision and the ObsScaling "
        f"cross-check). Its first row, MMLU-Pro + BBH + MATH-hard, was declared before the table existed "
        f"(results/openllm_v2/DECLARATION.md); the same set on the public table is a finding, computed after "
        f"that table's headline was seen. The public table's paper-like row stays the headline; this row is the "
        f"law through 2025-03 on an independent harness."
    )
    late = s.late.assign(
        doubling_time_months=s.late["doubling_time_months"].map(format_months),
        move_months=s.late["move_months"].map(signed),
    )
    late.columns = ["family", "models", "months without it", "move (months)"]
    words = declared_words(s.record)
    return Section(
        s.title,
        intro,
        [
            table_html(s.comparison, scroll=False),
            f'<p class="sub">{esc(s.record["verdict"])}</p>',
            *([f'<p class="sub">The v2-native row. {esc(s.bias)}</p>'] if s.bias else []),
            *([f'<p class="sub">{esc(words)}</p>'] if words else []),
            "<h3>Curation sensitivity</h3>",
            *_sensitivity_parts(s),
            "<h3>The late frontier</h3>",
            f'<p class="sub">{esc(late_words(s.late))}</p>',
            table_html(late, scroll=False),
        ],
    )


def _sensitivity_parts(s: SecondTableSection) -> list[str]:
    """The declared row under each contested curation choice (the stored table), or the one line that says why not."""
    if s.sensitivity is None:
        return [f'<p class="sub">{esc(s.sensitivity_note)}</p>']
    shown = pd.DataFrame(
        {
            "choice": s.sensitivity["choice"],
            "months [95% CI]": [
                record_cell({k: None if pd.isna(v) else v for k, v in r.items()})
                for r in s.sensitivity.to_dict("records")
            ],
            "references": s.sensitivity["references"],
        }
    )
    words = (
        f"The declared row recomputed under each contested curation choice (a stored table, "
        f"{SENSITIVITY.relative_to(paths.RESULTS.parent)}, made by {SENSITIVITY_COMMAND}; the choices are "
        f"stated in tools/openllm_v2_table/sensitivity.py and results/openllm_v2/README.md)."
    )
    return [f'<p class="sub">{esc(words)}</p>', table_html(shown, scroll=False)]


SECTIONS.register("openllm_v2", DesignSection(section, render, rank=5))
