"""The context builder: every model call's prompt, assembled in one place within a token budget.

A prompt is made of, in this order of priority:
1. the system prompt (who the persona is and where; at most `SYSTEM_SHARE` of the budget);
2. the lines pinned to the persona's memory (at most `PIN_SHARE`; saiverse/memory/_pins.py), in the
   order they were pinned — those that do not fit are left out with a note saying how many;
3. the pulse's own messages — what the user just said, sub-playbook results, this pulse's model
   exchanges and the node's prompt — newest first;
4. the persona's Memopedia core (trunk / important / recently used pages, one line each, and the
   pages open in its thread; at most `CORE_SHARE`);
5. what reflex recall found on the user's message (at most `REFLEX_SHARE`; saiverse/memory/_reflex.py);
6. the most recent conversation verbatim, newest first;
7. the newest Chronicle entries covering what is no longer verbatim (room for them is reserved,
   up to `CHRONICLE_SHARE`).
Memory (2, 4, 5, 7) goes into the system prompt; messages keep their roles. The budget is the persona's
`ai.CONTEXT_TOKENS`, else `Settings.context_tokens` (env SAIVERSE_CONTEXT_TOKENS), else 8,000.
Tokens are counted with the model's own tokenizer when it has one (`chat.TokenCounter`), else
estimated: one per non-ASCII character and one per four ASCII ones, which for Japanese is at or
slightly above what Gemini's and OpenAI's tokenizers count (erring on the safe side).

Nothing is dropped silently: an over-long message is shortened in the middle with a visible
marker (`…（長いため約N字を省略）…`); older messages of the pulse that no longer fit are replaced
by one line saying how many were left out; conversation beyond the verbatim window is covered by
Chronicle, and where Chronicle has not caught up yet the prompt says so.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import accumulate
from typing import Any

from chat import ChatModel, Message, TokenCounter
from saiverse.llm.offline import estimate_tokens
from saiverse.memory._chronicle import Entry
from saiverse.memory._chronicle_summary import span

DEFAULT_CONTEXT_TOKENS = 8_000
MIN_CONTEXT_TOKENS = 1_000
SYSTEM_SHARE = 0.4
OWN_SHARE = 0.6
"""Of what the system prompt leaves, the most the pulse's own messages take when memory waits."""
CORE_SHARE = 0.15
CHRONICLE_SHARE = 0.25
REFLEX_SHARE = 0.1
"""The most reflex recall's memories take of the budget."""
PIN_SHARE = 0.15
"""The most pinned lines take of the budget; a single pin at most a third of it."""
PIN_HEADER = "## いつも覚えておくこと（ピン留め）"
MESSAGE_OVERHEAD = 4
"""Tokens a provider spends on each message's role and separators."""
MIN_PIECE = 48
"""A message is shortened only when at least this many tokens of it can stay."""
MARGIN = 16
"""Tokens kept free for the separators joining the pieces and the rounding of counting them apart."""
NOTE_COST = 48
"""Tokens kept free for the line that says how many of the pulse's older messages were left out."""

Counter = Callable[[str], int]


_CONFORMS: dict[tuple[type, type], bool] = {}


def conforms(obj: object, protocol: type) -> bool:
    """`isinstance(obj, protocol)` for a runtime-checkable protocol, worked out once per class: the
    check itself walks the protocol's members (~10 µs), and every prompt of every pulse asks it.
    The models implement these protocols with methods of their class; a class that answers
    attributes itself (`__getattr__`) is asked every time."""
    cls = type(obj)
    if hasattr(cls, "__getattr__"):  # members that may differ per instance: asked every time
        return isinstance(obj, protocol)
    found = _CONFORMS.get((cls, protocol))
    if found is None:
        found = _CONFORMS[(cls, protocol)] = isinstance(obj, protocol)
    return found


def token_counter(model: ChatModel | None) -> Counter:
    """The model's tokenizer when it has one, else the estimate (see the module docstring)."""
    if model is not None and conforms(model, TokenCounter):
        return model.count_tokens  # type: ignore[attr-defined]
    return estimate_tokens


