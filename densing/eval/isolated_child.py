"""The child's side of :mod:`densing.eval.isolated` (its protocol): ``run_sweep(**JOB)`` for one model, events as JSON
lines to descriptor EVENTS_FD; exit status 0, or 2 on a densing error."""

from __future__ import annotations

import json
import os
import pickle
import sys
from dataclasses import asdict

from densing.errors import EvalError, InputError


def child(job_path: str, events_fd: int) -> int:
    """The child's side: run the job, write its events, return the exit status."""
    events = os.fdopen(events_fd, "w", encoding="utf-8", buffering=1)

    def send(*event) -> None:
        events.write(json.dumps(list(event)) + "\n")

    try:
        with open(job_path, "rb") as handle:
            arguments = pickle.load(handle)
        from densing.eval.runner import run_sweep

        run_sweep(
            **arguments,
            on_progress=lambda *progress: send("progress", *progress),
            on_reuse=lambda model, benchmark, file, requests: send("reuse", model, benchmark, str(file), requests),
            on_requests=lambda model, benchmark, handed: send("requests", model, benchmark, asdict(handed)),
        )
    except (InputError, EvalError) as error:
        send("error", type(error).__name__, str(error))
        return 2
    send("done")
    events.close()
    return 0


if __name__ == "__main__":
    sys.exit(child(sys.argv[1], int(sys.argv[2])))
