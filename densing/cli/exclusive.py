"""Options that cannot apply together: one declared table per command, checked in one place before the command runs.

:data:`EXCLUSIVE` maps a command (as typed after ``densing``: ``"fit"``, ``"overlap validate"``) to pairs of
:class:`Given` conditions that the command cannot honour at once, each with the reason. :class:`CheckedCommand` (the
click command class of every densing command, set in :mod:`densing.cli.app`) refuses such a pair in one line naming
both options before the command's body runs, so an option is never ignored in silence.
"""
from __future__ import annotations

from dataclasses import dataclass

import click
from typer.core import TyperCommand

from densing.errors import InputError


@dataclass(frozen=True)
class Given:
    """An option given on the command line (``param``: its parameter name), and with ``value`` (its value as typed,
    e.g. ``"olmes"``) only when it holds that value, with ``other_than`` only when it holds another value."""

    param: str
    value: str | None = None
    other_than: str | None = None

    def holds(self, ctx: click.Context) -> bool:
        source = ctx.get_parameter_source(self.param)
        if source not in (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT):
            return False
        value = str(getattr(ctx.params.get(self.param), "value", ctx.params.get(self.param)))
        if self.other_than is not None:
            return value != self.other_than
        return self.value is None or value == self.value

    def flag(self, ctx: click.Context) -> str:
        option = next((p for p in ctx.command.params if p.name == self.param), None)
        name = max(option.opts, key=len) if option is not None and option.opts else self.param
        if self.other_than is not None:
            return f"{name} {ctx.params.get(self.param)}"
        return name if self.value is None else f"{name} {self.value}"


_FAMILY = "the family law S(N) = c/(1+e^(-γ(ln N - l))) + d is fitted on one family at its own budget, with d = chance " \
          "and c + d = 1"
#: Per command, the pairs of options that cannot apply together, and why.
EXCLUSIVE: dict[str, tuple[tuple[Given, Given, str], ...]] = {
    "fit": (
        (Given("family"), Given("law"), f"{_FAMILY}; --law chooses between the two-step and composed laws"),
        (Given("family"), Given("irreducible"), f"{_FAMILY}; it has no loss, so no irreducible loss E"),
        (Given("family"), Given("chance"), f"{_FAMILY}"),
        (Given("family"), Given("ceiling"), f"{_FAMILY}"),
        (Given("family"), Given("max_params"), f"{_FAMILY}: every member of the family is fitted"),
        (Given("family"), Given("families"), f"{_FAMILY}: --family names the one family"),
    ),
    "trend": (
        (Given("design", other_than="leaderboard"), Given("without_continual"),
         "a second design has its own targets; --without-continual applies to --design leaderboard"),
        (Given("design", other_than="leaderboard"), Given("table_name"),
         "a second design has its own targets; --table applies to --design leaderboard"),
    ),
    "measure": (
        (Given("scores"), Given("models"),
         "--scores places scores you already have; --models evaluates models first: give one of them"),
        (Given("scores"), Given("local_data"), "--scores evaluates nothing, so it reads no benchmark split"),
        (Given("models"), Given("model_name"), "--model names the one model of a scores file (--scores)"),
        (Given("models"), Given("params"), "the models file gives each model's size; --params applies to --scores"),
        (Given("models"), Given("release_date"),
         "the models file gives each model's release date; --release-date applies to --scores"),
    ),
    "overlap validate": (
        (Given("contention"), Given("calibration"),
         "--calibration prints the sync run's calibration, which no contention enters"),
        (Given("contention"), Given("runs"),
         "γ enters only T3's tp-chunked prediction of a run output folder (OUT with tp-none/ and tp-chunked/), not "
         "runs named one by one"),
    ),
    "overlap whatif": (
        (Given("contention"), Given("contention_from"),
         "--contention-from measures T3's γ on a tp-chunked run, --contention gives it by hand; give one"),
    ),
}


def refuse_exclusive(ctx: click.Context) -> None:
    """An InputError naming the first declared pair of :data:`EXCLUSIVE` that ``ctx``'s command line gives both of."""
    command = ctx.command_path.split(" ", 1)[1] if " " in ctx.command_path else ctx.command_path
    for first, second, why in EXCLUSIVE.get(command, ()):
        if first.holds(ctx) and second.holds(ctx):
            raise InputError(f"{second.flag(ctx)}: cannot apply with {first.flag(ctx)} ({why})")


class CheckedCommand(TyperCommand):
    """A typer command whose declared exclusive options (:data:`EXCLUSIVE`) are refused before its body runs."""

    def invoke(self, ctx: click.Context):
        refuse_exclusive(ctx)
        return super().invoke(ctx)
