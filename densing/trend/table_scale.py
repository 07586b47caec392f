"""One scale for several target tables: each table's ln ρ mapped onto a common table's by Deming regression on the
models both hold exactly (results/three_tables/DECLARATION.md, "One scale").

A table T's headline ln ρ differs from the common table's by an offset and a scale (each table's references set its
anchor; a harness may compress differences): y_common = a_T + s_T · y_T. Both axes are measured with noise, so a_T and
s_T come from Deming's regression with equal error variances (:func:`deming_line`), which an ordinary regression of
y_common on y_T would shrink towards 0 (regression dilution). A table with fewer than :data:`MIN_SHARED` such models
is mapped through the other table it shares most with (:func:`scale_plan`). A bound stays a bound of the same
direction because s_T > 0 (a table with s_T ≤ 0 is refused).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from densing.errors import InputError

#: The fewest models exact in both tables a direct mapping is fitted on (the declaration's).
MIN_SHARED = 10


def deming_line(x: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Deming's regression of ``y`` on ``x`` with equal error variances (δ = 1; Deming 1943, Cornbleet & Gochman 1979,
    eq. 3), each pair counted ``weight`` times, row by row of (..., m) arrays → (intercept a, slope s), (...,) each:

        s = (s_yy − s_xx + √((s_yy − s_xx)² + 4·s_xy²)) / (2·s_xy),   a = ȳ − s·x̄,

    with x̄, ȳ the weighted means and s_xx, s_yy, s_xy the weighted sums of squares and products about them. NaN where
    s_xy = 0 or fewer than two pairs count (the line is not identified)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    w = np.ones_like(x) if weight is None else np.broadcast_to(np.asarray(weight, float), x.shape)
    total = w.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        x_mean, y_mean = (w * x).sum(axis=-1) / total, (w * y).sum(axis=-1) / total
        dx, dy = x - x_mean[..., None], y - y_mean[..., None]
        sxx, syy, sxy = (w * dx * dx).sum(axis=-1), (w * dy * dy).sum(axis=-1), (w * dx * dy).sum(axis=-1)
        slope = (syy - sxx + np.sqrt((syy - sxx) ** 2 + 4 * sxy**2)) / (2 * sxy)
    counted = (w > 0).sum(axis=-1) >= 2
    slope = np.where(counted & (sxy != 0), slope, np.nan)
    return y_mean - slope * x_mean, slope


@dataclass(frozen=True)
class Link:
    """One Deming mapping y_to = a + s·y_from, fitted on the pairs (``from_index``, ``to_index``): the points of the
    same models exact in both tables (indices into the pooled points)."""

    table: str
    to: str
    from_index: np.ndarray
    to_index: np.ndarray

    @property
    def n_shared(self) -> int:
        return int(self.from_index.size)


@dataclass(frozen=True)
class ScalePlan:
    """How each table reaches the common one: ``links[T]`` the mappings applied in order (one, or two through the
    table T shares most with); the common table has none."""

    common: str
    links: dict[str, tuple[Link, ...]]

    def through(self, table: str) -> str:
        """The table ``table`` is mapped through ("" where its mapping is direct or it is the common table)."""
        found = self.links.get(table, ())
        return found[0].to if len(found) > 1 else ""

    def n_shared(self, table: str) -> int:
        """The models exact in both of the first mapping of ``table`` (0 for the common table)."""
        found = self.links.get(table, ())
        return found[0].n_shared if found else 0


def shared_pairs(
    tables: np.ndarray, models: np.ndarray, exact: np.ndarray, one: str, other: str
) -> tuple[np.ndarray, np.ndarray]:
    """The indices (in ``one``, in ``other``) of the models both tables hold with an exact ln ρ, by model name."""
    where_other = {models[i]: i for i in np.flatnonzero((tables == other) & exact)}
    ones = [i for i in np.flatnonzero((tables == one) & exact) if models[i] in where_other]
    return np.asarray(ones, dtype=np.intp), np.asarray([where_other[models[i]] for i in ones], dtype=np.intp)


def scale_plan(
    tables: np.ndarray, models: np.ndarray, exact: np.ndarray, names: tuple[str, ...], common: str
) -> ScalePlan:
    """Each table of ``names`` mapped onto ``common`` (module docstring): directly where it shares at least
    :data:`MIN_SHARED` exact models with it, else through the other table it shares most with (which must reach
    ``common`` directly); an InputError naming the table where neither can be."""
    links: dict[str, tuple[Link, ...]] = {}
    for name in names:
        if name == common:
            continue
        direct = Link(name, common, *shared_pairs(tables, models, exact, name, common))
        if direct.n_shared >= MIN_SHARED:
            links[name] = (direct,)
    for name in names:
        if name == common or name in links:
            continue
        others = [
            Link(name, other, *shared_pairs(tables, models, exact, name, other))
            for other in names
            if other not in (name, common) and other in links
        ]
        best = max(others, key=attrgetter("n_shared"), default=None)
        if best is None or best.n_shared < MIN_SHARED:
            raise InputError(
                f"table {name!r}: {direct_count(tables, models, exact, name, common)} models exact in it "
                f"and in {common!r}, fewer than {MIN_SHARED}, and no other table shares {MIN_SHARED} "
                f"with it: it cannot be put on {common!r}'s scale"
            )
        links[name] = (best, *links[best.to])
    return ScalePlan(common, links)


def direct_count(tables: np.ndarray, models: np.ndarray, exact: np.ndarray, one: str, other: str) -> int:
    """How many models ``one`` and ``other`` both hold with an exact ln ρ."""
    return int(shared_pairs(tables, models, exact, one, other)[0].size)


def mapped(
    plan: ScalePlan, tables: np.ndarray, y: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """``y`` (K, n) of every table on the common scale, each link refitted on the draws' own values and ``weight``
    (K, n: each point's count in the draw), and each table's (a_T, s_T), (K,) each (module docstring). A draw whose
    s_T is not positive or not identified maps that table's points to NaN (the draw fails)."""
    out = np.array(y, float, copy=True)
    found: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, chain in plan.links.items():
        a, s = np.zeros(len(y)), np.ones(len(y))
        for link in chain:  # y_common = a_U + s_U·(a_TU + s_TU·y_T): the first link applied first
            step_a, step_s = deming_line(y[:, link.from_index], y[:, link.to_index], weight[:, link.from_index])
            a, s = step_a + step_s * a, step_s * s
        s = np.where(s > 0, s, np.nan)
        rows = tables == name
        out[:, rows] = a[:, None] + s[:, None] * y[:, rows]
        found[name] = (a, s)
    return out, found


def check_positive(found: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
    """An InputError for a table whose point mapping has s_T ≤ 0 or none: its bounds would change direction."""
    for name, (_, s) in found.items():
        if not np.isfinite(s[0]):
            raise InputError(
                f"table {name!r}: the Deming line onto the common scale has a slope s ≤ 0 or none; a "
                f"bound would not keep its direction, so the table is refused"
            )


__all__ = [
    "MIN_SHARED",
    "Link",
    "ScalePlan",
    "check_positive",
    "deming_line",
    "direct_count",
    "mapped",
    "scale_plan",
    "shared_pairs",
]
