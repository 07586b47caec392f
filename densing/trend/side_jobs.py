"""Side computations in one forked worker process while this one computes the headline.

``batch(jobs, *args)`` is a module-level function (a fork pickles it by name); :func:`start`
hands it to the worker, :func:`finish` takes its result or, where there was no worker or it
died, computes it here — the same seeds, so the same numbers either way.
"""
from __future__ import annotations


def start(batch, jobs: list, *args):
    """``batch(jobs, *args)`` submitted to one forked worker process while this one goes on (on two cores
    the wall time drops by the batch's share); None where fork is missing, one core, or one job."""
    import os

    if len(jobs) < 2 or (os.cpu_count() or 1) < 2 or not hasattr(os, "fork") or os.environ.get("DENSING_SERIAL"):
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
        return pool, pool.submit(batch, jobs, *args)
    except (OSError, ValueError):
        return None


def finish(pending, batch, jobs: list, *args) -> dict:
    """``batch``'s result: the worker's (the same seeds, so the same numbers), or computed here."""
    if pending is not None:
        pool, future = pending
        try:
            return future.result()
        except Exception:  # noqa: BLE001 — a worker that died (e.g. out of memory) costs time, not the result
            pass
        finally:
            pool.shutdown(wait=True)
    return batch(jobs, *args)
