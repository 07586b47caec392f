"""Every shipped row's state at 600 and at 4,000 starting draws: the states are decided by the data, not by the draws.

The rule (docs/method.md, "Determined ends and the three states"; :mod:`densing.trend.pooling` step 5): an end of a
row's doubling-time interval is finite exactly when the slope's quantile behind it is positive, and the draws decide
that sign at 95% Monte Carlo confidence, the quantile's range K·q ∓ 1.96·√(K·q·(1 − q)) order statistics
(:func:`densing.trend.pooling.end_range`) wholly above 0 (determined), wholly at or below 0 (not determined), or
straddling 0 (undecided: the row's draws doubled up to :data:`densing.constants.DRAWS_CAP`). This script measures every
shipped row — the public table's rows per benchmark and per set, its headline and its rows at one budget
(``densing trend --by benchmark``), the Open LLM Leaderboard v2 table's (``--table openllm_v2``), the Swallow tables'
(:data:`densing.designs.swallow.report.VARIANTS`) and OLMES's (``--design olmes``) — once starting from 600 draws
(the CLI's default) and once from 4,000, seed 0, and prints each row's state, interval and draws used under both,
then the rows whose state differs. It asserts nothing; ``tests/trend/test_state_draws.py`` checks a subset.

    PYTHONPATH=. OMP_NUM_THREADS=1 python studies/state_draws.py > studies/state_draws.results.txt
"""

from __future__ import annotations

import argparse
import math

import pandas as pd

STARTS = (600, 4000)


def _rows(frame: pd.DataFrame, table: str, prefix: str = "") -> list[dict]:
    return [
        {
            "table": table,
            "row": prefix + str(r["row"]),
            "state": r["state"],
            "status": r["status"],
            "months": r["months"],
            "ci_low": r["ci_low"],
            "ci_high": r["ci_high"],
            "n_draws": int(r["n_draws"]),
        }
        for r in frame.to_dict("records")
    ]


def leaderboard_states(table: str, n_boot: int, *, continual: bool = True, seed: int = 0) -> list[dict]:
    """The rows of ``densing trend --table <table> --by benchmark`` at ``n_boot`` starting draws: every row per
    benchmark and set, the headline (its own draws, shared by the frontier rules), the rows at one budget."""
    from densing import registry
    from densing.data import read_results
    from densing.present.records import by_benchmark, by_benchmark_at_budget
    from densing.present.shown import status
    from densing.present.words import state_words
    from densing.trend.measure import measure_trend
    from densing.trend.protocol import measure_table

    profile = registry.table(table)
    targets = read_results(profile.path)
    if profile.cutoff is None:
        measured = measure_trend(targets, table=profile, n_boot=n_boot, seed=seed, sections="all")
    else:
        measured = measure_table(targets, table, continual=continual, n_boot=n_boot, seed=seed).measured
    name = table if continual else f"{table} without continual"
    head = measured.rules[measured.headline_rule]
    out = [
        {
            "table": name,
            "row": "headline",
            "state": state_words(measured.state),
            "status": status(measured),
            "months": head.doubling_time_months,
            "ci_low": head.doubling_time_months_ci_low,
            "ci_high": head.doubling_time_months_ci_high,
            "n_draws": head.n_boot,
        }
    ]
    out += _rows(by_benchmark(measured), name)
    budget = by_benchmark_at_budget(measured)
    return out + (_rows(budget, name, "at one budget: ") if len(budget) else [])


def olmes_states(n_boot: int, *, seed: int = 0) -> list[dict]:
    """The rows of ``densing trend --design olmes`` at ``n_boot`` starting draws."""
    from densing.designs.olmes.trend import measure_olmes, row_states
    from densing.present.olmes import row_statuses, rows_frame
    from densing.present.words import state_words

    rows = rows_frame(measure_olmes(n_boot=n_boot, seed=seed))  # the rows with their reasons in words
    return [
        {
            "table": "olmes",
            "row": r["benchmark"],
            "state": state_words(state),
            "status": status,
            "months": r["months"],
            "ci_low": r["ci_low"],
            "ci_high": r["ci_high"],
            "n_draws": int(r["n_draws"]),
        }
        for r, status, state in zip(rows.to_dict("records"), row_statuses(rows), row_states(rows))
    ]


def shipped_states(n_boot: int, *, seed: int = 0) -> pd.DataFrame:
    """Every shipped row's state at ``n_boot`` starting draws (module docstring)."""
    from densing.designs.swallow.report import VARIANTS

    found = leaderboard_states("public", n_boot, seed=seed) + leaderboard_states("openllm_v2", n_boot, seed=seed)
    for _, table, drop in VARIANTS:
        found += leaderboard_states(table, n_boot, continual=not drop, seed=seed)
    return pd.DataFrame(found + olmes_states(n_boot, seed=seed))


def _interval(r) -> str:
    def words(v):
        return "∞" if not math.isfinite(v) else f"{v:.3g}"

    return "—" if math.isnan(r["months"]) else f"{words(r['months'])} [{words(r['ci_low'])}–{words(r['ci_high'])}]"


def _cell(r: dict, side: str) -> str:
    """One start's state, interval and draws of a merged row (``side``: its columns' suffix, ``_a`` or ``_b``)."""
    return (
        f"{r['state' + side]}, {_interval({k: r[k + side] for k in ('months', 'ci_low', 'ci_high')})}, "
        f"{r['n_draws' + side]:,} draws"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    first, second = (shipped_states(n, seed=args.seed) for n in STARTS)
    both = first.merge(second, on=["table", "row"], suffixes=("_a", "_b"), how="outer")
    print(
        f"Every shipped row's state starting from {STARTS[0]:,} and from {STARTS[1]:,} draws (seed {args.seed}); "
        "an undecided end doubles the draws up to the cap (the draws used)"
    )
    print(f"{'table':<28} {'row':<34} {f'from {STARTS[0]}':<42} {f'from {STARTS[1]}':<42}")
    for r in both.to_dict("records"):
        print(f"{r['table']:<28} {r['row']:<34} {_cell(r, '_a'):<42} {_cell(r, '_b'):<42}")
    moved = both[both["state_a"] != both["state_b"]]
    print(
        f"\n{len(both) - len(moved)} of {len(both)} rows keep their state; "
        f"{int((both['n_draws_a'] > STARTS[0]).sum())} of them draw more than {STARTS[0]:,} from {STARTS[0]:,}."
    )
    for r in moved.to_dict("records"):
        print(f"moves: {r['table']} {r['row']}: {r['status_a']} → {r['status_b']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
