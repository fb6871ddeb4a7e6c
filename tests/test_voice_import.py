"""import-saiverse brings upstream's voice-tts addon settings over as voices: an `openai_tts` persona keeps her
OpenAI voice; a GPT-SoVITS / ElevenLabs one is named in the summary with why (no engine here serves it); the
addon's keys are never copied; a second import keeps a voice set here; other addons' rows are still named as
left out."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import text

from saiverse.importer import import_saiverse
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from saiverse.voice import VoiceSettings
from tests.support.upstream_v03 import small_v03_home

ADDON = "saiverse-voice-tts"


def _with_voices(root: Path) -> None:
    db = sqlite3.connect(root / "user_data" / "database" / "saiverse.db")
    with db:
        db.execute("CREATE TABLE addon_persona_config (id INTEGER PRIMARY KEY, addon_name VARCHAR(255), "
                   "persona_id VARCHAR(255), params_json TEXT, updated_at DATETIME, UNIQUE (addon_name, persona_id))")
        shared = {"engine": "gpt_sovits", "openai_api_key": "sk-upstream-secret",
                  "pronunciation_dict": {"まはー": "マハー"}}
        db.execute("INSERT INTO addon_config VALUES (?, 1, ?, '2026-01-01')", (ADDON, json.dumps(shared)))
        for pid, params in (("air_city_a", {"engine": "openai_tts", "openai_voice": "nova"}),
                            ("eris_city_a", {"ref_audio": "voice_profiles/eris.wav"}),
                            ("nova_city_a", {"engine": "elevenlabs", "elevenlabs_voice_id": "21m00Tcm4TlvDq8ikWAM"})):
            db.execute("INSERT INTO addon_persona_config (addon_name, persona_id, params_json) VALUES (?, ?, ?)",
                       (ADDON, pid, json.dumps(params)))
        db.execute("INSERT INTO addon_persona_config (addon_name, persona_id, params_json) VALUES ('stackchan', "
                   "'air_city_a', '{}')")
    db.close()


def test_voice_tts_settings_become_voices_and_the_rest_is_named(tmp_path: Path, saiverse_home: Path) -> None:
    root = tmp_path / "upstream"
    small_v03_home(root)
    _with_voices(root)
    report: dict[str, Any] = import_saiverse(root, load_settings(saiverse_home)).to_dict()
    assert report["imported"]["voices"] == 1
    skipped = {(s["kind"], s["id"]): s["reason"] for s in report["skipped"]}
    eris = [v for (k, who), v in skipped.items() if k == "voice" and "GPT-SoVITS" in v]
    assert len(eris) == 1 and "voice_profiles/eris.wav" in eris[0] and "内蔵の声" in eris[0]
    assert any(k == "voice" and "ElevenLabs" in v and "21m00Tcm4TlvDq8ikWAM" in v for (k, _), v in skipped.items())
    assert "読み方辞書" in skipped[("voice", "pronunciation_dict")]
    assert skipped[("addon_config", "1 rows")], "the other addon ('tts') is still named as left out"
    assert ("addon_persona_config", "1 rows") in skipped, "stackchan's row, not voice-tts's three"
    assert any("API キー" in n for n in report["notes"])
    assert "sk-upstream-secret" not in json.dumps(report)
    manager = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert manager.voices.voice_for("air_city_a") == VoiceSettings(engine="openai", voice="nova")
        assert manager.voices.voice_for("eris_city_a") == VoiceSettings()
        with manager.db.session() as s:
            assert not [v for (v,) in s.execute(text("SELECT VALUE FROM world_setting")) if "sk-upstream" in str(v)]
        manager.voices.set_voice("air_city_a", voice="shimmer")
    finally:
        manager.close()
    again = import_saiverse(root, load_settings(saiverse_home), merge=True).to_dict()
    assert again["imported"].get("voices", 0) == 0 and again["already_present"]["voices"] == 1
    manager = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert manager.voices.voice_for("air_city_a").voice == "shimmer", "a voice set here is kept"
    finally:
        manager.close()
