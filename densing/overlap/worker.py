"""The entry torchrun starts on each rank of ``densing overlap run``: ``python -m densing.overlap.worker RUN_DIR``.

torchrun starts each worker in a process group of its own, so before anything heavy is imported the worker ties its
life to torchrun's (:func:`densing.runtime.processes.worker_setup`), then runs ``train_worker.worker_main``.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    from densing.runtime.processes import worker_setup

    worker_setup(os.getppid())
    from densing.overlap.train_worker import worker_main

    worker_main(sys.argv[1])
