"""A column shown to people (the terminal's tables and the report's): its header in words with its unit
(:func:`header`), its cells by the field's :func:`kind`, each density as :func:`density_reading` reads it.
"""

from __future__ import annotations

import math
import numbers
import re
from datetime import date, datetime

from densing.numbers import MISSING, NumberText, format_count, format_number, time_unit

#: Field name → header, where it is not the field with ``_`` read as a space (a few short words).
HEADERS = {
    # trend
    "row": "benchmark or set",
    "ci_low": "95% CI low",
    "ci_high": "95% CI high",
    "n_models": "models",
    "n_references": "references",
    "each_reference_months": "months per reference",
    "error": "why not measured",
    "n_lower": "lower bounds",
    "n_upper": "upper bounds",
    "share_fit": "fit share",
    "share_score": "score share",
    "share_models": "models share",
    "share_reference": "reference share",
    "fixed_size_months": "fixed-size months",
    "fixed_size_ci_low": "fixed-size 95% low",
    "fixed_size_ci_high": "fixed-size 95% high",
    "fixed_size_status": "fixed-size status",
    "heterogeneity_q": "Q",
    "heterogeneity_p": "Q p-value",
    "heterogeneity_draws": "Q draws",
    "i_squared": "I²",
    "slope_per_day": "slope A (per day)",
    "slope_ci_low": "A 95% low",
    "slope_ci_high": "A 95% high",
    "months_ceiling_1": "months, ceiling 1",
    "score_r2": "score R²",
    "offset_stderr": "offset SE",
    # density
    "params": "N (params)",
    "effective_params": "N̂ (params)",
    "effective_params_ci_low": "N̂ 95% low",
    "effective_params_ci_high": "N̂ 95% high",
    "density": "ρ",
    "density_ci_low": "ρ 95% low",
    "density_ci_high": "ρ 95% high",
    "near_chance": "at chance",
    "reference_fit": "reference",
    "log_density": "ln ρ",
    "release_date": "released",
    "train_tokens": "D (tokens)",
    "d0": "D0 (tokens)",
    "birge_ratio": "Birge ratio",
    # reference candidates
    "held_out_error": "held-out error",
    "held_out_predicted": "held-out predicted",
    "size_span": "size span (×)",
    "token_ratio": "token ratio (×)",
    "top_kappa": "top-decile κ",
    # overlap
    "world_size": "ranks",
    "kernel_count": "kernels",
    "non_compute_us": "non-compute",
    "overlap_us": "overlapped comm",
    "comm_comp_overlap_pct": "comm-comp overlap",
    "idle_pct": "idle",
    "compute_pct": "compute",
    "non_compute_pct": "non-compute",
    "stream_overlaps": "kernels overlapping on their stream",
}

#: Fields holding a fraction that a table shows as a percentage (one representation per quantity).
FRACTIONS = frozenset({"held_out_error", "share_fit", "share_score", "share_models", "share_reference", "i_squared"})
#: Fields holding a count (parameters, tokens, FLOPs), written in words.
COUNTS = frozenset(
    {
        "params",
        "effective_params",
        "effective_params_ci_low",
        "effective_params_ci_high",
        "train_tokens",
        "d0",
        "tokens",
        "flops",
        "max_params",
        "min_params",
    }
)


#: What a name never carries raw into a line of text: the control characters (a line feed and a tab too: in a name they
#: are no layout, and a name that breaks the line forges the next one) and the bidirectional controls, which a
#: terminal acts on (a right-to-left override reverses the rest of the line).
_NAME_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: The escapes a reader knows for the commonest of them; any other is written by its code point.
_NAMED_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match) -> str:
    """The visible escape of one character :data:`_NAME_CONTROLS` matched."""
    character = match.group()
    if character in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[character]
    return f"\\x{ord(character):02x}" if ord(character) < 0x100 else f"\\u{ord(character):04x}"


def name_text(name: object) -> str:
    """A family's or a model's name as it enters a line of text: each character of :data:`_NAME_CONTROLS` written as
    its visible escape (``\\n``, ``\\x1b``, ``\\u202e``), as :func:`densing.cli.guard.visible` writes what a terminal
    acts on, so that the name reads as one name on one line."""
    return _NAME_CONTROLS.sub(_escape, str(name))


