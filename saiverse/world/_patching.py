"""Document patches for `item_use` `patch_content`: a unified diff is applied, anything else appended.

The diff applier is strict — every context and removed line must match the document (allowing
the hunk to have drifted a few lines) — so a patch written against another version fails with a
message naming the hunk instead of silently damaging the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from saiverse.errors import UserError

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
MAX_DRIFT = 50


class PatchError(UserError, ValueError):
    """A unified diff that does not apply to the document."""


@dataclass
class _Hunk:
    old_start: int
    lines: list[str]  # each starts with ' ', '-' or '+'


def looks_like_unified_diff(patch: str) -> bool:
    """Has at least one `@@ -a,b +c,d @@` hunk header."""
    return any(_HUNK.match(line) for line in patch.splitlines())


def _parse(patch: str) -> list[_Hunk]:
    hunks: list[_Hunk] = []
    current: _Hunk | None = None
    for raw in patch.splitlines():
        if raw.startswith(("--- ", "+++ ", "diff ", "index ")) and current is None:
            continue
        m = _HUNK.match(raw)
        if m:
            current = _Hunk(int(m.group(1)), [])
            hunks.append(current)
            continue
        if current is None:
            continue
        if raw.startswith("\\"):  # "\ No newline at end of file"
            continue
        if raw[:1] in (" ", "-", "+"):
            current.lines.append(raw)
        elif raw == "":
            current.lines.append(" ")  # an empty context line whose space was stripped
        else:
            raise PatchError(f"line {raw[:40]!r} in hunk {len(hunks)} is not ' ', '-' or '+'")
    if not hunks:
        raise PatchError("no @@ hunk found")
    return hunks


def apply_unified_diff(text: str, patch: str) -> str:
    """Apply `patch` to `text`; raises PatchError naming the hunk that does not match."""
    lines = text.split("\n")
    trailing_newline = text.endswith("\n")
    if trailing_newline:
        lines = lines[:-1]
    offset = 0
    for number, hunk in enumerate(_parse(patch), start=1):
        old = [ln[1:] for ln in hunk.lines if ln[0] in (" ", "-")]
        new = [ln[1:] for ln in hunk.lines if ln[0] in (" ", "+")]
        expected = max(hunk.old_start - 1, 0) + offset
        at = _find(lines, old, expected)
        if at is None:
            first = old[0] if old else ""
            raise PatchError(
                f"hunk {number} does not match the document (expected near line {expected + 1}: {first!r})"
            )
        lines[at:at + len(old)] = new
        offset += len(new) - len(old)
    out = "\n".join(lines)
    return out + "\n" if trailing_newline else out


def _find(lines: list[str], old: list[str], expected: int) -> int | None:
    if not old:
        return min(max(expected, 0), len(lines))
    for drift in range(MAX_DRIFT + 1):
        for at in (expected - drift, expected + drift):
            if 0 <= at <= len(lines) - len(old) and lines[at:at + len(old)] == old:
                return at
    return None


def apply_patch(text: str, patch: str) -> tuple[str, str]:
    """(new text, how): a unified diff is applied (`diff`), anything else appended (`append`)."""
    if not patch.strip():
        raise PatchError("patch is empty")
    if looks_like_unified_diff(patch):
        return apply_unified_diff(text, patch), "diff"
    sep = "" if not text or text.endswith("\n") else "\n"
    return text + sep + patch.rstrip("\n") + "\n", "append"
