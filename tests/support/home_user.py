"""A child process for tests/reliability/test_home_share.py: one user of a home, as another program is.

- `python tests/support/home_user.py patch HOME DOC_ID TAG N`: open the home, append N lines to
  the document, print one JSON line with the lines appended, close.
- `python tests/support/home_user.py cycle HOME STOP`: open and close the home again and again
  (each open runs start-up repair when it is alone) until the file STOP exists; prints how many.
- `python tests/support/home_user.py hold HOME`: open the home, print `open`, and keep it open
  until its stdin closes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402


def patch(home: str, doc_id: str, tag: str, n: int) -> None:
    manager = SAIVerseManager(load_settings(home))
    lines: list[str] = []
    try:
        for i in range(n):
            line = f"{tag} 追記 {i}"
            manager.items.edit_document(doc_id, lambda t, line=line: (t + line + "\n", None))
            lines.append(line)
    finally:
        manager.close()
    print(json.dumps({"lines": lines}, ensure_ascii=False), flush=True)


def cycle(home: str, stop: str) -> None:
    opened = 0
    while not Path(stop).exists():
        SAIVerseManager(load_settings(home)).close()
        opened += 1
    print(json.dumps({"opened": opened}), flush=True)


def hold(home: str) -> None:
    manager = SAIVerseManager(load_settings(home))
    try:
        print("open", flush=True)
        sys.stdin.read()
    finally:
        manager.close()


if __name__ == "__main__":
    mode, *rest = sys.argv[1:]
    if mode == "patch":
        patch(rest[0], rest[1], rest[2], int(rest[3]))
    elif mode == "cycle":
        cycle(rest[0], rest[1])
    else:
        hold(rest[0])