def kind(field: str) -> str:
    """``count``, ``fraction`` (shown as a percentage), ``percent``, ``microseconds`` or ``other``."""
    name = str(field)
    if name in COUNTS or name.endswith(("_params", "_tokens", "_flops")):
        return "count"
    if name in FRACTIONS:
        return "fraction"
    if name.endswith("_pct"):
        return "percent"
    if name.endswith("_us"):
        return "microseconds"
    return "other"


def header(field: str, unit: str | None = None) -> str:
    """The header of ``field`` in words, with ``unit`` (or its kind's: ``%``) in brackets."""
    name = str(field)
    if name in HEADERS:
        text = HEADERS[name]
    elif name.startswith("density:"):
        text = "ρ " + name.removeprefix("density:")
    elif name.startswith(("density_ci_low:", "density_ci_high:", "bound:")):
        field, _, benchmark = name.partition(":")
        text = f"ρ {benchmark} " + {"density_ci_low": "95% low", "density_ci_high": "95% high", "bound": "bound"}[field]
    elif name.startswith("score:"):
        text = "score " + name.removeprefix("score:")
    elif name.endswith("_ci") and name.startswith("months"):  # an interval written as text beside its months
        text = header(name[:-3]) + " 95% CI"
    else:  # a duration's unit is written once, by the column (``step_time_us`` → ``step time (ms)``)
        text = (name[:-3] if kind(name) == "microseconds" else name).replace("_", " ")
    unit = unit or ("%" if kind(name) in ("fraction", "percent") else None)
    return f"{text} ({unit})" if unit else text


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool) and not _is_bool(value)


def _is_bool(value) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _missing(value) -> bool:
    if value is None:
        return True
    if _is_number(value):
        try:
            return math.isnan(float(value))
        except (TypeError, ValueError):
            return False
    return type(value).__name__ in ("NAType", "NaTType")


def is_numeric(values) -> bool:
    """Whether every value is a number or missing (and one at least is there): right-aligned, never folded."""
    values = list(values)
    return bool(values) and all(_is_number(v) or _missing(v) or isinstance(v, NumberText) for v in values)


