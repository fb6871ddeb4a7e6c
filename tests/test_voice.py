"""A persona's voice without an engine: what is spoken of a reply, where a streamed reply's sentences end,
the voice kept in the city's database (checked, deleted with her), the audio cache (capped, pruned oldest
first, private, atomic) and `python main.py persona voice` (tests/test_voice_embedded.py has the real
Kokoro, tests/test_voice_servers.py the servers)."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import cli as cli_main
from saiverse.errors import USER_ERROR_EXIT
from saiverse.voice import (
    AudioCache,
    SentenceSplitter,
    VoiceError,
    VoiceSettings,
    sentences,
    set_voice,
    speakable,
    voice_for,
)
from tests.support.fakes_speech import SpeechServer


def test_speakable_leaves_out_what_is_not_speech() -> None:
    reply = ("**ミナ**です！<user_only>（画面だけの注記）</user_only>この本を見て: https://example.com/a?b=1 😀✨\n"
             "```python\nprint('hi')\n```\n`code` と [[item:abc123]] と [item: 古い地図] と [資料](https://x.y/z)。\n"
             "📎 notes.txt\n- 箇条書き\n<in_heart>本音</in_heart>またね👋")
    assert speakable(reply) == "ミナです！この本を見て:\nととと資料。\n箇条書き\nまたね"
    assert speakable("😀🎉 https://x.y ```x```") == ""
    assert speakable("") == ""
    # The chat's own marks under a cut or stopped reply (ui/chat.py cut_text) are not hers: never said.
    from ui.i18n import Labels

    for lang in ("ja", "en"):
        labels = Labels(lang)
        for mark in (labels("reply_cut_length"), labels("reply_cut_stopped"), labels("cancelled")):
            assert speakable(f"ここまで、言えました。\n\n{mark}") == "ここまで、言えました。", mark
            assert speakable(mark) == "", mark
            assert list(sentences(["長い話の途中で", f"切れ\n\n{mark}"])) == ["長い話の途中で切れ"], mark
    assert speakable("はさみ✂で切ります") == "はさみで切ります", "a scissors inside her words is only an emoji"


def test_sentences_come_as_soon_as_each_ends() -> None:
    splitter = SentenceSplitter(first_clause=False)
    assert splitter.feed("こんにち") == []
    assert splitter.feed("は。今日は") == ["こんにちは。"]
    assert splitter.feed("いい天気ですね！」と彼女") == ["今日はいい天気ですね！」"]
    assert splitter.feed("は言った") == []
    assert splitter.flush() == ["と彼女は言った"]
    stream = ["Hello wor", "ld. It costs 3.", "14 dollars! Really? ", "<user_only>秘密。", "まだ秘密。</user_only>",
              "見えない部分のあと。", "```\ncode. more.\n```", "最後"]
    assert list(sentences(["こんにちは、ミナ", "です。今日は、いい天気。"])) == ["こんにちは、", "ミナです。", "今日は、いい天気。"]
    assert list(sentences(["はい、そう", "です。"])) == ["はい、そうです。"], "a first clause too short to say alone waits"
    assert list(sentences(stream)) == ["Hello world.", "It costs 3.14 dollars!", "Really?", "見えない部分のあと。",
                                       "最後"]


def test_the_voice_is_kept_per_persona_and_checked(manager) -> None:
    store = manager.world_settings
    pid = manager.world.personas()[0].persona_id
    assert voice_for(store, pid) == VoiceSettings()  # the embedded default until she has one
    changed = set_voice(store, pid, engine="openai-compatible", url="http://127.0.0.1:8880/v1/", voice="jf_alpha")
    assert changed.url == "http://127.0.0.1:8880/v1" and voice_for(store, pid) == changed
    for bad, words in (({"speed": 3}, "速さ"), ({"speed": "fast"}, "数ではありません"), ({"engine": "nope"}, "nope"),
                       ({"pitch": 20}, "高さ"), ({"url": "ftp://x"}, "URL"), ({"engine": "openai-compatible", "url": ""},
                                                                               "--url")):
        with pytest.raises(VoiceError) as err:
            set_voice(store, pid, **bad)
        assert words in err.value.ja and err.value.en
        assert voice_for(store, pid) == changed, "a refused change writes nothing"
    set_voice(store, pid, speed=1.5)
    assert voice_for(store, pid).speed == 1.5 and voice_for(store, pid).voice == "jf_alpha"
    other = manager.world.personas()[1].persona_id
    assert voice_for(store, other) == VoiceSettings()


def test_deleting_a_persona_forgets_her_voice(manager) -> None:
    info = manager.world.personas()[0]
    manager.voices.set_voice(info.persona_id, engine="browser", pitch=3)
    manager.admin.delete_persona(info.persona_id)
    assert manager.world_settings.get(f"voice:{info.persona_id}") is None


def test_cache_is_capped_pruned_oldest_first_and_private(tmp_path: Path) -> None:
    cache = AudioCache(tmp_path, cap_bytes=2500)
    keys = [cache.key({"engine": "x"}, f"line {i}") for i in range(4)]
    assert len(set(keys)) == 4 and cache.key({"engine": "x"}, "line 0") == keys[0]
    paths = []
    for i, key in enumerate(keys[:2]):
        paths.append(cache.put(key, b"A" * 1000))
        os.utime(paths[-1], (time.time() - 100 + i, time.time() - 100 + i))
    assert cache.get(keys[0]) == paths[0]  # used again just now: the newest
    cache.put(keys[2], b"B" * 1000)
    assert cache.get(keys[1]) is None, "the least recently used went first"
    assert cache.get(keys[0]) is not None and cache.size() <= 2500
    big = cache.put(keys[3], b"C" * 5000)
    assert big.is_file() and [p for _t, _s, p in cache.files()] == [big], "the file just made stays, alone"
    assert stat.S_IMODE(big.stat().st_mode) == 0o600
    for folder in (cache.root, big.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert not [p for p in big.parent.iterdir() if p.name.endswith(".tmp")], "atomic: no temp files left"


def test_the_cache_cap_is_a_setting(manager) -> None:
    assert manager.settings.voice_cache_mb == 200
    assert manager.voices.cache.cap_bytes == 200 * 1024 * 1024


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    def call(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = cli_main.main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return call


def test_persona_voice_cli_shows_sets_and_refuses_clearly(run: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run("persona", "voice", "ミナ")
    assert code == 0 and out.strip() == "voice for ミナ (mina): engine=embedded voice=(default) speed=1"
    code, out, _ = run("persona", "voice", "mina", "--voice", "jm_kumo", "--speed", "1.2", "--json")
    assert code == 0 and json.loads(out)["voice"] == {"engine": "embedded", "voice": "jm_kumo", "speed": 1.2,
                                                      "pitch": 0.0, "url": "", "model": ""}
    for argv, needle in ((["nobody"], "'nobody'"), (["mina", "--speed", "9"], "速さ"),
                         (["mina", "--voice", "alloy"], "alloy"), (["mina", "--engine", "robot"], "robot")):
        code, out, err = run("persona", "voice", *argv)
        assert code == USER_ERROR_EXIT and err.startswith("エラー: ") and len(err.strip().splitlines()) == 1, err
        assert needle in err
    with SpeechServer() as server:
        code, out, _ = run("persona", "voice", "mina", "--engine", "openai-compatible", "--url", f"{server.url}/v1",
                           "--list-voices")
        assert code == 0 and "voices: af_bella, jf_alpha, jm_kumo" in out and "voice=(default)" in out
    code, out, err = run("persona", "voice", "mina", "--voice", "jf_alpha")
    assert code == USER_ERROR_EXIT and "接続できません" in err, "the server is gone: nothing changes"
    code, out, _ = run("persona", "voice", "mina", "--json")
    assert json.loads(out)["voice"]["engine"] == "openai-compatible"


def test_speak_cli_through_a_server_and_its_refusals(run: Callable[..., tuple[int, str, str]], tmp_path: Path) -> None:
    out_file = tmp_path / "out" / "line.wav"
    with SpeechServer() as server:
        assert run("persona", "voice", "mina", "--engine", "openai-compatible", "--url", f"{server.url}/v1")[0] == 0
        code, out, err = run("speak", "--persona", "ミナ", "図書館へようこそ。", "--out", str(out_file))
        assert code == 0, err
        assert out_file.read_bytes()[:4] == b"RIFF" and str(out_file) in out
        code, out, err = run("speak", "--persona", "ミナ", "😀", "--out", str(out_file))
        assert code == USER_ERROR_EXIT and "話す言葉" in err
    assert len(server.speech()) == 1
    assert run("persona", "voice", "mina", "--engine", "browser")[0] == 0
    code, out, err = run("speak", "--persona", "mina", "こんにちは", "--out", str(out_file))
    assert code == USER_ERROR_EXIT and "browser" in err
    code, out, err = run("speak", "--persona", "nobody", "x", "--out", str(out_file))
    assert code == USER_ERROR_EXIT and "'nobody'" in err


def test_backups_hold_the_audio_only_when_asked(manager, tmp_path: Path) -> None:
    import zipfile

    from saiverse.care import restore_backup

    with SpeechServer() as server:
        voice = VoiceSettings(engine="openai-compatible", url=f"{server.url}/v1")
        spoken = manager.voices.synthesize(voice, "覚えておいてね。")
    assert spoken is not None
    rel = spoken.relative_to(manager.settings.home).as_posix()
    plain = manager.backups.create("manual").path
    assert not [n for n in zipfile.ZipFile(plain).namelist() if n.startswith("audio/")]
    manager.backups.with_audio = lambda: True
    kept = manager.backups.create("manual", "audio").path
    assert rel in zipfile.ZipFile(kept).namelist()
    target = tmp_path / "restored"
    restore_backup(kept, target)
    back = target / rel
    assert back.read_bytes() == spoken.read_bytes() and stat.S_IMODE(back.stat().st_mode) == 0o600


def test_the_cli_speaks_english_when_asked(run: Callable[..., tuple[int, str, str]], saiverse_home: Path) -> None:
    saiverse_home.mkdir(parents=True, exist_ok=True)
    (saiverse_home.parent / ".env").write_text("SAIVERSE_LANG=en\n", encoding="utf-8")  # .env, not the environment
    code, _out, err = run("persona", "voice", "mina", "--speed", "9")
    assert code == USER_ERROR_EXIT and "speed 9 cannot be used" in err, err
    code, _out, err = run("persona", "voice", "nobody")
    assert code == USER_ERROR_EXIT and "no persona 'nobody'" in err, err
