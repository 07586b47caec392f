"""Whether a compiled kernel pays in ``densing report`` on this machine, measured on the report's largest numerical loop.

The loop is the joint inversion's safeguarded Newton solve (:func:`densing.laws.joint.solve`: every bootstrap draw's
and every point inversion's ln N̂ of a set row, about a fifth of the measurement's CPU). The kernel here is that
solve written as a numba loop over (draw, model) rows: the same steps, the same clipping and stopping rule per row,
the same left-to-right sums over benchmarks. The script prints three measurements:

1. in a fresh process after numpy, ``import numba`` and then the kernel's first call with its machine code already
   in numba's cache (what every ``densing report`` would add before its workers fork), ``--runs`` times;
2. the numpy solve against the kernel on every call ``densing report``'s measurement makes (recorded in one serial
   run on the shipped table), alternating, ``--runs`` times: CPU seconds each and whether every result is the same
   to the bit;
3. ``densing report`` as a whole process, the tree as it is against the same tree with the kernel in place of the
   solve (numba imported before the workers are forked), alternating after one warm-up each (the warm-up compiles
   the kernel into a cache in a temporary folder, as a first run would), ``--runs`` pairs: wall and CPU seconds and
   the paired ratios.

The package keeps the numpy solve: this script is how the choice is measured again (on another machine, or with
another numba). It asserts nothing; without numba it says so and exits with status 2.

    pip install numba && python bench/compiled_kernel.py [--runs 5]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import BYTECODE, environment, seconds

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent


try:
    import numpy as np
    from numba import njit
except ImportError:  # main() says so
    njit = None


def _solve_rows(l, d, c, g, minus_alpha, ln_unit, alpha2, power, s, w, x0, iterations, tolerance, max_step, low, high):
    """ln N̂ of each row of ``s`` (rows, B): :func:`densing.laws.joint.solve`'s steps, one row at a time."""
    n, count = s.shape
    out = np.empty(n)
    for i in range(n):
        x = x0[i]
        for _ in range(iterations):
            num = 0.0
            gauss = 0.0
            second = 0.0
            for b in range(count):
                if power:  # v = −exp(−α·(x − ln N_unit)), v' = −α·v, v'' = α²·v
                    v = -math.exp(min(max(minus_alpha[i, b] * (x - ln_unit[i, b]), -700.0), 700.0))
                    dv = minus_alpha[i, b] * v
                    d2v = alpha2[i, b] * v
                else:
                    v, dv, d2v = x, 1.0, 0.0
                sigma = 1.0 / (1.0 + math.exp(min(max(-g[i, b] * (v - l[i, b]), -700.0), 700.0)))
                core = c[i, b] * g[i, b] * sigma
                core *= 1 - sigma
                slope = core * dv
                curve = g[i, b] * (1 - 2 * sigma) * dv * dv
                curve += d2v
                curve *= core
                residual = s[i, b] - (d[i, b] + c[i, b] * sigma)
                weighted = w[i, b] * slope
                first, normal, bend = weighted * residual, weighted * slope, w[i, b] * residual * curve
                if first == first:  # a missing score's terms are NaN: left out, as np.nansum leaves them
                    num += first
                if normal == normal:
                    gauss += normal
                if bend == bend:
                    second += bend
            newton = gauss - second
            den = newton if newton > 0.1 * gauss else gauss
            step = num / den if den > 0 else (max_step if num > 0 else -max_step if num < 0 else 0.0)
            step = 0.0 if step != step else min(max(step, -max_step), max_step)
            moved = min(max(x + step, low), high)
            converged = abs(moved - x) < tolerance
            x = moved
            if converged:
                break
        out[i] = x
    return out


_KERNEL = None


def kernel_solve(p, scores, weights, start):
    """:func:`densing.laws.joint.solve`'s arguments and result, the rows solved by the numba kernel."""
    from densing.laws import joint

    global _KERNEL
    if _KERNEL is None:
        _KERNEL = njit(cache=True)(_solve_rows)
    x = np.clip(np.asarray(start, float), joint.LOG_SIZE_LOW, joint.LOG_SIZE_HIGH)[..., None]
    if x.size == 0:
        return x[..., 0]
    shape = np.broadcast_shapes(x.shape, np.shape(scores), np.shape(weights), *(np.shape(v) for v in p.values()))
    rows = math.prod(shape[:-1])

    def flat(a):  # (rows, B), contiguous
        return np.ascontiguousarray(
            np.broadcast_to(a, shape[:-1] + (np.shape(a)[-1],))
            .reshape(rows, -1)
            .repeat(shape[-1] if np.shape(a)[-1] == 1 else 1, axis=1),
            dtype=float,
        )

    q = joint._constants(p)
    power = "-alpha" in q
    law = [flat(q[k]) for k in ("l", "d", "c", "gamma")]
    law += [flat(q[k]) for k in ("-alpha", "ln n_unit", "alpha²")] if power else [law[0]] * 3
    return _KERNEL(
        *law,
        power,
        flat(scores),
        flat(weights),
        flat(x)[:, 0].copy(),
        joint.ITERATIONS,
        joint.TOLERANCE,
        joint.MAX_STEP,
        joint.LOG_SIZE_LOW,
        joint.LOG_SIZE_HIGH,
    ).reshape(shape[:-1])


