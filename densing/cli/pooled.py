"""``densing trend --table all``: one Densing Law from the three tables (:mod:`densing.trend.pooled_tables`), on one
screen (80 × 40) ending with its doubling time, or as JSON (``--format json``) or CSV (the tables' rows); the screen
and the JSON give beside it the figure corrected for its bias in planted worlds (:mod:`densing.trend.pooled_bias`)."""

from __future__ import annotations

from densing.cli.layout import closing
from densing.cli.output import Format, print_document, print_frame, print_text, working
from densing.errors import InputError
from densing.present.pooled import correction_clauses, figure_words, headline_words, side_lines

#: The ``--table`` name of the pooled law.
ALL_TABLES = "all"
#: The words of ``--table all`` in ``--help``.
ALL_HELP = (
    "'all': the three tables' headline rows (public, openllm_v2, swallow) on the public table's scale by "
    "Deming regression, one pooled law (results/three_tables/DECLARATION.md)"
)


def refuse_options(given: dict[str, bool]) -> None:
    """An InputError naming the first option of ``given`` (option → whether it was given) that --table all does not
    take: its rows are the declared ones."""
    for option, was_given in given.items():
        if was_given:
            raise InputError(
                f"{option}: --table all measures the three tables' declared headline rows; {option} "
                f"applies to one table"
            )


def _tables_frame(found: dict):
    """One row per table (a DataFrame): its own doubling time on the common scale, its points, a_T and s_T with s_T's
    interval."""
    import pandas as pd

    scales = {s["table"]: s for s in found["scales"]}
    rows = []
    for table in found["tables"]:
        scale = scales[table["table"]]
        rows.append(
            {
                "table": table["table"],
                "months": table["doubling_time_months"],
                "ci_low": table["ci_low"],
                "ci_high": table["ci_high"],
                "points": table["n_points"],
                "a": scale["a"],
                "s": scale["s"],
                "s_low": scale["s_ci"][0],
                "s_high": scale["s_ci"][1],
            }
        )
    return pd.DataFrame(rows)


def closing_line(found: dict, shown: dict) -> str:
    """The last line: the figure shown (``shown``, :func:`densing.trend.pooled_bias.headline`), its interval, state
    and correction."""
    if found["common_slope"]["rejected"]:
        return closing(["Doubling time: not measured, the tables disagree on one slope", "each table's own is above"])
    return closing([f"Doubling time: {figure_words(shown)}", "three tables pooled"])


def print_screen(found: dict, correction) -> None:
    """The pooled law on one screen: the answer (bias-corrected where the record applies), the estimator's own figure
    and the correction in one line (``correction``: :func:`densing.trend.pooled_bias.looked_up`'s answer), the
    tables' own slopes and scales, the test, the sides, the line."""
    from densing.trend.pooled_bias import headline

    shown = headline(found["pooled"], correction)
    print_text(headline_words(found, shown))
    print_text("; ".join(correction_clauses(correction, found["pooled"])) + ".")
    print_frame(
        _tables_frame(found),
        Format.table,
        keys=1,
        title="each table's own doubling time on the common scale (months, 95% CI) and its scale "
        "y_public = a + s·y_table (s with its 95% CI)",
    )
    for line in side_lines(found):
        print_text(line)
    print_text(closing_line(found, shown))


def run(*, n_boot: int, seed: int, fmt: Format) -> None:
    """``densing trend --table all`` in ``fmt``."""
    from densing.trend.pooled_bias import correction_field, headline, looked_up
    from densing.trend.pooled_tables import measure_tables

    with working("measuring the three tables' pooled law …", after=5.0):
        found = measure_tables(n_boot=n_boot, seed=seed)
    if fmt is Format.csv:
        print_frame(_tables_frame(found), fmt)
        return
    correction = looked_up(found["pooled"])
    if fmt is Format.json:
        from densing.present.records import record

        tables = found.pop("tables")
        print_document(
            tables,
            headline=headline(found["pooled"], correction),
            **{**found, "forecast": record(found["forecast"])},  # the cutoff's outcome and verdict in words
            bias_correction=correction_field(correction),
        )
        return
    print_screen(found, correction)


__all__ = ["ALL_HELP", "ALL_TABLES", "closing_line", "print_screen", "refuse_options", "run"]
