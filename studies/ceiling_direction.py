"""What a score at a reference's ceiling does to a joint inversion, beside the chance floor's direction rule; prints a
table per shipped headline row, asserts nothing.

**The rule as shipped** (docs/method.md, "Ceilings as bounds"): a target with S_b ≥ cap_{r,b} − 2σ_b on some benchmark
b under reference r (:func:`densing.trend.pooling.at_ceiling`) keeps that score in its joint inversion and enters r's
line as a lower bound at the joint value. The chance floor is treated otherwise ("Direction by what the score does";
:func:`densing.trend.floors.chance_caps`): a score at chance leaves the joint inversion and caps it.

**Its mirror, measured here and not shipped.** The scores at r's ceiling leave the joint inversion; each says only
that benchmark b's law puts the target at ln N̂ ≥ x_b, x_b = ln N̂_b(cap_{r,b} − 2σ_b) (Xiao et al. 2024 eq. 4 through
the family law's inverse, :func:`densing.laws.reference_fit.censored_inversion`; no higher than the region's top
edge, :func:`densing.laws.region.member_log_sizes`). The target is exact at the rest's joint reading x_rest when
x_rest ≥ max_b x_b, else a lower bound at max_b x_b. A target at the ceiling on every benchmark stays a lower bound at
its joint value.

**Beside it**, per target and reference: each benchmark's own inversion ln ρ_b (a score on the law's flat top reads
far from the others), and x_b − 2s, s² the row's skill variance (:func:`densing.laws.joint.skill_variance`): the joint
inversion's own model reads each benchmark's size as x + δ_b, δ_b ~ N(0, s²), so a ceiling score bounds x + δ_b and
x ≥ x_b − 2s is what it says of x at one-sided 97.7%. A score within :data:`NEAR` standard errors outside the ceiling's
margin (cap − (2 + NEAR)·σ_b ≤ S_b < cap − 2σ_b) stays in the rest; the rest's reading without it is printed too, since
it inverts on the law's flat top as a score at the ceiling does. Every ln ρ is the reference's own (not shifted to a
lead's scale, as ``studies/table_agreement.py`` does).

Run (a few CPU-s)::

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/ceiling_direction.py > studies/ceiling_direction.results.txt
"""

from __future__ import annotations

import math

import numpy as np

from densing import registry
from densing.constants import CEILING_STDERRS, DEFAULT_EPOCH
from densing.data import read_results
from densing.laws import eligibility
from densing.laws.inversion import arrays
from densing.laws.reference_fit import censored_inversion
from densing.laws.region import member_log_sizes
from densing.trend import capability, pooling, selection
from densing.trend.targets import with_stderr

#: The shipped headline rows: table → its words.
ROWS = {
    "public": "the public table's headline (paper-like set)",
    "openllm_v2": "the second table's declared row (v2-native set)",
    "swallow": "Swallow's paper-like row",
}
#: Standard errors outside the ceiling's margin within which a score counts as near it (module docstring).
NEAR = 1.0
COMMAND = (
    "PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python studies/ceiling_direction.py > "
    "studies/ceiling_direction.results.txt"
)


def headline_targets(table: str) -> selection.CommonTargets:
    """``table``'s headline row's common targets as ``densing trend --table NAME`` builds them (fits at seed 0)."""
    profile = registry.table(table)
    benchmarks = tuple(profile.sets[profile.headline_set][1])
    tidy = with_stderr(read_results(profile.path))
    candidates = eligibility.candidate_table(tidy, benchmarks=benchmarks)
    found = selection.set_references(candidates, benchmarks)
    fits: dict = {}
    capability.row_fits(tidy, candidates, fits, found, seed=0)
    return capability.row_targets(tidy, candidates, fits, found, since=DEFAULT_EPOCH, epoch=DEFAULT_EPOCH)


def ceiling_log_size(fit, level: float, top: float) -> float:
    """x_b: ln N̂ where ``fit``'s law reaches ``level`` (= cap − 2σ), no higher than the region's ``top``; −∞ where
    the level lies at or below the law's floor (every size reaches it: the score says nothing)."""
    _, size, code = censored_inversion({k: float(v) for k, v in fit.params.items()}, np.array([level]), fit.d0)
    if int(code[0]) == 3 or not float(size[0]) > 0:
        return -math.inf
    return min(math.log(float(size[0])) if int(code[0]) == 0 else math.inf, top)


def solo_log_density(fit, score: float, log_params: float) -> str:
    """Benchmark b's own inversion of one score, ln ρ_b, as text ("above its cap" where the law cannot reach it)."""
    _, size, code = censored_inversion({k: float(v) for k, v in fit.params.items()}, np.array([score]), fit.d0)
    if int(code[0]) == 2:
        return "above its cap"
    if int(code[0]) == 3 or not float(size[0]) > 0:
        return "at its floor"
    return f"{math.log(float(size[0])) - log_params:+.2f}"


