"""The package's runtime, apart from the science, one concern a module: the processes densing starts and how each
ends on every path (:mod:`.processes`), the heap and BLAS threads of the processes that compute (:mod:`.threads`), the
memo of values derived from a table (:mod:`.memo`) and the job executor that computes a plan's jobs one process per
core (:mod:`.executor`). A caller imports from the module of its concern; the names below are also handed on here, for
the callers that still import them from the package."""
from densing.runtime.memo import per_table, same_tables
from densing.runtime.processes import end_subprocess, worker_setup

__all__ = ["end_subprocess", "per_table", "same_tables", "worker_setup"]
