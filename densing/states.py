"""A trend row's state and the reasons behind it, as values (densing.trend.pooling, steps 5 and 6). A result carries
these; the words are made from them in one place, :mod:`densing.present.words`, and nothing reads a state back out of
words.

- :class:`State`: *measured* (both ends of the doubling time's 95% interval determined, the references agreeing),
  *bounded* (one end determined), *not measured* (neither end determined, or the references disagree).
- The reasons, each a small record with its numbers: :class:`ReferencesDisagree` (the heterogeneity test, the one
  gate), :class:`EndOpen` (an end of the interval not determined: its interval reaches a zero slope, or its sign is
  undecided at the draws used), :class:`NoReference` (a set whose benchmark no reference covers).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from densing.constants import HETEROGENEITY_ALPHA


class State(enum.Enum):
    """A row's state (module docstring); its words are :data:`densing.present.words.STATE_WORDS`."""

    MEASURED = enum.auto()
    BOUNDED = enum.auto()
    NOT_MEASURED = enum.auto()


@dataclass(frozen=True)
class ReferencesDisagree:
    """Cochran's Q rejects one common slope at :data:`~densing.constants.HETEROGENEITY_ALPHA`: Q on ``df`` degrees of
    freedom, its p-value, and each reference's (family, point doubling time in months)."""

    q: float
    df: int
    p: float
    reference_months: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class EndOpen:
    """An end of the interval (``"low"`` or ``"high"``) that is not determined: its slope quantile's 95% Monte Carlo
    range reaches 0 (``undecided`` False) or straddles it at ``n_draws`` draws (``undecided`` True); ``beyond_months``
    is the doubling time the open end lies beyond (its Monte Carlo range's near edge; ∞ where that reaches 0)."""

    end: str
    undecided: bool
    n_draws: int
    beyond_months: float


@dataclass(frozen=True)
class NoReference:
    """A benchmark set with no eligible reference: its label and the reason the reference rule gives."""

    label: str
    why: str


@dataclass(frozen=True)
class TooFewScores:
    """A fixed-size regression (:mod:`densing.trend.fixed_size`) with fewer scores or families than it needs."""

    n_scores: int
    n_families: int
    min_scores: int
    min_families: int


@dataclass(frozen=True)
class NoRise:
    """A fixed-size regression whose score does not rise with ``variable`` (``"size"``: β_N ≤ 0 at a fixed date;
    ``"date"``: β_t ≤ 0 per year at a fixed size), its ``slope``."""

    variable: str
    slope: float


@dataclass(frozen=True)
class RateReachesZero:
    """A fixed-size regression whose bootstrap interval (at ``level``) of the time slope reaches 0 or below: its
    doubling time is unbounded."""

    level: float


def family_of(reference_name: str) -> str:
    """The family of a reference fit's name, ``"<family>:<benchmark>"`` → ``"<family>"`` (a name without a
    benchmark is its own family)."""
    return reference_name.partition(":")[0]


def heterogeneous(result) -> bool:
    """Whether a trend's references disagree (the heterogeneity test rejects one common slope)."""
    return result.heterogeneity_df > 0 and result.heterogeneity_p < HETEROGENEITY_ALPHA


def state_of(result) -> State:
    """A trend's state from its numbers (:mod:`densing.trend.pooling`, step 6): not measured when the references
    disagree or neither end of the interval is determined, measured when both are, bounded when one is."""
    if heterogeneous(result):
        return State.NOT_MEASURED
    low, high = result.low_determined, result.high_determined
    return State.MEASURED if low and high else State.BOUNDED if low or high else State.NOT_MEASURED


def reasons_of(result) -> tuple:
    """Why a trend is not measured, as records: the references' disagreement, then each open end (the lower end
    first where both are open and neither is undecided, as the interval reads)."""
    reasons: list = []
    if heterogeneous(result):
        reasons.append(ReferencesDisagree(float(result.heterogeneity_q), int(result.heterogeneity_df),
                                          float(result.heterogeneity_p),
                                          tuple((family_of(name), float(m)) for name, m in result.reference_months.items())))
    for end in ("low", "high"):
        if not getattr(result, f"{end}_determined"):
            reasons.append(EndOpen(end, bool(getattr(result, f"{end}_undecided", False)), int(result.n_boot),
                                   float(getattr(result, f"months_{end}_mc_low"))))
    return tuple(reasons)
