"""One Densing Law from three harnesses (``densing trend --table all``), as results/three_tables/DECLARATION.md fixes it.

1. **The rows**: each table's headline row as points (:mod:`densing.trend.table_rows`): ln ρ on its lead reference's
   scale, exact or a bound under the identified-region rule, each with its own noise. A model several tables hold
   enters once per table.
2. **One scale**: each table mapped onto the public table's, y_public = a_T + s_T·y_T, by Deming regression on the
   models exact in both (:mod:`densing.trend.table_scale`); s_T > 0, so a bound keeps its direction.
3. **The pooled law**: the censored 0.9 regression quantile ln ρmax = A·t + B (Powell 1986; Xiao et al. 2024, eq. 5)
   through every table's points, bounds as bounds (:func:`densing.trend.rules.frontier_lines_weighted`). Each draw
   resamples labs, then families within them, over the union of the tables (a lab and a family are one cluster across
   tables: a drawn family brings its points in every table; :func:`densing.trend.pooling._family_weights`), redraws
   every point's noise, and refits every a_T and s_T on the drawn shared models. The draws start at ``n_boot`` and
   double as the package's state rule asks (:func:`densing.trend.random_effects.draws_needed`).
4. **One slope across tables**: each table's own frontier slope on the common scale in the same draws, tested by
   Cochran's Q on 2 df with the draws' covariance, read as Hotelling's T² (:mod:`densing.trend.slope_test`) at 0.05: rejected, the pooled law is not measured ("the tables disagree").
5. **Beside it**: leave one table out, leave one lab out (the common table's lead reference's lab first), the late
   frontier's labs, each a_T and s_T with its interval, the sensitivity with no common scale (the tables' own slopes
   pooled by random effects, Paule–Mandel τ²), and the forecast check at :data:`FORECAST_CUTOFF`
   (:func:`densing.trend.forecast.forecast_at`; its early line resamples labs and families with the mapping fixed at
   the full data's point).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from densing.constants import DEFAULT_EPOCH, DEFAULT_N_BOOT_SIDE, DRAWS_CAP, PRECISION_DRAWS_CAP, PRECISION_GROWTH
from densing.laws.bounds import EXACT
from densing.states import State
from densing.trend import rules
from densing.trend.forecast import EarlyLine, ForecastCutoff, forecast_at
from densing.trend.pooling import DRAW_CELLS, _family_weights, lab_clusters
from densing.trend.random_effects import determined_ends, draws_needed, end_range, months_interval, pool_slopes
from densing.trend.slope_test import common_slope_test
from densing.trend.table_rows import TableRow, table_row
from densing.trend.table_scale import ScalePlan, check_positive, mapped, scale_plan
from densing.trend.targets import dates_as_days, family_clusters, parse_epoch

#: The declaration's three tables, the common scale's first.
TABLES = ("public", "openllm_v2", "swallow")
#: The late frontier's start and the forecast check's cutoff (the declaration's dates).
LATE_AFTER = "2024-07-31"
FORECAST_CUTOFF = "2024-09-30"
#: The frontier rule and its quantile.
RULE, QUANTILE = "quantile", 0.9
LEVEL = 0.95


@dataclass(frozen=True)
class Points:
    """The tables' points pooled: every array (n,) in the rows' order; ``clusters`` each point's family across
    tables (its family's name, else its model's), ``lab_clusters`` its lab's, both numbered by first appearance."""

    tables: np.ndarray
    models: np.ndarray
    labs: np.ndarray
    t: np.ndarray
    y: np.ndarray
    kind: np.ndarray
    noise: np.ndarray
    clusters: np.ndarray
    lab_clusters: np.ndarray

    def __len__(self) -> int:
        return len(self.t)

    def subset(self, keep: np.ndarray) -> Points:
        """The points ``keep`` (a boolean mask), their clusters numbered again."""
        clusters = family_clusters(self.clusters[keep])
        labs = self.labs[keep]
        return Points(
            self.tables[keep],
            self.models[keep],
            labs,
            self.t[keep],
            self.y[keep],
            self.kind[keep],
            self.noise[keep],
            clusters,
            lab_clusters(labs, clusters),
        )


