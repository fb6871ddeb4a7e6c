"""Item summaries (≤ 300 characters, Japanese) by the item model chain, offline when unreachable.

picture: persona LIGHTWEIGHT_VISION_MODEL → SAIVERSE_LIGHTWEIGHT_VISION_MODEL → default;
document: persona LIGHTWEIGHT_MODEL → SAIVERSE_DEFAULT_LIGHTWEIGHT_MODEL → default. A model that
is not configured (no key) or fails falls back to the offline summariser, so creating an item never
fails for want of a summary.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from chat import ChatRequest, LLMError, Message
from saiverse.llm import describe_image, resolve_model, summarize_text
from saiverse.metering import Metered, Record, acting
from saiverse.settings import Settings
from saiverse.world._items import clip_summary

log = logging.getLogger(__name__)

PICTURE_PROMPT = (
    "以下の画像を詳しく説明するのではなく、内容を理解するための要点を300文字以内の日本語で1〜2文にまとめてください。"
)
SUMMARY_TOKENS = 400
"""Answer length of a summary request (≤ 300 Japanese characters fit; a small model must not ramble on)."""
DOCUMENT_PROMPT = "以下の文書の内容を300文字以内の日本語で要約してください。要点を簡潔にまとめてください。"


class Summarizer:
    """Makes summaries; `model_name` (a persona's column) overrides the configured default."""

    def __init__(self, settings: Callable[[], Settings], record: Record | None = None) -> None:
        self._settings = settings
        """The settings in force (read at each summary: the 設定 tab may change the models)."""
        self._record = record
        """Where a summary made for a persona (`acting_for`) is counted (saiverse/costs.py `Costs.record`)."""

    @property
    def settings(self) -> Settings:
        return self._settings()

    def _ask(self, name: str, message: Message, *, vision: bool = False) -> str | None:
        """The configured model's summary, or None (offline, no vision, failed, empty) → offline path."""
        model, _notice = resolve_model(name, self.settings)
        if self._record is not None and acting():
            model = Metered(model, acting(), self._record)  # type: ignore[assignment]
        if not model.follows_instructions or (vision and not model.supports_vision):
            return None
        try:
            text = model.generate(ChatRequest(messages=[message], max_tokens=SUMMARY_TOKENS)).text
        except LLMError as exc:
            log.warning("summary via %s failed (%s); using the offline summariser", name, exc.kind)
            return None
        return clip_summary(text) if text.strip() else None

    def document(self, text: str, model_name: str | None = None) -> str:
        name = model_name or self.settings.default_lightweight_model
        asked = self._ask(name, Message(role="user", content=f"{DOCUMENT_PROMPT}\n\n{text}"))
        return asked or clip_summary(summarize_text(text))

    def picture(self, path: Path, model_name: str | None = None) -> str:
        name = model_name or self.settings.lightweight_vision_model
        asked = self._ask(name, Message(role="user", content=PICTURE_PROMPT, images=[str(path)]), vision=True)
        return asked or clip_summary(describe_image(path))
