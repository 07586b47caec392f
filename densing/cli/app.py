"""The typer app and the console-script entry :func:`main`. :data:`EXCLUSIVE` declares the options each command
cannot apply together; :class:`CheckedCommand` refuses such a pair before the command runs, so an option is never
ignored in silence.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import click
import typer
import typer.main
from typer.core import TyperCommand

from densing import registry
from densing.cli import laws, measure, trend
from densing.cli.eval import eval_app
from densing.cli.guard import guarded, leave, one_line, plain_terminal, refuse
from densing.cli.ladder import ladder_app
from densing.cli.output import command_group
from densing.cli.overlap import overlap_app
from densing.errors import DensingError, InputError
from densing.runtime import processes


@dataclass(frozen=True)
class Given:
    """An option ``param`` given on the command line (with ``other_than``: holding another value than that)."""

    param: str
    other_than: str | None = None

    def holds(self, ctx: click.Context) -> bool:
        source = ctx.get_parameter_source(self.param)
        if source not in (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT):
            return False
        value = str(getattr(ctx.params.get(self.param), "value", ctx.params.get(self.param)))
        return self.other_than is None or value != self.other_than

    def flag(self, ctx: click.Context) -> str:
        option = next((p for p in ctx.command.params if p.name == self.param), None)
        name = max(option.opts, key=len) if option is not None and option.opts else self.param
        return name if self.other_than is None else f"{name} {ctx.params.get(self.param)}"


_FAMILY = (
    "the family law S(N) = c/(1+e^(-γ(ln N - l))) + d is fitted on one family at its own budget, with d = chance "
    "and c + d = 1"
)
#: Per command (as typed after ``densing``), the pairs of options that cannot apply together, and why.
EXCLUSIVE: dict[str, tuple[tuple[Given, Given, str], ...]] = {
    "fit": (
        (Given("family"), Given("law"), f"{_FAMILY}; --law chooses between the two-step and composed laws"),
        (Given("family"), Given("irreducible"), f"{_FAMILY}; it has no loss, so no irreducible loss E"),
        *((Given("family"), Given(option), _FAMILY) for option in ("chance", "ceiling")),
        (Given("family"), Given("max_params"), f"{_FAMILY}: every member of the family is fitted"),
        (Given("family"), Given("families"), f"{_FAMILY}: --family names the one family"),
    ),
    "trend": (
        (
            Given("design", other_than="leaderboard"),
            Given("without_continual"),
            "a second design has its own targets; --without-continual applies to --design leaderboard",
        ),
        (
            Given("design", other_than="leaderboard"),
            Given("table_name"),
            "a second design has its own targets; --table applies to --design leaderboard",
        ),
    ),
    "measure": (
        (
            Given("scores"),
            Given("models"),
            "--scores places scores you already have; --models evaluates models first: give one of them",
        ),
        (Given("scores"), Given("local_data"), "--scores evaluates nothing, so it reads no benchmark split"),
        *(
            (
                Given("scores"),
                Given(option),
                "--scores evaluates nothing: it places the scores against a table's "
                "headline (--table, default the public table's)",
            )
            for option in (
                "suite",
                "limit",
                "store",
                "backend",
                "device",
                "batch_size",
                "data_root",
                "allow_unsafe_code",
                "prefix_cache",
            )
        ),
        *(
            (Given("template"), Given(option), "--template writes a scores file to fill in, and stops")
            for option in (
                "scores",
                "models",
                "out",
                "csv",
                "model_name",
                "params",
                "release_date",
                "suite",
                "local_data",
                "data_root",
                "limit",
                "store",
                "backend",
                "device",
                "batch_size",
                "prefix_cache",
                "allow_unsafe_code",
                "n_boot",
                "seed",
                "allow_missing",
            )
        ),
        (Given("models"), Given("model_name"), "--model names the one model of a scores file (--scores)"),
        (
            Given("models"),
            Given("allow_missing"),
            "the models are evaluated on every benchmark of their suite; "
            "--allow-missing places a scores file (--scores) that lacks one",
        ),
        (Given("models"), Given("params"), "the models file gives each model's size; --params applies to --scores"),
        (
            Given("models"),
            Given("release_date"),
            "the models file gives each model's release date; --release-date applies to --scores",
        ),
    ),
    "overlap validate": (
        (
            Given("contention"),
            Given("calibration"),
            "--calibration prints the sync run's calibration, which no contention enters",
        ),
        (
            Given("contention"),
            Given("runs"),
            "γ enters only T3's tp-chunked prediction of a run output folder (OUT with tp-none/ and tp-chunked/), not "
            "runs named one by one",
        ),
    ),
    "overlap whatif": (
        (
            Given("contention"),
            Given("contention_from"),
            "--contention-from measures T3's γ on a tp-chunked run, --contention gives it by hand; give one",
        ),
    ),
}


class CheckedCommand(TyperCommand):
    """A typer command that refuses, before its body runs, a pair of :data:`EXCLUSIVE` options given together."""

    def invoke(self, ctx: click.Context):
        command = ctx.command_path.split(" ", 1)[1] if " " in ctx.command_path else ctx.command_path
        for first, second, why in EXCLUSIVE.get(command, ()):
            if first.holds(ctx) and second.holds(ctx):
                raise InputError(f"{second.flag(ctx)}: cannot apply with {first.flag(ctx)} ({why})")
        return super().invoke(ctx)


#: ``densing --help``'s opening: what densing is, then four commands to start with (``\b``: click keeps the lines),
#: then the registered target tables every command that measures takes.
HELP = """LLM evaluation and capacity-density analytics (Densing Law), and overlap profiling.

