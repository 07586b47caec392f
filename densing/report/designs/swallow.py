"""The Swallow tables' section of the report: their stored records (``results/swallow/trend``) beside the public
table's rows, capability by capability, and their forecast check; :func:`render` lays it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from densing import paths
from densing.designs.swallow.records import PROTOCOL_COMMAND, PROTOCOL_RECORDS, read_records_noted
from densing.present.bias import bias_words
from densing.report.designs import SECTIONS, DesignSection, LeftOut
from densing.report.html import Section, esc, months_words, record_agreement, record_cell, table_html
from densing.trend.bias import looked_up


@dataclass(frozen=True)
class ProtocolSection:
    """The Swallow leaderboard's rows beside the public table's: a stored record (module docstring)."""

    title: ClassVar[str] = "The paper's protocol, 2023–2025"
    design: ClassVar[str] = "swallow"  # the registered design that renders it
    records: dict
    comparison: pd.DataFrame  # protocol_comparison
    forecasts: tuple  # forecast_tables
    paper_months: float
    notes: tuple = ()  # each record left out, in one line
    #: the 2025-06 paper-like row's bias in planted worlds built like it (:func:`densing.present.bias.bias_words`)
    bias: str | None = None


def section(result, rows: pd.DataFrame, paper_months: float) -> ProtocolSection | LeftOut:
    """The section's data from the stored records (``result``: none, the records are read here) and the public table's
    ``rows``; where the 2025-06 record is missing, damaged or foreign, the one line that says so (:class:`LeftOut`)."""
    records, notes = read_records_noted(PROTOCOL_RECORDS)
    if "swallow" not in records:
        return LeftOut(ProtocolSection.title, ProtocolSection.design, notes.get("swallow", ""))
    head = next((r for r in records["swallow"]["rows"] if r["row"] == "paper"), {})
    bias = (
        bias_words(looked_up("swallow", "paper", head["months"]))
        if isinstance(head.get("months"), (int, float))
        else None
    )
    return ProtocolSection(
        records, protocol_comparison(records, rows), forecast_tables(records), paper_months, tuple(notes.values()), bias
    )


#: Each public row and the Swallow row that measures the same capability in the paper's protocol, and its name.
PROTOCOL_PAIRS = (
    ("mmlu", "swallow_mmlu", "MMLU (5-shot in both)"),
    ("leaderboard_bbh", "swallow_bbh", "BBH (multiple choice · 3-shot chain of thought)"),
    ("math_hard", "swallow_math", "MATH (level 5 · MATH-500)"),
    ("gsm8k", "swallow_gsm8k", "GSM8K (5-shot · 4-shot)"),
    ("humaneval", "swallow_humaneval", "HumanEval"),
    ("paper", "paper", "MMLU + BBH + MATH + HumanEval"),
    ("paper_gsm8k", "paper_gsm8k", "MMLU + BBH + GSM8K + HumanEval"),
)
#: The forecast check's columns as the report shows them: (header, record fields).
FORECAST_COLUMNS = (
    ("cutoff", ("cutoff",)),
    ("early months", ("early_window_months",)),
    ("models before", ("n_early",)),
    (
        "early line's months (fit to the models before) [95% CI]",
        ("early_doubling_time_months", "early_doubling_time_months_ci_low", "early_doubling_time_months_ci_high"),
    ),
    ("later models", ("n_later",)),
    ("above the carried line", ("above_line",)),
    ("above the band's lower edge", ("above_band_low",)),
    ("above the band's upper edge", ("above_band_high",)),
    ("verdict", ("verdict",)),
)


def protocol_comparison(records: dict, public_rows: pd.DataFrame) -> pd.DataFrame:
    """One row per capability of :data:`PROTOCOL_PAIRS`: the public table's months [95% CI], each Swallow record's,
    the Swallow references' own months, and whether the public and the 2025-06 intervals overlap."""
    public = {r["row"]: r for r in public_rows.to_dict("records")}
    by = {stem: {r["row"]: r for r in rec["rows"]} for stem, rec in records.items()}
    return pd.DataFrame(
        [
            {
                "row": label,
                "public table (leaderboard protocol)": record_cell(public.get(left)),
                "Swallow 2025-06 (the paper's protocol)": record_cell(by["swallow"].get(right)),
                "its references (own months)": (by["swallow"].get(right) or {}).get("each_reference_months", ""),
                "without continual pre-training": record_cell(by.get("swallow_without_continual", {}).get(right)),
                "Swallow 2026-05 (later protocol)": record_cell(by.get("swallow_2026", {}).get(right)),
                "public vs Swallow 2025-06": record_agreement(public.get(left), by["swallow"].get(right)),
            }
            for left, right, label in PROTOCOL_PAIRS
        ]
    )