def shorten(text_: str, limit: int, count: Counter) -> str:
    """`text_` cut in the middle to at most `limit` tokens, with a visible marker where it was cut."""
    total = count(text_)
    if total <= limit:
        return text_
    keep = int(len(text_) * limit / max(total, 1) * 0.9)
    for _ in range(6):
        body = keep - 24  # what the marker itself takes, about
        if body <= 0:
            break
        marker = f"\n…（長いため約{len(text_) - body}字を省略）…\n"
        head = body * 2 // 3
        out = text_[:head] + marker + text_[len(text_) - (body - head):]
        if count(out) <= limit:
            return out
        keep = int(keep * 0.8)
    return f"…（長いため全{len(text_)}字を省略）…"


@dataclass
class Line:
    """A stored conversation message, as the builder reads it."""

    role: str
    content: str
    created: datetime | None = None
    pulse_id: str | None = None


@dataclass
class Snapshot:
    """What a persona's stored memory offers the prompts of one pulse (read once per pulse)."""

    budget: int
    history: list[Line] = field(default_factory=list)
    """Conversation before this pulse, oldest first (as much as the budget could possibly hold)."""
    older: datetime | None = None
    """Time of the newest message older than `history`, when there is one."""
    chronicle: list[Entry] = field(default_factory=list)
    """Unconsolidated entries, newest first."""
    core: str = ""
    """The Memopedia core, as prompt text."""
    reflex: str = ""
    """What reflex recall found on the user's message (saiverse/memory/_reflex.py), as prompt text."""
    recalled: list[Any] = field(default_factory=list)
    """What reflex recall found, one item per line of `reflex` (`Recalled`: score and why), for the
    `context` view (saiverse/pulse/_sight.py); prompts use `reflex` alone."""
    pins: list[Line] = field(default_factory=list)
    """The lines pinned to the persona's memory, in the order they were pinned (saiverse/memory/_pins.py)."""
    shown: list[Message] | None = None
    """Each `history` line as a prompt message, when the reader made them (shared by every prompt that
    uses them, never changed in place)."""
    costs: list[int] | None = None
    """Each `history` line's estimated cost (`estimate_tokens` + MESSAGE_OVERHEAD), when the reader
    worked it out already (saiverse/memory/_context_source.py keeps it to trim by): a prompt counted
    with the estimate sums these instead of counting every line again."""


@dataclass
class Fitted:
    """One assembled prompt and what went into it."""

    system: str
    messages: list[Message]
    input_tokens: int
    verbatim: int = 0
    """Stored conversation messages kept verbatim."""
    chronicle_ids: list[str] = field(default_factory=list)
    shortened: int = 0
    """Messages (or the system prompt) shortened with a marker."""
    omitted_own: int = 0
    """Older messages of the pulse replaced by a one-line note."""
    pins_kept: int = 0
    """Pinned lines in the prompt (the first ones pinned; the rest did not fit `PIN_SHARE`)."""
    parts: dict[str, int] = field(default_factory=dict)
    """Tokens of the message parts: `history` (the verbatim lines) and `own` (the pulse's messages)."""
    sections: dict[str, str] = field(default_factory=dict)
    """The text of each part that goes into the system prompt: system, pinned, core, reflex, chronicle."""


def _message(role: str, content: str, like: Message | None = None) -> Message:
    msg = Message(role="user" if role == "user" else "assistant", content=content)
    if like is not None and like.get("images"):
        msg["images"] = list(like["images"])
    return msg


def _running_costs(history: list[Line], tokens: Callable[[str], int],
                   sums: dict[int, tuple[list[Line], list[int]]] | None, known: list[int] | None = None) -> list[int]:
    """[0, cost of the newest line, of the newest two, …] (`sums` keeps it per history list); `known`,
    each line's cost already worked out with the same counter, is summed instead of counting."""
    kept = sums.get(id(history)) if sums is not None else None
    if kept is not None and kept[0] is history:
        return kept[1]
    if known is not None and len(known) == len(history):
        running = list(accumulate(reversed(known), initial=0))
    else:
        running = [0]
        for line in reversed(history):
            running.append(running[-1] + tokens(line.content) + MESSAGE_OVERHEAD)
    if sums is not None:
        sums[id(history)] = (history, running)  # the list is held: its id is not reused meanwhile
    return running


