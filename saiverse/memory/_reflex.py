"""Reflex recall: before a persona answers the user, what her memory holds on the user's words.

Small local models rarely decide to call `memory_recall`, so a persona forgot what the user told her
last month (issue 33). Here recall (saiverse/memory/_recall.py, the same retrieval as the tool; no
model call) runs on the user's message once per pulse, and its best hits enter the prompt's system
part (saiverse/memory/_context.py `fit`, within `REFLEX_SHARE` of the budget), each marked as memory
with its date and who said it. Hits already in the prompt as recent conversation are left out, and
so are weak ones: a hit must score at least `MIN_SHARE` of the best, and the best at least
`MIN_SCORE` (a greeting's common grams recall nothing). Keyword lore comes first: a Memopedia page
whose keywords occur in the message enters the same way (`lore`, SillyTavern's World Info). On by
default; the world setting `reflex_recall:<persona id>` = "0" turns it off for one persona
(`python main.py persona reflex-off ID`), kept in the city's database like the 自律 switch
(saiverse/world/_settings.py).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from saiverse.memory._chronicle import ChronicleStore
from saiverse.memory._lexical import latin_stems, normalise, query_terms, term_frequency
from saiverse.memory._memopedia import MemopediaStore
from saiverse.memory._recall import recall
from saiverse.memory._store import SAIMemory

if TYPE_CHECKING:  # numpy is imported only where vectors are used
    from saiverse.memory._dense import DenseRecall

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
DENSE_HITS = 2
DENSE_LEAD = 0.08
"""A hit no word of the message holds enters by meaning only this far above the hits' median cosine: not
tuned on a real embedding model (none could be pulled here), chosen to keep a greeting's near-ties out."""
HEADER = "## ふと思い出したこと（記憶から。日付はそのときのもの）"
_WHO = {"user": "相手", "assistant": "自分", "system": "システム"}


@dataclass(frozen=True)
class Recalled:
    """One line of the reflex section and why it is there (`python main.py context` shows these)."""

    line: str
    """The line as the prompt has it."""
    kind: str
    """`lore` (a Memopedia page by its keyword), `message`, `chronicle` or `memopedia` (a recall hit)."""
    score: float | None
    """The recall score (BM25 × recency × kind weight, fused; saiverse/memory/_recall.py); None for lore."""
    why: str
    """What matched: the keyword of a lore page, or the query terms the hit holds."""
    terms: list[str] = field(default_factory=list)
    id: Any = None
    """The message id, Chronicle entry id or Memopedia page id."""
    created_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _matched(message: str, content: str, held: Collection[str]) -> list[str]:
    """The query's terms a hit holds, for the `context` view: the full-weight ones recall names (`held`),
    then the half-weight ones (synonyms, hiragana grams) marked 「(弱)」."""
    body = normalise(content)
    stems = latin_stems(body)
    found = [str(k) for k in held]
    for term in query_terms(message, kanji=False):  # the terms the reflex searched for
        if term.key not in found and term.weight < 1.0 and term_frequency(body, stems, term):
            found.append(f"{term.key}(弱)")
    return found


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
    return [r.line for r in lore_found(memopedia, persona_id, message)]


def _says(said: str, keyword: str) -> bool:
    """Whether a (normalised) message holds a keyword: a latin one as whole words ("cat" is not in
    "category"), any other as written (日本語 has no spaces between words)."""
    if keyword.isascii():
        return re.search(r"(?<![a-z0-9])" + re.escape(keyword) + r"(?![a-z0-9])", said) is not None
    return keyword in said


def lore_found(memopedia: MemopediaStore, persona_id: str, message: str) -> list[Recalled]:
    """`lore`, each line with the page and the keyword that brought it."""
    said = normalise(message)
    found: list[Recalled] = []
    for page in memopedia.pages(persona_id):
        key = next((k for k in page.keywords if len(k.strip()) >= 2 and _says(said, normalise(k.strip()))), None)
        if key is None:
            continue
        body = " ".join((page.summary or page.content).split())
        found.append(Recalled(f"- (Memopedia「{page.title}」、「{key}」で) {body[:LINE_CHARS]}", "lore", None,
                              f"キーワード「{key}」", [key], page.page_id, page.updated_at))
        if len(found) >= LORE_PAGES:
            break
    return found


