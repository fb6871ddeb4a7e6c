"""A child process for the concurrency test: pulses of one persona and document patches, against a home
another process is using at the same moment.

Run as `python tests/support/pulser.py HOME PERSONA BUILDING PULSES DOC_ID TAG`. It prints one JSON
line at the end: the texts it sent (in order), the lines it appended, and the statuses of its pulses.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402


def main(home: str, persona: str, building: str, pulses: int, doc_id: str, tag: str) -> None:
    manager = SAIVerseManager(load_settings(home))
    sent: list[str] = []
    lines: list[str] = []
    statuses: list[str] = []
    try:
        for i in range(pulses):
            text = f"こんにちは {persona} {i}"
            events = list(manager.handle_user_input(building, text, persona_id=persona))
            sent.append(text)
            statuses.append(str(events[-1].get("status")))
            line = f"{tag} 追記 {i}"
            manager.items.edit_document(doc_id, lambda t, line=line: (t + line + "\n", None))
            lines.append(line)
    finally:
        manager.close()
    print(json.dumps({"sent": sent, "lines": lines, "statuses": statuses}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
