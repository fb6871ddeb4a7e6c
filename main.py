"""SAIVerse entry point: `python main.py` starts the UI; subcommands form the CLI (README, "Command line").

The commands live in `cli/`, one function each. Every command takes `--home`, prints JSON where
asked, and exits 0 on success, 1 when the work failed and 2 with one readable line when the input
was wrong (saiverse/errors.py). Starting anything migrates the database and seeds the world on first run.
"""

from __future__ import annotations

import sys

from cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
