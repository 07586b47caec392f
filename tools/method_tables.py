"""Print the tables of docs/method.md's "On the shipped data" from the commands' own output (nothing typed by hand).

    densing trend --by benchmark --format json > by.json
    python tools/method_tables.py by.json

prints (1) one row per benchmark and set of the public table — its references with their own months and intervals,
the pooled months with its interval and status, the heterogeneity test, the fixed-size estimator beside it — and
(2) the named models' densities under the headline's lead reference (:func:`densing.trend.measure.headline_densities`).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from densing.numbers import format_months, format_number

NAMED = (
    "huggyllama/llama-7b",
    "meta-llama/Llama-2-7b-hf",
    "meta-llama/Llama-2-70b-hf",
    "mistralai/Mistral-7B-v0.1",
    "google/gemma-2-2b",
    "google/gemma-2-9b",
    "google/gemma-2-27b",
    "Qwen/Qwen2-7B",
    "meta-llama/Meta-Llama-3.1-8B",
    "meta-llama/Meta-Llama-3.1-70B",
    "meta-llama/Meta-Llama-3.1-405B-FP8",
)


def _m(value) -> str:
    return "∞" if value is None or (isinstance(value, float) and not math.isfinite(value)) else format_months(value)


def rows_table(document: dict) -> list[str]:
    cross = {r["row"]: r for r in document.get("cross_check", [])}
    out = [
        "| capability | row | references (own months [95% CI]) | months [95% CI] | models | draws | status | heterogeneity "
        "| leave one family out: the largest move | fixed-size months [95% CI], same models |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in document["rows"]:
        fixed = cross.get(r["row"])
        fixed_text = (
            f"{_m(fixed['fixed_size_months'])} [{_m(fixed['fixed_size_ci_low'])}–{_m(fixed['fixed_size_ci_high'])}]"
            if fixed
            else "—"
        )
        months = f"{_m(r['months'])} [{_m(r['ci_low'])}–{_m(r['ci_high'])}]" if r["months"] is not None else "—"
        family = r.get("most_influential_family") or ""
        lofo = f"without {family}: {_m(r.get('months_without_it'))}" if family else "—"
        out.append(
            f"| {r['capability']} | {r['label']} | {r['each_reference_months'] or '—'} | {months} | {r['n_models']} "
            f"| {r.get('n_draws', '—')} | {r['status']}{'; ' + r['precision'] if r.get('precision') else ''} | {r.get('heterogeneity', '')} | {lofo} | {fixed_text} |"
        )
    return out


def named_table() -> list[str]:
    from densing.data import read_results
    from densing.trend.measure import headline_densities

    found = headline_densities(read_results("results/public_models.csv")).set_index("model")
    out = ["| model | ρ [95% CI] | bound |", "|---|---|---|"]
    for model in NAMED:
        if model in found.index:
            r = found.loc[model]
            out.append(
                f"| {model} | {format_number(r['density'])} [{format_number(r['density_ci_low'])}, "
                f"{format_number(r['density_ci_high'])}] | {r.get('bound', '') or ''} |"
            )
    return out


def main() -> int:
    document = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    print("\n".join(rows_table(document)))
    print()
    print("\n".join(named_table()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
