"""The command line that makes a written page again (the report's footer cites it), held as values: the command and
its options, so that whether it gives an option is read from the options, never from the joined words."""

from __future__ import annotations

import shlex
from dataclasses import dataclass


@dataclass(frozen=True)
class CommandLine:
    """``densing COMMAND`` and its ``options`` (option → value, in order): a flag where its value is True, left out
    where it is None or False; ``str()`` is the command line as a shell reads it."""

    command: str
    options: tuple[tuple[str, object], ...]

    @classmethod
    def of(cls, command: str, options: dict) -> CommandLine:
        """The command line of ``command`` with ``options`` (option → value)."""
        return cls(command, tuple(options.items()))

    def gives(self, option: str) -> bool:
        """Whether the command line gives ``option`` (a value, or a flag that is set)."""
        return any(name == option and _given(value) for name, value in self.options)

    def __str__(self) -> str:
        words = ["densing", self.command]
        for option, value in self.options:
            if value is True:
                words.append(option)
            elif _given(value):
                words += [option, f"{value:g}" if isinstance(value, float) else str(value)]
        return shlex.join(words)


def _given(value: object) -> bool:
    """Whether an option's value puts it on the command line (None and False leave it out)."""
    return value is not None and value is not False
