"""The headline row's bias in planted worlds built like it (a :class:`densing.trend.bias.BiasRow`), in words: one sentence
beside the point on ``densing trend --detail``, in the report and in the README."""

from __future__ import annotations

import math

from densing.numbers import format_months, format_number, signed


def interval_words(low: float, high: float) -> str:
    """A doubling time's 95% interval as a clause: "[low–high]", or "at least low" where the upper end is open."""
    if math.isfinite(high):
        return f"[{format_months(low)}–{format_months(high)}] at 95%"
    return f"at least {format_months(low)} at 95%" if math.isfinite(low) else "no end determined at 95%"


def bias_sentence(row) -> str:
    """One sentence: the point's bias in worlds planted from the row (mean ± its Monte Carlo error, the median), the
    interval's coverage, the bias-corrected doubling time with its interval where |bias| > 5% (else no correction); where
    the world with the frontier family's place drawn was run too, the corrected figure is the range the two give."""
    way = "too steep" if row.bias > 0 else "too shallow"
    said = (
        f"Bias in {row.replicates} worlds planted from this row ({row.frontier} at the top, as in the data; "
        f"studies/headline_bias.py): the point is {format_number(100 * abs(row.bias))}% ± "
        f"{format_number(100 * row.bias_se)} {way} (median {signed(100 * row.median_bias)}%), "
        f"its interval covers the planted slope in {format_number(row.coverage)}"
    )
    if not row.corrected:
        return f"{said}; within {format_number(100 * row.threshold)}%, no correction."
    both = row.corrected_range()
    if both is not None:  # the two worlds' corrections: the corrected figure is a range
        (point_low, point_high), (low_low, low_high), (high_low, high_high) = both
        drawn = (
            f"with {row.frontier}'s place at the top drawn like every family's, "
            f"{format_number(100 * abs(row.bias_drawn))}% ± {format_number(100 * row.bias_drawn_se)} "
            f"{'too steep' if row.bias_drawn > 0 else 'too shallow'}"
        )
        high = "" if not math.isfinite(high_high) else f", at most {format_months(high_low)}–{format_months(high_high)}"
        return (
            f"{said}; {drawn}; bias-corrected by the two worlds, {format_months(point_low)}–"
            f"{format_months(point_high)} months, at least {format_months(low_low)}–{format_months(low_high)} at "
            f"95%{high} (moved by each world's factor, widened by its bias's Monte Carlo error)."
        )
    return (
        f"{said}; bias-corrected {format_months(row.corrected_months)} months, "
        f"{interval_words(row.corrected_months_low, row.corrected_months_high)} (moved by the same factor, widened "
        f"by the bias's Monte Carlo error; covers in {format_number(row.corrected_coverage)})."
    )


def bias_words(found) -> str | None:
    """The sentence of :func:`densing.trend.bias.looked_up`'s answer: a row's (:func:`bias_sentence`), the record's
    trouble in one line (an error: missing, damaged or measured at another point), or None (no row)."""
    if found is None:
        return None
    return f"bias in planted worlds not shown: {found}" if isinstance(found, Exception) else bias_sentence(found)
