"""Exposed communication split into transfer and peer wait (skew), across the ranks of a set.

A collective cannot finish before its slowest participant has joined: one that starts on rank r while a peer is
still computing spends its first part waiting. The j-th collective of a given name in ProfilerStep N is matched on
every rank (same program, same sequence on each rank); with s_r its start on rank r (the set's common clock),

* peer wait of rank r     w_r = min(duration_r, max_r' s_r' − s_r)   (waiting for the last to join);
* per rank: peer wait = |∪[s_r, s_r + w_r)|, transfer = |∪ collectives| − peer wait (unions: queued asynchronous
  collectives overlap one another);
* exposed peer wait  = |W \\ C|, W = ∪[s_r, s_r + w_r), C the rank's computation (as in :mod:`densing.overlap.metrics`);
* exposed transfer   = exposed communication − exposed peer wait.

Exposed transfer is what a better overlap could hide; exposed peer wait is skew, which only balancing the ranks
removes. Collectives whose match is missing on a rank (the profiler window cut it) are left out of the split
(counted in ``unmatched``).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import numpy as np

from densing.overlap.intervals import intersection_length, subtract_intervals, union_length
from densing.overlap.model import COMMUNICATION, COMPUTATION, RankTrace

if TYPE_CHECKING:
    import pandas as pd


_KEY = ["step", "name", "nth"]


def _collectives(t: RankTrace) -> "pd.DataFrame":
    """A rank's collectives by start, keyed by :data:`_KEY`: the ``nth`` of its name in its ProfilerStep."""
    import pandas as pd

    comm = np.flatnonzero(t.kernel_category == COMMUNICATION)
    comm = comm[np.argsort(t.kernel_start_us[comm], kind="stable")]
    names = np.asarray(t.kernel_names, dtype=object)[t.kernel_name_code[comm]]
    frame = pd.DataFrame({"step": t.kernel_step[comm], "name": names, "start": t.kernel_start_us[comm],
                          "end": t.kernel_end_us[comm]})
    return frame.assign(nth=frame.groupby(["step", "name"]).cumcount())


def peer_wait_rows(traces: Iterable[RankTrace]) -> list[dict]:
    """One row per rank: comm_us, peer_wait_us, transfer_us, exposed_comm_us, exposed_peer_wait_us,
    exposed_transfer_us, matched and unmatched collectives (see the module docstring)."""
    import pandas as pd

    traces = list(traces)
    keyed = [_collectives(t) for t in traces]
    every = pd.concat(keyed).groupby(_KEY)["start"].agg(latest="max", ranks="size")  # max_r' s_r', and on how many
    rows = []
    for t, frame in zip(traces, keyed):
        frame = frame.join(every, on=_KEY)
        ok = (frame["ranks"] == len(traces)).to_numpy()
        s, e = frame["start"].to_numpy(), frame["end"].to_numpy()
        wait = np.clip(frame["latest"].to_numpy() - s, 0.0, e - s)
        wait[~ok] = 0.0
        comp = t.kernel_category == COMPUTATION
        comm_total = union_length(s, e)
        exposed = float(comm_total - intersection_length(s, e, t.kernel_start_us[comp], t.kernel_end_us[comp]))
        ws, we = subtract_intervals(s[ok], s[ok] + wait[ok], t.kernel_start_us[comp], t.kernel_end_us[comp])
        exposed_wait = min(exposed, float((we - ws).sum()))
        waited = union_length(s[ok], s[ok] + wait[ok])
        rows.append({"rank": t.rank, "comm_us": comm_total, "peer_wait_us": waited,
                     "transfer_us": comm_total - waited, "exposed_comm_us": exposed,
                     "exposed_peer_wait_us": exposed_wait, "exposed_transfer_us": exposed - exposed_wait,
                     "matched": int(ok.sum()), "unmatched": int((~ok).sum())})
    return rows


def peer_wait(source: str | Path | Iterable[RankTrace]) -> "pd.DataFrame":
    """:func:`peer_wait_rows` of a trace directory (or read traces) as a DataFrame."""
    import pandas as pd

    from densing.overlap.trace import read_traces

    return pd.DataFrame(peer_wait_rows(read_traces(source) if isinstance(source, (str, Path)) else list(source)))
