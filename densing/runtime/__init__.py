"""The package's runtime, apart from the science, one concern a module: :mod:`.processes`, :mod:`.threads`,
:mod:`.memo` and :mod:`.executor`."""
