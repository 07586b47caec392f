"""densing's prefix engine as an lm-eval backend (``densing-hf``), split by idea:

- :mod:`.settings`: :class:`~.settings.PrefixSettings` (every tunable number, frozen, checked) and
  the statistics calls return;
- :mod:`.grouping`: shared token prefixes, request groups and batches, rows cut into runs;
- :mod:`.trie`: the log-likelihood trie walk (every distinct token position once);
- :mod:`.drafts`: n-gram drafts and the width of a drafted step;
- :mod:`.slots`: the slot buffers of continuous batching and the cascade attention over a shared prefix;
- :mod:`.scheduler`: continuous batching over shared prefixes;
- :mod:`.fixed`: fixed-batch decoding over a shared prefix;
- :mod:`.generation`: greedy ``generate_until`` with lm-eval's strings;
- :mod:`.lm`: :class:`~.lm.PrefixCachedHFLM`, registered with lm-eval as ``densing-hf`` by
  :mod:`densing.eval.backends.densing_hf`.

Only :mod:`.settings`, :mod:`.grouping` and :mod:`.drafts` import without torch and lm-eval; this
package imports none of its modules.
"""
