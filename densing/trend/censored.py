"""Lines through points some of which are bounds: censored regression for the density trend.

A censored density is a bound, not a missing value: a score the reference cannot reach at D0
says ρ ≥ x, a score at or below its floor says ρ ≤ x (:func:`densing.laws.bounds.log_density_bounds`).
Each point carries ``kind``: 0 exact, +1 a lower bound (the true ln ρ ≥ y), −1 an upper bound
(the true ln ρ ≤ y).

Two estimators of ln ρ = A·t + B that use bounds as bounds:

- :func:`censored_quantile_line`, the q-th regression quantile with censoring (Powell 1986,
  "Censored regression quantiles", J. Econometrics 32:143–155), which minimises
  Σ ρ_q(y_i − g_i(A·t_i + B)) with g = min(y_i, ·) for a lower bound (an observation censored
  at y_i from above: the true value is ≥ y_i), max(y_i, ·) for an upper bound and the identity for
  an exact point; solved by Buchinsky's (1994) iterative linearised programming: fit the quantile
  line on the exact points and the bounds the current line does not already satisfy, recompute,
  repeat until that set stops changing (if it cycles, the visited line of least Powell objective).
- :func:`densing.trend.tobit.tobit_line`, the Gaussian censored-regression likelihood (Tobin 1958; Amemiya
  1973), in its own module.

Under a location-shift model (ln ρ_i = A·t_i + B + ε_i, ε i.i.d.) every quantile line and the
mean line share the slope A, so both estimate the same doubling time ln 2 / A.

**Solving a bootstrap's problems together.** A bootstrap asks for hundreds of these lines, each over ~100 points,
where numpy's per-call overhead outweighs the arithmetic. Each problem's solver (:func:`_solve`: the three starts
of :func:`_starts`, each a Buchinsky iteration :func:`_buchinsky`, then :func:`_vertex_descent`) is therefore
written as a generator: where it needs numbers it yields a request — ``("line", t, y)``, the quantile line through
the active points, or ``("objectives", slopes, intercepts)``, Powell's objective of some lines — and is sent the
answer. :func:`censored_quantile_lines` advances every problem to its next request, groups the requests by kind
and size (lines of the same number of points; objectives of problems of the same size), answers each group in
chunks of :data:`CHUNK` by one array computation (:func:`_quantile_lines`, :func:`_objectives_of` over the
points stacked once per size by :class:`_Stacks`), and sends each problem its answer. Every array operation is
row-wise, so a problem's line is the same, bit for bit, solved alone or among others. ``bench/censored_batch.py``
times it against one problem at a time on 300 resamples of the shipped headline's points and checks the lines are
identical: batched is about 1.9× as fast (median ratio; the machine's load moves it), chunks of 16 or more run at
about the same speed and smaller ones slower (``bench/censored_batch.results.txt``). A problem's memo (active
set → line) lets its three starts share a set two of them reach. :func:`censored_quantile_coefficients` runs the
same generators with its requests answered one at a time.
"""
from __future__ import annotations

import math

import numpy as np

from densing.laws.bounds import EXACT, LOWER, UPPER
from densing.trend.lines import quantile_slopes
MAX_ITERATIONS = 50
#: Problems answered by one array computation (module docstring; ``bench/censored_batch.py`` measures the choice).
CHUNK = 16


def _quantile_lines(t: np.ndarray, y: np.ndarray, quantile: float) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) of the q-th regression quantile through each row of ``t``, ``y`` (shape (rows, n)): the slope by
    :func:`quantile_slopes` on standardised dates, B the q-quantile of y − A·t; NaNs where no slope exists."""
    n = t.shape[1]
    centre = t.sum(axis=1) / n  # np.mean and np.std's own arithmetic, without their dispatch
    spread = t - centre[:, None]
    scale = np.sqrt((spread * spread).sum(axis=1) / n)
    scale[scale == 0] = 1.0
    slope = quantile_slopes((t - centre[:, None]) / scale[:, None], y, quantile) / scale
    residual = y - slope[:, None] * t
    k = max(math.ceil(quantile * n) - 1, 0)
    intercept = np.partition(residual, k, axis=1)[:, k]
    intercept[~np.isfinite(slope)] = math.nan
    return slope, intercept


def _clip_limits(kind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) limits of each point's residual y − fit in Powell's objective: a lower bound counts only where the
    line runs below it (y − g = max(y − fit, 0), g = min(y, fit)), an upper bound only where it runs above it
    (y − g = min(y − fit, 0), g = max(y, fit)), an exact point always."""
    return np.where(kind == LOWER, 0.0, -np.inf), np.where(kind == UPPER, 0.0, np.inf)


