"""``densing trend --table all``: one Densing Law from the three tables (:mod:`densing.trend.pooled_tables`), on one
screen (80 × 40) ending with its doubling time, or as JSON (``--format json``) or CSV (the tables' rows)."""
from __future__ import annotations

from densing.cli.layout import closing
from densing.cli.output import Format, print_document, print_frame, print_text, working
from densing.errors import InputError
from densing.numbers import format_months

#: The ``--table`` name of the pooled law.
ALL_TABLES = "all"
#: The words of ``--table all`` in ``--help``.
ALL_HELP = ("'all': the three tables' headline rows (public, openllm_v2, swallow) on the public table's scale by "
            "Deming regression, one pooled law (results/three_tables/DECLARATION.md)")


def refuse_options(given: dict[str, bool]) -> None:
    """An InputError naming the first option of ``given`` (option → whether it was given) that --table all does not
    take: its rows are the declared ones."""
    for option, was_given in given.items():
        if was_given:
            raise InputError(f"{option}: --table all measures the three tables' declared headline rows; {option} "
                             f"applies to one table")


def interval_words(record: dict) -> str:
    """``"5.35 months (95% CI 2.63–47.1)"`` of an estimate's record (an infinite end as ∞)."""
    return (f"{format_months(record['doubling_time_months'])} months (95% CI {format_months(record['ci_low'])}–"
            f"{format_months(record['ci_high'])})")


def _tables_frame(found: dict):
    """One row per table (a DataFrame): its own doubling time on the common scale, its points, a_T and s_T with s_T's
    interval."""
    import pandas as pd

    scales = {s["table"]: s for s in found["scales"]}
    rows = []
    for table in found["tables"]:
        scale = scales[table["table"]]
        rows.append({"table": table["table"], "months": table["doubling_time_months"], "ci_low": table["ci_low"],
                     "ci_high": table["ci_high"], "points": table["n_points"], "a": scale["a"], "s": scale["s"],
                     "s_low": scale["s_ci"][0], "s_high": scale["s_ci"][1]})
    return pd.DataFrame(rows)


def _test_words(test: dict) -> str:
    """The common-slope test in one sentence."""
    verdict = "one slope across tables rejected: the tables disagree" if test["rejected"] else \
        "one slope across tables not rejected"
    return (f"common slope: Cochran's Q = {test['q']:.2f} on {test['df']} df (Hotelling's T², {test['draws']} draws), "
            f"p = {test['p_value']:.2g}: {verdict}")


def _lab_words(found: dict) -> str:
    """Leave one lab out: the first lab's move and the largest of the others'."""
    labs = found["leave_one_lab_out"]
    first = labs[0]
    words = (f"leave one lab out: without {first['lab']} ({first['n_points']} points) "
             f"{format_months(first['doubling_time_months'])} months")
    if len(labs) > 1:
        other = labs[1]
        words += f"; the largest other move: without {other['lab']} {format_months(other['doubling_time_months'])}"
    return words


def _late_words(late: dict) -> str:
    """The late frontier's labs in words (one lab said so)."""
    if late["n_labs"] == 0:
        return f"late frontier after {late['after']}: no exact point at or above the pooled line"
    if late["n_labs"] == 1:
        return f"late frontier after {late['after']}: it has one lab, {late['labs'][0]}"
    return f"late frontier after {late['after']}: {late['n_labs']} labs ({', '.join(late['labs'])})"


def closing_line(found: dict) -> str:
    """The last line: the pooled doubling time, its interval and state."""
    pooled = found["pooled"]
    if found["common_slope"]["rejected"]:
        return closing(["Doubling time: not measured, the tables disagree on one slope", "each table's own is above"])
    return closing([f"Doubling time: {interval_words(pooled)}, {pooled['state']}", "three tables pooled"])


def print_screen(found: dict) -> None:
    """The pooled law on one screen: the answer, the tables' own slopes and scales, the test, the sides, the line."""
    pooled = found["pooled"]
    print_text(f"One Densing Law from three harnesses, on the public table's scale: {interval_words(pooled)}, "
               f"{pooled['state']}; {pooled['n_points']} points of {pooled['n_models']} models from {pooled['n_labs']} "
               f"labs, {pooled['n_boot']} draws of labs, families, noise and scales.")
    print_frame(_tables_frame(found), Format.table, keys=1,
                title="each table's own doubling time on the common scale (months, 95% CI) and its scale "
                "y_public = a + s·y_table (s with its 95% CI)")
    print_text(_test_words(found["common_slope"]))
    without = "; ".join(f"{r['table']} {format_months(r['doubling_time_months'])}" for r in found["leave_one_table_out"])
    print_text(f"leave one table out: without {without} months")
    print_text(_lab_words(found))
    print_text(_late_words(found["late_frontier"]))
    print_text(f"no common scale (the tables' own slopes by random effects): {interval_words(found['no_common_scale'])}")
    forecast = found["forecast"]
    print_text(f"forecast check at {forecast['cutoff']}: {forecast['verdict']}")
    print_text(closing_line(found))


def run(*, n_boot: int, seed: int, fmt: Format) -> None:
    """``densing trend --table all`` in ``fmt``."""
    from densing.trend.pooled_tables import measure_tables

    with working("measuring the three tables' pooled law …", after=5.0):
        found = measure_tables(n_boot=n_boot, seed=seed)
    if fmt is Format.json:
        tables = found.pop("tables")
        print_document(tables, **found)
        return
    if fmt is Format.csv:
        print_frame(_tables_frame(found), fmt)
        return
    print_screen(found)


__all__ = ["ALL_HELP", "ALL_TABLES", "closing_line", "print_screen", "refuse_options", "run"]
