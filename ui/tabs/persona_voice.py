"""ペルソナ tab, voice: the chosen persona's engine, voice (listed by the engine: the embedded voices, a
server's `/audio/voices`, OpenAI's or Gemini's names, or for `browser` the page's own `speechSynthesis`
voices, read in the browser at each change by `VOICES_JS`), speed, pitch (the browser's voices have it), a
server's URL, and ▶ 試聴 — the form as it stands, before saving (saiverse/voice; issue 37).

試聴 with a server engine makes the sample on the server and plays it from `voice/audio/<token>`
(ui/voice_routes.py); with `browser` the page speaks it itself (ui/voice.py `svVoice.speakHere`).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

import gradio as gr

from saiverse.port import VOICE_ENGINES, CityPort, UserError, VoiceSettings
from ui.i18n import Labels
from ui.tabs import error_html, ok_html
from ui.voice_routes import audio_url

PITCHED = ("browser",)
"""Engines whose pitch can be set (the others ignore it: the slider hides)."""
URLED = ("openai-compatible", "openai")
"""Engines that take a base URL (a compatible server must have one; OpenAI may)."""
TRY_JS = """(engine, voice, speed, pitch, url, persona, sample) => {
  if (engine === 'browser' && window.svVoice) {
    window.svVoice.stop();
    window.svVoice.speakHere({engine, text: sample, voice, speed, pitch});
  }
  return [engine, voice, speed, pitch, url, persona, sample];
}"""


VOICES_JS = """(...args) => {
  args[args.length - 1] = window.svVoice && window.svVoice.browserVoices ? window.svVoice.browserVoices() : '[]';
  return args;
}"""
"""Puts the page's voices (ui/voice.js `svVoice.browserVoices`: `[{"name", "lang"}]`) in the event's last input."""


def browser_choices(listed: str, lang: str) -> list[tuple[str, str]]:
    """The dropdown's voices from what the page sent (`VOICES_JS`), those of the window's language first."""
    try:
        voices = json.loads(listed or "[]")
    except ValueError:
        voices = []
    seen: dict[str, str] = {}
    for v in voices if isinstance(voices, list) else []:
        if isinstance(v, dict) and isinstance(v.get("name"), str) and v["name"].strip():
            seen.setdefault(v["name"], str(v.get("lang") or ""))
    ordered = sorted(seen.items(), key=lambda nv: (not nv[1].lower().startswith(lang), nv[1], nv[0]))
    return [(f"{name} ({tag})" if tag else name, name) for name, tag in ordered]


def _said(exc: BaseException, labels: Labels) -> str:
    text = getattr(exc, "text", None)
    return str(text(labels.lang)) if callable(text) else str(exc)


def build_voice_panel(manager: CityPort, labels: Labels, pick: Any, new: str) -> None:
    """The panel under the persona form; `pick` is the persona dropdown (`new`: no persona yet)."""
    with gr.Accordion(labels("pv_title"), open=False, elem_id="persona-voice-panel"):
        with gr.Row():
            engine = gr.Dropdown([(labels(f"pv_engine_{e}"), e) for e in VOICE_ENGINES], value="embedded",
                                 label=labels("pv_engine"), elem_id="persona-voice-engine", scale=2)
            voice = gr.Dropdown([], value="", label=labels("pv_voice"), allow_custom_value=True,
                                elem_id="persona-voice-name", scale=2)
        with gr.Row():
            speed = gr.Slider(0.5, 2.0, value=1.0, step=0.05, label=labels("pv_speed"), elem_id="persona-voice-speed")
            pitch = gr.Slider(-12, 12, value=0, step=1, label=labels("pv_pitch"), elem_id="persona-voice-pitch",
                              visible=False)
        url = gr.Textbox(label=labels("pv_url"), placeholder="http://127.0.0.1:8880/v1", elem_id="persona-voice-url",
                         visible=False)
        hint = gr.HTML("", elem_id="persona-voice-hint")
        with gr.Row():
            status = gr.HTML(elem_id="persona-voice-status")
            try_it = gr.Button(labels("pv_try"), elem_id="persona-voice-try", size="sm", scale=0, min_width=110)
            save = gr.Button(labels("pv_save"), variant="primary", elem_id="persona-voice-save", size="sm", scale=0,
                             min_width=130)
        sample = gr.Textbox(visible=False, elem_id="persona-voice-sample")
        browser_list = gr.Textbox("[]", visible=False, elem_id="persona-voice-browser-list")  # VOICES_JS fills it
        player = gr.HTML("", elem_id="persona-voice-player")

    def shape(engine_name: str, current: str, url_text: str, listed: str = "[]") -> list[Any]:
        """The voice list and which fields show, for `engine_name` (`listed`: the page's own voices)."""
        names: list[str] = []
        message = ""
        if engine_name == "browser":
            offered = browser_choices(listed, labels.lang)
            known = {name for _, name in offered}
            choices = [("—", ""), *offered] + ([(current, current)] if current and current not in known else [])
            note = labels("pv_browser_listed", n=len(offered)) if offered else labels("pv_browser_none")
            return [gr.Dropdown(choices=choices, value=current, interactive=True), gr.Slider(visible=True),
                    gr.Textbox(visible=False),
                    f'<p class="sv-muted sv-note">{escape(labels("pv_browser_hint"))} {escape(note)}</p>']
        if engine_name != "off":
            try:
                names = manager.voices.list_voices(VoiceSettings.from_dict({"engine": engine_name, "url": url_text}))
            except UserError as exc:  # a server that is down: the name can still be typed
                message = error_html(labels("pv_voices_failed", error=_said(exc, labels)))
        choices = [("—", "")] + [(n, n) for n in names] + ([(current, current)] if current and current not in names
                                                             else [])
        return [gr.Dropdown(choices=choices, value=current, interactive=engine_name != "off"),
                gr.Slider(visible=engine_name in PITCHED), gr.Textbox(visible=engine_name in URLED), message]

    def fill(persona_id: str, browser_voices: str) -> list[Any]:
        if not persona_id or persona_id == new:
            return ["embedded", *shape("embedded", "", "")[:1], 1.0, gr.Slider(value=0, visible=False),
                    gr.Textbox(value="", visible=False), "", "", "", ""]
        current = manager.voices.voice_for(persona_id)
        listed, pitch_box, url_box, note = shape(current.engine, current.voice, current.url, browser_voices)
        try:
            name = manager.world.persona(persona_id).name
        except LookupError:
            name = ""
        said = labels("pv_sample", name=name) if name else labels("pv_sample_plain")
        return [current.engine, listed, current.speed,
                gr.Slider(value=current.pitch, visible=current.engine in PITCHED),
                gr.Textbox(value=current.url, visible=current.engine in URLED), note, "", said, ""]

    def on_engine(engine_name: str, url_text: str, browser_voices: str) -> list[Any]:
        return shape(engine_name, "", url_text, browser_voices)

    def on_try(engine_name: str, voice_name: str, pace: float, tone: float, url_text: str, persona_id: str,
               text: str) -> list[Any]:
        if engine_name in ("browser", "off"):
            return ["", ""]  # the page spoke it itself (TRY_JS), or the voice is off
        try:
            chosen = VoiceSettings.from_dict({"engine": engine_name, "voice": voice_name, "speed": pace, "pitch": tone,
                                              "url": url_text})
            path = manager.voices.synthesize(chosen, text or labels("pv_sample_plain"))
        except UserError as exc:  # VoiceError: a bad URL, the server down, the embedded process failed
            return [error_html(_said(exc, labels)), ""]
        src = audio_url(manager, path) if path is not None else None
        if src is None:
            return ["", ""]
        return ["", f'<audio id="persona-voice-audio" src="{escape(src)}" controls autoplay></audio>']

    def on_save(persona_id: str, engine_name: str, voice_name: str, pace: float, tone: float, url_text: str) -> str:
        if not persona_id or persona_id == new:
            return error_html(labels("pv_pick_first"))
        try:
            manager.voices.set_voice(persona_id, engine=engine_name, voice=voice_name or "", speed=float(pace),
                                     pitch=float(tone), url=url_text or "")
            name = manager.world.persona(persona_id).name
        except (UserError, LookupError) as exc:
            return error_html(labels("save_failed", error=_said(exc, labels)))
        return ok_html(labels("pv_saved", name=name))

    form = [engine, voice, speed, pitch, url]
    pick.change(fill, [pick, browser_list], [*form, hint, status, sample, player], js=VOICES_JS,
                show_progress="hidden")
    engine.input(on_engine, [engine, url, browser_list], [voice, pitch, url, hint], js=VOICES_JS,
                 show_progress="hidden")
    url.blur(on_engine, [engine, url, browser_list], [voice, pitch, url, hint], js=VOICES_JS, show_progress="hidden")
    try_it.click(on_try, [*form, pick, sample], [status, player], js=TRY_JS, show_progress="minimal")
    save.click(on_save, [pick, *form], status, show_progress="hidden")
