"""The files a command writes, as the user names them: each such option is declared once, by :func:`output_option`,
and its value read by :class:`OutputFile` while typer parses the command line — ``DIR/`` (a folder, made where
missing) is the file the option names in it, ``-`` is standard output where the file can be a stream and refused
where it cannot (an HTML report, a fit written beside its summary: docs/cli.md, "Outputs")."""

from __future__ import annotations

import os

import click
import typer

from densing.errors import InputError
from densing.io import output_file


class OutputFile(click.ParamType):
    """The value of an output option: ``DIR/`` → ``DIR/<file>`` (:func:`densing.io.output_file`); ``-`` as it is where
    ``streams``, else an InputError that names the option, what the file ``holds`` and the command (one line, before
    the command runs)."""

    name = "path"  # the help's metavar, PATH, as typer shows a Path option's

    def __init__(self, file: str, holds: str, streams: bool) -> None:
        self.file = file
        self.holds = holds
        self.streams = streams

    def convert(self, value, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = os.fspath(value)  # a default is a Path; a value typed is text
        if text == "-" and not self.streams:
            raise InputError(
                f"{_flag(param)} -: {self.holds} is a file beside what {_command(ctx)} prints on standard output, so "
                "it cannot be standard output; give a file name"
            )
        return output_file(text, self.file)


def _flag(param: click.Parameter | None) -> str:
    """The option as the user writes it (its longest name, ``--out``)."""
    return max(param.opts, key=len) if param is not None and param.opts else "the output"


def _command(ctx: click.Context | None) -> str:
    """The command as the user typed it (``densing measure``)."""
    return ctx.command_path if ctx is not None else "densing"


def output_option(default, flag: str, *, file: str, holds: str, streams: bool = False, help: str):
    """A typer option ``flag`` for a file the command writes: ``DIR/`` gives the file ``file`` in DIR; ``-`` standard
    output where ``streams`` (else refused, naming what the file ``holds``); ``default`` and ``help`` as
    :func:`typer.Option`'s."""
    return typer.Option(default, flag, click_type=OutputFile(file, holds, streams), help=help)
