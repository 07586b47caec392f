"""Runnable entry point at the repository root: ``python cli.py --help`` (the package beside it, installed or not)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from densing.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
