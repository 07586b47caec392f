"""The per-benchmark table of a `densing eval` store: score and conditional loss in lm-eval's
standard format and in the OLMo ladder's format, items evaluated against the split's size, and
wall time per benchmark.

    python studies/smollm2_table.py STORE [STORE ...] [--csv results/smollm2/scores.csv [--update]]
                                  [--ladder-csv results/smollm2/ladder_scores.csv]
                                  [--ai2-ladder-csv results/smollm2/ladder_scores_ai2.csv]

prints a Markdown table; with --csv also writes the rows it shows (one per benchmark and format;
with --update, into the existing CSV: its rows of the same benchmark and format are replaced, the
others kept, so a later full run can replace a partial one without the earlier stores);
with --ladder-csv the store's tidy rows of the ladder-format benchmarks, which `densing density
--targets` reads.
A run with --limit (or an unfinished split) shows its item count below the split size and is
marked "partial".
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pandas as pd

#: items in the split each benchmark evaluates (the local files, see ../shared/data/benchmarks)
SPLIT_SIZES = {
    "arc_easy": 2376,
    "arc_challenge": 1172,
    "piqa": 1838,
    "winogrande": 1267,
    "lambada_openai": 5153,
    "mmlu": 14042,
    "humaneval": 164,
    "mbpp": 500,
    "gsm8k": 1319,
    "bbh": 6511,
}
#: items in AI2's request sets (../shared/data/olmo_ladder/oe_eval_tasks/README.md)
AI2_SET_SIZES = {
    "olmo_hellaswag_rc_5shot": 1000,
    "olmo_hellaswag_mc_5shot": 1000,
    "olmo_arc_easy_test_rc_5shot": 2376,
    "olmo_arc_challenge_test_rc_5shot": 1172,
    "olmo_piqa_val_rc_5shot": 1838,
    "olmo_winogrande_val_rc_5shot": 1267,
    "olmo_openbookqa_test_rc_5shot": 500,
    "olmo_socialiqa_val_rc_5shot": 1954,
    "olmo_csqa_val_rc_5shot": 1221,
    "olmo_boolq_val_rc_5shot": 3270,
}


def _request_set(benchmark: str) -> tuple[str, str] | None:
    """(task, variant) of an AI2 request-set benchmark ``olmo_<task>_<variant>``, else None."""
    from densing.eval.tasks.oe_eval_requests import REQUEST_SETS

    for task, variant in REQUEST_SETS:
        if benchmark == f"olmo_{task}_{variant}":
            return task, variant
    return None


def _split(benchmark: str) -> str:
    found = _request_set(benchmark)
    return found[0] if found else benchmark.removeprefix("olmes_")


def _is_ladder(benchmark: str) -> bool:
    return benchmark.startswith("olmes_") or _request_set(benchmark) is not None


def _stderr(by_metric: pd.DataFrame, metric: str, items: int) -> float:
    """The stored standard error, else the binomial √(p(1 − p)/n) (lm-eval runs without bootstrap)."""
    if metric not in by_metric.index:
        return math.nan
    stored = by_metric.loc[metric, "stderr"]
    if not pd.isna(stored):
        return float(stored)
    p = float(by_metric.loc[metric, "value"])
    return math.sqrt(p * (1 - p) / items) if items > 0 else math.nan


def table(frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (model, benchmark), part in frame.groupby(["model", "benchmark"], sort=False):
        by_metric = part.set_index("metric")
        first = part.iloc[0]
        ladder = _is_ladder(benchmark)
        request_set = _request_set(benchmark)
        split = _split(benchmark)
        items = (
            int(first["items"]) if "items" in part and not pd.isna(first.get("items")) else int(first["loss_samples"])
        )
        size = AI2_SET_SIZES.get(benchmark) if request_set else SPLIT_SIZES.get(split)
        score_metric = "len_norm" if ladder else ("acc_norm" if "acc_norm" in by_metric.index else "acc")
        # generative tasks have no accuracy: their one score (pass@1, exact match) stands in its column
        main = "acc" if "acc" in by_metric.index else str(by_metric.index[0])
        row = {
            "model": model,
            "benchmark": split,
            "format": (
                f"AI2 request set {request_set[1]} (ladder)"
                if request_set
                else "OLMES RC 5-shot (ladder)"
                if ladder
                else f"lm-eval standard, {int(first['n_shot'])}-shot"
            ),
            "score_metric": main.split(",")[0],
            "acc": by_metric.loc[main, "value"],
            "acc_stderr": _stderr(by_metric, main, items),
            "normalised_metric": score_metric if score_metric != "acc" else "",
            "normalised_acc": by_metric.loc[score_metric, "value"] if score_metric != "acc" else math.nan,
            "loss": first["loss"],
            "loss_unit": ""
            if pd.isna(first["loss"])
            else "bits/byte of the gold answer"
            if ladder
            else "nats per item, −ln P(gold | prompt)",
            "loss_per_byte_nats": first.get("loss_per_byte", math.nan),
            "items": items,
            "split_size": size,
            "complete": bool(size is not None and items == size and pd.isna(first.get("limit"))),
            "wall_seconds": first.get("wall_seconds", math.nan),
            "params": first["params"],
        }
        if "perplexity" in by_metric.index:
            row["normalised_metric"], row["normalised_acc"] = "perplexity", by_metric.loc["perplexity", "value"]
        rows.append(row)
    return pd.DataFrame(rows)


def markdown(result: pd.DataFrame) -> str:
    lines = [
        "| benchmark | format | acc | len_norm / acc_norm | conditional loss | items / split | wall time |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result.itertuples(index=False):
        has_normalised = isinstance(r.normalised_metric, str) and r.normalised_metric  # "" / NaN (CSV): none
        normalised = f"{r.normalised_acc:.4f} ({r.normalised_metric})" if has_normalised else "—"
        loss = (
            "— (no conditional loss)"
            if math.isnan(r.loss)
            else f"{r.loss:.4f} {'bpb' if 'bits' in r.loss_unit else 'nats/item'}"
        )
        if not math.isnan(r.loss) and not math.isnan(r.loss_per_byte_nats) and "bits" not in r.loss_unit:
            loss += f" ({r.loss_per_byte_nats:.4f} nats/byte)"
        done = f"{r.items} / {r.split_size}" + ("" if r.complete else " (partial)")
        lines.append(
            f"| {r.benchmark} | {r.format} | {'' if r.score_metric == 'acc' else r.score_metric + ' '}{r.acc:.4f} ± {r.acc_stderr:.4f} | {normalised} | {loss} | {done} | {r.wall_seconds:.0f} s |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--csv", type=Path, default=None)
    parser.add_argument(
        "--update",
        action="store_true",
        help="replace only this run's (benchmark, format) rows of --csv (and its benchmarks' rows of --ladder-csv)",
    )
    parser.add_argument("--ladder-csv", type=Path, default=None)
    parser.add_argument(
        "--ai2-ladder-csv",
        type=Path,
        default=None,
        help="the AI2 request-set rows, named as the OLMo fits name their benchmark (olmes_<task>), for densing density",
    )
    arguments = parser.parse_args()
    from densing.eval.store import read_store

    frame = pd.concat([read_store(s) for s in arguments.stores], ignore_index=True)
    result = table(frame)
    if arguments.csv is not None:
        from densing.io import atomic_write_text

        if arguments.update and arguments.csv.exists():
            old = pd.read_csv(arguments.csv)
            if "score_metric" not in old:
                old.insert(3, "score_metric", "acc")
            replaced = old.set_index(["benchmark", "format"]).index.isin(
                result.set_index(["benchmark", "format"]).index
            )
            result = pd.concat([old[~replaced], result], ignore_index=True)[list(result.columns)]
        atomic_write_text(arguments.csv, result.to_csv(index=False))
    print(markdown(result))
    if arguments.ladder_csv is not None:
        from densing.data.schema import COLUMNS
        from densing.io import atomic_write_text

        ladder = frame[frame["benchmark"].str.startswith("olmes_")]
        keep = [
            c
            for c in (*COLUMNS, "items", "limit", "score_task", "lm_eval_version", "config_hash", "wall_seconds")
            if c in ladder
        ]
        ladder = ladder[keep]
        if arguments.update and arguments.ladder_csv.exists():  # replace only this run's benchmarks
            old = pd.read_csv(arguments.ladder_csv)
            ladder = pd.concat([old[~old["benchmark"].isin(set(ladder["benchmark"]))], ladder], ignore_index=True)
        atomic_write_text(arguments.ladder_csv, ladder.to_csv(index=False))
    if arguments.ai2_ladder_csv is not None:
        from densing.data.schema import COLUMNS
        from densing.io import atomic_write_text

        ai2 = frame[frame["benchmark"].map(lambda b: _request_set(b) is not None)].copy()
        ai2["benchmark"] = ["olmes_" + _request_set(b)[0] for b in ai2["benchmark"]]  # the fits' names
        keep = [
            c
            for c in (*COLUMNS, "items", "limit", "score_task", "lm_eval_version", "config_hash", "wall_seconds")
            if c in ai2
        ]
        atomic_write_text(arguments.ai2_ladder_csv, ai2[keep].to_csv(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
