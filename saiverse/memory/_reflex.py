"""Reflex recall: before a persona answers the user, what her memory holds on the user's words.

Small local models rarely decide to call `memory_recall`, so a persona forgot what the user told her
last month (issue 33). Here recall (saiverse/memory/_recall.py, the same retrieval as the tool; no
model call) runs on the user's message once per pulse, and its best hits enter the prompt's system
part (saiverse/pulse/_context.py `fit`, within `REFLEX_SHARE` of the budget), each marked as memory
with its date and who said it. Hits already in the prompt as recent conversation are left out, and
so are weak ones: a hit must score at least `MIN_SHARE` of the best, and the best at least
`MIN_SCORE` (a greeting's common grams recall nothing). Keyword lore comes first: a Memopedia page
whose keywords occur in the message enters the same way (`lore`, SillyTavern's World Info). On by
default; the world setting `reflex_recall:<persona id>` = "0" turns it off for one persona
(`python main.py persona reflex-off ID`), kept in the city's database like the 自律 switch
(saiverse/world/_settings.py).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from saiverse.memory._chronicle import ChronicleStore
from saiverse.memory._lexical import normalise
from saiverse.memory._memopedia import MemopediaStore
from saiverse.memory._recall import recall
from saiverse.memory._store import SAIMemory

SETTING_PREFIX = "reflex_recall:"
"""World setting key prefix; the persona id follows. "0" is off; absent or "1" is on."""
HITS = 6
MIN_SCORE = 1.0
MIN_SHARE = 0.35
LINE_CHARS = 200
LORE_PAGES = 3
DENSE_WAIT = 0.02
"""The most a pulse waits for the message's vector (an embedding model set): reflex recall adds at most
~30 ms to a pulse, so a slower model leaves this recall lexical (its vector is kept for the next)."""
HEADER = "## ふと思い出したこと（記憶から。日付はそのときのもの）"
_WHO = {"user": "相手", "assistant": "自分", "system": "システム"}


def reflex_setting_key(persona_id: str) -> str:
    return SETTING_PREFIX + persona_id


def _day(iso: str | None) -> str:
    """A stored time as the persona's local date (the tools show local times too: tools/text.py)."""
    if not iso:
        return "日付不明"
    try:
        when = datetime.fromisoformat(iso)
    except ValueError:
        return iso[:10]
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone().strftime("%Y-%m-%d")


def _label(hit: dict) -> str:
    if hit["kind"] == "chronicle":
        return "あらすじ"
    if hit["kind"] == "memopedia":
        return f"Memopedia「{hit.get('title', '')}」"
    return _WHO.get(str(hit.get("role")), str(hit.get("role")))


def lore(memopedia: MemopediaStore, persona_id: str, message: str) -> list[str]:
    """Keyword lore, as SillyTavern's World Info: each Memopedia page one of whose keywords (two
    characters or more) occurs in the message, as one line (at most `LORE_PAGES`)."""
    said = normalise(message)
    lines = []
    for page in memopedia.pages(persona_id):
        key = next((k for k in page.keywords if len(k.strip()) >= 2 and normalise(k.strip()) in said), None)
        if key is None:
            continue
        body = " ".join((page.summary or page.content).split())
        lines.append(f"- (Memopedia「{page.title}」、「{key}」で) {body[:LINE_CHARS]}")
        if len(lines) >= LORE_PAGES:
            break
    return lines


def reflex_text(memory: SAIMemory, chronicle: ChronicleStore, memopedia: MemopediaStore, persona_id: str,
                message: str, *, pulse_id: str | None, shown: Collection[str], max_chars: int,
                dense: Any = None) -> str:
    """The memory section for a prompt answering `message` ("" when nothing worth it is found).
    `shown`: contents already in the prompt; `max_chars`: the most the section may take."""
    if not message.strip() or max_chars <= len(HEADER):
        return ""
    lines = [HEADER, *lore(memopedia, persona_id, message)]
    used = sum(len(line) + 1 for line in lines)
    lore_text = "\n".join(lines)
    hits = recall(memory, chronicle, memopedia, persona_id, message, limit=HITS + 2, exclude_pulse=pulse_id,
                  dense=dense, dense_wait=DENSE_WAIT)
    if not hits or max(h["score"] for h in hits) < MIN_SCORE:
        hits = []
    floor = MIN_SHARE * max((h["score"] for h in hits), default=0.0)
    for h in hits:
        content = " ".join(str(h.get("content", "")).split())
        brought = h["kind"] == "memopedia" and f"「{h.get('title')}」、" in lore_text  # by the lore above
        if h["score"] < floor or content in shown or brought:
            continue
        text = content if len(content) <= LINE_CHARS else content[:LINE_CHARS - 1] + "…"
        line = f"- [{_day(h.get('created_at'))}] ({_label(h)}){' ※以前の話' * bool(h.get('older'))} {text}"
        if h.get("next"):
            line += f" → {' '.join(str(h['next']).split())[:LINE_CHARS // 2]}"
        if used + len(line) + 1 > max_chars:
            break
        lines.append(line)
        used += len(line) + 1
        if len(lines) > HITS:
            break
    return "\n".join(lines) if len(lines) > 1 else ""
