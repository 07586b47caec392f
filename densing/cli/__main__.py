"""``python -m densing.cli`` (and ``accelerate launch -m densing.cli``): the command line."""

from densing.cli import run

run()
