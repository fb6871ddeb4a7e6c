"""Audio items (upstream's `audio` item type): a reply's spoken audio or a recorded voice message, kept.

An audio item is a row plus its file under `<home>/recordings/` (not `audio/`: that is the spoken-audio cache,
pruned by size, saiverse/voice/_cache.py), with the `.summary.txt` sidecar every item file has. The file is
written whole first and the rows in one transaction after it (ItemStore.create_with_file), so a kill leaves
either the item or a file no row names, which start-up repair puts aside. Its kind is read from its first
bytes (saiverse/listen `audio_kind`: WAV, MP3, WebM, Ogg, FLAC, M4A, AAC); STATE_JSON holds `mime_type`,
`seconds` (WAV: from its header; others: unknown) and how it was made (`created_by`: `voice` for a spoken
line, `recording` for the microphone, `user_upload`). Its description is what is said in it, when known (the
line's text, the recording's transcription): that is what the personas' item tools read of it.

`join_wavs` makes one file of a line's sentences: each was spoken (and cached) on its own, so keeping a
line already heard generates nothing again.
"""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass
from typing import Any

import words
from saiverse.inputs import InputError
from saiverse.listen import audio_kind
from saiverse.world._items import ItemInfo, ItemStore
from saiverse.world._media import new_file_name

AUDIO_ITEMS_DIR = "recordings"
"""Where audio items' files live in the data home (saiverse/disk.py ITEM_DIRS)."""

MESSAGES: dict[str, tuple[str, str]] = {
    "empty": ("音声ファイルが空です (0 バイト)。", "The audio file is empty (0 bytes)."),
    "too_big": ("音声ファイルが大きすぎます ({mb:.1f} MB)。上限は {limit:.0f} MB です (SAIVERSE_MAX_UPLOAD_BYTES)。",
                "The audio file is too large ({mb:.1f} MB); the limit is {limit:.0f} MB (SAIVERSE_MAX_UPLOAD_BYTES)."),
    "not_audio": ("音声ファイルではありません (WAV、MP3、WebM、Ogg、FLAC、M4A、AAC が使えます)。",
                  "This is not an audio file (WAV, MP3, WebM, Ogg, FLAC, M4A and AAC can be kept)."),
    "mixed": ("文ごとの音声の形式がそろっていないので、1 つのファイルにできません。",
              "The sentences' audio differ in format, so they cannot be joined into one file."),
    "default_name": ("音声", "Audio"),
}
"""Kind → (Japanese, English), chosen by the process's language (words.py `current`)."""


def said(kind: str, **values: Any) -> str:
    ja, en = MESSAGES[kind]
    return (en if words.current() == "en" else ja).format(**values)


@dataclass(frozen=True)
class CheckedAudio:
    """Audio bytes whose kind is known."""

    data: bytes
    ext: str
    mime: str
    seconds: float | None
    """Its length, where the header says it (WAV); None otherwise."""


def wav_seconds(data: bytes) -> float | None:
    """The length of a WAV (None when its header cannot be read)."""
    try:
        with wave.open(io.BytesIO(data)) as wav:
            rate = wav.getframerate()
            return round(wav.getnframes() / rate, 2) if rate else None
    except (wave.Error, EOFError, ValueError):
        return None


def check_audio(data: bytes, *, max_bytes: int) -> CheckedAudio:
    """`data` as audio an item may keep, or InputError (a ValueError) saying why not."""
    if not data:
        raise InputError(said("empty"))
    if len(data) > max_bytes:
        raise InputError(said("too_big", mb=len(data) / 2**20, limit=max_bytes / 2**20))
    kind = audio_kind(data)
    if kind is None:
        raise InputError(said("not_audio"))
    ext, mime = kind
    return CheckedAudio(data, ext, mime, wav_seconds(data) if ext == "wav" else None)


def join_wavs(parts: list[bytes]) -> bytes:
    """One WAV of several with the same format, one after the other (a line's sentences)."""
    out = io.BytesIO()
    params: Any = None
    with wave.open(out, "wb") as joined:
        for part in parts:
            with wave.open(io.BytesIO(part)) as wav:
                these = (wav.getnchannels(), wav.getsampwidth(), wav.getframerate())
                if params is None:
                    params = these
                    joined.setnchannels(these[0])
                    joined.setsampwidth(these[1])
                    joined.setframerate(these[2])
                elif these != params:
                    raise InputError(said("mixed"))
                joined.writeframes(wav.readframes(wav.getnframes()))
    return out.getvalue()


def create_audio(store: ItemStore, audio: CheckedAudio, name: str | None, *, owner_kind: str, owner_id: str,
                 description: str = "", state: dict[str, Any] | None = None) -> ItemInfo:
    """An audio item from checked bytes: file, summary sidecar (what is said in it, else its name), rows."""
    name = (name or "").strip() or said("default_name")
    seconds = {"seconds": audio.seconds} if audio.seconds is not None else {}
    return store.create_with_file(
        store.home / AUDIO_ITEMS_DIR / new_file_name(audio.ext), audio.data, lambda: description.strip() or name,
        name=name, type_="audio", state={"mime_type": audio.mime, **seconds, **(state or {})},
        owner_kind=owner_kind, owner_id=owner_id)
