"""``densing measure``'s fourth and fifth steps (docs/measure.md): each model's density under the headline's
inversion, read by the one rule for bounds (:func:`densing.display.density_reading`), placed against the frontier
line ln ρmax = A·t + B (Xiao et al. 2024, eq. 5) at its date, with the band of the slope's 95% interval there.
A placed model holds values and codes only; :mod:`densing.present.placed` says them (its ``words`` and
``frontier_note`` columns, :func:`~densing.present.placed.placed_frame`).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from densing.constants import DAYS_PER_MONTH
from densing.display import CHANCE_STDERRS, LOWER_BOUND, NO_READING, UPPER_BOUND, VALUE, density_reading
from densing.errors import InputError
from densing.laws.region import member_log_sizes

#: The verdicts against the frontier line, and against the band of its slope interval at a date (``within`` it).
ABOVE, BELOW, UNDETERMINED, WITHIN = "above", "below", "undetermined", "within"
#: Where a placed model's date lies outside the dates of the models the frontier line is fitted on.
AFTER, BEFORE = "after", "before"
#: The frontier columns of a date within the line's dates (or of a line that keeps none).
WITHIN_SPAN = {"frontier_outside": "", "frontier_months_outside": math.nan}
#: The values :func:`densing.present.placed.placed_frame` shows as the ``frontier_note`` column, in their place.
SPAN_VALUES = tuple(WITHIN_SPAN)
#: The values it shows as the ``words`` column (with the reading, the verdicts and the dates), in their place:
#: whether a value's 95% interval includes the line, the scores near chance (:func:`_chance_scores`) and why a model is
#: not inverted ("" where it is) with the reason's detail (a window's edge; None for most reasons and where inverted).
VERDICT_VALUES = ("interval_includes_line", "chance_scores", "chance_items", "not_inverted", "not_inverted_detail")
#: Why a model of the scores is not inverted where the headline's targets give no reason: it has no score on any of
#: the inversion's benchmarks (``not_inverted``; "" for a model inverted, else the reason the targets give, a
#: :class:`densing.states.LeftOut` code; in words, :func:`densing.present.placed.placed_words`).
NO_SCORE = "no score"


class DateSource(enum.Enum):
    """Where a placed model's release date comes from; its value is the ``release_date_source`` column's code."""

    SCORES_FILE = "scores file"
    GIVEN = "given"  # --release-date
    MODELS_FILE = "models file"
    TODAY = "today (no release_date in the models file)"  # no date anywhere: the day it is placed


def _chance_scores(scores: pd.DataFrame, benchmarks: Sequence[str]) -> dict[str, dict]:
    """Per model, its inverted scores within :data:`CHANCE_STDERRS` standard errors of chance, as ``chance_scores``:
    (benchmark, score, standard error, chance) each; and ``chance_items``: where every one is (the density is then a
    bound), (benchmark, items now, items needed) of the benchmark that needs the fewest items to leave chance
    (:func:`_items_to_clear_chance`), else None. :func:`densing.present.placed.chance_words` says them."""
    from densing.data.benchmarks import CHANCE_LEVELS

    near: dict[str, list[tuple[str, float, float, float]]] = {}
    needs: dict[str, list[tuple[float, str, float]]] = {}
    inverted = scores[scores["benchmark"].isin(benchmarks)]
    for row in inverted.itertuples():
        chance = CHANCE_LEVELS.get(str(row.benchmark))
        if chance is not None and row.value - chance < CHANCE_STDERRS * row.stderr:
            near.setdefault(str(row.model), []).append(
                (str(row.benchmark), float(row.value), float(row.stderr), float(chance))
            )
            needs.setdefault(str(row.model), []).append(_items_to_clear_chance(row, chance))
    counts = inverted["model"].astype(str).value_counts()
    found = {model: {"chance_scores": tuple(each), "chance_items": None} for model, each in near.items()}
    for model, need in needs.items():
        if len(need) == counts[model]:  # every inverted score is at chance: the benchmark that needs the fewest items
            needed, benchmark, items = min(need)
            found[model]["chance_items"] = (benchmark, items, needed)
    return found


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
    line's dates (``frontier_first_date``, ``_last_date``) and how far outside them ``date`` lies, where it does
    (the line is extrapolated there): ``frontier_outside`` :data:`AFTER` the last or :data:`BEFORE` the first ("" within)
    and ``frontier_months_outside`` (days / :data:`~densing.constants.DAYS_PER_MONTH`; NaN within), which
    :func:`densing.present.placed.frontier_note` says."""
    when = pd.to_datetime([date])
    out = {"frontier_density": float(np.exp(line.predict(when)[0]))}
    low, high = line.confidence_band(when) if hasattr(line, "confidence_band") else ([math.nan], [math.nan])
    out.update(frontier_density_ci_low=float(np.exp(low[0])), frontier_density_ci_high=float(np.exp(high[0])))
    first, last = span or (None, None)
    out.update(frontier_first_date=first, frontier_last_date=last, **WITHIN_SPAN)
    day = when[0]
    if span is not None and (day > pd.Timestamp(last) or day < pd.Timestamp(first)):
        after = day > pd.Timestamp(last)
        days = (day - pd.Timestamp(last) if after else pd.Timestamp(first) - day).days
        out.update(frontier_outside=AFTER if after else BEFORE, frontier_months_outside=days / DAYS_PER_MONTH)
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
    the line at the date (:func:`frontier_at`), ``frontier``, the :data:`VERDICT_VALUES`, ``band``
    (:func:`band_position`): values, which :func:`densing.present.placed.placed_frame` says.
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
    chance = _chance_scores(scores, inversion.benchmarks)
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
            given = left.loc[left["model"] == model]  # the targets' reason, a LeftOut code, with its detail
            why, detail = (given["reason"].iloc[0], given["detail"].iloc[0]) if len(given) else (NO_SCORE, None)
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
                    **WITHIN_SPAN,
                    "frontier": UNDETERMINED,
                    "band": UNDETERMINED,
                    "interval_includes_line": False,
                    "chance_scores": (),
                    "chance_items": None,
                    "not_inverted": why,
                    "not_inverted_detail": detail,
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
        record.update(_verdict(record, chance.get(model, {"chance_scores": (), "chance_items": None})))
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


def _verdict(r: dict, chance: dict) -> dict:
    """``reading`` (:func:`densing.display.density_reading`), ``frontier`` (the side of the line), the
    :data:`VERDICT_VALUES` (``chance``: :func:`_chance_scores`' values of the model) and ``band``
    (:func:`band_position`) of one placed model."""
    reading, value, _ = density_reading(
        r["density"], r["bound"], r["density_ci_low"], r["density_ci_high"], r.get("near_chance", False)
    )
    line = r["frontier_density"]
    if reading == VALUE:
        side = ABOVE if value > line else BELOW
    else:
        side = bound_side(reading, value, line, line)
    return {
        "reading": reading,
        "frontier": side,
        "interval_includes_line": bool(
            side != UNDETERMINED and reading == VALUE and r["density_ci_low"] <= line <= r["density_ci_high"]
        ),
        **chance,
        "not_inverted": "",
        "not_inverted_detail": None,
        "band": band_position(
            reading, value, r.get("frontier_density_ci_low", math.nan), r.get("frontier_density_ci_high", math.nan)
        ),
    }
