"""``python -m densing.eval.backends``: lm-eval's command line with densing's backends registered (``--model
densing-hf``, its settings in ``--model_args``)."""

from densing.eval.backends import ensure_registered

if __name__ == "__main__":
    ensure_registered()
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()
