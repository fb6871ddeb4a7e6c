"""The deterministic offline model: instant, no network; what the tests drive.

Parts (private modules; import from here):
- `_fill`: How the offline model fills a JSON schema: always valid, and as sensible as keywords …
- `_media`: Pixels for the offline model: describe an image from its pixels, draw one from a prompt.
- `_model`: The offline model: the embedded default that answers with no key and no network …
- `_speech`: What the offline model says: a persona's words, not a template …
- `_speech_en`: What the offline model says in English (SAIVERSE_LANG=en): the same rules as `_speech` …
"""

from __future__ import annotations

from saiverse.llm.offline._media import procedural_image
from saiverse.llm.offline._model import (
    OFFLINE_NOTE,
    OfflineModel,
    Voice,
    describe_image,
    estimate_tokens,
    last_user_message,
    read_voice,
    request_message,
    summarize_text,
    without_note,
)
from saiverse.llm.offline._speech import clean, happened, is_instruction, place_of, result_blocks

__all__ = [
    "OFFLINE_NOTE",
    "OfflineModel",
    "Voice",
    "clean",
    "describe_image",
    "estimate_tokens",
    "happened",
    "is_instruction",
    "last_user_message",
    "place_of",
    "procedural_image",
    "read_voice",
    "request_message",
    "result_blocks",
    "summarize_text",
    "without_note",
]
