"""Audio items (saiverse/world/_item_audio.py): a WAV or Ogg uploaded from the command line, a persona's line kept in
her voice (`speak --keep-in`, joined from the sentences already spoken: nothing is made twice), read by the item
tools, carried by a backup and its restore, refused in one line when it is not audio, and brought over from an
upstream home's `audio/` (its audio items)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import wave
import zipfile
from pathlib import Path
from typing import Any

import pytest

from saiverse.care import create_backup, restore_backup
from saiverse.importer import import_saiverse
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from tests.support.browser import not_installed
from tests.support.fakes_listen import sox_wav
from tests.support.fakes_speech import SpeechServer
from tests.support.upstream_home import UpstreamHome, sha256

ROOT = Path(__file__).resolve().parents[1]
LINE = "こんにちは。今日は図書館で本を読みましょう。"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=180, check=False)


def _seconds(path: Path) -> float:
    with wave.open(str(path)) as wav:
        return wav.getnframes() / wav.getframerate()


def test_an_uploaded_wav_is_an_audio_item_the_tools_read(saiverse_home: Path, tmp_path: Path) -> None:
    wav = sox_wav(tmp_path / "voice memo.wav", speech=1.0, silence=1.0)
    done = cli("upload", "--building", "library", str(wav))
    assert done.returncode == 0, done.stderr
    item = json.loads(done.stdout)
    assert item["type"] == "audio" and item["name"] == "voice memo"
    assert item["file_path"].startswith("recordings/") and item["file_path"].endswith(".wav")
    assert item["state"]["mime_type"] == "audio/wav" and item["state"]["seconds"] == pytest.approx(2.5, abs=0.05)  # sox_wav: 0.5 s, 1 s, 1 s
    stored = saiverse_home / item["file_path"]
    assert stored.read_bytes() == wav.read_bytes()
    assert (stored.parent / (stored.name + ".summary.txt")).read_text(encoding="utf-8") == "voice memo"
    listed = [json.loads(line) for line in cli("items", "--building", "library", "--json").stdout.splitlines()]
    assert any(i["item_id"] == item["item_id"] and i["type"] == "audio" for i in listed)
    manager = SAIVerseManager(load_settings())
    try:
        here = manager.run_tool("item_list", "mina", "library", {})
        assert "「voice memo」 音声" in here
        manager.run_tool("item_write_description", "mina", "library",
                         {"item_id": item["item_id"], "description": "明日の予定を話した録音"})
        seen = manager.run_tool("item_view", "mina", "library", {"item_id": item["item_id"]})
        assert seen == "音声「voice memo」 (2.5 秒)。話されていること: 明日の予定を話した録音"
        moved = manager.run_tool("item_pickup", "mina", "library", {"item_id": item["item_id"]})
        assert "voice memo" in moved and manager.items.get(item["item_id"]).owner_kind == "persona"
    finally:
        manager.close()


def test_ogg_is_kept_and_what_is_not_audio_is_refused(saiverse_home: Path, tmp_path: Path) -> None:
    if shutil.which("sox") is None:
        not_installed("sox is not installed (apt-get install sox, or run scripts/test.sh)")
    ogg = tmp_path / "song.ogg"
    made = subprocess.run(["sox", "-n", "-r", "24000", "-c", "1", str(ogg), "synth", "0.5", "sine", "440"],
                          capture_output=True, check=False)
    assert made.returncode == 0, made.stderr  # Debian's sox writes Ogg Vorbis (scripts/test.sh installs it)
    item = json.loads(cli("upload", "--building", "library", str(ogg)).stdout)
    assert item["type"] == "audio" and item["state"]["mime_type"] == "audio/ogg" and "seconds" not in item["state"]
    manager = SAIVerseManager(load_settings())
    try:
        before = len(manager.items.list_owned("building", "library"))
        files = sorted((saiverse_home / "recordings").iterdir())
        with pytest.raises(ValueError, match="音声ファイルではありません"):
            manager.uploads.keep_audio("library", b"plain words, not a sound")
        with pytest.raises(ValueError, match="空です"):
            manager.uploads.keep_audio("library", b"")
        assert len(manager.items.list_owned("building", "library")) == before
        assert sorted((saiverse_home / "recordings").iterdir()) == files  # nothing written for a refusal
    finally:
        manager.close()


def test_a_line_kept_in_her_voice_is_made_of_the_sentences_already_spoken(saiverse_home: Path,
                                                                         tmp_path: Path) -> None:
    with SpeechServer() as speech:
        manager = SAIVerseManager(load_settings())
        try:
            manager.voices.set_voice("mina", engine="openai-compatible", url=f"{speech.url}/v1")
            voice = manager.voices.voice_for("mina")
            spoken = [manager.voices.synthesize(voice, piece) for piece in ("こんにちは。", "今日は図書館で本を読みましょう。")]
            assert len(speech.speech()) == 2  # as the page says a line: sentence by sentence
        finally:
            manager.close()
        done = cli("speak", "--persona", "mina", LINE, "--keep-in", "library", "--json")
        assert done.returncode == 0, done.stderr
        assert len(speech.speech()) == 2  # kept from the cache: nothing was made again
    item = json.loads(done.stdout)["item"]
    assert item["type"] == "audio" and item["description"] == LINE and item["name"] == "ミナの声「こんにちは。今日は図書館で…」"
    assert item["state"]["created_by"] == "voice" and item["state"]["persona_id"] == "mina"
    kept = saiverse_home / item["file_path"]
    assert _seconds(kept) == pytest.approx(sum(_seconds(p) for p in spoken if p is not None), abs=0.01)
    assert item["state"]["seconds"] == pytest.approx(_seconds(kept), abs=0.01)


def test_a_backup_carries_audio_items_and_the_restore_brings_them_back(saiverse_home: Path, tmp_path: Path) -> None:
    wav = sox_wav(tmp_path / "memo.wav", speech=0.5, silence=0.5)
    item = json.loads(cli("upload", "--building", "library", str(wav)).stdout)
    settings = load_settings()
    archive = create_backup(settings.home, settings.db_path, tmp_path / "b.zip",
                            checkpoints_path=settings.checkpoints_path).path
    with zipfile.ZipFile(archive) as zf:
        assert item["file_path"] in zf.namelist()
        assert f"{item['file_path']}.summary.txt" in zf.namelist()
    restored = tmp_path / "restored"
    restore_backup(archive, restored)
    assert (restored / item["file_path"]).read_bytes() == wav.read_bytes()
    again = SAIVerseManager(load_settings(restored))
    try:
        assert again.items.get(item["item_id"]).type == "audio"
        assert again.item_view(item["item_id"])["audio_path"] == str(restored / item["file_path"])
    finally:
        again.close()


def test_upstream_audio_items_come_over_into_recordings(saiverse_home: Path, tmp_path: Path) -> None:
    root = tmp_path / "upstream"
    up = UpstreamHome(root)
    up.building("lib", "図書館")
    up.persona("air", "エア", "lib")
    wav = sox_wav(tmp_path / "talk.wav", speech=0.4, silence=0.4).read_bytes()
    audio_id, source = up.item("朝の挨拶", "audio", "building", "lib", data=wav, ext="wav", summary="おはよう",
                               state='{"mime_type": "audio/wav"}')
    absolute_id, _ = up.item("夜の挨拶", "audio", "persona", "air", data=wav, ext="wav", absolute=True)
    up.close()
    report: Any = import_saiverse(root, load_settings(saiverse_home))
    assert report.imported["items"] == 2
    manager = SAIVerseManager(load_settings(saiverse_home))
    try:
        for iid in (audio_id, absolute_id):
            info = manager.items.get(iid)
            assert info.type == "audio" and info.file_path and info.file_path.startswith("recordings/")
            assert sha256(saiverse_home / info.file_path) == sha256(source)  # type: ignore[arg-type]
        assert manager.items.get(audio_id).state["mime_type"] == "audio/wav"
        assert (saiverse_home / f"{manager.items.get(audio_id).file_path}.summary.txt").read_text(
            encoding="utf-8") == "おはよう"
        assert not (saiverse_home / "audio").exists() or not any((saiverse_home / "audio").rglob("*.wav"))
    finally:
        manager.close()