def _declared_first(found: dict) -> list[dict]:
    """The record's cutoffs, the table's declared one (where the record has it) first and marked so."""
    declared = found.get("declared")
    return ([dict(declared, cutoff=f"{declared['cutoff']} (declared)")] if declared else []) + list(found["cutoffs"])


def forecast_tables(records: dict) -> tuple[tuple[str, str, pd.DataFrame], ...]:
    """(the table's words, the check's summary, one row per cutoff) of each record with a forecast check."""
    return tuple(
        (
            records[stem]["words"],
            found["summary"],
            pd.DataFrame(
                [
                    {
                        header: months_words(*(r.get(f) for f in fields)) if len(fields) == 3 else r.get(fields[0])
                        for header, fields in FORECAST_COLUMNS
                    }
                    for r in _declared_first(found)
                ]
            ),
        )
        for stem in ("swallow", "swallow_2026")
        if (found := records.get(stem, {}).get("forecast"))
    )


FORECAST_WORDS = (
    '<p class="sub">The frontier line fitted on the models released up to the table\'s declared cutoff '
    "(half a year before its last models; its verdict is the check's) and up to each cutoff of the "
    "rule's grid (every 3 months, at least 12 months of models before it), carried to the later ones: if the law goes on, about 10% of "
    "the later models lie above the carried 0.9-quantile line; no verdict where the early line is too "
    "uncertain to be tested (densing/trend/forecast.py states the rule).</p>"
)


def render(s: ProtocolSection | LeftOut) -> Section:
    """The Swallow leaderboard beside the public table's rows, and its forecast check (or why they are left out)."""
    if isinstance(s, LeftOut):
        return Section(s.title, s.note)
    verdicts = "".join(
        f'<p class="sub">{"Without continual pre-training: " if rec["continual_pretraining"] == "dropped" else ""}'
        f"{esc(rec['verdict'])}</p>"
        for rec in s.records.values()
    )
    parts = [
        table_html(s.comparison, scroll=False),
        verdicts,
        *(f'<p class="sub">{esc(n)}</p>' for n in s.notes),
        *([f'<p class="sub">The 2025-06 paper-like row. {esc(s.bias)}</p>'] if s.bias else []),
    ]
    if s.records["swallow"].get("forecast"):
        parts += ["<h3>A forecast check</h3>", FORECAST_WORDS]
        for words, summary, frame in s.forecasts:
            parts += [
                f'<p class="sub">{esc(words[0].upper() + words[1:])}. {esc(summary)}</p>',
                table_html(frame, scroll=False) if len(frame) else "",
            ]
    intro = (
        f"A stored record, not computed by this command: the Swallow columns, verdicts and forecast check below "
        f"are {PROTOCOL_RECORDS.relative_to(paths.RESULTS.parent)}/*.json, made by {PROTOCOL_COMMAND}; --results, "
        f"--since, --seed and --n-boot do not reach them (their three tables' measurements take far longer than "
        f"the rest of this page), only the public table's column beside them. The Swallow LLM Leaderboard "
        f"(Swallow LLM team, CC-BY 4.0; results/swallow/) scores open pre-trained models in one harness in the "
        f"paper's own protocol — MMLU 5-shot, BBH 3-shot chain of thought, MATH 4-shot, GSM8K 4-shot, HumanEval "
        f"0-shot — through 2025. The same engine and reference rule (v3) as above, each protocol file its own "
        f"table, never pooled: {s.records['swallow']['n_models']} pre-trained models released 2023-12 … 2025-06, "
        f"and the later protocol's {s.records.get('swallow_2026', {}).get('n_models', 0)} released 2024-06 … "
        f"2025-11. The public table's rows stay the headline (densing/registry.py says why); of the two, the "
        f"Swallow rows are the protocol closest to the paper's; a row's state is its status in densing trend "
        f"--table swallow --by benchmark. The paper: {s.paper_months:g} months."
    )
    return Section(s.title, intro, parts)


SECTIONS.register("swallow", DesignSection(section, render, rank=10))
