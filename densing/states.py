"""A trend row's :class:`State` and the reasons behind it, as values (densing.trend.pooling, steps 5 and 6); also a
fixed-size fit's reasons, a validity check's facts and a forecast cutoff's :class:`Outcome`. Their words are
:mod:`densing.present.words`', and nothing reads a state back out of words.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from densing.errors import InputError


class State(enum.Enum):
    """A row's state: *measured* (both ends of the 95% interval determined, the references agreeing), *bounded* (one
    end), *not measured* (neither, or the references disagree); its value is a stored record's code."""

    MEASURED = "measured"
    BOUNDED = "bounded"
    NOT_MEASURED = "not measured"

    @classmethod
    def from_ends(cls, low_determined: bool, high_determined: bool, *, references_disagree: bool = False) -> State:
        """The one state rule (densing.trend.pooling, step 6; docs/method.md, "Determined ends and the three states"),
        which every row of every design is judged by: *not measured* where the references disagree, else *measured*
        with both ends of the 95% interval determined, *bounded* with one, *not measured* with none.

        A row with no doubling time (an error, no reference) has neither end determined. Renderers never decide a
        state: they draw the one this rule gave the row."""
        if references_disagree:
            return cls.NOT_MEASURED
        if low_determined and high_determined:
            return cls.MEASURED
        if low_determined or high_determined:
            return cls.BOUNDED
        return cls.NOT_MEASURED


def recorded_state(code) -> State | None:
    """A stored record's ``state`` code (:attr:`State.value`) → its state; None where it holds no state's code."""
    return State._value2member_map_.get(code) if isinstance(code, str) else None


def stated_state(code, row: str) -> State:
    """A row's ``state`` code (:attr:`State.value`, or a :class:`State`) as a renderer reads it → its state; a row
    without one is an error naming ``row``: its state is given upstream, by :meth:`State.from_ends`, never defaulted
    where it is drawn."""
    state = code if isinstance(code, State) else recorded_state(code)
    if state is None:
        codes = ", ".join(repr(s.value) for s in State)
        raise InputError(f"{row}: a row's state: expected one of {codes}, got {code!r} (State.from_ends gives it)")
    return state


@dataclass(frozen=True)
class ReferencesDisagree:
    """The heterogeneity test rejects one common slope at :data:`~densing.constants.HETEROGENEITY_ALPHA`: Q, ``df``, its
    p-value (Hotelling's T²(df, ``draws`` − 1); ``draws`` 0: no count), each reference's (family, point months)."""

    q: float
    df: int
    p: float
    reference_months: tuple[tuple[str, float], ...]
    draws: int


@dataclass(frozen=True)
class EndOpen:
    """An end (``"low"``, ``"high"``) not determined: its slope quantile's 95% Monte Carlo range reaches 0
    (``undecided`` False) or straddles it at ``n_draws`` draws; ``beyond_months``: the months it lies beyond (or ∞)."""

    end: str
    undecided: bool
    n_draws: int
    beyond_months: float


def _finite_months(months: float) -> bool:
    """Whether an end of a doubling-time interval is a finite positive number of months (NaN is not)."""
    return months == months and 0 < months < float("inf")


@dataclass(frozen=True)
class JudgedInterval:
    """A doubling-time interval without Monte Carlo ranges of its ends (a reference's own, a frontier rule beside the
    headline's), judged by the one state rule (:meth:`State.from_ends`): an end is determined where it is finite."""

    doubling_time_months_ci_low: float
    doubling_time_months_ci_high: float
    n_draws: int

    @property
    def low_determined(self) -> bool:
        return _finite_months(self.doubling_time_months_ci_low)

    @property
    def high_determined(self) -> bool:
        return _finite_months(self.doubling_time_months_ci_high)

    @property
    def reasons(self) -> tuple[EndOpen, ...]:
        """Each end not determined, the lower first."""
        determined = {"low": self.low_determined, "high": self.high_determined}
        return tuple(EndOpen(end, False, self.n_draws, float("inf")) for end, known in determined.items() if not known)

    @property
    def state(self) -> State:
        return State.from_ends(self.low_determined, self.high_determined)


@dataclass(frozen=True)
class JudgedEnds:
    """A doubling-time interval whose ends' determination is given (an OLMES task's row, a design's own row), judged
    by the one state rule (:meth:`State.from_ends`); its open ends are its reasons, each undecided at ``n_draws``
    draws where its flag says so."""

    doubling_time_months_ci_low: float
    doubling_time_months_ci_high: float
    low_determined: bool
    high_determined: bool
    n_draws: int
    low_undecided: bool = False
    high_undecided: bool = False

    @property
    def reasons(self) -> tuple[EndOpen, ...]:
        """Each end not determined, the lower first (the months it lies beyond unknown: ∞)."""
        ends = (
            ("low", self.low_determined, self.low_undecided),
            ("high", self.high_determined, self.high_undecided),
        )
        return tuple(
            EndOpen(end, bool(undecided), self.n_draws, float("inf"))
            for end, determined, undecided in ends
            if not determined
        )

    @property
    def state(self) -> State:
        return State.from_ends(self.low_determined, self.high_determined)


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
    """A rising fixed-size regression whose time slope's interval (at ``level``) reaches 0: the row is bounded."""

    level: float


# The facts of a validity check (densing.trend.checks): its numbers; densing.present.words makes its threshold and
# detail from them.
@dataclass(frozen=True)
class NoFrontier:
    """Saturation or conditioning with no frontier model to judge."""


