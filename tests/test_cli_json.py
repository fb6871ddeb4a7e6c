"""Every command's JSON is readable UTF-8: Japanese as it is (never \\u escapes), whatever the locale."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import main as cli_main
from saiverse.manager import SAIVerseManager
from saiverse.seed import draw_starry_night
from saiverse.settings import load_settings
from tests.support.ltm_helpers import converse
from tests.support.upstream_small import small_home

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home under a Japanese folder name, with memory, Chronicle, Memopedia, a finished production and files."""
    home = tmp_path_factory.mktemp("json") / "世界"
    m = SAIVerseManager(load_settings(home))
    try:
        m.chronicle_worker.stop()
        converse(m, 60)
        m.build_chronicle("mina")
        m.memopedia.create("mina", "ユーザー", summary="図書館によく来る人", category="people")
        list(m.handle_user_input("library", "こんにちは"))
        m.production.start("sora", "atelier", "絵本を作って: 猫の冒険", lambda ev: None)
    finally:
        m.close()
    (home.parent / "夜空.png").write_bytes(draw_starry_night(64))
    (home.parent / "お茶.json").write_text(json.dumps({
        "name": "tea_time", "display_name": "お茶の時間", "description": "お茶を淹れる。", "input_schema": [],
        "nodes": [{"id": "pour", "type": "say", "action": "🍵 お茶をどうぞ。", "next": None}],
        "start_node": "pour"}, ensure_ascii=False), encoding="utf-8")
    small_home(home.parent / "upstream")
    return home


def _commands(home: Path) -> dict[str, list[str]]:
    up = home.parent
    return {
        "world": ["world", "--json"],
        "chat": ["chat", "--building", "library", "本はありますか"],
        "memory": ["memory", "--persona", "mina", "--limit", "3", "--json"],
        "memory --search": ["memory", "--persona", "mina", "--search", "星座", "--limit", "3", "--json"],
        "chronicle": ["chronicle", "--persona", "mina", "--json"],
        "memopedia": ["memopedia", "--persona", "mina", "--json"],
        "history": ["history", "--building", "library", "--limit", "3", "--json"],
        "items": ["items", "--building", "library", "--json"],
        "upload": ["upload", "--building", "museum", str(up / "夜空.png")],
        "run-playbook": ["run-playbook", "basic_chat", "--persona", "mina", "--args", '{"input": "やあ"}'],
        "validate-playbook": ["validate-playbook", str(up / "お茶.json")],
        "import-playbook": ["import-playbook", str(up / "お茶.json")],
        "playbooks": ["playbooks", "--json"],
        "tool": ["tool", "item_list", "--persona", "mina", "--args", "{}"],
        "production list": ["production", "list", "--json"],
        "migrate": ["migrate", "--json"],
        "config": ["config", "--json"],
        "backup": ["backup", "--json"],
        "restore": ["restore", "--json", "--home", str(up / "復元先"), "BACKUP"],
        "import-saiverse": ["import-saiverse", str(up / "upstream"), "--home", str(up / "取り込み"), "--json"],
        "persona delete": ["persona", "delete", "sora", "--json"],
        "building delete": ["building", "delete", "museum", "--move-to", "entrance", "--json"],
    }


ORDER = list(_commands(Path("/x/y")))


@pytest.mark.parametrize("name", ORDER)
def test_json_output_is_readable_utf8(world: Path, name: str, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_HOME", str(world))
    argv = _commands(world)[name]
    if name == "restore":
        capsys.readouterr()
        assert cli_main.main(["backup", "--json"]) == 0
        argv = [a if a != "BACKUP" else json.loads(capsys.readouterr().out)["path"] for a in argv]
    capsys.readouterr()
    assert cli_main.main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    lines: list[Any] = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert lines, name
    assert "\\u" not in out and any(ord(ch) > 127 for ch in out), out[:300]


def test_json_is_utf8_even_when_the_locale_is_not(world: Path) -> None:
    env = {**os.environ, "SAIVERSE_HOME": str(world), "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}
    proc = subprocess.run([sys.executable, str(ROOT / "main.py"), "world", "--json"], env=env,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert "図書館" in proc.stdout.decode("utf-8")
