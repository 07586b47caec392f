"""``python -m densing.eval.backends``: lm-eval's command line with densing's backends registered (``--model
densing-hf``, its settings in ``--model_args``)."""
from __future__ import annotations


def main() -> None:
    from densing.eval.backends import ensure_registered

    ensure_registered()
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()


if __name__ == "__main__":
    main()