@dataclass(frozen=True)
class Saturated:
    """Saturation: ``n_near`` of ``n_frontier`` frontier models within 2 standard errors of their cap (its range)."""

    n_near: int
    n_frontier: int
    cap_low: float
    cap_high: float
    near: tuple[tuple[str, str | None, float], ...]


@dataclass(frozen=True)
class Conditioned:
    """Conditioning: the median κ over ``n_frontier`` models and the worst model's κ."""

    median: float
    n_frontier: int
    worst_model: str
    worst: float


@dataclass(frozen=True)
class TooFew:
    """A check that cannot be computed: ``count`` of ``what`` where it needs ``needed``."""

    what: str
    count: int
    needed: int


@dataclass(frozen=True)
class Slope:
    """A size slope with its interval: the within-family slope (size dependence) or the ln N coefficient of
    ln ρ ~ t + ln N (size confounding: also its ``clusters``, their count and the bounds dropped)."""

    slope: float
    low: float
    high: float
    level: float
    margin: float
    n_models: int
    families: int = 0
    clusters: str = ""
    n_clusters: int = 0
    bounds: int = 0


@dataclass(frozen=True)
class Heterogeneity:
    """The references' heterogeneity test: Cochran's Q, its degrees of freedom and p-value (Hotelling's T²(df,
    ``draws`` − 1); ``draws`` 0: no count), I² and τ² (per day²)."""

    q: float
    df: int
    p: float
    i_squared: float
    tau_squared: float
    draws: int
    #: the references' labs, each once (densing.data.labs): Q compares labs, df = labs − 1; and the references
    labs: tuple[str, ...] = ()
    references: int = 0


#: Why a check is a finding: calibrated (it fires in more than 10% of planted worlds where the estimate is right), or
#: the within-family size slope (reported beside size confounding, the check that replaces it).
CALIBRATED, SIZE_FINDING = "calibrated", "size"


# A forecast cutoff's outcome and why it has no verdict (densing.trend.forecast).
class Outcome(enum.Enum):
    """A cutoff's outcome (the rule above): the later models run ahead of the early line's band, the forecast holds,
    they fall behind it, or there is no verdict (the early line too uncertain, too few later models)."""

    AHEAD = enum.auto()
    HOLDS = enum.auto()
    BEHIND = enum.auto()
    NO_VERDICT = enum.auto()


@dataclass(frozen=True)
class WideEarlyLine:
    """No verdict: the early line's doubling-time interval (months) is unbounded or more than ``max_width``-fold wide."""

    low: float
    high: float
    max_width: float


@dataclass(frozen=True)
class FewLater:
    """No verdict: ``count`` later models placed where the check needs ``needed``."""

    count: int
    needed: int


@dataclass(frozen=True)
class NoFamilyScored:
    """A row with no reference: no family of the table has three models scored on its ``benchmarks``."""

    benchmarks: tuple[str, ...]


@dataclass(frozen=True)
class NoFamilyPasses:
    """A row with no reference: no family passes the reference rule on its ``n_benchmarks`` benchmarks (each failing
    clause's code with its count; the (family, benchmark) eligible on one benchmark of a set only)."""

    n_benchmarks: int
    failures: tuple[tuple[str, int], ...]
    eligible_on_one: tuple[tuple[str, str], ...]


class LeftOut:
    """Why a row is left out of a trend, as a code (the ``reason`` column of the frames of the rows left out) with its
    number or cell in the ``detail`` column; in words, :func:`densing.present.words.left_out_reason`.

    A target of a trend (:func:`densing.trend.targets.trend_targets`, a row's common targets
    :func:`densing.trend.selection.common_targets`): :attr:`NO_DATE`, :attr:`BEFORE` and :attr:`ON_OR_AFTER` the
    window (``detail``: its edge, ``since`` or ``until``), :attr:`NO_STDERR`, :attr:`OWN` (a model of the reference),
    :attr:`INCOMPLETE` (a score missing on the row's benchmarks). A point of a frame of values
    (:func:`densing.trend.targets.prepare`): :attr:`CENSORED` (``detail``: the ``censored`` cell), :attr:`MISSING_DATE`,
    :attr:`NON_FINITE` (``detail``: the value as given), :attr:`NON_POSITIVE` (``detail``: the value as a number).
    A cost pair's model (:func:`densing.trend.corollaries.compression_density`): :attr:`ABSENT` (not among the
    densities)."""

    NO_DATE = "no_date"
    BEFORE = "released_before"
    ON_OR_AFTER = "released_on_or_after"
    NO_STDERR = "no_stderr"
    OWN = "own_model"
    INCOMPLETE = "incomplete"
    CENSORED = "censored"
    MISSING_DATE = "missing_date"
    NON_FINITE = "non_finite"
    NON_POSITIVE = "non_positive"
    ABSENT = "absent"


@dataclass(frozen=True)
class ReferencesBy:
    """How a headline's references were chosen: ``given`` (``--fit``), or the set rule over ``benchmarks``."""

    given: bool
    benchmarks: tuple[str, ...]


@dataclass(frozen=True, order=True)
class ReferenceName:
    """A trend row's reference: its ``family`` and what it inverts (a ``benchmark``, ``joint(b1,b2,…)``, "" for a
    family alone), written ``family:benchmark`` (``str``, read back by :meth:`parse`)."""

    family: str
    benchmark: str = ""

    def __str__(self) -> str:
        return f"{self.family}:{self.benchmark}" if self.benchmark else self.family

    @classmethod
    def parse(cls, text: str) -> ReferenceName:
        """``"<family>:<benchmark>"`` (a file's or the command line's form) → its value; no ``:``, a family alone."""
        family, _, benchmark = text.partition(":")
        return cls(family, benchmark)
