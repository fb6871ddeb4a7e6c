"""Voices from servers, through the real client libraries against loopback fakes of the real wire formats
(tests/support/fakes_speech.py): an OpenAI-compatible `/v1/audio/speech` server with its voice list, OpenAI's TTS with
設定's key, Gemini's TTS; the audio cache in front of them (a line is asked for once)."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from saiverse.settings import Settings
from saiverse.voice import VoiceError, VoiceService, VoiceSettings
from tests.support.fakes_speech import SpeechServer, gemini_voice, sox_stat


def _settings(home: Path, **kw: object) -> Settings:
    return Settings(home=home, database_url=f"sqlite:///{home}/saiverse.db", **kw)  # type: ignore[arg-type]


def _service(home: Path, **kw: object) -> VoiceService:
    settings = _settings(home, **kw)
    return VoiceService(home, lambda: settings)


def test_compatible_server_speaks_a_wav_once_and_lists_its_voices(tmp_path: Path) -> None:
    with SpeechServer() as server:
        voices = _service(tmp_path)
        voice = VoiceSettings(engine="openai-compatible", url=f"{server.url}/v1", voice="jf_alpha", speed=1.25)
        assert voices.list_voices(voice) == ["af_bella", "jf_alpha", "jm_kumo"]
        path = voices.synthesize(voice, "こんにちは。https://example.com を見てね 😀")
        again = voices.synthesize(voice, "こんにちは。https://example.com を見てね 😀")
    assert path is not None and again == path
    sent = server.speech()
    assert len(sent) == 1, "the second time comes from the cache"
    body = sent[0].body
    assert body["input"] == "こんにちは。を見てね"  # no URL, no emoji reach the engine
    assert (body["model"], body["voice"], body["response_format"], body["speed"]) == ("tts-1", "jf_alpha", "wav", 1.25)
    figures = sox_stat(path)
    assert figures["length (seconds)"] == pytest.approx(len(body["input"]) / 8 / 1.25, abs=0.05)
    assert figures["rms amplitude"] > 0.1
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700


def test_a_server_without_a_voice_list_offers_openais_names(tmp_path: Path) -> None:
    with SpeechServer(voices=None) as server:
        voice = VoiceSettings(engine="openai-compatible", url=f"{server.url}/v1")
        assert "alloy" in _service(tmp_path).list_voices(voice)


def test_unreachable_and_refusing_servers_are_one_clear_line(tmp_path: Path) -> None:
    voices = _service(tmp_path)
    with SpeechServer() as server:
        dead = f"{server.url}/v1"
    with pytest.raises(VoiceError) as err:
        voices.synthesize(VoiceSettings(engine="openai-compatible", url=dead), "もしもし")
    assert err.value.kind == "unreachable" and dead in err.value.ja and "接続できません" in err.value.ja
    with SpeechServer(status=503) as server:
        with pytest.raises(VoiceError) as err:
            voices.synthesize(VoiceSettings(engine="openai-compatible", url=f"{server.url}/v1"), "もしもし")
    assert err.value.kind == "refused" and "HTTP 503" in err.value.ja and "the server says no" in err.value.ja
    with SpeechServer() as server:
        with pytest.raises(VoiceError) as err:
            voices.synthesize(VoiceSettings(engine="openai-compatible", url=f"{server.url}/v1", voice="nobody"), "やあ")
    assert "Voice nobody not found" in err.value.en
    assert not list((tmp_path / "audio").glob("*/*.wav")), "nothing is cached from a failure"


def test_openai_uses_the_official_key_and_never_sends_it_elsewhere(tmp_path: Path) -> None:
    with SpeechServer(key="sk-official", voices=None) as official, SpeechServer() as other:
        voices = _service(tmp_path, openai_official_api_key="sk-official", openai_official_base_url=f"{official.url}/v1",
                          openai_api_key="sk-compatible", openai_base_url="http://127.0.0.1:1/v1")
        path = voices.synthesize(VoiceSettings(engine="openai", voice="nova"), "おはよう")
        voices.synthesize(VoiceSettings(engine="openai-compatible", url=f"{other.url}/v1", voice="jm_kumo"), "おはよう")
    assert path is not None and sox_stat(path)["length (seconds)"] > 0.3
    sent = official.speech()[0]
    assert sent.headers["authorization"] == "Bearer sk-official"
    assert (sent.body["model"], sent.body["voice"]) == ("gpt-4o-mini-tts", "nova")
    assert "sk-" not in other.speech()[0].headers.get("authorization", ""), "設定's keys go only to their own server"
    with pytest.raises(VoiceError) as err:
        _service(tmp_path).synthesize(VoiceSettings(engine="openai"), "おはよう")
    assert err.value.kind == "no_key"


def test_gemini_tts_pcm_becomes_a_wav(tmp_path: Path) -> None:
    with SpeechServer(key="g-key") as server:
        voices = _service(tmp_path, gemini_api_key="g-key", gemini_base_url=server.url)
        voice = VoiceSettings(engine="gemini", voice="Puck")
        path = voices.synthesize(voice, "こんばんは、いい夜ですね。")
        assert "Kore" in voices.list_voices(voice)
    assert path is not None
    sent = server.speech()[0]
    assert "gemini-2.5-flash-preview-tts:generateContent" in sent.path
    assert gemini_voice(sent.body) == "Puck"
    figures = sox_stat(path)
    assert figures["length (seconds)"] == pytest.approx(len("こんばんは、いい夜ですね。") / 8, abs=0.05)
    assert figures["rms amplitude"] > 0.1


def test_browser_and_off_make_nothing_here(tmp_path: Path) -> None:
    voices = _service(tmp_path)
    assert voices.synthesize(VoiceSettings(engine="browser"), "こんにちは") is None
    assert voices.synthesize(VoiceSettings(engine="off"), "こんにちは") is None
    assert voices.list_voices(VoiceSettings(engine="browser")) == []
    with SpeechServer() as server:
        voice = VoiceSettings(engine="openai-compatible", url=f"{server.url}/v1")
        assert voices.synthesize(voice, "```python\nprint(1)\n``` 😀 https://x.y") is None
        assert voices.synthesize(replace(voice, speed=1.0), "") is None
    assert not server.requests


def test_the_same_line_asked_twice_at_once_is_made_once(tmp_path: Path) -> None:
    import threading

    with SpeechServer() as server:
        voices = _service(tmp_path)
        voice = VoiceSettings(engine="openai-compatible", url=f"{server.url}/v1")
        got: list[Path | None] = []
        workers = [threading.Thread(target=lambda: got.append(voices.synthesize(voice, "同じ行です。")))
                   for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=30)
    assert len(got) == 4 and len(set(got)) == 1 and got[0] is not None
    assert len(server.speech()) == 1