def _meant(hits: list[dict[str, Any]], floor: float) -> set[int]:
    """The hits (by `id()`) that enter by meaning alone, when an embedding model's list was fused in: at
    most `DENSE_HITS`, each standing out from the hits' median cosine by `DENSE_LEAD` and at least as
    close as every hit the words brought (a greeting's vectors are all alike: nothing stands out)."""
    closeness = sorted(float(h["dense"]) for h in hits if h.get("dense") is not None)
    if len(closeness) < 3:
        return set()
    worded = [float(h["dense"]) for h in hits if h["score"] >= floor and h.get("dense") is not None]
    bar = max([closeness[len(closeness) // 2] + DENSE_LEAD, *worded])
    picked = [h for h in hits if h["score"] < floor and h.get("dense") is not None and h["dense"] >= bar]
    return {id(h) for h in picked[:DENSE_HITS]}


def reflex_text(memory: SAIMemory, chronicle: ChronicleStore, memopedia: MemopediaStore, persona_id: str,
                message: str, *, pulse_id: str | None, shown: Collection[str], max_chars: int,
                dense: Any = None) -> str:
    """The memory section for a prompt answering `message` ("" when nothing worth it is found).
    `shown`: contents already in the prompt; `max_chars`: the most the section may take."""
    return reflex_section(reflex_found(memory, chronicle, memopedia, persona_id, message, pulse_id=pulse_id,
                                       shown=shown, max_chars=max_chars, dense=dense))


def reflex_section(found: list[Recalled]) -> str:
    """The prompt text of `reflex_found`'s lines ("" for none)."""
    return "\n".join([HEADER, *(r.line for r in found)]) if found else ""


def reflex_found(memory: SAIMemory, chronicle: ChronicleStore, memopedia: MemopediaStore, persona_id: str,
                 message: str, *, pulse_id: str | None, shown: Collection[str], max_chars: int,
                 dense: DenseRecall | None = None) -> list[Recalled]:
    """The lines of `reflex_text`'s section, each with its score and why (see `Recalled`). `dense`: the
    stored vectors of SAIVERSE_EMBEDDING_MODEL, fused in when its query vector comes within `DENSE_WAIT`."""
    if not message.strip() or max_chars <= len(HEADER):
        return []
    found = lore_found(memopedia, persona_id, message)
    used = len(HEADER) + 1 + sum(len(r.line) + 1 for r in found)
    lore_text = "\n".join(r.line for r in found)
    hits = recall(memory, chronicle, memopedia, persona_id, message, limit=HITS + 2, exclude_pulse=pulse_id,
                  dense=dense, dense_wait=DENSE_WAIT, thorough=False)  # the send path: RESULTS-recall.md
    best = max((h["score"] for h in hits), default=0.0)
    floor = MIN_SHARE * best if best >= MIN_SCORE else float("inf")  # words found nothing worth it: none by words
    meant = _meant(hits, floor)
    for h in hits:
        content = " ".join(str(h.get("content", "")).split())
        brought = h["kind"] == "memopedia" and f"「{h.get('title')}」、" in lore_text  # by the lore above
        if (h["score"] < floor and id(h) not in meant) or content in shown or brought:
            continue
        text = content if len(content) <= LINE_CHARS else content[:LINE_CHARS - 1] + "…"
        line = f"- [{_day(h.get('created_at'))}] ({_label(h)}){' ※以前の話' * bool(h.get('older'))} {text}"
        if h.get("next"):
            line += f" → {' '.join(str(h['next']).split())[:LINE_CHARS // 2]}"
        if used + len(line) + 1 > max_chars:
            break
        held = _matched(message, str(h.get("content", "")), h.get("terms") or [])
        why = "「" + "」「".join(held) + "」が一致" if held else ("" if h.get("dense") is not None else "検索語が一致")
        if h.get("dense") is not None:  # the embedding model's closeness (saiverse/memory/_dense.py)
            why = "、".join(w for w in (why, f"意味が近い (cos {h['dense']:.2f})") if w)
        if h.get("older"):
            why += "（同じ話の新しいものがあり、こちらは以前のもの）"
        found.append(Recalled(line, str(h["kind"]), float(h["score"]), why, held, h.get("id"), h.get("created_at")))
        used += len(line) + 1
        if len(found) >= HITS:
            break
    return found