def _powell_sum(residual: np.ndarray, low: np.ndarray, high: np.ndarray, quantile: float) -> np.ndarray:
    """Powell's objective Σ_i ρ_q(y_i − g_i(fit_i)) over the last axis of ``residual`` = y − fit (module docstring),
    ρ_q(u) = u·(q − 1[u < 0]), with y − g the residual clipped to [low, high] (:func:`_clip_limits`). The one
    place the objective is written: one line, a batch of lines and a design's fit all call it."""
    clipped = np.minimum(np.maximum(residual, low), high)
    return np.sum(clipped * (quantile - (clipped < 0)), axis=-1)


def powell_objective(t, y, kind, slope: float, intercept: float, quantile: float) -> float:
    """Powell's objective (module docstring) of the line A·t + B."""
    t, y, kind = np.asarray(t, float), np.asarray(y, float), np.asarray(kind, int)
    return float(_powell_sum(y - (slope * t + intercept), *_clip_limits(kind), quantile))


class _Line:
    """A problem (t, y, kind) of the line A·t + B, as :func:`_buchinsky` asks of it: its coefficients are (A, B); a
    quantile fit is requested as ``("line", t, y)`` of the active points and answered by :func:`_quantile_lines`
    (:func:`censored_quantile_lines`), objectives as ``("objectives", slopes, intercepts)``."""

    __slots__ = ("t", "y", "kind")

    def __init__(self, t, y, kind) -> None:
        self.t, self.y, self.kind = t, y, kind

    def unfittable(self, active: np.ndarray) -> bool:
        return active.sum() < 3 or np.ptp(self.t[active]) == 0

    def fit_request(self, active: np.ndarray) -> tuple:
        return ("line", self.t[active], self.y[active])

    def objective_request(self, line: tuple[float, float]) -> tuple:
        return ("objectives", np.array([line[0]]), np.array([line[1]]))

    def fitted(self, line: tuple[float, float]) -> np.ndarray:
        return line[0] * self.t + line[1]


class _Design:
    """A problem (x, y, kind) of the regression y ≈ x·β with several covariates (``x`` includes the constant), as
    :func:`_buchinsky` asks of it: a quantile fit is requested as ``("fit", x, y)`` of the active points and
    answered by :func:`quantile_coefficients`, an objective as ``("objectives", β)``
    (:func:`censored_quantile_coefficients`)."""

    __slots__ = ("x", "y", "kind")

    def __init__(self, x, y, kind) -> None:
        self.x, self.y, self.kind = x, y, kind

    def unfittable(self, active: np.ndarray) -> bool:
        return active.sum() <= self.x.shape[1]

    def fit_request(self, active: np.ndarray) -> tuple:
        return ("fit", self.x[active], self.y[active])

    def objective_request(self, beta: np.ndarray) -> tuple:
        return ("objectives", beta)

    def fitted(self, beta: np.ndarray) -> np.ndarray:
        return self.x @ beta


