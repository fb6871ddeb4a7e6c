"""The voices of a city: each persona's settings, the engines that make her sound, the audio cache.

One `VoiceService` per app (`manager.voices`), handed only what it uses: the home (the cache), the
settings in force (keys, base URLs, the cache cap; read at each call, so 設定 changes apply at once) and
the world's settings store (each persona's voice). `synthesize` answers from the cache when the same line
was spoken in the same voice before, and otherwise asks the engine once and keeps its WAV.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from saiverse.voice._cache import AudioCache
from saiverse.voice._settings import SERVER_ENGINES, VoiceError, VoiceSettings, set_voice, voice_for
from saiverse.voice._text import sentences, speakable
from saiverse.world import WorldSettings, join_wavs

MB = 1024 * 1024


class VoiceEngine(Protocol):
    """What makes sound for one engine name (saiverse/voice/_embedded.py, _servers.py)."""

    def speak(self, voice: VoiceSettings, text: str) -> bytes:
        """A WAV of `text` (already speakable) in `voice`; VoiceError when it cannot."""
        ...

    def voices(self, voice: VoiceSettings) -> list[str]:
        """The voice names the engine offers (read from the server where it has a list)."""
        ...

    def close(self) -> None:
        ...


class VoiceService:
    """Each persona's voice, synthesis through the engines, and the audio cache."""

    def __init__(self, home: Path, settings: Callable[[], Any], world_settings: WorldSettings | None = None) -> None:
        self.home = Path(home)
        self._settings = settings
        self.world_settings = world_settings
        self._engines: dict[str, VoiceEngine] = {}
        self._lock = threading.Lock()
        self._keys: dict[str, list[Any]] = {}
        """Cache key → [its lock, how many wait on it]: a line in the making."""
        self.cache = AudioCache(self.home, max(0, int(float(getattr(settings(), "voice_cache_mb", 200)) * MB)))

    # -- each persona's voice --------------------------------------------------------------------

    def voice_for(self, persona_id: str) -> VoiceSettings:
        """The persona's voice (the default when none is set)."""
        return voice_for(self._store(), persona_id)

    def set_voice(self, persona_id: str, **changes: Any) -> VoiceSettings:
        """Change the persona's voice (checked first: a bad value changes nothing)."""
        return set_voice(self._store(), persona_id, **changes)

    def _store(self) -> WorldSettings:
        if self.world_settings is None:
            raise VoiceError("この音声サービスには街の設定がありません", "this voice service has no world settings")
        return self.world_settings

    # -- sound -----------------------------------------------------------------------------------

    def engine(self, name: str) -> VoiceEngine:
        """The engine object for `name` (made on first use, kept: the embedded one holds its process)."""
        if name not in SERVER_ENGINES:
            raise VoiceError(f"エンジン {name!r} の音声はサーバーでは作りません (ブラウザが話すか、声はオフです)",
                             f"engine {name!r} makes no audio on the server (the browser speaks, or the voice is off)")
        with self._lock:
            engine = self._engines.get(name)
            if engine is None:
                engine = self._engines[name] = self._make(name)
            return engine

    def _make(self, name: str) -> VoiceEngine:
        if name == "embedded":
            from saiverse.voice._embedded import EmbeddedEngine

            return EmbeddedEngine(self.home, self._settings)
        from saiverse.voice._servers import server_engine

        return server_engine(name, self._settings)

    def cache_key(self, voice: VoiceSettings, text: str) -> str:
        """The cache's name for `text` in `voice` (what identifies the sound, not the persona)."""
        parts: dict[str, object] = {"engine": voice.engine, "voice": voice.voice, "speed": voice.speed,
                                    "pitch": voice.pitch, "url": voice.url, "model": voice.model}
        return self.cache.key(parts, text)

    def cached(self, voice: VoiceSettings, text: str) -> Path | None:
        """The cached WAV of `text` in `voice`, when it was spoken before."""
        said = speakable(text)
        return self.cache.get(self.cache_key(voice, said)) if said else None

    def synthesize(self, voice: VoiceSettings, text: str) -> Path | None:
        """A WAV of `text` in `voice`, from the cache or made once and kept.

        None when there is nothing to make here: the engine is `browser` (the page speaks) or `off`, or
        nothing of `text` is speech (code, URLs, emoji only). VoiceError (Japanese message, `kind`) when
        the engine cannot speak now: the caller stays silent and shows the message; the app goes on."""
        if voice.engine not in SERVER_ENGINES:
            return None
        said = speakable(text)
        if not said:
            return None
        self.cache.cap_bytes = max(0, int(float(getattr(self._settings(), "voice_cache_mb", 200)) * MB))
        key = self.cache_key(voice, said)
        with self._making(key):  # two windows asking for the same line at once: it is made once
            hit = self.cache.get(key)
            if hit is not None:
                return hit
            data = self.engine(voice.engine).speak(voice, said)
            return self.cache.put(key, data)

    @contextlib.contextmanager
    def _making(self, key: str) -> Iterator[None]:
        """Hold `key`'s lock while its line is made (kept only while someone uses it)."""
        with self._lock:
            entry = self._keys.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._lock:
                entry[1] -= 1
                if not entry[1]:
                    self._keys.pop(key, None)

    def line_wav(self, voice: VoiceSettings, text: str) -> bytes | None:
        """One WAV of a whole line, sentence by sentence as the page says it (each from the cache when it was
        heard, so a line already spoken is not made again), joined (an audio item's file). None as `synthesize`."""
        parts = []
        for piece in sentences([text]):
            for _ in range(2):  # each read at once: a small cache prunes the one before as the next is kept
                path = self.synthesize(voice, piece)
                try:
                    parts += [path.read_bytes()] if path is not None else []
                    break
                except FileNotFoundError:
                    continue  # pruned by another window's line in between: made again
        return join_wavs(parts) if parts else None

    def speak(self, persona_id: str, text: str) -> Path | None:
        """`synthesize` in the persona's own voice."""
        return self.synthesize(self.voice_for(persona_id), text)

    def warm(self, voice: VoiceSettings) -> threading.Thread | None:
        """Start `voice`'s engine in the background (the embedded one's process and model take seconds to
        load), so the first line spoken later does not wait for it: call it when the speaker is turned on."""
        if voice.engine != "embedded":
            return None

        def start() -> None:
            try:
                self.engine("embedded").speak(voice, "はい。")
            except VoiceError:
                pass  # the line that needs it says why

        worker = threading.Thread(target=start, name="voice-warm", daemon=True)
        worker.start()
        return worker

    def list_voices(self, voice: VoiceSettings) -> list[str]:
        """The voice names `voice.engine` offers ([] for `browser` and `off`: the page lists its own)."""
        if voice.engine not in SERVER_ENGINES:
            return []
        return self.engine(voice.engine).voices(voice)

    def close(self) -> None:
        """End the engines (the embedded one's process leaves)."""
        with self._lock:
            engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            engine.close()
