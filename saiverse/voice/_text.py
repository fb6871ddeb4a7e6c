"""What of a reply is spoken, and where a streamed reply's sentences end.

Spoken text skips what is not speech, as upstream's voice-tts addon does before its engine: parts meant
only for the user's eyes (`<user_only>…</user_only>`, `<in_heart>…</in_heart>`), code (fenced and
inline), URLs, Markdown links and images (their words stay), item markers (`[[item:…]]`, `[item: …]`,
`📎 …`), the chat's time tags and HTML, emoji and decorations, and the chat's own `✂`/`⏹` marks under
a cut reply. Sentences end at Japanese 。！？ and latin . ! ? followed by a space, and at line breaks; a
streamed reply gives each sentence as soon as its end has arrived, so the first can be spoken while the
rest is still being written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_NOTICE = re.compile(r"(?m)^[ \t]*[\u2702\u23f9]\ufe0f?[ \t][^\n]*$")
"""The chat's own marks under a reply (ui/chat.py cut_text, a stopped send): `✂ …` cut at the length limit,
`⏹ …` stopped. They are the window's words, not hers: never said."""
_HIDDEN = re.compile(r"<(user_only|in_heart|think|thinking)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.S | re.I)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:[^)]*)\)")
_ITEM = re.compile(r"\[\[[^\]]*\]\]|\[(?:item|アイテム|file|image|document)\s*[:：][^\]]*\]|📎[^\n]*", re.I)
_URL = re.compile(r"(?:https?|ftp|file)://\S+|www\.\S+", re.I)
_TAG = re.compile(r"<[^>\n]{1,200}>")
_EMOJI = re.compile(
    "[\U0001F000-\U0001FAFF\U00002600-\U000027BF\U0000FE0F\U0000200D\U00002B00-\U00002BFF\U0001F900-\U0001F9FF"
    "\U000E0020-\U000E007F\U00002190-\U000021FF\U00003030\U0000303D]")
_MARKUP = re.compile(r"(?m)^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)|[*_~|]{1,3}")
_SPACES = re.compile(r"[ \t\u3000]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
_CJK_GAP = re.compile(r"(?<=[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]) (?=[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef])")
"""A space left between two Japanese characters where something was taken out: Japanese has none there."""
_SENTENCE_END = re.compile(r"[。！？!?]+[」』）)\"']*|\.(?=\s)|\n+")
"""A sentence ends after 。！？ (and the closing brackets that follow), after a latin full stop followed by a
space (not inside 3.14 or example.com), or at a line break."""
_CLAUSE_END = re.compile(r"[、，]|,(?=\s)")
FIRST_CLAUSE_CHARS = 5
"""The first clause is said alone only when it has this many characters (with its comma)."""
_WORDLESS = re.compile(r"^[\s\W_]*$")
"""A piece with no letter or digit (`……`, `！`) is not worth a call to an engine."""


def speakable(text: str) -> str:
    """The words of `text` an engine should say; "" when nothing is left (a reply of code or emoji only)."""
    out = _NOTICE.sub(" ", text or "")
    out = _HIDDEN.sub(" ", out)
    out = _FENCE.sub(" ", out)
    out = _INLINE_CODE.sub(" ", out)
    out = _IMAGE.sub(r"\1", out)
    out = _LINK.sub(r"\1", out)
    out = _ITEM.sub(" ", out)
    out = _URL.sub(" ", out)
    out = _TAG.sub(" ", out)
    out = _EMOJI.sub("", out)
    out = _MARKUP.sub("", out)
    out = _SPACES.sub(" ", out)
    out = _CJK_GAP.sub("", out)
    out = _BLANK_LINES.sub("\n", out)
    out = "\n".join(line.strip() for line in out.splitlines())
    return "" if _WORDLESS.match(out) else out.strip()


class SentenceSplitter:
    """Streamed text in, whole speakable sentences out: `feed` each chunk as it comes (it returns the
    sentences that chunk completed), `flush` at the end (the rest).

    With `first_clause` (the default) the reply's first piece ends already at its first comma (、 ，,) once
    it has `FIRST_CLAUSE_CHARS` characters to say: the first audio comes sooner (an engine's time grows with
    the length of what it says; benchmarks/voice.py), the rest goes sentence by sentence."""

    def __init__(self, *, first_clause: bool = True) -> None:
        self._buffer = ""
        self._first = first_clause

    def feed(self, chunk: str) -> list[str]:
        self._buffer += chunk or ""
        out: list[str] = []
        while True:
            # A `<user_only>` (or code fence) opened but not yet closed may hide what follows: wait for its end.
            if _unclosed(self._buffer):
                return out
            end = _sentence_end(self._buffer)
            if self._first:
                clause = _clause_end(self._buffer)
                end = clause if clause is not None and (end is None or clause < end) else end
            if end is None:
                return out
            piece, self._buffer = self._buffer[:end], self._buffer[end:]
            said = speakable(piece)
            if said:
                out.append(said.replace("\n", " "))
                self._first = False

    def flush(self) -> list[str]:
        rest, self._buffer = self._buffer, ""
        said = speakable(rest)
        return [said.replace("\n", " ")] if said else []


def _sentence_end(text: str) -> int | None:
    """Where the first sentence of `text` ends, not counting ends inside a hidden part or code."""
    covered = [m.span() for pattern in (_HIDDEN, _FENCE) for m in pattern.finditer(text)]
    for match in _SENTENCE_END.finditer(text):
        if not any(start <= match.start() < stop for start, stop in covered):
            return match.end()
    return None


def _clause_end(text: str) -> int | None:
    """Where the first clause of `text` ends (after a comma), when it has enough to say."""
    covered = [m.span() for pattern in (_HIDDEN, _FENCE) for m in pattern.finditer(text)]
    for match in _CLAUSE_END.finditer(text):
        if any(start <= match.start() < stop for start, stop in covered):
            continue
        if len(speakable(text[:match.end()])) >= FIRST_CLAUSE_CHARS:
            return match.end()
    return None


def _unclosed(text: str) -> bool:
    """Whether `text` opens a hidden part or a code fence it does not close yet."""
    if text.count("```") % 2:
        return True
    for name in ("user_only", "in_heart", "think", "thinking"):
        opened = len(re.findall(rf"<{name}\b[^>]*>", text, re.I))
        if opened > len(re.findall(rf"</{name}\s*>", text, re.I)):
            return True
    return False


def sentences(stream: Iterable[str]) -> Iterator[str]:
    """The speakable sentences of a streamed reply, each yielded as soon as it is complete (chunks are the
    new text of each step, not the whole text so far)."""
    splitter = SentenceSplitter()
    for chunk in stream:
        yield from splitter.feed(chunk)
    yield from splitter.flush()
