"""What a reader sees of a result, and the one place words are made: one :class:`~densing.present.summary.Summary`
rendered as terminal text, HTML and JSON (:mod:`densing.present.summary`); a state's words, a row's status and the
rows' table (:mod:`densing.present.words`); the headline's verdict and sentences (:mod:`densing.present.verdict`);
the checks', forecasts' and fixed-size fits' words (:mod:`densing.present.findings`); the trend's figures
(:mod:`densing.present.figures`, :mod:`densing.present.forest`). The results hold numbers, states and reasons as
values (:mod:`densing.states`); the command line, the report, a notebook's ``summary()`` and the JSON's words all
call these modules, which import no result module."""