def _buchinsky(problem, active: np.ndarray, memo: dict):
    """Buchinsky's iteration from one starting active set, as steps of a generator (:func:`_solve`'s docstring):
    returns (objective, coefficients, iterations). ``problem`` is a :class:`_Line` or a :class:`_Design`; ``memo``
    (active set → coefficients) is shared between starts, so a set two starts reach is solved once."""
    y, kind = problem.y, problem.kind
    seen: set[bytes] = set()
    best = (math.inf, None)
    for iteration in range(1, MAX_ITERATIONS + 1):
        if problem.unfittable(active):
            return (*best, iteration)
        key = active.tobytes()
        if key not in memo:
            memo[key] = yield problem.fit_request(active)
        coefficients = memo[key]
        if not all(math.isfinite(c) for c in coefficients):
            return (*best, iteration)
        objective = float((yield problem.objective_request(coefficients))[0])
        if objective < best[0]:
            best = (objective, coefficients)
        seen.add(key)
        fitted = problem.fitted(coefficients)
        # a bound the line already satisfies contributes ρ_q(0) = 0: it leaves the active set
        new = (kind == EXACT) | ((kind == LOWER) & (fitted < y)) | ((kind == UPPER) & (fitted > y))
        if np.array_equal(new, active) or new.tobytes() in seen:
            return (*best, iteration)
        active = new
    return (*best, MAX_ITERATIONS)


def _starts(problem):
    """Buchinsky's iteration (:func:`_buchinsky`) from the three starting active sets — every point, the exact points
    only, every point but the upper bounds — as steps of a generator: returns (objective, coefficients, iterations)
    of the start of least objective (coefficients None where no start could fit), iterations summed over the starts."""
    kind = problem.kind
    best = (math.inf, None, 0)
    tried: set[bytes] = set()
    memo: dict = {}
    total = 0
    for active in (np.ones(kind.size, bool), kind == EXACT, kind != UPPER):
        if active.tobytes() in tried:
            continue
        tried.add(active.tobytes())
        result = yield from _buchinsky(problem, active.copy(), memo)
        total += result[2]
        if result[0] < best[0]:
            best = result
    return best[0], best[1], total


def _vertex_descent(t, y, kind, slope: float, intercept: float, objective: float):
    """Walk from the line through two points to a neighbouring vertex while the objective falls, as steps of
    :func:`_solve`: returns (A, B, objective).

    A vertex is a line through two points (i, j) with distinct dates; its neighbours replace i or
    j by any other point. Ends at a vertex no neighbour improves: a local optimum of the
    piecewise-linear objective, from Buchinsky's line as the start.
    """
    residual = np.abs(y - (slope * t + intercept))
    order = np.argsort(residual, kind="stable")
    i = int(order[0])
    j = next((int(k) for k in order[1:] if t[k] != t[i]), None)
    if j is None:
        return slope, intercept, objective
    n = t.size
    others = np.arange(n)
    for _ in range(4 * n):
        a = np.concatenate([np.full(n, i), np.full(n, j)])
        b = np.concatenate([others, others])
        keep = (t[b] != t[a]) & (b != i) & (b != j)
        a, b = a[keep], b[keep]
        slopes = (y[b] - y[a]) / (t[b] - t[a])
        intercepts = y[a] - slopes * t[a]
        values = yield ("objectives", slopes, intercepts)
        best = int(np.argmin(values))
        if not values[best] < objective - 1e-12:
            break
        objective, slope, intercept = float(values[best]), float(slopes[best]), float(intercepts[best])
        i, j = int(a[best]), int(b[best])
    return slope, intercept, objective


def _solve(t, y, kind):
    """Powell's censored quantile line of one problem (:func:`censored_quantile_line`'s docstring) as a generator.

    It yields what it needs computed — ``("line", t, y)``: the quantile line through those points;
    ``("objectives", slopes, intercepts)``: Powell's objective of each line over the problem's points — and is
    sent the answer, so :func:`censored_quantile_lines` can answer the requests of many problems at once.
    Returns (A, B, iterations).
    """
    objective, line, total = yield from _starts(_Line(t, y, kind))
    if line is None:
        return math.nan, math.nan, total
    if (kind != EXACT).any():
        slope, intercept, _ = yield from _vertex_descent(t, y, kind, line[0], line[1], objective)
        return slope, intercept, total
    return line[0], line[1], total