\b
Quick start:
  densing trend                        the doubling time of capacity density
  densing trend --table openllm_v2     the same on the second table
  densing density                      each model's density in the headline
  densing measure --scores FILE        your model's scores on the chart

The target table of trend, report, density and measure: --table NAME (TABLES; default LEADING), or --results FILE
(docs/cli.md, "Which table").

Every command: densing COMMAND --help; examples of each: docs/cli.md.""".replace(
    "TABLES", ", ".join(registry.tables())
).replace("LEADING", registry.leading_table().name)

app = command_group(HELP, name="densing", context_settings={"help_option_names": ["-h", "--help"]})


def _version(value: bool) -> None:
    if value:
        from densing import __version__

        print(f"densing {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    pass  # the help is HELP (the app's); a docstring here would replace it


def summary(text: str | None) -> str | None:
    """A command's line in its group's help: the first sentence of its help, whole (click would cut its own)."""
    if not text:
        return None
    first = " ".join(text.strip().split("\n\n", 1)[0].split())
    return re.split(r"(?<=\.)\s+(?=[A-Z])", first, maxsplit=1)[0]  # its first sentence


for command in (laws.fit, laws.convert, laws.validate, laws.density, trend.trend, trend.report, measure.measure):
    app.command(short_help=summary(command.__doc__))(command)
for _group, _name in ((eval_app, "eval"), (overlap_app, "overlap"), (ladder_app, "ladder")):
    app.add_typer(_group, name=_name, short_help=summary(_group.info.help))
for _group in (app, eval_app, overlap_app, ladder_app):  # every command refuses its declared exclusive options
    for _info in _group.registered_commands:
        if _info.cls in (None, typer.core.TyperCommand):
            _info.cls = CheckedCommand
        if _info.short_help is None:
            _info.short_help = summary(_info.help or (_info.callback.__doc__ if _info.callback else None))


def print_help(argv: list[str]) -> bool:
    """Print the help of ``densing [group ...] [command] --help`` from the command tree without parsing (which is
    slow); False if argv is not that."""
    if not argv or argv[-1] not in ("--help", "-h") or any(a.startswith("-") for a in argv[:-1]):
        return False
    command = typer.main.get_command(app)
    context = command.context_class(command, info_name="densing", **command.context_settings)
    for name in argv[:-1]:
        if not hasattr(command, "get_command"):
            return False
        sub = command.get_command(context, name)
        if sub is None:
            return False
        command, context = sub, sub.context_class(sub, info_name=name, parent=context)
    typer.echo(command.get_help(context))
    return True


def main(argv: list[str] | None = None) -> None:
    """Console-script entry. A usage error and a :class:`DensingError` each become one line on stderr and exit 2;
    ``densing`` or a group without a command prints its help (exit 2); Ctrl-C exits 130 and ``SIGTERM`` 143, each
    with one line, after every worker has ended; anything else is a bug and keeps its traceback."""
    args = sys.argv[1:] if argv is None else list(argv)
    plain_terminal()  # help screens too (click itself writes UTF-8 where a stream says ASCII, not where it says Latin-1)
    if print_help(args):
        return
    with guarded():
        _dispatch(args)


def _empty_option(args: list[str]) -> str | None:
    """The first option or argument given an empty value (``--out ""``, ``--out=``, a positional ``""``; typer would
    read it as the working folder), an argument named as its help shows it (``PATH``)."""
    for i, word in enumerate(args):
        if word.startswith("--") and "=" in word and word.split("=", 1)[1] == "":
            return word.split("=", 1)[0]
        if word == "":
            named = i > 0 and args[i - 1].startswith("--") and "=" not in args[i - 1]  # --out ""
            return args[i - 1] if named else _argument_name(args, i)
    return None


def _argument_name(args: list[str], index: int) -> str:
    """The name (``PATH``) of the positional argument that ``args[index]`` fills, else ``argument N``."""
    command = typer.main.get_command(app)
    context = command.context_class(command, info_name="densing")
    position = 0
    words = iter(args[:index])
    for word in words:
        if word.startswith("-"):
            option = next((p for p in command.params if word.split("=", 1)[0] in p.opts), None)
            if "=" not in word and option is not None and not getattr(option, "is_flag", False):
                next(words, None)  # its value
            continue
        if isinstance(command, click.Group) and (sub := command.get_command(context, word)) is not None:
            command, context = sub, sub.context_class(sub, info_name=word, parent=context)
            continue
        position += 1
    for argument in (p for p in command.params if isinstance(p, click.Argument)):
        if position < argument.nargs or argument.nargs == -1:
            return argument.human_readable_name
        position -= argument.nargs
    return f"argument {index + 1}"


def _dispatch(args: list[str]) -> None:
    """Run the command line ``args`` through typer, errors as :func:`main` describes."""
    if (empty := _empty_option(args)) is not None:  # refused first: an empty path is the working folder, a number none
        print(f"error: {empty}: an empty value (an unset shell variable?); give one", file=sys.stderr)
        sys.exit(2)

    try:
        code = app(args=args, prog_name="densing", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:  # `densing`, `densing eval`: the help screen
        print(exc.ctx.get_help() if exc.ctx is not None else exc.format_message(), file=sys.stderr)
        sys.exit(2)
    except click.ClickException as exc:  # usage errors: one line that says where help is
        where = f" (see '{exc.ctx.command_path} --help')" if getattr(exc, "ctx", None) is not None else ""
        message = one_line(exc.format_message())
        message = re.sub(r"(Did you mean [^?]*\?)(?: \1)+", r"\1", message)  # typer and click each add it
        print(f"error: {message}{where}", file=sys.stderr)
        sys.exit(2)
    except click.exceptions.Abort:  # Ctrl-C while click was prompting or parsing
        code = 130
    except DensingError as exc:
        if not processes.interrupted:
            refuse(exc)
        code = 130  # Ctrl-C's KeyboardInterrupt, made into an error where it was raised (processes.interrupted)
    if code == 130:  # typer's answer to Ctrl-C (KeyboardInterrupt) in a command, and click's Abort
        print("error: interrupted", file=sys.stderr)
    if isinstance(code, int) and code:  # a command's typer.Exit(code)
        sys.exit(code)


if __name__ == "__main__":
    leave(main)
