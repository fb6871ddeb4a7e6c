"""The chat's voice in the page (issue 37): replies spoken as they stream, ▶ on past lines, the microphone
and call mode. Speech and recording happen in the browser; the server makes audio and listens through
the routes of ui/voice_routes.py.

- **Speaker** (🔈/🔊 in the chat head, per window, kept in the tab's sessionStorage): while on, each
  persona bubble of the live strip (ui/live.py, `data-say`) is cut into sentences as it grows; each
  finished sentence is asked of `/voice/say` as soon as it ends (one request at a time, in order, ahead
  of playback) and played in order, so the first sentence plays while the rest is still being written.
  A fenced code block or an open `<user_only>` part is never cut (the server's `speakable` drops them
  whole). The persona's engine decides how: a WAV the server made
  (one `<audio id="sv-voice-player">` plays the queue) or the page's own `speechSynthesis` (`browser`).
- Lines that arrive without this window's send (autonomy, a schedule, another window) are read when
  the speaker is on and they are appended to the building the window goes on showing.
- **▶** on every persona line of the chat: says that line (the text comes from the line's own
  `aria-label`, which Gradio fills with the message's markdown).
- **■ 停止** stops speech too: the queue is emptied and what plays is cut.
- **🎤**: records (MediaRecorder) until clicked again or until 1.2 s of quiet after speech (an energy
  threshold over WebAudio); the recording goes to `/voice/listen` and its words land in the message box,
  to check before sending. Without a microphone API (a page over plain http from another device is not a
  secure context) 🎤 opens the device's recorder through a file picker instead.
- **💾** beside ▶ keeps that line's voice as an audio item of the building (`/voice/keep`); after a 🎤
  recording, **💾 録音をアイテムにする** keeps the recording, with its transcription (`/voice/keep-recording`).
- **📞 call mode**: hands-free turns: listen → the quiet ends the turn → the words are sent → the
  reply is spoken → listening resumes, until 📞 is pressed again.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from ui.i18n import Labels

VOICE_CSS_PATH = Path(__file__).with_name("style_voice.css")

JS_LABELS = ("voice_speaker_on", "voice_speaker_off", "voice_play_line", "voice_listening", "voice_transcribing",
             "voice_speaking", "voice_call_waiting", "voice_no_mic", "voice_mic_denied", "voice_heard_nothing",
             "voice_autoplay", "voice_no_browser_voice", "voice_failed", "thinking", "voice_call_on",
             "voice_call_off", "voice_keep_line", "voice_kept")

VOICE_JS_PATH = Path(__file__).with_name("voice.js")
"""The page's script (one `() => {…}`; its labels filled in by `voice_js`)."""


def voice_js(labels: Labels) -> str:
    """The page's voice script (`() => {…}`), with its labels in the window's language."""
    script = VOICE_JS_PATH.read_text(encoding="utf-8").split("\n", 2)[2]  # past its two comment lines
    return script.replace("__LABELS__", json.dumps({k: labels(k) for k in JS_LABELS}, ensure_ascii=False))


def speaker_button(labels: Labels) -> str:
    """The speaker toggle of the chat head (the script draws its state)."""
    return (f'<button type="button" id="sv-speaker" class="sv-voice-btn" aria-pressed="false" '
            f'title="{escape(labels("voice_speaker_off"))}">🔈</button>')


def listen_buttons(labels: Labels) -> str:
    """🎤 and 📞 beside the message box, and the one-line status of listening and speaking."""
    return (f'<div class="sv-voice-row"><button type="button" id="sv-mic" class="sv-voice-btn" '
            f'title="{escape(labels("voice_mic"))}" aria-label="{escape(labels("voice_mic"))}">🎤</button>'
            f'<button type="button" id="sv-call" class="sv-voice-btn" aria-pressed="false" '
            f'title="{escape(labels("voice_call_off"))}" aria-label="{escape(labels("voice_call"))}">📞</button>'
            f'<button type="button" id="sv-keep-rec" hidden>💾 {escape(labels("voice_keep_rec"))}</button>'
            f'<span id="sv-voice-status" class="sv-muted" aria-live="polite"></span></div>')
