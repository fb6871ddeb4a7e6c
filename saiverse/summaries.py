"""Item summaries (≤ 300 characters, Japanese) by the spec's model chain, offline when unreachable.

picture: persona LIGHTWEIGHT_VISION_MODEL → SAIVERSE_LIGHTWEIGHT_VISION_MODEL → default;
document: persona LIGHTWEIGHT_MODEL → SAIVERSE_DEFAULT_LIGHTWEIGHT_MODEL → default. A model that
is not configured (no key) or fails falls back to the offline summariser, so creating an item never
fails for want of a summary.
"""

from __future__ import annotations

import logging
from pathlib import Path

from saiverse.items import clip_summary
from saiverse.llm.base import ChatRequest, LLMError, Message
from saiverse.llm.offline import describe_image, summarize_text
from saiverse.llm.registry import resolve_model
from saiverse.settings import Settings

log = logging.getLogger(__name__)

PICTURE_PROMPT = (
    "以下の画像を詳しく説明するのではなく、内容を理解するための要点を300文字以内の日本語で1〜2文にまとめてください。"
)
DOCUMENT_PROMPT = "以下の文書の内容を300文字以内の日本語で要約してください。要点を簡潔にまとめてください。"


class Summarizer:
    """Makes summaries with the configured models; `persona_models` may name per-persona choices."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def document(self, text: str, model_name: str | None = None) -> str:
        name = model_name or self.settings.default_lightweight_model
        model, _notice = resolve_model(name, self.settings)
        if model.provider != "offline":
            try:
                prompt = Message(role="user", content=f"{DOCUMENT_PROMPT}\n\n{text}")
                result = model.generate(ChatRequest(messages=[prompt]))
                if result.text.strip():
                    return clip_summary(result.text)
            except LLMError as exc:
                log.warning("document summary via %s failed (%s); using the offline summariser", name, exc.kind)
        return clip_summary(summarize_text(text))

    def picture(self, path: Path, model_name: str | None = None) -> str:
        name = model_name or self.settings.lightweight_vision_model
        model, _notice = resolve_model(name, self.settings)
        if model.provider != "offline" and model.supports_vision:
            try:
                msg = Message(role="user", content=PICTURE_PROMPT, images=[str(path)])
                result = model.generate(ChatRequest(messages=[msg]))
                if result.text.strip():
                    return clip_summary(result.text)
            except LLMError as exc:
                log.warning("picture summary via %s failed (%s); using the offline describer", name, exc.kind)
        return clip_summary(describe_image(path))
