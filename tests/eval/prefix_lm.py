"""The prefix-cached lm of the tests under other settings, the model not reloaded."""
from __future__ import annotations


def with_settings(lm, settings):
    """A copy of the prefix-cached ``lm`` (the same model and tokenizer, not reloaded) that runs with ``settings``."""
    import copy

    from densing.eval.backends.prefix.settings import DecodeStats, TrieStats

    clone = copy.copy(lm)
    clone.__dict__.pop("_recent_encodings", None)  # its own encodings' memo, not the shared dict
    clone.settings, clone.decode_stats, clone.trie_stats = settings, DecodeStats(), TrieStats()
    return clone
