"""What a reader sees of a result: one :class:`~densing.present.summary.Summary` object rendered as terminal text,
HTML and JSON (:mod:`densing.present.summary`), the trend's verdict and status in words (:mod:`densing.present.verdict`),
and the trend's figures (:mod:`densing.present.figures`, :mod:`densing.present.forest`). The command line, the report
and a notebook all show a result through this package; the results themselves hold numbers and states."""
