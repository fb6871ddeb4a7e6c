"""Catalogue lines: the text a prompt gives about each enum option (`- item_view_playbook: 見る`).

Part of the offline model's keyword routing (saiverse/llm/schema.py, `pick_option`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

__all__ = ["catalogue", "catalogue_of_parts"]


@lru_cache(maxsize=1024)
def _name_pattern(option: str) -> re.Pattern[str]:
    return re.compile(re.escape(option), re.I)


def catalogue(options: list[str], text: str) -> dict[str, str]:
    """Describing text per option, from lines that name exactly one option (`- a: does X`)."""
    return _fold(_described_lines(options, text))


def catalogue_of_parts(options: list[str], parts: Sequence[str]) -> dict[str, str]:
    """`catalogue(options, "\\n".join(parts))`, each part's lines looked at once per (options, part).

    A router's prompt is its schema's description, the system prompt and a few hundred history
    messages, the same string objects pulse after pulse (the persona's kept snapshot makes each line's
    message once): only a part not seen before is lowered and searched. The parts are joined at a
    separator, so the whole text's lines are the parts' lines in order, and lowering never crosses a
    line (`str.lower`'s one context rule, the final sigma, stops at a newline): the same answer.
    """
    key = tuple(options)
    with _MEMO_LOCK:
        memo = _PARTS_MEMO.get(key)
        if memo is None or len(memo) > PARTS_MEMO_SIZE:
            if len(_PARTS_MEMO) >= OPTION_LISTS_KEPT:  # other routers' lists, steps done: dropped together
                _PARTS_MEMO.clear()
            memo = _PARTS_MEMO[key] = {}
    lines: list[tuple[str, str]] = []
    for part in parts:
        found = memo.get(part)
        if found is None:
            found = memo[part] = _described_lines(options, part) or ()
        if found:
            lines += found
    return _fold(lines)


PARTS_MEMO_SIZE = 4096
"""Parts kept per option list; past it the list's parts are looked at afresh (a persona's history
adds a few a pulse)."""
OPTION_LISTS_KEPT = 8
"""Option lists kept at once: with `PARTS_MEMO_SIZE`, at most ~32k parts (a few MiB) are held."""
_PARTS_MEMO: dict[tuple[str, ...], dict[str, Sequence[tuple[str, str]]]] = {}
_MEMO_LOCK = threading.Lock()


def _fold(lines: Iterable[tuple[str, str]]) -> dict[str, str]:
    found: dict[str, str] = {}
    for option, rest in lines:
        found[option] = (found.get(option, "") + " " + rest).strip()
    return found


def _described_lines(options: list[str], text: str) -> list[tuple[str, str]]:
    """(option, the line without its name) of each line of `text` that names exactly one option, in order."""
    out: list[tuple[str, str]] = []
    whole = text.lower()
    lowered = [(o, lo) for o in options if (lo := o.lower()) in whole]
    if not lowered:
        return out
    # A prompt is mostly conversation that names no option: the names are found in the whole text
    # (in C) and only the lines that hold one are cut out and looked at.
    any_named = re.compile("|".join(re.escape(lo) for _, lo in lowered))
    if len(whole) == len(text):  # lowering kept every position (it nearly always does)
        names = [lo for _, lo in lowered]
        starts = _name_starts(names, whole) if all(names) else [m.start() for m in any_named.finditer(whole)]
        pairs: Any = _named_lines(starts, text, whole)
    else:  # lowering never makes or removes a separator, so both splits have the same lines
        pairs = zip(re.split(_SEPARATORS, text), re.split(_SEPARATORS, whole), strict=True)
    for line, low in pairs:
        if not any_named.search(low):
            continue
        named = [o for o, lo in lowered if lo in low]
        if len(named) == 1:
            out.append((named[0], _name_pattern(named[0]).sub(" ", line)))
    return out


_SEPARATORS = re.compile(r"[\n;；]")


def _name_starts(names: list[str], whole: str) -> list[int]:
    """Where the regex alternation of `names` (non-empty, in order) starts its matches in `whole`, as
    `finditer` finds them, but with `str.find`: the alternation tries every name at every position
    (~40 µs over a router prompt of ~7,000 characters; the finds take a few)."""
    found: set[int] = set()
    for name in names:
        at = whole.find(name)
        while at >= 0:
            found.add(at)
            at = whole.find(name, at + 1)
    starts: list[int] = []
    free = 0
    for at in sorted(found):
        if at >= free:  # finditer goes on after the match: the first name (in order) that fits here
            starts.append(at)
            free = at + next(len(n) for n in names if whole.startswith(n, at))
    return starts


def _named_lines(starts: Iterable[int], text: str, whole: str) -> list[tuple[str, str]]:
    """(line, lowered line) of each line of `text` (cut at `_SEPARATORS`) holding one of the name
    `starts` in `whole` (`text` lowered, same length), in order: what splitting both and searching every
    line keeps."""
    out: list[tuple[str, str]] = []
    end = 0
    for at in starts:
        if at < end:
            continue  # another name on a line already taken
        # The line starts after the last separator before the name; the previous line taken ended at
        # one (or this is the first), so looking back no further than it keeps the pass linear.
        start = max(whole.rfind(sep, end, at) for sep in "\n;；") + 1 or end
        nxt = _SEPARATORS.search(whole, at)
        end = nxt.start() if nxt else len(whole)
        out.append((text[start:end], whole[start:end]))
    return out
