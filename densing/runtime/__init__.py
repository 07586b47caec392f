"""The package's runtime, apart from the science, one concern a module: the processes densing starts and how each
ends on every path (:mod:`.processes`), the heap and BLAS threads of the processes that compute (:mod:`.threads`), the
memo of values derived from a table (:mod:`.memo`) and the job executor that computes a plan's jobs one process per
core (:mod:`.executor`). A caller imports from the module of its concern."""
