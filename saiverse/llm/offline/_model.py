"""The offline model: the embedded default that answers with no key and no network (docs/ARCHITECTURE.md, "Models").

It is deterministic (a function of the request only: no clock, no unseeded randomness) and
instant. It speaks in the persona's voice — name, first person (`一人称: ボク`) and sentence
ending (`語尾: 〜だよ`, `口調: ...`) read from the system prompt — quotes what the user said, says it
is offline, mentions the first lines of `<system>` result blocks of the current pulse (so a
playbook author sees offline that sub-playbook results reach the speak step), describes attached
images from their pixels, fills JSON schemas validly (see `offline_fill`), calls a tool the user
names, and draws images procedurally (see `offline_media`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

from chat import ChatRequest, ChatResult, Message, ToolCall, Usage
from saiverse.llm.offline import _speech_en as en
from saiverse.llm.offline._fill import FillHints, fill, payload
from saiverse.llm.offline._media import BRIGHTNESS_EN, COLOURS_EN, describe_image, image_stats, procedural_image
from saiverse.llm.offline._speech import (
    FOLLOWS,
    GREETING,
    OPENERS,
    choose,
    choose_pair,
    company_of,
    happened,
    intent,
    is_instruction,
    likes_of,
    place_of,
    result_blocks,
    scene_line,
)
from saiverse.llm.schema import strip_catalogue
from words import current, say

__all__ = ["OfflineModel", "Voice", "describe_image", "estimate_tokens", "read_voice", "summarize_text",
           "without_note"]

OFFLINE_NOTE = say("offline_note", lang="ja")
"""Appended to every offline reply (in the language in force), so nobody mistakes it for a real model."""
_NOTES = (OFFLINE_NOTE, say("offline_note", lang="en"))


def without_note(text: str) -> str:
    """`text` without the offline note, in either language (a history holds replies from both)."""
    for note in _NOTES:
        text = text.replace(note, "")
    return text

_SYSTEM_BLOCK = re.compile(r"^\s*<system>(.*?)</system>\s*$", re.S)
_CASUAL_TONE = {  # 口調 word → the ending it implies
    "関西": "やで", "タメ口": "だよ", "フランク": "だよ", "カジュアル": "だよ", "フレンドリー": "だよ",
    "くだけた": "だよ", "元気": "だよ！", "お嬢様": "ですわ", "古風": "じゃ", "武士": "でござる",
}
_CHUNK = 4
_PLAIN_TAILS = {"じゃ": "のじゃ", "でござる": "でござる", "にゃ": "にゃ", "だ": ""}


@dataclass(frozen=True)
class Voice:
    """How a persona talks: name, first person and the ending put after a noun phrase."""

    name: str = ""
    first_person: str = "私"
    ending: str = "です"

    @property
    def polite(self) -> bool:
        """Whether the voice is the default polite style."""
        return self.ending.startswith("です")

    def say(self, phrase: str) -> str:
        """`phrase` (a noun phrase) finished in this voice: `…だよ。` / `…です。`."""
        end = self.ending
        return f"{phrase}{end}" if end.endswith(("。", "！", "!", "？", "?")) else f"{phrase}{end}。"

    def speak(self, polite: str, plain: str) -> str:
        """A sentence in this voice from its polite and plain forms: `置きました。` / `置いたよ。` / `置いたにゃ。`."""
        if polite.endswith(("？", "?", "！", "!")):
            return polite if self.polite else plain
        if self.polite:
            return f"{polite}{'わ' if self.ending.startswith('ですわ') else ''}。"
        tail = _PLAIN_TAILS.get(self.ending)
        if tail is None:
            tail = self.ending.lstrip("だや") if self.ending[:1] in "だや" else self.ending
        return f"{plain}{tail}" if tail.endswith(("。", "！", "!")) else f"{plain}{tail}。"


def _field(system: str, *keys: str) -> str:
    for key in keys:
        match = re.search(rf"^\s*[-・*]?\s*{key}\s*[:：]\s*(.+?)\s*$", system, re.M)
        if match:
            return match.group(1).strip()
        match = re.search(rf"{key}は「([^」]+)」", system)  # prose style: 一人称は「ボク」
        if match:
            return match.group(1).strip()
    return ""


@lru_cache(maxsize=256)  # the same system prompt pulse after pulse; a Voice is frozen
def read_voice(system: str | None, persona_name: str | None = None) -> Voice:
    """The persona's voice from its system prompt (`あなたは{name}です。`, `一人称:`, `語尾:`, `口調:`)."""
    system = system or ""
    name = persona_name or ""
    if not name:
        match = re.search(r"あなたは「?([^「」。\n、]{1,30}?)」?です", system)
        name = match.group(1).strip() if match else ""
    first = _field(system, "一人称") or "私"
    first = re.split(r"[、,/／（(\s]", first)[0].strip("「」『』") or "私"
    ending = _field(system, "語尾")
    ending = re.split(r"[、,/／・（(\s]", ending)[0].strip("「」『』〜~ー") if ending else ""
    if not ending:
        tone = _field(system, "口調", "話し方")
        ending = next((e for word, e in _CASUAL_TONE.items() if word in tone), "")
    return Voice(name=name, first_person=first, ending=ending or "です")


