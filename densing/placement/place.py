"""``densing measure``'s fourth and fifth steps (docs/measure.md): each model's density under the headline's
inversion, read by the one rule for bounds (:func:`densing.display.density_reading`), placed against the frontier
line ln ρmax = A·t + B (Xiao et al. 2024, eq. 5) at its date, with the band of the slope's 95% interval there.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from densing.constants import DAYS_PER_MONTH
from densing.display import (
    CHANCE_STDERRS,
    INTERVAL_REACHES,
    LOWER_BOUND,
    NEAR_CHANCE,
    NO_READING,
    UPPER_BOUND,
    VALUE,
    density_reading,
)
from densing.errors import InputError
from densing.laws.region import member_log_sizes
from densing.numbers import format_count, format_number as _g

#: The verdicts against the frontier line, and against the band of its slope interval at a date (``within`` it).
ABOVE, BELOW, UNDETERMINED, WITHIN = "above", "below", "undetermined", "within"


class DateSource(enum.Enum):
    """Where a placed model's release date comes from; its value is the ``release_date_source`` column's code."""

    SCORES_FILE = "scores file"
    GIVEN = "given"  # --release-date
    MODELS_FILE = "models file"
    TODAY = "today (no release_date in the models file)"  # no date anywhere: the day it is placed


def _chance_note(scores: pd.DataFrame, benchmarks: Sequence[str]) -> dict[str, str]:
    """Per model, the inverted scores within :data:`CHANCE_STDERRS` standard errors of chance, in words; where every
    one is (the density is then a bound), how many items would make it a number (:func:`_items_to_clear_chance`)."""
    from densing.data.benchmarks import CHANCE_LEVELS

    notes: dict[str, list[str]] = {}
    needs: dict[str, list[tuple[float, str, float]]] = {}
    inverted = scores[scores["benchmark"].isin(benchmarks)]
    for row in inverted.itertuples():
        chance = CHANCE_LEVELS.get(str(row.benchmark))
        if chance is not None and row.value - chance < CHANCE_STDERRS * row.stderr:
            notes.setdefault(str(row.model), []).append(
                f"{row.benchmark} {_g(row.value)} is within {CHANCE_STDERRS:g} standard errors ({_g(row.stderr)}) of "
                f"chance ({chance:g})"
            )
            needs.setdefault(str(row.model), []).append(_items_to_clear_chance(row, chance))
    counts = inverted["model"].astype(str).value_counts()
    for model, need in needs.items():
        if len(need) != counts[model]:
            continue  # else every inverted score is at chance: the benchmark that needs the fewest items to leave it
        needed, benchmark, items = min(need)
        clear = math.isfinite(needed) and math.isfinite(items) and items > 0
        notes[model].append(
            f"too few items for a number: {benchmark}'s standard error is that of about {items:,.0f} "
            f"items, and about {math.ceil(needed):,} would take its score {CHANCE_STDERRS:g} standard "
            "errors clear of chance"
            if clear
            else "more items cannot make it a number: no score is above chance"
        )
    return {m: "; ".join(v) for m, v in notes.items()}


def _items_to_clear_chance(row, chance: float) -> tuple[float, str, float]:
    """(items needed, benchmark, items now) for ``row``'s score to stand :data:`CHANCE_STDERRS` standard errors above
    chance, its standard error scaling as 1/√n: n' = n·(k·σ / (S − chance))². n is the row's item count, else the
    count a binomial standard error σ = √(S(1 − S)/n) implies; needed ∞ where the score is at or below chance."""
    value, stderr = float(row.value), float(row.stderr)
    items = float(getattr(row, "items", math.nan))
    if not math.isfinite(items) and stderr > 0:
        items = value * (1 - value) / stderr**2
    margin = value - chance
    needed = items * (CHANCE_STDERRS * stderr / margin) ** 2 if margin > 0 and stderr > 0 else math.inf
    return needed, str(row.benchmark), items


def line_dates(measurement, rule: str) -> tuple[str, str] | None:
    """The first and last release date (``YYYY-MM-DD``) of the models ``rule``'s line is fitted on, from a
    :class:`~densing.trend.measurement.TrendMeasurement`; None where it keeps no such models."""
    line = measurement.rules.get(rule)
    models = getattr(measurement, "models", None)
    if line is None or models is None or not len(models):
        return None
    dates = pd.to_datetime(models.loc[models["model"].isin(line.models), "release_date"])
    return None if dates.empty else (dates.min().strftime("%Y-%m-%d"), dates.max().strftime("%Y-%m-%d"))


def frontier_at(line, date: str, span: tuple[str, str] | None) -> dict:
    """ρmax of ``line`` at ``date`` (``frontier_density``), its slope's 95% band there (``frontier_density_ci_*``), the
    line's dates (``frontier_first_date``, ``_last_date``) and ``frontier_note``: how far outside them ``date`` lies."""
    when = pd.to_datetime([date])
    out = {"frontier_density": float(np.exp(line.predict(when)[0]))}
    low, high = line.confidence_band(when) if hasattr(line, "confidence_band") else ([math.nan], [math.nan])
    out.update(frontier_density_ci_low=float(np.exp(low[0])), frontier_density_ci_high=float(np.exp(high[0])))
    first, last = span or (None, None)
    out.update(frontier_first_date=first, frontier_last_date=last, frontier_note="")
    day = when[0]
    if span is not None and (day > pd.Timestamp(last) or day < pd.Timestamp(first)):
        after = day > pd.Timestamp(last)
        days = (day - pd.Timestamp(last) if after else pd.Timestamp(first) - day).days
        where = f"after the line's last model ({last})" if after else f"before the line's first model ({first})"
        out["frontier_note"] = f"{date} is {_g(days / DAYS_PER_MONTH)} months {where}: the line is extrapolated"
    return out


