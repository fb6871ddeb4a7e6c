"""Helpers shared by the long-term memory tests: conversations, imported rows (the world is conftest's
`manager`, under `@pytest.mark.chronicle_by_hand`)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import text

from chat import ChatRequest, ChatResult
from saiverse.llm.offline import OfflineModel
from saiverse.manager import SAIVerseManager

TOPICS = ("星座", "図書館", "紅茶", "流星群", "絵本", "散歩")


def converse(m: SAIVerseManager, n: int, *, persona: str = "mina", start: datetime | None = None,
             length: int = 0, step: timedelta = timedelta(minutes=5)) -> list[int]:
    """`n` stored conversation messages alternating user / assistant, on topics that change every 20."""
    when = start or datetime(2026, 1, 3, 9, 0)
    ids = []
    for i in range(n):
        topic = TOPICS[(i // 20) % len(TOPICS)]
        body = f"{topic}の話をしよう。{topic}はいつ見ても素敵だね（{i}）。"
        if length:
            body = (body * (length // len(body) + 1))[:length]
        rec = m.memory.add(persona, "user" if i % 2 == 0 else "assistant", body, tags=["conversation"],
                           created_at=when + step * i)
        ids.append(rec["id"])
    return ids


def insert_entry(m: SAIVerseManager, persona: str, entry_id: str, *, level: int | Any = 1, content: Any = "要約",
                 source_ids: Any = "[]", start: Any = None, end: Any = None, message_count: int = 0) -> None:
    """A chronicle row written as the importer writes one (values as given, unchecked)."""
    with m.db.session() as s:
        s.execute(text(
            "INSERT INTO chronicle_entry (PERSONA_ID, ENTRY_ID, LEVEL, CONTENT, SOURCE_IDS, START_TIME, END_TIME, "
            "SOURCE_COUNT, MESSAGE_COUNT) VALUES (:p, :id, :lv, :c, :src, :st, :en, 0, :mc)"),
            {"p": persona, "id": entry_id, "lv": level, "c": content,
             "src": source_ids if isinstance(source_ids, str) else json.dumps(source_ids), "st": start, "en": end,
             "mc": message_count})


def insert_external_message(m: SAIVerseManager, persona: str, external_id: str, role: str, content: str,
                            when: datetime) -> int:
    """An imported SAIMemory message keeping its upstream uuid as EXTERNAL_ID."""
    rec = m.memory.add(persona, role, content, tags=["conversation"], created_at=when)
    with m.db.session() as s:
        s.execute(text("UPDATE saimemory SET EXTERNAL_ID = :e WHERE ID = :id"), {"e": external_id, "id": rec["id"]})
    return rec["id"]


class RecordingModel(OfflineModel):
    """The offline model, keeping every request it was given."""

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    def generate(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        return super().generate(request)
