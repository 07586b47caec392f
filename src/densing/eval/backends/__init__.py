"""lm-eval backends densing adds, each registered in lm-eval's model registry.

``densing-hf`` (:mod:`densing.eval.backends.prefix`): lm-eval's HF backend with every distinct
token position of the log-likelihood requests run once (a trie over their tokens) and greedy
``generate_until`` decoded over shared few-shot prefixes (continuous batching, n-gram drafts). It is
registered when :mod:`densing.eval.backends.prefix.lm` is imported; ``python -m densing.eval.backends``
runs lm-eval's own command line with it registered (lm-eval 0.4 finds models only in its registry and
has no plugin entry-point group), e.g.::

    python -m densing.eval.backends run --model densing-hf \\
        --model_args pretrained=HuggingFaceTB/SmolLM2-135M,draft=4,rows_per_batch=16 --tasks gsm8k
"""
