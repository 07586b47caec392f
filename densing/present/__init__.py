"""What a reader sees of a result, and the one place words are made: the summary (:mod:`.summary`), a row's words
(:mod:`.words`), the headline's (:mod:`.verdict`), the findings' (:mod:`.findings`) and the trend's figures
(:mod:`.figures`, :mod:`.forest`). The results hold numbers, states and reasons as values (:mod:`densing.states`);
the command line, the report, ``summary()`` and the JSON all call these modules, which import no result module."""
