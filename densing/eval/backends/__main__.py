"""lm-eval's command line with densing's backends registered: ``python -m densing.eval.backends``
takes exactly ``lm_eval``'s arguments, and ``--model densing-hf`` names
:class:`densing.eval.backends.prefix.lm.PrefixCachedHFLM` (its settings go in ``--model_args``)."""
from __future__ import annotations


def main() -> None:
    from densing.eval.backends import ensure_registered

    ensure_registered()
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()


if __name__ == "__main__":
    main()
