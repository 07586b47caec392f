"""The package's functions called only by something vulture cannot read (tests/test_dead_code.py): one name a line,
with its caller. vulture reads this file as code, so each name below counts as used."""
# ruff: noqa
# flake8: noqa

__getattr__  # Python calls a module's __getattr__ for a missing name: densing's and densing.overlap's lazy names
__dir__  # Python's dir() on the module: the lazy names listed before they load
_repr_html_  # Jupyter's rich display of a result (the notebooks in docs/notebooks show them)
register_format  # the data-format registry's extension point (docs/extending.md, docs/api.md)
loglikelihood_rolling  # lm-eval's evaluate calls a model's request methods by name (getattr(lm, reqtype)): densing.eval.deferred.LoadsOnFirstRequest's
windows_frame  # densing.present's public function (densing.present.PUBLIC, lent by name to a notebook): a forecast check's cutoffs with their words
compression_frame  # densing.present's public function (densing.present.PUBLIC): the cost pairs of compression_density with their note in words
excluded_reasons  # densing.present's public function (densing.present.PUBLIC): why a cost-halving fit left each row out, in words
