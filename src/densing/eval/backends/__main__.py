"""lm-eval's command line with densing's backends registered: ``python -m densing.eval.backends``
takes exactly ``lm_eval``'s arguments, and ``--model densing-hf`` names
:class:`densing.eval.backends.prefix.lm.PrefixCachedHFLM` (its settings go in ``--model_args``)."""
from __future__ import annotations


def main() -> None:
    import densing.eval.backends.prefix.lm  # noqa: F401  (registers densing-hf)
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()


if __name__ == "__main__":
    main()