def _shown(lines: list[Line], kept: dict[int, tuple[list[Line], list[Message]]] | None = None) -> list[Message]:
    """`lines` as prompt messages, oldest first (`kept` holds them per history list). Dict displays, not
    `_message`: calling the TypedDict costs 2.5x as much."""
    hit = kept.get(id(lines)) if kept is not None else None
    if hit is not None and hit[0] is lines:
        return hit[1]
    shown: list[Message] = [{"role": "user" if h.role == "user" else "assistant", "content": h.content}
                            for h in lines]
    if kept is not None:
        kept[id(lines)] = (lines, shown)  # the list is held: its id is not reused meanwhile
    return shown


def _local_day(when: datetime | None) -> str:
    if when is None:
        return "日付不明"
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone().strftime("%Y-%m-%d")


def pinned_text(pins: list[Line], room: int, tokens: Counter) -> tuple[str, int]:
    """The pinned lines as prompt text within `room` tokens, and how many of them are in it: in the
    order they were pinned, each on one line with its date and who said it, one longer than a third
    of `room` shortened; the rest left out with a note saying how many."""
    if not pins or room <= 0:
        return "", 0
    parts = [PIN_HEADER]
    used = tokens(PIN_HEADER) + NOTE_COST  # the header and a possible note on what is left out
    each = max(MIN_PIECE, room // 3)
    for line in pins:
        body = shorten(" ".join(line.content.split()), each, tokens)
        entry = f"- [{_local_day(line.created)}] ({'相手' if line.role == 'user' else '自分'}) {body}"
        cost = tokens(entry)
        if used + cost > room:
            break
        parts.append(entry)
        used += cost
    kept = len(parts) - 1
    if kept < len(pins):
        parts.append(f"（ほかにピン留めが {len(pins) - kept} 件ありますが、長さの都合で入りませんでした）")
    return "\n".join(parts), kept


def fit(snapshot: Snapshot, system_prompt: str, own: list[Message], count: Counter,
        cache: dict[str, int] | None = None,
        sums: dict[int, tuple[list[Line], list[int]]] | None = None,
        shown: dict[int, tuple[list[Line], list[Message]]] | None = None) -> Fitted:
    """The prompt of one model call: the system prompt, memory and messages within the budget.
    `cache` (text → tokens by `count`) may be shared by the calls of one pulse: they count the same history;
    so may `sums` (the history's running costs by `count`, per history list) and `shown` (the history's
    lines as messages, per history list: the prompts then share those message objects)."""
    budget = snapshot.budget
    cache = {} if cache is None else cache

    def tokens(s: str) -> int:
        if s not in cache:
            cache[s] = count(s)
        return cache[s]

    out = Fitted(system="", messages=[], input_tokens=0)
    system = shorten(system_prompt, int(budget * SYSTEM_SHARE), tokens)
    out.shortened += system != system_prompt
    left = budget - MARGIN - tokens(system)
    pinned, out.pins_kept = pinned_text(snapshot.pins, int(budget * PIN_SHARE), tokens)
    left -= tokens(pinned) if pinned else 0
    memory_waits = bool(snapshot.history or snapshot.chronicle or snapshot.core)
    room = int(left * OWN_SHARE) if memory_waits else left

    kept_own: list[Message] = []
    costs = [tokens(m.get("content") or "") + MESSAGE_OVERHEAD for m in own]
    older = [0]
    for c in costs:
        older.append(older[-1] + c)  # older[i]: what own[:i] costs as it is
    for i in range(len(own) - 1, -1, -1):
        msg = own[i]
        if costs[i] + older[i] <= room:  # this one and all older ones fit as they are
            kept_own += [_message(m.get("role", "user"), m.get("content") or "", m) for m in reversed(own[:i + 1])]
            room -= costs[i] + older[i]
            break
        # Room for the note that names what is left out stays free while older messages remain.
        avail = room - MESSAGE_OVERHEAD - (NOTE_COST if i else 0)
        body = msg.get("content") or ""
        if tokens(body) > avail:
            if avail < MIN_PIECE:
                note = f"（このやりとりの前半 {i + 1} 件のメッセージは長さの都合で省きました）"
                kept_own.append(_message("user", note))
                out.omitted_own = i + 1
                break
            body = shorten(body, avail, tokens)
            out.shortened += 1
        kept_own.append(_message(msg.get("role", "user"), body, msg))
        room -= tokens(body) + MESSAGE_OVERHEAD
    left -= sum(tokens(m["content"]) + MESSAGE_OVERHEAD for m in kept_own)

    core = shorten(snapshot.core, int(budget * CORE_SHARE), tokens) if snapshot.core else ""
    left -= tokens(core)
    reflex = shorten(snapshot.reflex, int(budget * REFLEX_SHARE), tokens) if snapshot.reflex else ""
    left -= tokens(reflex)
    lines = {e.entry_id: f"- [{span(e.start, e.end)}] {e.content}" for e in snapshot.chronicle}
    header = "## これまでのあらすじ（Chronicle）"
    frame = tokens(header) + NOTE_COST  # the header and a possible gap note
    # With no entries, the header and the note saying older talk was left out still come when the history
    # is cut: their room is kept too (a prompt went 13 tokens over once reflex recall took its share).
    reserve = min(int(budget * CHRONICLE_SHARE), sum(tokens(t) for t in lines.values()) + frame) if lines else frame

    # The newest lines that fit as they are (each costs > 0, so they are the longest run of newest
    # lines whose running cost fits), then the next one shortened if a useful piece of it fits.
    hist_room = left - reserve
    running = _running_costs(snapshot.history, tokens, sums, snapshot.costs if count is estimate_tokens else None)
    k = max(0, bisect_right(running, hist_room) - 1)
    kept_history: list[Line] = snapshot.history[len(snapshot.history) - k:][::-1]  # newest first
    hist_room -= running[k]
    hist_cost = running[k]
    if k < len(snapshot.history) and hist_room - MESSAGE_OVERHEAD >= MIN_PIECE * 2:
        line = snapshot.history[-k - 1]
        kept_history.append(Line(line.role, shorten(line.content, hist_room - MESSAGE_OVERHEAD, tokens),
                                 line.created))
        hist_cost += tokens(kept_history[-1].content) + MESSAGE_OVERHEAD
        out.shortened += 1
    left -= hist_cost
    out.verbatim = len(kept_history)
    cut = len(kept_history) < len(snapshot.history) or snapshot.older is not None
    first_gone = (snapshot.history[-len(kept_history) - 1].created if len(kept_history) < len(snapshot.history)
                  else snapshot.older)

    chronicle_text = ""
    if cut:
        oldest_kept = kept_history[-1].created if kept_history else None
        chosen: list[Entry] = []
        left -= frame
        for e in snapshot.chronicle:
            if oldest_kept is not None and (e.start or e.end or datetime.min) >= oldest_kept:
                continue
            if tokens(lines[e.entry_id]) > left:
                break
            chosen.append(e)
            left -= tokens(lines[e.entry_id])
        parts = [header] + [lines[e.entry_id] for e in reversed(chosen)]
        newest_end = max((e.end or datetime.min for e in chosen), default=None)
        if not chosen:
            parts.append("（これより前の会話は長さの都合で省いています。必要なら memory_recall で思い出せます）")
        elif first_gone is not None and newest_end is not None and first_gone > newest_end:
            parts.append("（このあらすじと下の会話のあいだに、まだまとめていない会話があります。"
                         "必要なら memory_recall で思い出せます）")
        chronicle_text = "\n".join(parts)
        out.chronicle_ids = [e.entry_id for e in reversed(chosen)]

    out.system = "\n\n".join(p for p in (system, pinned, core, chronicle_text, reflex) if p)
    # The verbatim lines are the newest k of the history: with `shown`, their messages are made once per
    # history list (a pulse's prompts share them: its two prompts carry a few hundred lines each).
    older = _shown(kept_history[k:])  # the one shortened line before them, if any
    made = snapshot.shown if snapshot.shown is not None and len(snapshot.shown) == len(snapshot.history) else \
        _shown(snapshot.history, shown) if shown is not None else None
    verbatim = made[len(snapshot.history) - k:] if made is not None else \
        _shown(snapshot.history[len(snapshot.history) - k:])
    out.messages = older + verbatim + kept_own[::-1]
    own_cost = sum(tokens(m["content"]) + MESSAGE_OVERHEAD for m in kept_own)
    out.input_tokens = tokens(out.system) + hist_cost + own_cost
    out.sections = {"system": system, "pinned": pinned, "core": core, "reflex": reflex, "chronicle": chronicle_text}
    out.parts = {"history": hist_cost, "own": own_cost}  # the sections' are counted by who asks (not every prompt)
    return out
