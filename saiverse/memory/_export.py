"""Exporting a persona's whole memory as JSON lines: messages, then Chronicle, then Memopedia.

Message lines are exactly SAIMemory's export (`SAIMemory.export_jsonl`, no `kind` key); after them
come one line per Chronicle entry (`"kind": "chronicle"`) and one per Memopedia page with its edit
history (`"kind": "memopedia"`), so a reader tells them apart by `kind`.
"""

from __future__ import annotations

import json
from typing import IO

from saiverse.memory._chronicle import ChronicleStore
from saiverse.memory._memopedia import MemopediaStore
from saiverse.memory._store import SAIMemory


def export_memory(memory: SAIMemory, chronicle: ChronicleStore, memopedia: MemopediaStore, persona_id: str,
                  fh: IO[str]) -> dict[str, int]:
    """Write everything the persona remembers to `fh`; returns how many lines of each kind."""
    counts = {"message": memory.export_jsonl(persona_id, fh), "chronicle": 0, "memopedia": 0}
    for entry in reversed(chronicle.entries(persona_id, limit=10**9)):
        fh.write(json.dumps({"kind": "chronicle", **entry.to_dict()}, ensure_ascii=False) + "\n")
        counts["chronicle"] += 1
    for page in memopedia.pages(persona_id, include_deleted=True):
        line = {"kind": "memopedia", **page.to_dict(), "history": memopedia.history(persona_id, page.page_id)}
        fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        counts["memopedia"] += 1
    return counts