def estimate_tokens(text: str) -> int:
    """A rough token count: one per non-ASCII character, one per four ASCII characters."""
    # Encoding once counts ASCII in C: UTF-8 bytes = ascii + 3·(non-ASCII, nearly all 3-byte here).
    non_ascii = (len(text.encode("utf-8")) - len(text)) // 2
    ascii_count = len(text) - non_ascii
    return non_ascii + (ascii_count + 3) // 4


def summarize_text(text: str, limit: int = 300) -> str:
    """An extractive summary: the first sentences of `text` (split on 。！？!?\\n), ≤ `limit` chars."""
    sentences = [s.strip() for s in re.findall(r"[^。！？!?\n]+[。！？!?]*", text or "")]
    sentences = [re.sub(r"^#+\s*", "", re.sub(r"\s+", " ", s)) for s in sentences if s.strip()]
    out = ""
    for sentence in sentences:
        if not out and len(sentence) > limit:
            return sentence[: max(0, limit - 1)] + "…"
        joined = f"{out} {sentence}" if out and not out.endswith(("。", "！", "？")) else out + sentence
        if len(joined) > limit:
            break
        out = joined
    return out


def _is_system_block(content: str | None) -> bool:
    """`_SYSTEM_BLOCK` matches `content` (the substring test first: ~5x cheaper than the regex's
    start, and most messages of a prompt are conversation without one)."""
    return bool(content) and "<system>" in content and _SYSTEM_BLOCK.match(content) is not None  # type: ignore[operator]


def system_blocks(messages: list[Message]) -> list[str]:
    """Bodies of user-role `<system>…</system>` messages (sub-playbook results), oldest first."""
    out = []
    for msg in messages:
        match = _SYSTEM_BLOCK.match(msg.get("content") or "")
        if msg.get("role") == "user" and match:
            out.append(match.group(1))
    return out


def first_meaningful_line(block: str) -> str:
    """The first line of a result block that says something: not the header, not the ※ note, and
    not a lead-in ending with a colon when content follows it."""
    lines = [ln.strip() for ln in block.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("※") and not re.match(r"^(サブプレイブック)?実行結果", ln)]
    for i, line in enumerate(lines):
        if line.endswith((":", "：")) and i + 1 < len(lines):
            continue
        return line.lstrip("-・* ").strip()
    return ""


_REQUEST_LINE = re.compile(r"^\s*(?:依頼|ユーザーの発言|発言|request)\s*[:：]\s*(.+)$", re.M | re.I)


def request_line(text: str) -> str:
    """The request inside a playbook prompt: a line `依頼: …` (or `発言: …`) names it, so the rest
    of the prompt (item lists, current contents) is context, not what the user asked."""
    match = _REQUEST_LINE.search(text)
    return match.group(1).strip() if match else text


def last_user_message(messages: list[Message]) -> Message | None:
    """The last genuine user message (not a `<system>` block)."""
    for msg in reversed(messages):
        if msg.get("role") == "user" and not _SYSTEM_BLOCK.match(msg.get("content") or ""):
            return msg
    return None


# Words of a prompt addressed to the model (its tools, arguments, JSON), not of a person talking.
_INSTRUCTION = re.compile(r"ツール|引数|パラメータ|スキーマ|JSON|json|schema|Respond|You are|\b[a-z]+_[a-z_]+\b")


def request_message(messages: list[Message]) -> Message | None:
    """What the user asked: the last genuine user message, unless it is a playbook's instruction to
    the model (upstream prompts such as `document_createツールの引数を決定します` carry no request;
    the request is in the conversation before it). A `依頼: …` line, or the user's own words
    repeated as the prompt, keep the last message."""
    # Walked from the newest message: a prompt holds a few hundred lines of history, and the answer
    # is nearly always among the last few. An earlier message with the same text as the last genuine
    # one is genuine too (the same text is no `<system>` block either): a plain comparison finds it.
    users = (m for m in reversed(messages) if m.get("role") == "user" and not _is_system_block(m.get("content")))
    last = next(users, None)
    if last is None:
        return None
    text = last.get("content") or ""
    at = next(i for i in range(len(messages) - 1, -1, -1) if messages[i] is last)
    if _REQUEST_LINE.search(text) or any(m.get("role") == "user" and (m.get("content") or "") == text
                                         for m in messages[:at]):
        return last
    for msg in chain((last,), users):  # lazily: usually `last` itself
        if not _INSTRUCTION.search(msg.get("content") or ""):
            return msg
    return last