def censored_quantile_line(t, y, kind, quantile: float = 0.9) -> tuple[float, float, int]:
    """(A, B, iterations) of Powell's censored q-th regression quantile (module docstring).

    Powell's objective is not convex, and Buchinsky's iteration can stop at a local optimum or
    at an active set too small to fit (both happen on the Pile-ladder reference's points). It is
    therefore run from three starting active sets — every point, the exact
    points only, and every point but the upper bounds — and the line of least objective over all
    of them is kept (``tests/trend/test_censored.py`` checks it against an exhaustive search over
    the lines through two points, where the optimum of a piecewise-linear objective lies). With
    bounds present, the best line is then polished by a walk over neighbouring vertices
    (:func:`_vertex_descent`). Without bounds the problem is the convex regression quantile and
    Buchinsky's first step is already its exact solution.
    Returns NaNs where no start has 3 points with 2 distinct dates active.
    One problem of :func:`censored_quantile_lines`.
    """
    return censored_quantile_lines([(t, y, kind)], quantile)[0]


def censored_quantile_lines(problems, quantile: float = 0.9) -> list[tuple[float, float, int]]:
    """:func:`censored_quantile_line` of each (t, y, kind) of ``problems`` (a bootstrap's draws), solved together.

    Each problem runs its own iteration (:func:`_solve`); their requests are answered in batches — quantile
    lines of equal size by :func:`_quantile_lines`, objectives of problems of equal size by one array — so a
    problem's line is the same number solved alone or among others, and the per-call overhead of numpy on
    problems of ~100 points is paid once per batch.
    """
    problems = [(np.asarray(t, float), np.asarray(y, float), np.asarray(kind, int)) for t, y, kind in problems]
    steps = [_solve(*problem) for problem in problems]
    stacks = _Stacks(problems)
    out: list = [None] * len(problems)
    waiting: dict[int, tuple] = {}

    def advance(i: int, answer) -> None:
        try:
            waiting[i] = steps[i].send(answer)
        except StopIteration as stop:
            out[i] = stop.value
            waiting.pop(i, None)

    for i in range(len(problems)):
        advance(i, None)
    while waiting:
        answers: dict[int, object] = {}
        groups: dict[tuple, list[int]] = {}
        for i, request in waiting.items():
            # lines by their number of points; objectives by the problem's size, one line (Buchinsky's) or many
            key = (request[0], request[1].size) if request[0] == "line" else (request[0], problems[i][0].size, request[1].size == 1)
            groups.setdefault(key, []).append(i)
        chunks = [(key[0], members[at:at + CHUNK]) for key, members in groups.items() for at in range(0, len(members), CHUNK)]
        for what, members in chunks:
            if what == "line":
                slopes, intercepts = _quantile_lines(np.stack([waiting[i][1] for i in members]),
                                                     np.stack([waiting[i][2] for i in members]), quantile)
                answers.update((i, (float(s), float(b))) for i, s, b in zip(members, slopes, intercepts))
            else:
                answers.update(zip(members, stacks.objectives(members, [waiting[i][1] for i in members],
                                                              [waiting[i][2] for i in members], quantile)))
        for i, answer in answers.items():
            advance(i, answer)
    return out


class _Stacks:
    """The problems' points stacked once per size — t, y and the bounds as clip limits (a lower bound counts only
    where the line runs below it: its residual is clipped at 0 from below; an upper bound from above) — so a batch of
    objectives indexes rows instead of stacking arrays."""

    def __init__(self, problems: list) -> None:
        self.where: list[tuple[int, int]] = []
        sizes: dict[int, list[int]] = {}
        for i, (t, _, _) in enumerate(problems):
            sizes.setdefault(t.size, []).append(i)
            self.where.append((t.size, len(sizes[t.size]) - 1))
        self.arrays = {}
        for size, members in sizes.items():
            t, y, kind = (np.stack([problems[i][j] for i in members]) for j in range(3))
            self.arrays[size] = (t, y, *_clip_limits(kind))

    def objectives(self, members: list[int], slopes: list, intercepts: list, quantile: float) -> list[np.ndarray]:
        """Powell's objective of each member's lines (members of one size; lines padded to the longest)."""
        size = self.where[members[0]][0]
        rows = np.array([self.where[i][1] for i in members])
        t, y, low, high = (a[rows] for a in self.arrays[size])
        return _objectives_of(t, y, low, high, slopes, intercepts, quantile)


