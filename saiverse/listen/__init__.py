"""Listening: a recording turned into words by the listener the settings name (issue 37).

Parts (private modules; import from here):
- `_audio`: what a recording is (its kind from its first bytes, the size limit) and `ListenError`,
  whose message is in the settings' language
- `_listeners`: the engines — an OpenAI-compatible `/audio/transcriptions` server (`stt_url`), OpenAI,
  Gemini — through the official SDKs
- `_transcribe`: `transcribe(settings, audio)`, `listener_status(settings)`, `listen_refusal(settings)`,
  `save_listener(store, values)`

The microphone button and call mode of the chat (ui/voice.py) and `python main.py transcribe F.wav`
(cli/_listen.py) use these.
"""

from __future__ import annotations

from saiverse.listen._audio import MAX_AUDIO_BYTES as MAX_AUDIO_BYTES
from saiverse.listen._audio import ListenError as ListenError
from saiverse.listen._audio import audio_kind as audio_kind
from saiverse.listen._listeners import DEFAULT_MODELS as DEFAULT_MODELS
from saiverse.listen._listeners import Listener as Listener
from saiverse.listen._listeners import listener_for as listener_for
from saiverse.listen._transcribe import listen_refusal as listen_refusal
from saiverse.listen._transcribe import listener_status as listener_status
from saiverse.listen._transcribe import save_listener as save_listener
from saiverse.listen._transcribe import transcribe as transcribe

__all__ = ["DEFAULT_MODELS", "MAX_AUDIO_BYTES", "ListenError", "Listener", "audio_kind", "listen_refusal",
           "listener_for", "listener_status", "save_listener", "transcribe"]