def _conversation(messages: list[Message], request: Message | None, keep: int = 12) -> tuple[str, ...]:
    """The lines said before `request` (user and assistant, no `<system>` blocks, no offline note),
    the last `keep`, oldest first."""
    said = (request.get("content") or "") if request else ""
    lines: list[str] = []
    for msg in messages:
        content = without_note(msg.get("content") or "").strip()
        if msg is request or (said and content == said):
            break
        if msg.get("role") in ("user", "assistant") and content and not _is_system_block(content):
            lines.append(_strip_mention(content))
    return tuple(lines[-keep:])


def _clip(text: str, limit: int) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pick(text: str, n: int) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % n


def _strip_mention(text: str) -> str:
    return re.sub(r"^\s*[@＠]\S+\s*", "", text or "").strip()


class OfflineModel:
    """The embedded model: deterministic, instant, no network (provider `offline`)."""

    name = "offline"
    provider = "offline"
    supports_vision = True
    follows_instructions = False  # mechanical answers: production and summaries use their own rules

    def __repr__(self) -> str:
        return "OfflineModel()"

    def reply_text(self, request: ChatRequest) -> str:
        """The chat reply for `request` (what `generate` returns as text without schema or tools)."""
        return self.speech(request) + say("offline_note")

    def speech(self, request: ChatRequest) -> str:
        """What the persona says, without the offline note, in the language in force (SAIVERSE_LANG: the
        Japanese of saiverse/llm/offline/_speech.py, or the English of _speech_en.py)."""
        english = current() == "en"
        voice = read_voice(request.system, request.persona_name)
        place = place_of(request.system)
        likes = "" if english else likes_of(request.system)  # a profile's words are Japanese: not said in English
        openers, follows = (en.OPENERS, en.FOLLOWS) if english else (OPENERS, FOLLOWS)
        last = last_user_message(request.messages)
        said = _strip_mention(last.get("content", "")) if last else ""
        key = f"{voice.name}|{said}|{len(request.messages)}"
        values = {"me": "I" if english else voice.first_person, "name": voice.name, "place": place, "likes": likes}
        pairs: list[tuple[str, str]] = []
        if said and is_instruction(said):
            # the app's own prompt (an autonomous turn): never quoted
            pairs.append(en.scene_line(said, key) if english else scene_line(said, key))
        else:
            kind = intent(said)
            tell = en.happened if english else happened
            told = [tell(pb, body, place) for pb, body in result_blocks(request.messages)]
            told = list(dict.fromkeys(t for t in told if t))[-2:]
            hello = (GREETING.match(said).group(1) if kind == "greeting" else "")  # type: ignore[union-attr]
            hello = hello[:1].upper() + hello[1:] if english else hello
            if told:
                pairs += told
                follow = choose(follows, "done", key, **values)
            elif company := company_of(request.system):
                # One of several answering in one building: the same pick for all, each at its own seat,
                # so their words differ (alone, the persona's own pick as before).
                seat = sorted({voice.name, *company}).index(voice.name)
                opener, follow = choose_pair(openers, kind if kind != "empty" else "statement", follows, kind,
                                             f"{said}|group", seat, hello=hello, **values)
                pairs += [opener] if opener else []
            else:
                opener = choose(openers, kind if kind != "empty" else "statement", key, hello=hello, **values)
                pairs += [opener] if opener else []
                follow = choose(follows, kind, key + "+", **values)
            if follow and len(pairs) < 3:
                pairs.append(follow)
        sentences = [en.sentence(p[0]) if english else voice.speak(*p) for p in pairs]
        images = next((m.get("images") for m in reversed(request.messages) if m.get("images")), None)
        if images:
            sentences.append(self._image_sentence(images[0], voice, english))
        return (" " if english else "").join(sentences[:3])

    @staticmethod
    def _image_sentence(path: str, voice: Voice, english: bool) -> str:
        try:
            st = image_stats(path)
        except ValueError:
            return say("offline_image_unread") if english else voice.say("添付の画像は読み込めなかったところ")
        if english:
            colours = " and ".join(COLOURS_EN[name] for name, _ in st.colours[:2])
            return say("offline_image_seen", width=st.width, height=st.height, colours=colours,
                       light=BRIGHTNESS_EN[st.brightness_word])
        colours = "と".join(name for name, _ in st.colours[:2])
        return voice.say(f"画像は{st.width}×{st.height}で、{colours}が目立つ{st.brightness_word}絵")

    def _hints(self, request: ChatRequest, contents: list[str] | None = None) -> FillHints:
        """What the filler knows; `contents`: each message's text, when the caller has them already."""
        last = request_message(request.messages)
        said = request_line(_strip_mention(last.get("content", "")) if last else "")
        name = read_voice(request.system, request.persona_name).name
        if name:  # `ソラ、海の絵を描いて`: the persona addressed is not part of the request
            said = re.sub(rf"^{re.escape(name)}(さん|ちゃん|くん)?[、,，\s]+", "", said).strip() or said
        parts = (request.system or "", *(contents if contents is not None else
                                          [m.get("content") or "" for m in request.messages]))
        done = frozenset(pb for pb, _body in result_blocks(request.messages) if pb)
        return FillHints(user_text=said, reply_of=lambda: self.reply_text(request), context="\n".join(parts),
                         summary=summarize_text(payload(said), 100), done=done, context_parts=parts,
                         conversation=_conversation(request.messages, last))

    def _tool_call(self, request: ChatRequest) -> ToolCall | None:
        last = last_user_message(request.messages)
        text = (last.get("content") or "") if last else ""
        for tool in request.tools:
            name = tool.get("name", "")
            if name and name.lower() in text.lower():
                rest = re.sub(re.escape(name), " ", text, flags=re.I)
                rest = re.sub(r"^[\s:：、。をでは]+", "", re.sub(r"\s+", " ", rest)).strip()
                base = self._hints(request)
                hints = FillHints(user_text=rest or text, reply_of=base.reply_of, context=base.context,
                                  summary=summarize_text(rest, 100), done=base.done, context_parts=base.context_parts)
                params = tool.get("parameters") or {"type": "object", "properties": {}}
                args = fill(params, hints)
                return ToolCall(name=name, arguments=args if isinstance(args, dict) else {},
                                id=f"offline-{name}-{_pick(text, 10_000):04d}")
        return None

    def generate(self, request: ChatRequest) -> ChatResult:
        """Answer once: a tool call, JSON for `response_schema`, or the persona's offline reply."""
        contents = [m.get("content") or "" for m in request.messages]  # one walk for the count and the hints
        prompt_tokens = estimate_tokens((request.system or "") + "".join(contents))
        call = self._tool_call(request) if request.tools else None
        if call is not None:
            return ChatResult(text="", tool_calls=[call], model=self.name,
                              usage=Usage(input_tokens=prompt_tokens, output_tokens=8))
        if request.response_schema is not None:
            hints = self._hints(request, contents)
            context = hints.context
            hints.user_text = strip_catalogue(_schema_options(request.response_schema), hints.user_text)
            hints.context = context
            data = fill(request.response_schema, hints)
            text = json.dumps(data, ensure_ascii=False)
            return ChatResult(text=text, data=data, model=self.name,
                              usage=Usage(input_tokens=prompt_tokens, output_tokens=estimate_tokens(text)))
        text = self.reply_text(request)
        return ChatResult(text=text, model=self.name,
                          usage=Usage(input_tokens=prompt_tokens, output_tokens=estimate_tokens(text)))

    def stream(self, request: ChatRequest) -> Iterator[str]:
        """The text of `generate`, in chunks of a few characters."""
        if request.tools or request.response_schema is not None or type(self).generate is not OfflineModel.generate:
            text = self.generate(request).text
        else:  # `generate`'s text without its usage count (a stream reports none): a walk over the prompt less
            text = self.reply_text(request)
        for i in range(0, len(text), _CHUNK):
            yield text[i: i + _CHUNK]

    def generate_image(self, prompt: str) -> tuple[bytes, str]:
        """A 512×512 PNG drawn procedurally from `prompt` (same prompt, same bytes)."""
        return procedural_image(prompt), "image/png"


_OPTIONS_OF: dict[int, tuple[object, list[str]]] = {}
"""id of a request schema → (it, its enum options). A router's schema is one prepared object shared
by every pulse (sea/router.py, `prepare_schema`) and never changed in place; it is held, so its id is
not reused while kept."""


def _schema_options(schema: object) -> list[str]:
    """`_enum_options` of a request schema, worked out once per schema object."""
    kept = _OPTIONS_OF.get(id(schema))
    if kept is not None and kept[0] is schema:
        return kept[1]
    found = _enum_options(schema)
    if len(_OPTIONS_OF) > 256:
        _OPTIONS_OF.clear()
    _OPTIONS_OF[id(schema)] = (schema, found)
    return found


def _enum_options(schema: object) -> list[str]:
    """Every string enum option anywhere in a schema (to strip catalogue lines that list them)."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "enum" and isinstance(value, list):
                found += [v for v in value if isinstance(v, str)]
            else:
                found += _enum_options(value)
    elif isinstance(schema, list):
        for value in schema:
            found += _enum_options(value)
    return found