def row_lines(table: str) -> list[str]:
    """The row's ceiling targets under each joint reference: the shipped reading beside the mirror's."""
    common = headline_targets(table)
    scores, sigma = arrays(common.frame, common.benchmarks)
    log_params = np.log(common.frame["params"].to_numpy(float))
    labels = common.frame["model"].astype(str).to_numpy()
    shipped = {(model, family): (kind, value) for model, family, kind, _, _, value in pooling.point_readings(common)}
    lines = [f"{ROWS[table]} ({', '.join(common.benchmarks)}); references {', '.join(n.family for n in common.names)}"]
    counts = {"targets": 0, "exact": 0, "lower": 0}
    raises = []
    for r, inv in enumerate(common.inversions):
        if getattr(inv, "kind", "") != "joint":
            lines.append(
                f"  {common.names[r].family}: not a joint inversion; the ceiling makes its reading a lower bound"
            )
            continue
        caps = pooling.reference_caps(inv, scores.shape[1])
        with np.errstate(invalid="ignore"):
            near = (scores >= caps - CEILING_STDERRS * np.nan_to_num(sigma)) & np.isfinite(scores)
        partial = near.any(axis=1) & ~np.all(near | ~np.isfinite(scores), axis=1) & ~common.own[r]
        skill = inv.solve_point(scores, sigma).skill2
        params = common.frame["params"].to_numpy(float)
        rest = inv.point(np.where(near & partial[:, None], np.nan, scores), sigma, params)[0]
        with np.errstate(invalid="ignore"):
            close = ~near & (scores >= caps - (CEILING_STDERRS + NEAR) * np.nan_to_num(sigma)) & np.isfinite(scores)
        without_close = inv.point(np.where((near | close) & partial[:, None], np.nan, scores), sigma, params)[0]
        top = member_log_sizes(inv)[1]
        lines.append(
            f"  {common.names[r].family}: s = {math.sqrt(skill):.2f} in ln N; caps "
            + ", ".join(f"{b} {c:.3f}" for b, c in zip(common.benchmarks, caps))
        )
        for i in np.flatnonzero(partial):
            bounds = {
                common.benchmarks[b]: ceiling_log_size(inv.fits[b], caps[b] - CEILING_STDERRS * sigma[i, b], top)
                - log_params[i]
                for b in np.flatnonzero(near[i])
            }
            floor = max(bounds.values())
            kind, value = shipped[(labels[i], common.names[r].family)]
            mirror = ("exact", rest[i]) if rest[i] >= floor else ("lower", floor)
            counts["targets"] += 1
            counts[mirror[0]] += 1
            raises.append(mirror[1] - value)
            solo = ", ".join(
                f"{b} {solo_log_density(inv.fits[j], scores[i, j], log_params[i])}"
                for j, b in enumerate(common.benchmarks)
            )
            lines.append(
                f"    {labels[i]}: shipped {kind} {value:+.2f}; rest {rest[i]:+.2f}; ceiling bound "
                + ", ".join(f"{b} {x:+.2f} (− 2s: {x - 2 * math.sqrt(skill):+.2f})" for b, x in bounds.items())
                + f"; mirror {mirror[0]} {mirror[1]:+.2f}; each benchmark alone: {solo}"
            )
            for b in np.flatnonzero(close[i]):
                distance = (caps[b] - scores[i, b]) / sigma[i, b]
                lines.append(
                    f"      {common.benchmarks[b]} {scores[i, b]:.3f} is {distance:.2f} standard errors below "
                    f"its cap (near the ceiling's margin); the rest without it {without_close[i]:+.2f}"
                )
    if counts["targets"]:
        lines.append(
            f"  targets at a ceiling on some benchmarks and not all: {counts['targets']}; under the mirror "
            f"{counts['exact']} exact, {counts['lower']} lower bounds; mirror − shipped ln ρ: median "
            f"{np.median(raises):+.2f}, range {min(raises):+.2f} to {max(raises):+.2f}"
        )
    else:
        lines.append("  no target at a ceiling on some benchmarks and not all")
    return lines


def main() -> int:
    print(f"# {COMMAND}")
    print(
        "Targets at a reference's ceiling on some benchmarks of a joint inversion: the shipped reading (lower bound "
        "at the joint value) beside the chance rule's mirror (studies/ceiling_direction.py's docstring); ln ρ on "
        "each reference's own scale."
    )
    for table in ROWS:
        print("\n".join(row_lines(table)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
