"""A persona's memory as the entry points read it: messages, recall over every memory, Chronicle builds.

A service the manager builds (saiverse/manager.py) with the stores it reads; the rules live in
saiverse/memory/.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from saiverse.memory import ChronicleBuilder, ChronicleStore, MemopediaStore, MemoryRecord, SAIMemory, recall
from saiverse.world import World

if TYPE_CHECKING:
    from saiverse.memory import DenseRecall


class MemoryView:
    """SAIMemory messages, recall over messages, Chronicle and Memopedia, and building a Chronicle now."""

    def __init__(self, *, world: World, memory: SAIMemory, chronicle: ChronicleStore, memopedia: MemopediaStore,
                 chronicle_builder: ChronicleBuilder, dense: DenseRecall | None = None) -> None:
        self.world = world
        """Refuses an unknown persona by name."""
        self.memory = memory
        self.chronicle = chronicle
        self.memopedia = memopedia
        self.chronicle_builder = chronicle_builder
        self.dense = dense
        """The stored vectors of SAIVERSE_EMBEDDING_MODEL recall fuses in (None: recall is lexical)."""

    def memory_messages(self, persona_id: str, *, search: str | None = None, limit: int = 200) -> list[MemoryRecord]:
        """Messages oldest first; with `search`, recall hits of every kind (each with its `kind`)."""
        self.world.persona(persona_id)
        if search:
            return self.recall(persona_id, search, limit=limit)  # type: ignore[return-value]
        return list(reversed(self.memory.list_messages(persona_id, limit=limit)))

    def recall(self, persona_id: str, query: str, *, limit: int = 20,
               exclude_pulse: str | None = None) -> list[dict[str, Any]]:
        """Messages, Chronicle entries and Memopedia pages matching `query`, ranked with recency (and, with
        an embedding model, by closeness of meaning: reciprocal-rank fusion, saiverse/memory/_recall.py)."""
        return recall(self.memory, self.chronicle, self.memopedia, persona_id, query, limit=limit,
                      exclude_pulse=exclude_pulse, dense=self.dense)

    def build_chronicle(self, persona_id: str) -> dict[str, Any]:
        """Write the persona's due Chronicle entries now (CLI `chronicle --build`)."""
        self.world.persona(persona_id)
        return self.chronicle_builder.build_due(persona_id).to_dict()
