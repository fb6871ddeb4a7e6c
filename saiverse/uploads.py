"""Items as the entry points reach them: viewing, saving a document, uploads, a persona's drawing.

A service the manager builds (saiverse/manager.py) with the parts it uses; the rules (limits, formats,
files) live in saiverse/world/ (`_items.py`, `_media.py`, `_pdf.py`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from saiverse.listen import audio_kind
from saiverse.pulse import ModelResolver, persona_context
from saiverse.settings import SettingsStore
from saiverse.world import (
    CheckedImage,
    ItemInfo,
    ItemStore,
    World,
    check_audio,
    check_image,
    check_pdf,
    create_audio,
    crop_to_ratio,
    is_pdf,
)
from words import say


class Uploads:
    """What the item modal, the upload button, the CLI's `upload` and a persona's drawing do to items."""

    def __init__(self, *, world: World, items: ItemStore, models: ModelResolver, settings: SettingsStore) -> None:
        self.world = world
        self.items = items
        self.models = models
        """(persona, kind) → (model, notice): whose image model draws a persona's picture."""
        self.settings_store = settings
        """The upload limits in force."""

    def item(self, item_id: str) -> ItemInfo:
        return self.items.get(item_id)

    def item_view(self, item_id: str) -> dict[str, Any]:
        """What the item modal shows: picture → image path, audio → its file, document → text, object → 閲覧不可."""
        info = self.items.get(item_id)
        view: dict[str, Any] = {"item": info, "viewable": info.type in ("picture", "document", "audio")}
        if info.type == "picture":
            view["image_path"] = str(self.items.file_of(info))
        elif info.type == "audio":
            view["audio_path"] = str(self.items.file_of(info))
        elif info.type == "document":
            view["text"] = self.items.read_document(item_id)
        return view

    def save_document(self, item_id: str, text: str, *, expected_version: int | None = None) -> ItemInfo:
        """Save a document's text; with `expected_version`, a newer stored version is never overwritten."""
        return self.items.save_document(item_id, text, expected_version=expected_version)

    def check_image(self, data: bytes) -> CheckedImage:
        """Image bytes against the configured limits (format judged from the content)."""
        settings = self.settings_store.current
        return check_image(data, max_bytes=settings.max_upload_bytes, max_pixels=settings.max_upload_pixels)

    def upload_image(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        """An uploaded image becomes a picture item in the building (checked before storing)."""
        self.world.building(building_id)
        return self.items.create_picture(
            self.check_image(data), (name or "").strip() or say("img_default_name"),
            owner_kind="building", owner_id=building_id, state={"created_by": "user_upload"},
        )

    def upload_pdf(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        """An uploaded PDF becomes a document item in the building (checked, then summarised from its text)."""
        self.world.building(building_id)
        pages = check_pdf(data, max_bytes=self.settings_store.current.max_upload_bytes)
        return self.items.create_pdf(data, (name or "PDF").strip() or "PDF", pages=pages, owner_kind="building",
                                     owner_id=building_id, state={"created_by": "user_upload"})

    def upload_path(self, building_id: str, path: Path) -> ItemInfo:
        """A file on disk as an item of `building_id` (read in chunks up to the upload limit).

        Raises UnknownIdError before a long read, InputError for an unreadable, non-regular or too
        large file, UsageError naming the file when it is neither an image, audio nor a PDF."""
        from saiverse.errors import UsageError
        from saiverse.inputs import read_limited

        self.world.building(building_id)
        data = read_limited(path, self.settings_store.current.max_upload_bytes, what=say("what_upload"),
                            limit_name="SAIVERSE_MAX_UPLOAD_BYTES")
        # A file name that is not UTF-8 is still a file; its item name shows the bad bytes as �.
        name = os.fsencode(path.stem).decode("utf-8", "replace")
        try:
            return self.upload_file(building_id, data, name)
        except ValueError as exc:  # not an image, audio or a PDF, too many pixels, a bad name: say which file
            raise UsageError(say("upload_refused", path=path, why=exc)) from exc

    def upload_attachment(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        """A chat attachment: audio (a voice message from the phone's recorder) becomes an audio item, anything
        else must be an image (a picture item); judged by content."""
        if audio_kind(data) is not None:
            return self.keep_audio(building_id, data, name, state={"created_by": "user_upload"})
        return self.upload_image(building_id, data, name)

    def upload_file(self, building_id: str, data: bytes, name: str | None = None) -> ItemInfo:
        """A PDF becomes a document item, audio an audio item, anything else must be an image (a picture
        item); judged by content."""
        if is_pdf(data):
            return self.upload_pdf(building_id, data, name)
        return self.upload_attachment(building_id, data, name)

    def keep_audio(self, building_id: str, data: bytes, name: str | None = None, *, description: str = "",
                   state: dict[str, Any] | None = None) -> ItemInfo:
        """Audio kept as an item in the building (saiverse/world/_item_audio.py): an upload, a spoken line
        (ui/voice_routes.py `keep`), a recorded voice message; `description` is what is said in it."""
        self.world.building(building_id)
        audio = check_audio(data, max_bytes=self.settings_store.current.max_upload_bytes)
        return create_audio(self.items, audio, name, owner_kind="building", owner_id=building_id,
                            description=description, state=state)

    def draw_picture(self, persona_id: str, building_id: str, prompt: str, name: str,
                     state: dict[str, Any], *, aspect_ratio: str | None = None) -> ItemInfo:
        """A persona draws `prompt` (its model's image generation; offline: procedural) and the picture
        hangs in `building_id`, summarised by the persona's LIGHTWEIGHT_VISION_MODEL chain.
        `aspect_ratio` ("16:9") centre-crops what the model drew."""
        persona = self.world.persona(persona_id)
        model, _notice = self.models(persona_context(persona), "image")
        data, _mime = model.generate_image(prompt)
        image = self.check_image(data)  # what the model returned is checked before anything reads it
        if aspect_ratio:
            image = self.check_image(crop_to_ratio(image.data, aspect_ratio))
            state = {**state, "aspect_ratio": aspect_ratio}
        return self.items.create_picture(
            image, name, owner_kind="building", owner_id=building_id,
            state={**state, "prompt": prompt, "model": model.name}, summary_model=persona.lightweight_vision_model)
