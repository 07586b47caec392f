"""The package's runtime, in one place, apart from the science: the processes densing starts and how each ends on
every path (:mod:`densing.runtime.processes`: pools, forked children, subprocesses, signals), the processes that
compute a measurement's declared jobs with BLAS held to one thread and the heap kept (:mod:`densing.runtime.executor`),
and the memo of values derived from a table (:mod:`densing.runtime.memo`: a :class:`~densing.runtime.memo.TableMemo`
object, open for a block). The trend, the bootstrap, the overlap engine and the evaluation's isolated children all
start their processes here. This package imports nothing at its top, so that a command's start-up reads only what it
uses."""
