"""What a reader sees of a result, and the one place words are made: the summary (:mod:`.summary`), a row's words
(:mod:`.words`), the headline's (:mod:`.verdict`), the findings' (:mod:`.findings`) and the trend's figures
(:mod:`.figures`, :mod:`.forest`). The results hold numbers, states and reasons as values (:mod:`densing.states`) and
import none of this layer: :mod:`.renders` registers each rendering for the result type it renders, and a result's
``summary()``, ``status`` or ``plot()`` asks for it by name (:func:`densing.results.presented`)."""