def install() -> None:
    """The kernel in place of the numpy solve for this process and the workers it forks."""
    from densing.laws import joint

    one = np.ones((1, 1))
    kernel_solve({"l": 0 * one, "d": 0 * one, "c": one, "gamma": one}, one / 2, one, np.zeros(1))  # compiled or loaded
    joint.solve = kernel_solve


def _recorded_solves() -> list:
    """Every call of the solve in ``densing report``'s measurement on the shipped table (serial, this process)."""
    from densing import paths
    from densing.data import read_results
    from densing.laws import joint
    from densing.trend.measure import measure_trend

    calls, solve = [], joint.solve

    def recording(p, scores, weights, start):
        calls.append(({k: np.array(v) for k, v in p.items()}, np.array(scores), np.array(weights), np.array(start)))
        return solve(p, scores, weights, start)

    os.environ["DENSING_SERIAL"] = "1"
    joint.solve = recording
    try:
        measure_trend(read_results(paths.RESULTS / "public_models.csv"))
    finally:
        joint.solve = solve
        del os.environ["DENSING_SERIAL"]
    return calls


def _start_seconds(runs: int, env: dict) -> list[tuple[float, float]]:
    """(import numba, the cached kernel's first call) in CPU seconds of a fresh process, ``runs`` times."""
    code = (
        "import time, numpy, densing.laws.joint; t = time.process_time(); import compiled_kernel; "
        "u = time.process_time(); compiled_kernel.install(); print(u - t, time.process_time() - u)"
    )
    found = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT
        )
        found.append(tuple(float(v) for v in done.stdout.split()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if njit is None:
        print("bench/compiled_kernel.py: needs numba (pip install numba)", file=sys.stderr)
        raise SystemExit(2)
    import numba

    with tempfile.TemporaryDirectory() as folder:
        os.environ["NUMBA_CACHE_DIR"] = folder
        sys.path.insert(0, str(ROOT))
        from densing.laws import joint

        calls = _recorded_solves()
        start = time.process_time()
        kernel_solve(*calls[0])
        compile_seconds = time.process_time() - start
        cpu: dict[str, list[float]] = {"numpy": [], "kernel": []}
        same = 0
        for _ in range(args.runs):
            for name, solve in (("numpy", joint.solve), ("kernel", kernel_solve)):
                start = time.process_time()
                found = [solve(*call) for call in calls]
                cpu[name].append(time.process_time() - start)
                if name == "numpy":
                    reference = found
                else:
                    same = sum(np.array_equal(a, b, equal_nan=True) for a, b in zip(found, reference))
        rows = sum(math.prod(np.broadcast_shapes(c[1].shape[:-1], c[3].shape)) for c in calls)

        out = Path(folder) / "report.html"
        plain = environment(ROOT)
        with_kernel = {**plain, "PYTHONPATH": os.pathsep.join([str(ROOT), str(BENCH)])}
        code = (
            "import sys; import compiled_kernel; compiled_kernel.install(); from densing.cli.app import main; "
            f"sys.argv = ['densing', 'report', '--out', {str(out)!r}]; main()"
        )
        commands = {
            "numpy solve": ([sys.executable, "-m", "densing.cli.app", "report", "--out", str(out)], plain, ROOT),
            "numba kernel": ([sys.executable, "-c", code], with_kernel, ROOT),
        }
        for command in commands.values():  # one warm-up each: bytecode, file caches, the kernel compiled and cached
            seconds(*command)
        starts = _start_seconds(args.runs, with_kernel)
        whole: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, command in commands.items():
                whole[name].append(seconds(*command))

    print(f"numba {numba.__version__}, numpy {np.__version__}; {os.cpu_count()} CPUs; {BYTECODE}")
    print(f"the kernel's first call in this process (compiled into an empty cache): {compile_seconds:.2f} CPU-s")
    print(f"a fresh process after numpy, {args.runs} runs, CPU seconds:")
    for i, what in enumerate(("import numba", "the kernel's first call, loaded from the cache")):
        values = [start[i] for start in starts]
        print(f"  {what:<48} median {statistics.median(values):.3f}  range {min(values):.3f}–{max(values):.3f}")
    print(
        f"the measurement's {len(calls)} solves ({rows} rows of (draw, model)), {args.runs} alternating runs; "
        f"identical to the bit: {same} of {len(calls)}"
    )
    for name, values in cpu.items():
        print(f"  {name:<7} median {statistics.median(values):.3f} CPU-s  range {min(values):.3f}–{max(values):.3f}")
    ratios = [a / b for a, b in zip(cpu["kernel"], cpu["numpy"])]
    print(f"  ratio kernel/numpy median {statistics.median(ratios):.2f}  range {min(ratios):.2f}–{max(ratios):.2f}")
    print(f"densing report --out OUT, {args.runs} paired whole-process runs after one warm-up each")
    for column, what in ((0, "wall"), (1, "CPU")):
        for name, values in whole.items():
            found = [run[column] for run in values]
            print(
                f"  {what:<4} {name:<13} median {statistics.median(found):5.2f} s  range {min(found):5.2f}–{max(found):5.2f} s"
            )
        ratios = [a[column] / b[column] for a, b in zip(whole["numba kernel"], whole["numpy solve"])]
        print(
            f"  {what:<4} ratio kernel/numpy median {statistics.median(ratios):.2f}  range {min(ratios):.2f}–{max(ratios):.2f}"
        )


if __name__ == "__main__":
    main()