def _objectives_of(t, y, low, high, slopes: list, intercepts: list, quantile: float) -> list[np.ndarray]:
    """Powell's objective (:func:`_powell_sum`) of each problem's lines: ``t``, ``y`` and the clip limits of shape
    (problems, n); ``slopes``/``intercepts`` one array per problem, padded here to the longest."""
    width = max(s.size for s in slopes)
    if width == 1:
        a = np.array([s[0] for s in slopes])[:, None]
        b = np.array([c[0] for c in intercepts])[:, None]
    else:
        a = np.zeros((len(slopes), width))
        b = np.zeros((len(slopes), width))
        for row, (s, c) in enumerate(zip(slopes, intercepts)):
            a[row, :s.size], b[row, :c.size] = s, c
    residual = y[:, None, :] - (a[:, :, None] * t[:, None, :] + b[:, :, None])
    values = _powell_sum(residual, low[:, None, :], high[:, None, :], quantile)
    return [values[row, :s.size] for row, s in enumerate(slopes)]


def exhaustive_censored_quantile_line(t, y, kind, quantile: float = 0.9) -> tuple[float, float]:
    """The global optimum of Powell's objective by searching every line through two points.

    Each term of Powell's objective is piecewise linear in (A, B) with kinks only on the lines
    A·t_i + B = y_i, so a minimum (when one exists) lies on a vertex: a line through two points
    with distinct dates. O(n³); for tests and audits, not for the bootstrap.
    """
    t, y, kind = np.asarray(t, float), np.asarray(y, float), np.asarray(kind, int)
    i, j = np.triu_indices(t.size, 1)
    keep = t[i] != t[j]
    i, j = i[keep], j[keep]
    slopes = (y[j] - y[i]) / (t[j] - t[i])
    intercepts = y[i] - slopes * t[i]
    objective = _Stacks([(t, y, kind)]).objectives([0], [slopes], [intercepts], quantile)[0]
    best = int(np.argmin(objective))
    return float(slopes[best]), float(intercepts[best])


def quantile_coefficients(x: np.ndarray, y: np.ndarray, quantile: float) -> np.ndarray:
    """β of the q-th regression quantile y ≈ X·β (Koenker & Bassett 1978) as its linear programme:

        min_{β, u, v ≥ 0}  q·Σu + (1 − q)·Σv   subject to  X·β + u − v = y

    solved by HiGHS (``scipy.optimize.linprog``); NaNs if it fails.
    """
    from scipy.optimize import linprog

    n, p = x.shape
    cost = np.concatenate([np.zeros(p), np.full(n, quantile), np.full(n, 1.0 - quantile)])
    equality = np.hstack([x, np.eye(n), -np.eye(n)])
    bounds = [(None, None)] * p + [(0, None)] * (2 * n)
    result = linprog(cost, A_eq=equality, b_eq=y, bounds=bounds, method="highs")
    return result.x[:p] if result.status == 0 else np.full(p, np.nan)


def censored_quantile_coefficients(x, y, kind, quantile: float = 0.9) -> np.ndarray:
    """β of Powell's censored q-th regression quantile with several covariates (``x`` includes the constant).

    The same estimator and the same iteration as :func:`censored_quantile_line` (Powell 1986; Buchinsky's
    iteration from the same three starting active sets, :func:`_starts`) with a design matrix in place of
    (1, t): each step the linear programme of :func:`quantile_coefficients`, the coefficients of least Powell
    objective kept. It is used for point estimates (the size-confounding check), not inside the bootstrap, and
    has no vertex walk. NaNs where no start has more active points than coefficients.
    """
    problem = _Design(np.asarray(x, float), np.asarray(y, float), np.asarray(kind, int))
    limits = _clip_limits(problem.kind)
    steps = _starts(problem)
    answer = None
    while True:
        try:
            request = steps.send(answer)
        except StopIteration as stop:
            beta = stop.value[1]
            return np.full(problem.x.shape[1], np.nan) if beta is None else beta
        if request[0] == "fit":
            answer = quantile_coefficients(request[1], request[2], quantile)
        else:
            answer = [float(_powell_sum(problem.y - problem.fitted(request[1]), *limits, quantile))]
