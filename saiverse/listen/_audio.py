"""What a recording is before anyone listens to it: its kind from its first bytes, its size, and the
words of every refusal in both languages (issue 37, "Listening").

A browser's MediaRecorder gives WebM/Opus (Chromium, Firefox) or MP4/AAC (Safari); a file from the
command line is usually WAV, MP3, FLAC or Ogg. Each is sent with the matching file name, as OpenAI's
endpoint reads the format from the extension.
"""

from __future__ import annotations

from saiverse.errors import UserError

MAX_AUDIO_BYTES = 25 * 1024 * 1024
"""The largest recording sent: OpenAI's own limit for `/v1/audio/transcriptions` (a Whisper server
takes the same files). About 25 minutes of WebM/Opus from the microphone."""

_KINDS: tuple[tuple[int, bytes, str, str], ...] = (
    (0, b"\x1a\x45\xdf\xa3", "webm", "audio/webm"),
    (0, b"OggS", "ogg", "audio/ogg"),
    (0, b"fLaC", "flac", "audio/flac"),
    (0, b"ID3", "mp3", "audio/mpeg"),
    (4, b"ftyp", "m4a", "audio/mp4"),
)

MESSAGES: dict[str, tuple[str, str]] = {
    "no_listener": ("聞き取りが設定されていません。設定タブの「聞き取り」で選ぶか、SAIVERSE_STT_URL に "
                    "Whisper サーバーの URL (…/v1) を設定してください。",
                    "No listener is set: choose one under 設定 → Listening, or set SAIVERSE_STT_URL to a "
                    "Whisper server's base URL (…/v1)."),
    "no_url": ("OpenAI 互換の聞き取りには URL が要ります (SAIVERSE_STT_URL、例: http://127.0.0.1:8000/v1)。",
               "An OpenAI-compatible listener needs its URL (SAIVERSE_STT_URL, e.g. http://127.0.0.1:8000/v1)."),
    "no_key": ("{engine} で聞き取るには API キーが要ります (設定タブで入れてください)。",
               "Listening through {engine} needs its API key (set it in the 設定 tab)."),
    "empty": ("録音が空です (0 バイト)。もう一度録音してください。",
              "The recording is empty (0 bytes); record again."),
    "not_audio": ("{name} は音声ファイルではありません (WAV、MP3、WebM、Ogg、FLAC、M4A が使えます)。",
                  "{name} is not an audio file (WAV, MP3, WebM, Ogg, FLAC and M4A can be used)."),
    "too_large": ("録音が大きすぎます ({size}、上限 {limit})。短く区切ってください。",
                  "The recording is too large ({size}; the limit is {limit}); split it into shorter parts."),
    "unreadable": ("{name} を読めません: {why}", "Cannot read {name}: {why}"),
    "unreachable": ("聞き取りサーバー {url} に接続できません。サーバーが動いているか確かめてください。",
                    "Cannot reach the listening server at {url}; is it running?"),
    "timeout": ("聞き取りサーバー {url} が {seconds:.0f} 秒以内に答えませんでした。",
                "The listening server at {url} did not answer within {seconds:.0f} s."),
    "refused_key": ("{url} が API キーを受け付けませんでした (HTTP {status})。",
                    "{url} did not accept the API key (HTTP {status})."),
    "rejected": ("聞き取りサーバーが断りました (HTTP {status}): {detail}",
                 "The listening server refused (HTTP {status}): {detail}"),
    "no_words": ("聞き取りサーバーの答えに文字がありませんでした。", "The listening server's answer held no text."),
}
"""Kind → (Japanese, English) message; `{…}` are filled from the error's values."""


class ListenError(UserError):
    """A recording that could not be turned into words, and why; `kind` is a key of MESSAGES."""

    def __init__(self, kind: str, lang: str = "ja", **values: object) -> None:
        self.kind, self.values = kind, values
        ja, en = MESSAGES[kind]
        super().__init__((en if lang == "en" else ja).format(**values))


def audio_kind(data: bytes) -> tuple[str, str] | None:
    """(file extension, MIME type) of audio bytes from their first bytes; None when they are not audio."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "wav", "audio/wav"
    for offset, magic, ext, mime in _KINDS:
        if data[offset:offset + len(magic)] == magic:
            return ext, mime
    if len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0 and data[1] & 0x06:
        return "mp3", "audio/mpeg"  # an MPEG audio frame without an ID3 tag (layer bits set: not AAC's ADTS)
    if len(data) > 1 and data[0] == 0xFF and data[1] & 0xF6 == 0xF0:
        return "aac", "audio/aac"
    return None


def size_text(size: int) -> str:
    """`3.2 MB` (one decimal), as the refusal shows a size."""
    return f"{size / (1024 * 1024):.1f} MB"