def place_models(
    scores: pd.DataFrame,
    inversion,
    line,
    *,
    seed: int = 0,
    span: tuple[str, str] | None = None,
    population: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per model of ``scores`` (:func:`densing.placement.measure.public_scores`' table) under ``inversion``,
    against the frontier ``line`` (anything with ``predict(dates)`` → ln ρmax and ``epoch``); ``span``: the line's
    dates (:func:`line_dates`). Columns: the model, its date, ``score:<b>``, ``items:<b>``, ``inverted``, ``missing``,
    ``reference``, ρ and N̂ = ρ·N with their 95% intervals, ``reading`` (:func:`densing.display.density_reading`),
    the line at the date (:func:`frontier_at`), ``frontier``, ``words``, ``band`` (:func:`band_position`).
    ``population``: score rows of the models the headline inverts, whose pooled s² (the joint inversion's
    between-benchmark variance, :mod:`densing.laws.joint`) every model is inverted with (:func:`headline_skill`): the
    headline's, not one model's, nor moved by the other rows of ``scores`` (without it: pooled over ``scores``' models).
    Each model's interval comes from its own draws, seeded by ``seed`` and its own numbers
    (:func:`densing.laws.density.model_seed`; not its name): a model gets the same interval alone or beside others.
    """
    from densing.laws.density import density_table
    from densing.trend.targets import trend_targets

    if not any(b in set(scores["benchmark"]) for b in inversion.benchmarks):
        raise InputError(f"scores: none of the inversion's benchmarks ({', '.join(inversion.benchmarks)}) has a score")
    epoch = {"epoch": line.epoch} if getattr(line, "epoch", None) else {}
    if population is not None and len(population):
        inversion = headline_skill(inversion, trend_targets(population, inversion, since=None, **epoch)[0])
    models, left = trend_targets(scores, inversion, since=None, **epoch)
    table = (
        density_table(models, inversion, seed=seed, own_draws=True) if len(models) else pd.DataFrame(columns=["model"])
    )
    chance = _chance_note(scores, inversion.benchmarks)
    first = scores.drop_duplicates("model").set_index("model")
    smallest = math.exp(member_log_sizes(inversion)[0])  # the reference's smallest member (the identified region)
    rows = []
    for model in first.index:
        meta, own = first.loc[model], scores[scores["model"] == model]
        record = {
            "model": model,
            "params": float(meta["params"]),
            "release_date": str(meta["release_date"])[:10],
            "release_date_source": meta.get("release_date_source", ""),
        }
        for r in own.itertuples():
            record[f"score:{r.benchmark}"] = r.value
            record[f"items:{r.benchmark}"] = int(r.items) if "items" in own.columns else math.nan
        record.update(
            inverted=",".join(b for b in inversion.benchmarks if b in set(own["benchmark"])),
            missing=",".join(b for b in inversion.benchmarks if b not in set(own["benchmark"])),
            reference=inversion.name,
        )
        found = table[table["model"] == model]
        if found.empty:
            reason = left.loc[left["model"] == model, "reason"]
            why = reason.iloc[0] if len(reason) else "no score on " + ", ".join(inversion.benchmarks)
            rows.append(
                {
                    **record,
                    "density": math.nan,
                    "bound": "",
                    "density_ci_low": math.nan,
                    "density_ci_high": math.nan,
                    "near_chance": False,
                    "reading": NO_READING,
                    "frontier_density": math.nan,
                    "frontier_density_ci_low": math.nan,
                    "frontier_density_ci_high": math.nan,
                    "frontier_first_date": None,
                    "frontier_last_date": None,
                    "frontier_note": "",
                    "frontier": UNDETERMINED,
                    "band": UNDETERMINED,
                    "words": f"not inverted: {why}",
                }
            )
            continue
        d = found.iloc[0]
        record.update(
            density=float(d["density"]),
            bound=str(d["bound"]),
            density_ci_low=float(d["density_ci_low"]),
            density_ci_high=float(d["density_ci_high"]),
            near_chance=bool(d["near_chance"]),
            below_members=bool(d.get("below_members", False)),
            smallest_member=smallest,
        )
        record.update(
            {
                f"effective_params{end}": record[f"density{end}"] * record["params"]
                for end in ("", "_ci_low", "_ci_high")
            }
        )  # N̂ = ρ·N (Xiao et al. 2024, eq. 1)
        record.update(frontier_at(line, record["release_date"], span))
        record.update(_verdict(record, chance.get(model)))
        if record["missing"]:
            record["words"] += (
                f"; no score on {record['missing'].replace(',', ', ')}, which the reference inverts with "
                f"{record['inverted'].replace(',', ', ')}"
            )
        rows.append(record)
    return pd.DataFrame(rows)


def headline_skill(inversion, targets: pd.DataFrame):
    """``inversion`` with the joint inversion's s² held at the value pooled over ``targets`` (the headline's inverted
    models, :func:`densing.trend.targets.trend_targets`' rows): s² = max(0, mean over models of [Var_b(x_b) −
    mean_b (σ_b / S_b'(x_b))²]) (DerSimonian & Laird 1986; :mod:`densing.laws.joint`). A per-benchmark inversion, or a
    joint one without a pooled s², is returned as it is."""
    from densing.laws.inversion import Joint, arrays

    if not isinstance(inversion, Joint) or inversion.skill != "pooled" or not len(targets):
        return inversion
    return replace(inversion, skill2=inversion.solve_point(*arrays(targets, inversion.benchmarks)).skill2)


def band_position(reading: str, value: float, band_low: float, band_high: float) -> str:
    """``above``, ``within`` or ``below`` the band [``band_low``, ``band_high``] of the line's slope interval at the
    model's date, or ``undetermined``: a value by where it lies; an upper bound ρ ≤ x below when x < the band's low end,
    a lower bound ρ ≥ x above when x > its high end; else (and without a reading or a band) undetermined."""
    if not (math.isfinite(band_low) and math.isfinite(band_high)) or not math.isfinite(value):
        return UNDETERMINED
    if reading == VALUE:
        if value > band_high:
            return ABOVE
        if value < band_low:
            return BELOW
        return WITHIN
    return bound_side(reading, value, band_low, band_high)


def bound_side(reading: str, value: float, low: float, high: float) -> str:
    """Where a bound lies against a line or band [``low``, ``high``]: a lower bound above it, an upper bound below
    it, else undetermined (a bound on the other side says nothing)."""
    if reading == LOWER_BOUND and value > high:
        return ABOVE
    if reading == UPPER_BOUND and value < low:
        return BELOW
    return UNDETERMINED


def _said(reading: str, stated: float, why: str, r: dict, chance_words: str | None) -> str:
    """The density in words, as the rule reads it."""
    sign = "≤" if reading == UPPER_BOUND else "≥"
    if reading == UPPER_BOUND and r.get("below_members"):
        smallest = r.get("smallest_member", math.nan)
        size = f" ({format_count(smallest)} parameters)" if math.isfinite(smallest) else ""
        return (
            f"ρ ≤ {_g(stated)}: its scores lie below the reference's smallest member{size}, where the law "
            "identifies no size, so the density is a bound, not a number"
        )
    if why == NEAR_CHANCE:
        return (
            f"ρ ≤ {_g(stated)} (the 95% interval's upper end; {chance_words or why}, so the density is a bound, "
            "not a number)"
        )
    if why == "censored":
        side = "at or below" if reading == UPPER_BOUND else "beyond"
        return f"ρ {sign} {_g(stated)} (a {reading}: the score is {side} what the reference can resolve)"
    if reading in (UPPER_BOUND, LOWER_BOUND):
        end = "upper" if reading == UPPER_BOUND else "lower"
        reaches = INTERVAL_REACHES[reading]
        return f"ρ {sign} {_g(stated)} (the 95% interval's {end} end; its {reaches}, so the density is a bound, not a number)"
    if reading == NO_READING:
        return f"ρ undetermined ({why})"
    return f"ρ = {_g(r['density'])} (95% CI {_g(r['density_ci_low'])}–{_g(r['density_ci_high'])})"


def _verdict(r: dict, near_chance: str | None) -> dict:
    """``reading``, ``frontier``, ``words`` and ``band`` (:func:`band_position`) of one placed model, the reading by
    :func:`densing.display.density_reading` (a score near chance noted in the words)."""
    reading, value, why = density_reading(
        r["density"], r["bound"], r["density_ci_low"], r["density_ci_high"], r.get("near_chance", False)
    )
    line = r["frontier_density"]
    if reading == VALUE:
        side = ABOVE if value > line else BELOW
    else:
        side = bound_side(reading, value, line, line)
    date = f"{r['release_date']}" + (
        " (today: no release_date given)" if r.get("release_date_source") == DateSource.TODAY.value else ""
    )
    band = (
        f" (its slope's 95% band {_g(r['frontier_density_ci_low'])}–{_g(r['frontier_density_ci_high'])})"
        if math.isfinite(r.get("frontier_density_ci_low", math.nan))
        else ""
    )
    against = f"the frontier line's ρmax {_g(line)}{band} at {date}"
    if side == UNDETERMINED:
        verdict = f"undetermined against {against} (" + (
            "no reading)" if reading == NO_READING else "a bound on the line's far side)"
        )
    elif reading == VALUE and r["density_ci_low"] <= line <= r["density_ci_high"]:
        verdict = f"{side} {against}, though the 95% interval includes the line"
    else:
        verdict = f"{side} {against}"
    span = (
        f"; the line spans {r['frontier_first_date']} to {r['frontier_last_date']}"
        + (f" ({r['frontier_note']})" if r.get("frontier_note") else "")
        if r.get("frontier_first_date")
        else ""
    )
    chance = f"; {near_chance}" if near_chance and why != NEAR_CHANCE else ""
    said = _said(reading, value, why, r, near_chance)
    placed = band_position(
        reading, value, r.get("frontier_density_ci_low", math.nan), r.get("frontier_density_ci_high", math.nan)
    )
    return {
        "reading": reading,
        "frontier": side,
        "words": f"{said}; {verdict}{span}{chance}" + (f"; {placed} the band" if placed != UNDETERMINED else ""),
        "band": placed,
    }
