"""The ``densing`` command line: thin typer commands over the library.

Each command parses its arguments, calls one library function and renders the result
(``--format table|json|csv``). A :class:`densing.errors.DensingError` becomes one line on stderr
and exit code 2.
"""
from __future__ import annotations

import sys

import typer

from densing.errors import DensingError
from densing.eval.cli import eval_app

app = typer.Typer(
    name="densing",
    help="LLM evaluation and capacity-density analytics (Densing Law), and overlap profiling.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(eval_app, name="eval")


def main(argv: list[str] | None = None) -> None:
    """Console-script entry: run the typer app, mapping DensingError to one line + exit 2."""
    try:
        code = app(args=argv, standalone_mode=False)
        if isinstance(code, int) and not isinstance(code, bool) and code:
            sys.exit(code)  # typer returns Exit codes here (130 on Ctrl-C) instead of exiting
    except DensingError as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"error: {msg}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as exc:  # pragma: no cover - typer internals
        sys.exit(exc.exit_code)
    except SystemExit:
        raise
    except Exception as exc:  # click usage errors
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(2)
        if isinstance(exc, click.exceptions.Abort):
            print("aborted", file=sys.stderr)
            sys.exit(130)
        raise
