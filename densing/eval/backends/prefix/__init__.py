"""densing's prefix engine as an lm-eval backend (``densing-hf``: :class:`~.lm.PrefixCachedHFLM`), one module per
idea: :mod:`.settings`, :mod:`.grouping` (shared prefixes, groups, batches, runs), :mod:`.trie` (the log-likelihood
trie walk), :mod:`.drafts`, :mod:`.slots` (slot buffers, cascade attention), :mod:`.scheduler` (continuous
batching), :mod:`.fixed` (fixed batches), :mod:`.generation` (greedy ``generate_until``) and :mod:`.lm`. Only
:mod:`.settings`, :mod:`.grouping` and :mod:`.drafts` import without torch and lm-eval; this package imports none.
"""
