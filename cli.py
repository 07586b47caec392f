"""Runnable entry point at the repository root: ``python cli.py --help``."""
from densing.cli import main

if __name__ == "__main__":
    main()
