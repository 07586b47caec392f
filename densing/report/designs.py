"""The designs beside the headline, as the report's model holds them: the Swallow leaderboard's stored rows paired
with the public table's, its forecast check, and the OLMES design beside the leaderboard-based rows.

Each function compares results already computed (months and 95% intervals) and returns a frame; the renderer
(:mod:`densing.report.render_designs`) lays it out.
"""
from __future__ import annotations

import math

import pandas as pd

from densing.numbers import format_months

#: Each public row and the Swallow row that measures the same capability in the paper's protocol, and its name.
PROTOCOL_PAIRS = (("mmlu", "swallow_mmlu", "MMLU (5-shot in both)"),
                  ("leaderboard_bbh", "swallow_bbh", "BBH (multiple choice · 3-shot chain of thought)"),
                  ("math_hard", "swallow_math", "MATH (level 5 · MATH-500)"),
                  ("gsm8k", "swallow_gsm8k", "GSM8K (5-shot · 4-shot)"),
                  ("humaneval", "swallow_humaneval", "HumanEval"),
                  ("paper", "paper", "MMLU + BBH + MATH + HumanEval"),
                  ("paper_gsm8k", "paper_gsm8k", "MMLU + BBH + GSM8K + HumanEval"))
#: The forecast check's columns as the report shows them: (header, record fields).
FORECAST_COLUMNS = (("cutoff", ("cutoff",)), ("early months", ("early_window_months",)), ("models before", ("n_early",)),
                    ("months before [95% CI]", ("early_doubling_time_months", "early_doubling_time_months_ci_low",
                                                "early_doubling_time_months_ci_high")),
                    ("later models", ("n_later",)), ("above the carried line", ("above_line",)),
                    ("above the band's lower edge", ("above_band_low",)),
                    ("above the band's upper edge", ("above_band_high",)), ("verdict", ("verdict",)))


def months_words(months, low, high) -> str:
    """'months [low–high]' of a record (JSON writes an infinite doubling time, no trend, as null): '∞' for null."""
    if months is None and low is None and high is None:
        return "—"  # no line was fitted
    words = lambda v: "∞" if v is None else format_months(v)  # noqa: E731
    return f"{words(months)} [{words(low) if low is not None else '0'}–{words(high)}]"


def _cell(row: dict | None) -> str:
    """'months [low–high]' of a row, '(estimate)' after it where a check fails; 'not measured' with no interval."""
    if not row:
        return "—"
    months, low, high = (row.get(k) for k in ("months", "ci_low", "ci_high"))
    if low is None and (months is None or not math.isfinite(months)):
        return "not measured"
    return months_words(months, low, high) + ("" if row.get("status") == "measured" else " (estimate)")


def _agreement(a: dict | None, b: dict | None) -> str:
    """Whether two rows' 95% intervals overlap, in words."""
    def ends(row):
        if not row or row.get("ci_low") is None:
            return None
        return (row.get("ci_low") or 0.0, row.get("ci_high") if row.get("ci_high") is not None else math.inf)
    x, y = ends(a), ends(b)
    if x is None or y is None:
        return "cannot be compared (a row has no interval)"
    return "intervals overlap" if x[0] <= y[1] and y[0] <= x[1] else "intervals do not overlap"


def protocol_comparison(records: dict, public_rows: pd.DataFrame) -> pd.DataFrame:
    """One row per capability of :data:`PROTOCOL_PAIRS`: the public table's months [95% CI], each Swallow record's,
    the Swallow references' own months, and whether the public and the 2025-06 intervals overlap."""
    public = {r["row"]: r for r in public_rows.to_dict("records")}
    by = {stem: {r["row"]: r for r in rec["rows"]} for stem, rec in records.items()}
    rows = []
    for left, right, label in PROTOCOL_PAIRS:
        rows.append({"row": label, "public table (leaderboard protocol)": _cell(public.get(left)),
                     "Swallow 2025-06 (the paper's protocol)": _cell(by["swallow"].get(right)),
                     "its references (own months)": (by["swallow"].get(right) or {}).get("each_reference_months", ""),
                     "without continual pre-training": _cell(by.get("swallow_without_continual", {}).get(right)),
                     "Swallow 2026-05 (later protocol)": _cell(by.get("swallow_2026", {}).get(right)),
                     "public vs Swallow 2025-06": _agreement(public.get(left), by["swallow"].get(right))})
    return pd.DataFrame(rows)


def forecast_tables(records: dict) -> tuple[tuple[str, str, pd.DataFrame], ...]:
    """(the table's words, the check's summary, one row per cutoff) of each record with a forecast check."""
    out = []
    for stem in ("swallow", "swallow_2026"):
        found = records.get(stem, {}).get("forecast")
        if found:
            frame = pd.DataFrame([{header: (months_words(*(r.get(f) for f in fields)) if len(fields) == 3
                                            else r.get(fields[0])) for header, fields in FORECAST_COLUMNS}
                                  for r in found["cutoffs"]])
            out.append((records[stem]["words"], found["summary"], frame))
    return tuple(out)