def pooled_frame(rows: list[TableRow]) -> pd.DataFrame:
    """The rows' points (:attr:`TableRow.points` with a ``table`` column) that have a density, exact or a bound, in
    the rows' order: the points :func:`pooled_points` reads."""
    frame = pd.concat([row.points.assign(table=row.table) for row in rows], ignore_index=True)
    return frame[np.isfinite(frame["y"].to_numpy(float)) & np.isfinite(frame["kind"].to_numpy(float))]


def pooled_points(rows: list[TableRow]) -> Points:
    """The rows' points with a date and a density (exact or a bound), in the rows' order (:class:`Points`)."""
    frame = pooled_frame(rows)
    models = frame["model"].astype(str).to_numpy()
    families = frame["family"].to_numpy(object)
    keys = np.array([f"model {m}" if pd.isna(f) or str(f) == "" else str(f) for f, m in zip(families, models)], object)
    clusters = family_clusters(keys)
    labs = frame["lab"].astype(str).to_numpy(object)
    noise = np.nan_to_num(frame["noise"].to_numpy(float))
    return Points(
        frame["table"].to_numpy(object),
        models,
        labs,
        frame["t"].to_numpy(float),
        frame["y"].to_numpy(float),
        frame["kind"].to_numpy(float),
        noise,
        clusters,
        lab_clusters(labs, clusters),
    )


def frontier_slopes(
    t: np.ndarray, y: np.ndarray, kind: np.ndarray, weight: np.ndarray, models: np.ndarray, start=None
) -> np.ndarray:
    """The censored 0.9-quantile line's slope A (per day) of every row of ``y`` (K, n), each point counted ``weight``
    (K, n) times (:func:`densing.trend.rules.frontier_lines_weighted`); NaN where a row has no line."""
    y = np.asarray(y, float)
    kinds = np.ascontiguousarray(np.broadcast_to(kind, y.shape))
    finite = np.isfinite(y)
    return rules.frontier_lines_weighted(
        RULE, t, np.where(finite, y, np.nan), kinds, np.where(finite, weight, 0.0), models, QUANTILE, start
    )[:, 0]


@dataclass(frozen=True)
class PooledDraws:
    """The draws of the pooled law (module docstring, step 3): ``slopes`` the pooled slope (K,), ``by_table`` and
    ``without_table`` each table's own and the others' (T, K) on the common scale, ``own_scale`` each table's own slope
    on its own scale (T, K), ``scales`` each mapped table's (a_T, s_T) draws."""

    slopes: np.ndarray
    by_table: np.ndarray
    without_table: np.ndarray
    own_scale: np.ndarray
    scales: dict = field(repr=False)


