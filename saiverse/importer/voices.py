"""Upstream's voice-tts addon settings (v0.3 `addon_config` / `addon_persona_config`) as each persona's voice.

Upstream's addon (`saiverse-voice-tts`, its addon.json) speaks with `gpt_sovits` (its default), `irodori`,
`openai_tts` (one of OpenAI's preset voices, `openai_voice`) or `elevenlabs`; a persona's parameters are the
addon's global ones with her own overrides on top. Here, OpenAI's TTS is an engine (saiverse/voice/), so an
`openai_tts` persona keeps her OpenAI voice. GPT-SoVITS and Irodori clone a reference recording on a GPU
server and ElevenLabs is a cloud of its own: none is an engine here, so such a persona keeps the embedded
voice and the summary names her, the engine and the reference file left. The addon's own API keys are never
copied (keys live in 設定 here); the summary says where to set one. A persona that already has a voice here
(an earlier import, or set by hand) keeps it.
"""

from __future__ import annotations

import json
from typing import Any

from saiverse.importer.context import Context, rows
from saiverse.importer.convert import stamp
from saiverse.importer.report import Text
from saiverse.importer.source import table_columns
from saiverse.voice import VoiceSettings, voice_setting_key

ADDON = "saiverse-voice-tts"
"""The addon's name (its folder under upstream's expansion_data/)."""
DEFAULTS: dict[str, Any] = {"engine": "gpt_sovits", "openai_voice": "alloy", "auto_speak": True}
"""The addon.json defaults of the parameters read here."""
_CLONING = {"gpt_sovits": "GPT-SoVITS", "irodori": "Irodori-TTS"}


def _params(raw: Any) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def voice_from_addon(params: dict[str, Any]) -> tuple[VoiceSettings | None, Text | None]:
    """The voice here for one persona's effective addon parameters, or None and why it cannot be served."""
    engine = str(params.get("engine") or DEFAULTS["engine"])
    if engine == "openai_tts":
        return VoiceSettings(engine="openai", voice=str(params.get("openai_voice") or DEFAULTS["openai_voice"])), None
    if engine in _CLONING:
        ref = str(params.get("ref_audio") or "")
        where = f" (参照音声 {ref})" if ref else ""
        where_en = f" (reference recording {ref})" if ref else ""
        return None, Text(
            f"{_CLONING[engine]} の声{where}: 参照音声から声を作るエンジンはここにありません。内蔵の声で話します "
            "(python main.py persona voice で変えられます)",
            f"{_CLONING[engine]} voice{where_en}: no engine here clones a reference recording; she speaks with the "
            "embedded voice (change it with python main.py persona voice)")
    if engine == "elevenlabs":
        vid = str(params.get("elevenlabs_voice_id") or "")
        return None, Text(
            f"ElevenLabs の声 {vid}: ElevenLabs はここのエンジンにありません。内蔵の声で話します",
            f"ElevenLabs voice {vid}: ElevenLabs is not an engine here; she speaks with the embedded voice")
    return None, Text(f"エンジン {engine!r} はここにありません。内蔵の声で話します",
                      f"engine {engine!r} is not here; she speaks with the embedded voice")


def import_voices(ctx: Context) -> None:
    """Each imported persona's voice from the addon's settings (see the module docstring)."""
    if not table_columns(ctx.src, "addon_config") and not table_columns(ctx.src, "addon_persona_config"):
        return
    addon = [r for r in rows(ctx.src, "addon_config") if r.get("addon_name") == ADDON]
    own = {str(r.get("persona_id")): _params(r.get("params_json"))
           for r in rows(ctx.src, "addon_persona_config") if r.get("addon_name") == ADDON}
    if not addon and not own:
        return
    enabled = bool(addon[0].get("is_enabled", True)) if addon else True
    shared = _params(addon[0].get("params_json")) if addon else {}
    if not enabled:
        ctx.report.note(Text("voice-tts アドオンは無効だったので、声の設定は取り込んでいません",
                             "the voice-tts addon was disabled: no voice settings were brought over"))
        return
    set_here = 0
    for persona_id in sorted(ctx.personas_ok):
        if persona_id not in own and not shared:
            continue
        params = {**DEFAULTS, **shared, **own.get(persona_id, {})}
        name = ctx.persona_names.get(persona_id, persona_id)
        voice, why = voice_from_addon(params)
        if voice is None:
            assert why is not None
            ctx.report.skip("voice", name, why)
            continue
        key = voice_setting_key(persona_id)
        if ctx.db.execute("SELECT 1 FROM world_setting WHERE KEY = ?", (key,)).fetchone():
            ctx.report.existing["voices"] += 1
            continue
        ctx.db.execute("INSERT INTO world_setting (KEY, VALUE, UPDATED_AT) VALUES (?, ?, ?)",
                       (key, json.dumps(voice.to_dict(), ensure_ascii=False), stamp(ctx.now)))
        set_here += 1
    ctx.report.imported["voices"] += set_here
    if shared.get("openai_api_key") or shared.get("elevenlabs_api_key"):
        ctx.report.note(Text("voice-tts アドオンの API キーは取り込んでいません (キーは 設定 で: OPENAI_API_KEY)",
                             "the voice-tts addon's API keys were not brought over (keys live in 設定: "
                             "OPENAI_API_KEY)"))
    words = shared.get("pronunciation_dict")
    if words:
        n = len(words) if isinstance(words, dict) else 1
        ctx.report.skip("voice", "pronunciation_dict", Text(
            f"読み方辞書 ({n} 語) はまだここにありません",
            f"the pronunciation dictionary ({n} words) has no place here yet"))
