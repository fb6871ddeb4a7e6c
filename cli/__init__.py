"""The command line: one function per command, its `--help` line from its docstring.

Parts (private modules; import from here):
- `_app`: the parser made of every command module, one-line errors, exit codes (`main`)
- `_frame`: what every command shares (`command`, `world`, `print_json`)
- `_args`: input checks before a command runs
- `_system`, `_world`, `_memory`, `_playbooks`, `_backup`: the commands, by what they act on
"""

from __future__ import annotations

from cli._app import build_parser, main

__all__ = ["build_parser", "main"]
