"""What a reader sees of a result: one :class:`~densing.present.summary.Summary` object rendered as terminal text,
HTML and JSON (:mod:`densing.present.summary`), and the trend's figures (:mod:`densing.present.figures`,
:mod:`densing.present.forest`). The trend's words (its verdict, status and reasons, the rows' table) are one module,
:mod:`densing.verdict`. The command line, the report and a notebook all show a result through these; the results
themselves hold numbers and states."""
