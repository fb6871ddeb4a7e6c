"""Listening (saiverse/listen, issue 37): a recording → its words through the real `openai` and
`google-genai` clients against loopback fakes of the real wire formats; every refusal says why."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from saiverse.listen import (
    MAX_AUDIO_BYTES,
    ListenError,
    audio_kind,
    listen_refusal,
    listener_status,
    save_listener,
    transcribe,
)
from saiverse.settings import Settings, SettingsStore, load_settings
from tests.support.fakes_listen import TranscriptionServer, sox_wav
from tests.support.fakes_llm import FakeServer, gemini_error, gemini_text

ROOT = Path(__file__).resolve().parents[1]


def settings_for(home: Path, **values: object) -> Settings:
    return Settings(home=home, database_url=f"sqlite:///{home / 'saiverse.db'}", request_timeout=5.0).with_values(
        values, source=Settings(home=home, database_url="").source("x"))


def test_a_whisper_server_hears_the_file_as_multipart(tmp_path: Path) -> None:
    wav = sox_wav(tmp_path / "question.wav", speech=0.5, silence=0.5)
    with TranscriptionServer(text="今日の天気は？") as server:
        settings = settings_for(tmp_path, stt_url=server.url, stt_api_key="sk-listen-1234")
        assert transcribe(settings, wav) == "今日の天気は？"
    (heard,) = server.heard
    assert heard.form["file"].data == wav.read_bytes()
    assert heard.form["file"].filename == "speech.wav" and heard.form["file"].content_type == "audio/wav"
    assert heard.form["model"].text == "whisper-1" and heard.form["response_format"].text == "json"
    assert heard.headers["authorization"] == "Bearer sk-listen-1234"


def test_the_model_named_in_the_settings_is_asked_for(tmp_path: Path) -> None:
    with TranscriptionServer(text="hello") as server:
        settings = settings_for(tmp_path, stt_url=server.url, stt_model="Systran/faster-whisper-small")
        assert transcribe(settings, sox_wav(tmp_path / "a.wav", speech=0.3, silence=0.2)) == "hello"
    assert server.heard[0].form["model"].text == "Systran/faster-whisper-small"


def test_openai_itself_uses_the_chat_key_and_its_base_url(tmp_path: Path) -> None:
    with TranscriptionServer(text="from openai") as server:
        settings = settings_for(tmp_path, stt_engine="openai", openai_official_api_key="sk-official-9999",
                                openai_official_base_url=server.url)
        assert listener_status(settings) == (True, f"聞き取り: OpenAI {server.url} (whisper-1)")
        assert transcribe(settings, sox_wav(tmp_path / "a.wav", speech=0.3, silence=0.2)) == "from openai"
    assert server.heard[0].headers["authorization"] == "Bearer sk-official-9999"


def test_gemini_is_asked_with_the_audio_inline(tmp_path: Path) -> None:
    wav = sox_wav(tmp_path / "a.wav", speech=0.3, silence=0.2)
    with FakeServer() as server:
        server.queue(gemini_text("  おはようございます\n"))
        settings = settings_for(tmp_path, stt_engine="gemini", gemini_api_key="AIza-test-key",
                                gemini_base_url=server.url)
        assert transcribe(settings, wav) == "おはようございます"
        (request,) = server.requests
    assert request.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    parts = request.body["contents"][0]["parts"]
    inline = next(p["inlineData"] for p in parts if "inlineData" in p)
    assert inline.get("mimeType", inline.get("mime_type")) == "audio/wav"
    assert base64.urlsafe_b64decode(inline["data"]) == wav.read_bytes()
    assert any("Transcribe" in p.get("text", "") for p in parts)


def test_gemini_refusing_the_key_says_so(tmp_path: Path) -> None:
    with FakeServer() as server:
        server.queue(gemini_error(403, "API key not valid"))
        settings = settings_for(tmp_path, stt_engine="gemini", gemini_api_key="AIza-bad", gemini_base_url=server.url)
        with pytest.raises(ListenError, match="API キーを受け付けませんでした"):
            transcribe(settings, sox_wav(tmp_path / "a.wav", speech=0.2, silence=0.1))


def test_no_listener_is_a_clear_refusal(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    assert listener_status(settings) == (False, "聞き取り: なし (マイクは使えません)")
    assert "SAIVERSE_STT_URL" in (listen_refusal(settings) or "")
    assert "API キー" in (listen_refusal(settings_for(tmp_path, stt_engine="gemini")) or "")
    with pytest.raises(ListenError, match="SAIVERSE_STT_URL") as caught:
        transcribe(settings, sox_wav(tmp_path / "a.wav", speech=0.2, silence=0.1))
    assert caught.value.kind == "no_listener"
    with pytest.raises(ListenError, match="API キーが要ります"):
        transcribe(settings_for(tmp_path, stt_engine="openai"), b"RIFF\0\0\0\0WAVEfmt ")
    english = settings_for(tmp_path, lang="en")
    with pytest.raises(ListenError, match="No listener is set"):
        transcribe(english, b"OggS" + b"\0" * 40)


def test_a_server_that_is_down_is_named(tmp_path: Path) -> None:
    from tests.support.browser import free_port

    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ListenError, match=f"聞き取りサーバー {url} に接続できません") as caught:
        transcribe(settings_for(tmp_path, stt_url=url), b"RIFF\0\0\0\0WAVEfmt ")
    assert caught.value.kind == "unreachable"


def test_a_refusal_of_the_server_is_shown_without_the_key(tmp_path: Path) -> None:
    with TranscriptionServer(status=400, error="bad audio for key sk-secret-abcd") as server:
        settings = settings_for(tmp_path, stt_url=server.url, stt_api_key="sk-secret-abcd")
        with pytest.raises(ListenError) as caught:
            transcribe(settings, b"RIFF\0\0\0\0WAVEfmt ")
    assert str(caught.value) == "聞き取りサーバーが断りました (HTTP 400): bad audio for key ***"
    with TranscriptionServer(status=401) as server:
        with pytest.raises(ListenError, match="HTTP 401"):
            transcribe(settings_for(tmp_path, stt_url=server.url, stt_api_key="wrong"), b"OggS" + b"\0" * 10)


def test_what_is_not_audio_never_leaves_the_machine(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("これは音声ではありません", encoding="utf-8")
    with TranscriptionServer() as server:
        settings = settings_for(tmp_path, stt_url=server.url)
        with pytest.raises(ListenError, match="notes.txt は音声ファイルではありません"):
            transcribe(settings, text)
        with pytest.raises(ListenError, match="録音が空です"):
            transcribe(settings, b"")
        huge = tmp_path / "long.wav"
        with huge.open("wb") as fh:
            fh.write(b"RIFF\0\0\0\0WAVE")
            fh.truncate(MAX_AUDIO_BYTES + 1)
        with pytest.raises(ListenError, match=r"録音が大きすぎます \(25.0 MB、上限 25.0 MB\)"):
            transcribe(settings, huge)
        with pytest.raises(ListenError, match="missing.wav を読めません"):
            transcribe(settings, tmp_path / "missing.wav")
    assert server.heard == []


@pytest.mark.parametrize(("head", "kind"), [
    (b"RIFF\0\0\0\0WAVEfmt ", "wav"), (b"\x1a\x45\xdf\xa3\x9f", "webm"), (b"OggS\0", "ogg"), (b"fLaC\0", "flac"),
    (b"ID3\x04", "mp3"), (b"\xff\xfb\x90\x00", "mp3"), (b"\0\0\0\x20ftypM4A ", "m4a"), (b"\xff\xf1\x50\x80", "aac"),
    (b"%PDF-1.7", None), (b"\x89PNG\r\n", None),
])
def test_the_kind_of_a_recording_comes_from_its_first_bytes(head: bytes, kind: str | None) -> None:
    found = audio_kind(head + b"\0" * 16)
    assert (found[0] if found else None) == kind


def test_the_settings_tab_saves_the_listener(tmp_path: Path) -> None:
    store = SettingsStore(load_settings(tmp_path, environ={}))
    saved = save_listener(store, {"engine": "", "url": "http://127.0.0.1:8000/v1/", "model": "", "key": "sk-1234"})
    assert (saved.stt_url, saved.stt_api_key, saved.stt_engine) == ("http://127.0.0.1:8000/v1", "sk-1234", "")
    again = load_settings(tmp_path, environ={})
    assert again.stt_url == "http://127.0.0.1:8000/v1" and again.stt_api_key == "sk-1234"
    assert (tmp_path / "settings.json").stat().st_mode & 0o777 == 0o600
    kept = save_listener(store, {"engine": "openai-compatible", "url": "http://127.0.0.1:8000/v1", "key": ""})
    assert kept.stt_api_key == "sk-1234"  # an empty key box keeps the stored key
    assert save_listener(store, {"engine": "off", "url": "", "clear_key": True}).stt_api_key is None
    for bad, words in (({"engine": "whisper"}, "stt_engine must be one of"),
                       ({"url": "ftp://x"}, "stt_url must be an http"),
                       ({"engine": "openai-compatible", "url": ""}, "stt_url is needed")):
        with pytest.raises(ValueError, match=words):
            save_listener(store, bad)
    assert load_settings(tmp_path, environ={}).stt_engine == "off"  # a refused form saved nothing


def test_the_cli_transcribes_a_file(tmp_path: Path) -> None:
    wav = sox_wav(tmp_path / "q.wav", speech=0.4, silence=0.3)
    home = tmp_path / "home"
    with TranscriptionServer(text="明日は晴れますか") as server:
        env = {"PATH": "/usr/bin:/bin", "SAIVERSE_HOME": str(home), "SAIVERSE_STT_URL": server.url}
        run = subprocess.run([sys.executable, "main.py", "transcribe", str(wav), "--json"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout) == {"text": "明日は晴れますか"}
    down = subprocess.run([sys.executable, "main.py", "transcribe", str(wav)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "SAIVERSE_HOME": str(home)})
    assert down.returncode == 2 and "聞き取りが設定されていません" in down.stderr
