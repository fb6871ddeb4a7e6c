"""The deterministic offline model: instant, no network; what the tests drive.

Parts (private modules; import from here):
- `_fill`: How the offline model fills a JSON schema: always valid, and as sensible as keywords …
- `_media`: Pixels for the offline model: describe an image from its pixels, draw one from a prompt.
- `_model`: The offline model: the embedded default that answers with no key and no network …
- `_speech`: What the offline model says: a persona's words, not a template …
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from saiverse._lazy import lazy_getattr

if TYPE_CHECKING:
    from saiverse.llm.offline._media import procedural_image as procedural_image
    from saiverse.llm.offline._model import OFFLINE_NOTE as OFFLINE_NOTE
    from saiverse.llm.offline._model import OfflineModel as OfflineModel
    from saiverse.llm.offline._model import Voice as Voice
    from saiverse.llm.offline._model import describe_image as describe_image
    from saiverse.llm.offline._model import estimate_tokens as estimate_tokens
    from saiverse.llm.offline._model import last_user_message as last_user_message
    from saiverse.llm.offline._model import read_voice as read_voice
    from saiverse.llm.offline._model import request_message as request_message
    from saiverse.llm.offline._model import summarize_text as summarize_text
    from saiverse.llm.offline._speech import clean as clean
    from saiverse.llm.offline._speech import happened as happened
    from saiverse.llm.offline._speech import is_instruction as is_instruction
    from saiverse.llm.offline._speech import place_of as place_of
    from saiverse.llm.offline._speech import result_blocks as result_blocks

_EXPORTS: dict[str, str] = {
    "OFFLINE_NOTE": "_model",
    "OfflineModel": "_model",
    "Voice": "_model",
    "clean": "_speech",
    "describe_image": "_model",
    "estimate_tokens": "_model",
    "happened": "_speech",
    "is_instruction": "_speech",
    "last_user_message": "_model",
    "place_of": "_speech",
    "procedural_image": "_media",
    "read_voice": "_model",
    "request_message": "_model",
    "result_blocks": "_speech",
    "summarize_text": "_model",
}
"""Public name → the private module that defines it (imported on first use)."""

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())