def _one_batch(
    points: Points, plan: ScalePlan, names: tuple[str, ...], count: int, rng: np.random.Generator, start
) -> PooledDraws:
    """``count`` draws (module docstring, step 3): weights by lab then family, each point's noise, the scales refitted,
    and every line the draws hold solved in one batch."""
    weight = _family_weights(points.clusters, count, rng, points.lab_clusters)
    noisy = points.y + rng.standard_normal((count, len(points))) * points.noise
    scaled, scales = mapped(plan, points.tables, noisy, weight)
    masks = [points.tables == name for name in names]
    tables = len(names)
    lines = 1 + 3 * tables  # the pooled line, each table's, the others', each table's on its own scale
    step = max(1, DRAW_CELLS // (lines * max(len(points), 1)))  # draws solved at once (each row's line is its own)
    slopes = np.concatenate(
        [
            _batch_slopes(
                points, masks, scaled[low : low + step], noisy[low : low + step], weight[low : low + step], start
            )
            for low in range(0, count, step)
        ],
        axis=1,
    )
    return PooledDraws(
        slopes[0], slopes[1 : 1 + tables], slopes[1 + tables : 1 + 2 * tables], slopes[1 + 2 * tables :], scales
    )


def _batch_slopes(
    points: Points, masks: list, scaled: np.ndarray, noisy: np.ndarray, weight: np.ndarray, start
) -> np.ndarray:
    """The slopes of :func:`_one_batch`'s lines in K of its draws, (1 + 3·T, K): the pooled line, each table's and
    the others' on the common scale, each table's on its own scale."""
    problems = [scaled] + [scaled] * len(masks) * 2 + [noisy] * len(masks)
    weights = [weight] + [weight * m for m in masks] + [weight * ~m for m in masks] + [weight * m for m in masks]
    return frontier_slopes(
        points.t, np.concatenate(problems), points.kind, np.concatenate(weights), points.models, start
    ).reshape(len(problems), len(weight))


def _joined(first: PooledDraws, second: PooledDraws) -> PooledDraws:
    """Two sets of draws as one, the first's first."""
    return PooledDraws(
        np.concatenate([first.slopes, second.slopes]),
        np.concatenate([first.by_table, second.by_table], axis=1),
        np.concatenate([first.without_table, second.without_table], axis=1),
        np.concatenate([first.own_scale, second.own_scale], axis=1),
        {
            name: tuple(np.concatenate([a, b]) for a, b in zip(first.scales[name], second.scales[name]))
            for name in first.scales
        },
    )


def pooled_draws(
    points: Points, plan: ScalePlan, names: tuple[str, ...], *, n_boot: int, seed: int, start
) -> PooledDraws:
    """``n_boot`` draws, doubled while an end of the pooled slope's interval is undecided (up to :data:`DRAWS_CAP`)
    or determined but not precise (up to the smaller of :data:`PRECISION_DRAWS_CAP` and 4·``n_boot``), as a judged
    row's are (:func:`densing.trend.random_effects.draws_needed`); the draws after the first ``n_boot`` come from a
    generator seeded (``seed``, draws made), as :func:`densing.trend.pooling.more_draws` grows a row's."""
    draws = _one_batch(points, plan, names, n_boot, np.random.default_rng(seed), start)
    precision_cap = min(PRECISION_DRAWS_CAP, PRECISION_GROWTH * n_boot)
    while True:
        made = len(draws.slopes)
        ends = _ends(draws.slopes)
        more = draws_needed(ends, made, DRAWS_CAP, precision_cap)
        if more <= made:
            return draws
        extra = _one_batch(points, plan, names, more - made, np.random.default_rng([seed, made]), start)
        draws = _joined(draws, extra)


def _ends(slopes: np.ndarray) -> dict:
    """The interval's ends of the slope ``slopes`` draws decide (:func:`densing.trend.random_effects.determined_ends`)."""
    ok = slopes[np.isfinite(slopes)]
    tail = (1 - LEVEL) / 2
    if ok.size < 2:
        return determined_ends(((math.nan, math.nan), (math.nan, math.nan)), math.nan, math.nan)
    low, high = np.quantile(ok, [tail, 1 - tail])
    return determined_ends((end_range(ok, tail), end_range(ok, 1 - tail)), float(low), float(high))


def months(slope: float) -> float:
    """The doubling time ln 2 / A in months (+∞ for A ≤ 0, NaN for no slope)."""
    return rules.doubling_months(slope) if math.isfinite(slope) else math.nan


def estimate(slope: float, draws: np.ndarray) -> dict:
    """A slope (per day) and its draws as a record: the doubling time ln 2 / A in months with the percentile interval
    of A at :data:`LEVEL` carried through ln 2 / A (an interval reaching A ≤ 0 has an infinite upper end), and the
    draws that give no line."""
    ok = draws[np.isfinite(draws)]
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(ok, [tail, 1 - tail]) if ok.size >= 2 else (math.nan, math.nan)
    months_low, months_high = months_interval(float(low), float(high))
    return {
        "doubling_time_months": months(slope),
        "ci_low": months_low,
        "ci_high": months_high,
        "slope_per_day": float(slope),
        "slope_ci_low": float(low),
        "slope_ci_high": float(high),
        "failed_draws": int(draws.size - ok.size),
    }


def state_record(ends: dict, rejected: bool) -> dict:
    """The pooled law's state by the one state rule (:meth:`~densing.states.State.from_ends`): not measured where
    the tables disagree (the common-slope test rejects), else measured with both ends determined, bounded with one,
    not measured with none; and why, as values."""
    state = State.from_ends(ends["low_determined"], ends["high_determined"], references_disagree=rejected)
    if rejected:
        return {"state": state.value, "why": "tables_disagree", "open_ends": []}
    opened = [end for end in ("low", "high") if not ends[f"{end}_determined"]]
    return {"state": state.value, "why": "open_ends" if opened else "", "open_ends": opened}


def _point_line(
    points: Points, plan: ScalePlan, line_keep: np.ndarray | None = None, scale_keep: np.ndarray | None = None
) -> tuple[float, float]:
    """The point line (A, B) through the points ``line_keep`` (all by default), the scales fitted on the shared models
    among ``scale_keep`` (all by default)."""
    every = np.ones(len(points), bool)
    scale_weight = (every if scale_keep is None else scale_keep)[None].astype(float)
    line_weight = (every if line_keep is None else line_keep)[None].astype(float)
    scaled, _ = mapped(plan, points.tables, points.y[None], scale_weight)
    return line_through(points, scaled, line_weight)


def line_through(points: Points, scaled: np.ndarray, weight: np.ndarray) -> tuple[float, float]:
    """The frontier line (A, B) through one row of ``scaled`` (1, n), each point counted ``weight`` (1, n) times."""
    finite = np.isfinite(scaled)
    line = rules.frontier_lines_weighted(
        RULE,
        points.t,
        np.where(finite, scaled, np.nan),
        points.kind[None],
        np.where(finite, weight, 0.0),
        points.models,
        QUANTILE,
    )[0]
    return float(line[0]), float(line[1])


def no_common_scale(points: np.ndarray, draws: np.ndarray, seed: int) -> dict:
    """The sensitivity with no common scale: the tables' own slopes on their own scales pooled by the random-effects
    model (Paule–Mandel τ², :func:`densing.trend.random_effects.pool_slopes`): wᵀA, its draws wᵀA^(k) + τ·‖w‖·ε_k."""
    pooled = pool_slopes(points, draws)
    normals = np.random.default_rng([seed, 1]).standard_normal(draws.shape[1])
    combined = pooled.weights @ draws + math.sqrt(pooled.tau_squared * float(pooled.weights @ pooled.weights)) * normals
    return {
        **estimate(pooled.slope, combined),
        "weights": [float(w) for w in pooled.weights],
        "tau_squared": pooled.tau_squared,
    }


def _scale_records(plan: ScalePlan, found: dict, draws: dict, names: tuple[str, ...]) -> list[dict]:
    """Each table's a_T and s_T (point and percentile interval), the table it is mapped through, the models shared."""
    tail = (1 - LEVEL) / 2
    out = []
    for name in names:
        if name == plan.common:
            out.append(
                {
                    "table": name,
                    "a": 0.0,
                    "a_ci": [0.0, 0.0],
                    "s": 1.0,
                    "s_ci": [1.0, 1.0],
                    "through": "",
                    "n_shared": 0,
                    "common_scale": True,
                }
            )
            continue
        record = {"table": name, "through": plan.through(name), "n_shared": plan.n_shared(name), "common_scale": False}
        for key, point, drawn in (("a", found[name][0][0], draws[name][0]), ("s", found[name][1][0], draws[name][1])):
            ok = drawn[np.isfinite(drawn)]
            record[key] = float(point)
            record[f"{key}_ci"] = (
                [float(v) for v in np.quantile(ok, [tail, 1 - tail])] if ok.size >= 2 else [math.nan] * 2
            )
        out.append(record)
    return out


def leave_one_lab_out(points: Points, plan: ScalePlan, pooled_months: float, first: str) -> list[dict]:
    """The pooled point doubling time without each lab's points (in every table, and in the scales' fits): ``first``
    (the common table's lead reference's lab) first, then the largest move first."""
    found = []
    for lab in dict.fromkeys(points.labs):
        keep = points.labs != lab
        slope, _ = _point_line(points, plan, keep, keep)
        without = months(slope)
        found.append(
            {
                "lab": str(lab),
                "n_points": int((~keep).sum()),
                "doubling_time_months": without,
                "move_months": without - pooled_months,
            }
        )

    def order(item: dict) -> tuple[bool, float]:
        """``first`` ahead, then the largest move (a removal that leaves no rising line moves most)."""
        move = item["move_months"]
        return item["lab"] != first, -(abs(move) if math.isfinite(move) else math.inf)

    return sorted(found, key=order)


def late_frontier(points: Points, scaled: np.ndarray, line: tuple[float, float], epoch: str) -> dict:
    """The models released after :data:`LATE_AFTER` with an exact ln ρ at or above the pooled line: their labs (in
    date order), the count, and the models (table, model)."""
    after = float(dates_as_days([LATE_AFTER], parse_epoch(epoch))[0])
    slope, intercept = line
    on = (points.t > after) & (points.kind == EXACT) & (scaled >= slope * points.t + intercept)
    order = np.flatnonzero(on)[np.argsort(points.t[on], kind="stable")]
    labs = list(dict.fromkeys(str(points.labs[i]) for i in order))
    return {
        "after": LATE_AFTER,
        "labs": labs,
        "n_labs": len(labs),
        "models": [{"table": str(points.tables[i]), "model": str(points.models[i])} for i in order],
    }


def early_line(early: pd.DataFrame, *, n_boot: int, seed: int) -> EarlyLine:
    """The forecast check's early line (:func:`densing.trend.forecast.forecast_at`'s ``fit``): the pooled frontier
    through ``early``'s points on the common scale (``y``, ``kind``, ``noise``, ``lab``, ``cluster``), its slope's
    interval from ``n_boot`` draws of labs, families within them and each point's noise (the scales fixed)."""
    clusters = family_clusters(early["cluster"].to_numpy(object))
    labs = early["lab"].to_numpy(object)
    t, y, kind = (early[c].to_numpy(float) for c in ("t", "y", "kind"))
    models = early["model"].astype(str).to_numpy()
    point = rules.frontier_lines_weighted(RULE, t, y[None], kind[None], np.ones((1, len(t))), models, QUANTILE)[0]
    rng = np.random.default_rng(seed)
    weight = _family_weights(clusters, n_boot, rng, lab_clusters(labs, clusters))
    noisy = y + rng.standard_normal((n_boot, len(t))) * early["noise"].to_numpy(float)
    drawn = frontier_slopes(t, noisy, kind, weight, models, (float(point[0]), float(point[1])))
    found = estimate(float(point[0]), drawn)
    return EarlyLine(
        float(point[0]), found["slope_ci_low"], found["slope_ci_high"], float(point[1]), len(early), float(t.mean())
    )


def forecast_record(points: Points, plan: ScalePlan, epoch: str, seed: int) -> ForecastCutoff:
    """The forecast check of the pooled line at :data:`FORECAST_CUTOFF` over all the tables' points on the common
    scale, by the package's rule (:func:`densing.trend.forecast.forecast_at`): the cutoff's values (its outcome and
    verdict in words: :func:`densing.present.records.record`)."""
    scaled, found = mapped(plan, points.tables, points.y[None], np.ones((1, len(points))))
    slope_of = np.ones(len(points))
    for name, (_, s) in found.items():
        slope_of[points.tables == name] = s[0]
    frame = pd.DataFrame(
        {
            "t": points.t,
            "y": scaled[0],
            "kind": points.kind,
            "model": points.models,
            "noise": points.noise * slope_of,
            "lab": points.labs,
            "cluster": points.clusters,
        }
    )

    def fit(early: pd.DataFrame) -> EarlyLine:
        """The pooled early line (:func:`early_line`)."""
        return early_line(early, n_boot=DEFAULT_N_BOOT_SIDE, seed=seed)

    return forecast_at(frame, FORECAST_CUTOFF, row="three tables", epoch=epoch, fit=fit)


def lead_lab(row: TableRow) -> str:
    """The lab of ``row``'s lead reference (the first of its references' labs)."""
    return row.reference_labs[0] if row.reference_labs else ""


def pooled_law(rows: list[TableRow], *, n_boot: int = 600, seed: int = 0, epoch: str = DEFAULT_EPOCH) -> dict:
    """The pooled law of ``rows`` (the first the common scale's table) as a JSON-able record (module docstring)."""
    names = tuple(row.table for row in rows)
    points = pooled_points(rows)
    plan = scale_plan(points.tables, points.models, points.kind == EXACT, names, names[0])
    scaled, found = mapped(plan, points.tables, points.y[None], np.ones((1, len(points))))
    check_positive(found)
    line = line_through(points, scaled, np.ones((1, len(points))))
    draws = pooled_draws(points, plan, names, n_boot=n_boot, seed=seed, start=line)
    by_table = np.array([_point_line(points, plan, points.tables == name)[0] for name in names])
    without = np.array([_point_line(points, plan, points.tables != name)[0] for name in names])
    own = np.array(
        [line_through(points, points.y[None], (points.tables == name)[None].astype(float))[0] for name in names]
    )
    test = common_slope_test(by_table, draws.by_table)
    pooled = {
        **estimate(line[0], draws.slopes),
        "intercept": line[1],
        "n_points": len(points),
        "n_models": len(set(points.models)),
        "n_labs": len(set(points.labs)),
        "n_boot": len(draws.slopes),
        **state_record(_ends(draws.slopes), test["rejected"]),
    }
    tables = [
        {
            **row_values(row),
            "n_points": int((points.tables == row.table).sum()),
            **estimate(by_table[i], draws.by_table[i]),
        }
        for i, row in enumerate(rows)
    ]
    return {
        "pooled": pooled,
        "tables": tables,
        "common_slope": test,
        "leave_one_table_out": [
            {"table": name, **estimate(without[i], draws.without_table[i])} for i, name in enumerate(names)
        ],
        "leave_one_lab_out": leave_one_lab_out(points, plan, pooled["doubling_time_months"], lead_lab(rows[0])),
        "late_frontier": late_frontier(points, scaled[0], line, epoch),
        "scales": _scale_records(plan, found, draws.scales, names),
        "no_common_scale": no_common_scale(own, draws.own_scale, seed),
        "forecast": forecast_record(points, plan, epoch, seed),
    }


def row_values(row: TableRow) -> dict:
    """A table's row as values: its name, the row's label and its references."""
    return {"table": row.table, "row": row.row, "references": list(row.references)}


def measure_tables(
    names: tuple[str, ...] = TABLES, *, n_boot: int = 600, seed: int = 0, epoch: str = DEFAULT_EPOCH
) -> dict:
    """``densing trend --table all``: each registered table of ``names``'s headline row (:func:`densing.trend.
    table_rows.table_row`, its points' noise from ``n_boot`` of its draws) and their pooled law (:func:`pooled_law`,
    the first table's scale the common one)."""
    rows = [table_row(name, n_boot=n_boot, seed=seed, epoch=epoch) for name in names]
    return pooled_law(rows, n_boot=n_boot, seed=seed, epoch=epoch)