def column(field: str, values) -> tuple[str, list[str]]:
    """(header, cells) of one column, by the field's :func:`kind`: a count in words (``1.42B``), a fraction as a
    percentage, a duration in its column's unit, a date ``YYYY-MM-DD``, a boolean yes/no, missing ``—``, text."""
    values = list(values)
    how, unit, scale = kind(field), None, 1.0
    if how == "microseconds":
        finite = sorted(abs(float(v)) for v in values if _is_number(v) and math.isfinite(float(v)) and float(v) != 0)
        unit, seconds = time_unit(finite[len(finite) // 2] / 1e6 if finite else 1e-3)
        scale = seconds * 1e6
    number = {
        "count": format_count,
        "fraction": lambda v: format_number(100 * float(v)),
        "microseconds": lambda v: format_number(float(v) / scale),
    }.get(how, format_number)

    def one(value) -> str:
        if _missing(value):
            return MISSING
        if _is_bool(value):
            return "yes" if value else "no"
        if isinstance(value, (datetime, date)):
            return value.strftime("%Y-%m-%d")
        return number(value) if _is_number(value) else str(value)

    return header(field, unit), [one(v) for v in values]


#: A density's readings (:func:`density_reading`).
VALUE, UPPER_BOUND, LOWER_BOUND, NO_READING = "value", "upper bound", "lower bound", "none"
#: reading → the sign a bounded cell is shown with.
BOUND_SIGNS = {UPPER_BOUND: "≤ ", LOWER_BOUND: "≥ "}
#: Where a bound's 95% interval reaches, by the bound it makes.
INTERVAL_REACHES = {UPPER_BOUND: "reaches 0", LOWER_BOUND: "reaches ∞"}
#: Why a density that the law resolves is still a bound: its interval's end.
INTERVAL_REASONS = {reading: f"95% interval {reaches}" for reading, reaches in INTERVAL_REACHES.items()}


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


#: Standard errors between a score and its benchmark's chance level within which the score says nothing.
CHANCE_STDERRS = 2.0
#: Why a density near chance is a bound.
NEAR_CHANCE = f"every inverted score within {CHANCE_STDERRS:g} standard errors of chance"


def density_reading(density, bound="", low=math.nan, high=math.nan, near_chance=False) -> tuple[str, float, str]:
    """The one rule for when a density is a bound → (reading, the number it states, why), as docs/measure.md (step 6)
    says it: a censored ``bound`` (:func:`densing.laws.bounds.log_density_bounds`) is that bound ("dropped" or no
    density: ``none``); ``near_chance`` (:func:`densing.laws.density.near_chance`) makes ``high`` an upper bound; an
    interval reaching 0 or ∞ is a bound at its other end (0 to ∞: ``none``); else a ``value``, ρ = ``density``."""
    bound = "" if bound is None or (isinstance(bound, float) and math.isnan(bound)) else str(bound)
    rho, low, high = _number(density), _number(low), _number(high)
    if bound in BOUND_SIGNS:
        return bound, rho, "censored"
    if bound or math.isnan(rho):
        return NO_READING, math.nan, bound or "no density"
    reaches_zero, reaches_infinity = low == 0, high == math.inf
    if near_chance is True and not reaches_infinity:
        return UPPER_BOUND, high, NEAR_CHANCE
    if reaches_zero and reaches_infinity:
        return NO_READING, math.nan, "95% interval spans 0 to ∞"
    if reaches_zero:
        return UPPER_BOUND, high, INTERVAL_REASONS[UPPER_BOUND]
    if reaches_infinity:
        return LOWER_BOUND, low, INTERVAL_REASONS[LOWER_BOUND]
    return VALUE, rho, ""


def density_readings(frame, suffix: str = "") -> list[tuple[str, float, str]] | None:
    """:func:`density_reading` of every row of a frame from its ``density{suffix}``, ``bound``, ``density_ci_*`` and
    ``near_chance`` columns of that suffix (``:mmlu``: a joint inversion's per-benchmark ones); None without density."""
    columns = getattr(frame, "columns", ())
    if f"density{suffix}" not in columns:
        return None
    defaults = {
        "density": math.nan,
        "bound": "",
        "density_ci_low": math.nan,
        "density_ci_high": math.nan,
        "near_chance": False,
    }
    return [
        density_reading(*row)
        for row in zip(
            *(
                frame[f"{name}{suffix}"].tolist() if f"{name}{suffix}" in columns else [default] * len(frame)
                for name, default in defaults.items()
            )
        )
    ]


#: A bound's cause as a table's ``bound`` cell says it (short: the cell sits in the row's first block).
_CAUSES = {INTERVAL_REASONS[UPPER_BOUND]: "interval", INTERVAL_REASONS[LOWER_BOUND]: "interval", NEAR_CHANCE: "chance"}


def reading_words(reading: str, why: str) -> str:
    """The ``bound`` cell a table shows: "upper bound" (censored), "upper bound (interval)", "lower bound (interval)",
    "upper bound (chance)", "" for a value."""
    if reading == VALUE:
        return ""
    if reading == NO_READING:
        return why
    if why in _CAUSES:
        return f"{reading} ({_CAUSES[why]})"
    return reading


def _bounded_cells(frame, suffix: str, readings) -> dict[str, list[str]]:
    """The cells of ``density{suffix}`` (and N̂, and ``bound{suffix}``) as :func:`density_reading` reads each row."""
    out = {}
    rho = frame[f"density{suffix}"].tolist()
    fields = [f"density{suffix}"] + (["effective_params"] if not suffix and "effective_params" in frame.columns else [])
    for name in fields:
        values = frame[name].tolist()
        head, cells = column(name, values)
        for i, (reading, stated, _) in enumerate(readings):
            sign = BOUND_SIGNS.get(reading)
            if reading == NO_READING:
                cells[i] = MISSING
            elif sign:  # N̂ scales with ρ: ρ's bound times N
                value = stated if name != "effective_params" else _number(values[i]) * stated / _number(rho[i])
                cells[i] = sign + column(name, [value])[1][0]
        out[name] = cells
    if f"bound{suffix}" in frame.columns:
        out[f"bound{suffix}"] = [reading_words(r, why) for r, _, why in readings]
    return out


def frame_columns(frame) -> list[tuple[str, list[str]]]:
    """(header, cells) of every column of ``frame`` (:func:`column`), each density and N̂ as :func:`density_reading`
    reads its row (a bound as ``≤ x`` / ``≥ x``) and the ``bound`` column saying why."""
    replaced, names = {}, [str(c) for c in frame.columns]
    # "" for density, ":mmlu" for each density:mmlu (a joint inversion's per-benchmark density)
    for suffix in [""] * ("density" in names) + [c[len("density") :] for c in names if c.startswith("density:")]:
        replaced.update(_bounded_cells(frame, suffix, density_readings(frame, suffix)))
    return [
        (head, replaced.get(str(name), cells))
        for name in frame.columns
        for head, cells in [column(name, frame[name].tolist())]
    ]
