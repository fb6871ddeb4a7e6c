"""`python main.py transcribe F.wav`: the words of a recording, by the listener set in 設定 or by
SAIVERSE_STT_URL (saiverse/listen). The world is not opened: only the settings are read."""

from __future__ import annotations

import argparse
from typing import Any

from cli._frame import add_json, command, print_json, settings
from saiverse.errors import UsageError


def register(sub: Any) -> None:
    """This module's command on the main parser."""
    p = command(sub, transcribe)
    p.add_argument("file", nargs="?", default="", help="a recording: WAV, MP3, WebM, Ogg, FLAC or M4A (at most 25 MB)")
    p.add_argument("--status", action="store_true", help="only say who listens (the file is not read)")
    add_json(p, 'print one JSON object ({"text": …})')


def transcribe(args: argparse.Namespace) -> int:
    """write down what a recording says (SAIVERSE_STT_URL or the listener set in 設定)"""
    from saiverse.listen import listener_status
    from saiverse.listen import transcribe as listen

    current = settings(args)
    if args.status:
        ready, line = listener_status(current)
        print_json({"ready": ready, "listener": line}) if args.json else print(line)
        return 0 if ready else 2
    if not args.file:
        raise UsageError("transcribe needs a recording: python main.py transcribe F.wav (or --status)")
    text = listen(current, args.file)  # a ListenError is a UserError: one line, exit 2 (cli/_app.py)
    print_json({"text": text}) if args.json else print(text)
    return 0
