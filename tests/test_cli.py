"""The CLI as a user runs it: a subprocess against a temp data home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SAIVERSE_HOME": str(home)}
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
        env=env, cwd=home.parent, timeout=120, check=False,
    )


def test_world_chat_memory_roundtrip(saiverse_home: Path) -> None:
    world = cli("world", "--json", home=saiverse_home)
    assert world.returncode == 0, world.stderr
    snap = json.loads(world.stdout)
    assert {b["name"] for b in snap["buildings"]} >= {"図書館", "美術館", "アトリエ"}
    mina = next(p for p in snap["personas"] if p["name"] == "ミナ")

    chat = cli("chat", "--persona", mina["persona_id"], "--building", mina["building_id"],
               "猫の出てくる本を探しています", home=saiverse_home)
    assert chat.returncode == 0, chat.stderr
    events = [json.loads(line) for line in chat.stdout.splitlines()]
    assert all("type" in e for e in events)
    speaks = [e for e in events if e["type"] == "speak"]
    assert len(speaks) == 1 and speaks[0]["text"] and speaks[0]["persona_id"] == mina["persona_id"]

    mem = cli("memory", "--persona", mina["persona_id"], "--json", home=saiverse_home)
    assert mem.returncode == 0, mem.stderr
    rows = [json.loads(line) for line in mem.stdout.splitlines()]
    assert [r["role"] for r in rows] == ["user", "assistant"]
    for r in rows:
        assert {"role", "content", "tags", "pulse_id", "created_at"} <= set(r)
        assert "conversation" in r["tags"] and f"pulse:{r['pulse_id']}" in r["tags"]

    found = cli("memory", "--persona", mina["persona_id"], "--search", "猫", "--json", home=saiverse_home)
    assert found.returncode == 0 and "猫の出てくる本" in found.stdout


def test_cli_errors_are_readable(saiverse_home: Path) -> None:
    bad = cli("chat", "--persona", "nobody", "やあ", home=saiverse_home)
    assert bad.returncode != 0 and "nobody" in bad.stderr and "Traceback" not in bad.stderr
    bad = cli("memory", "--persona", "nobody", home=saiverse_home)
    assert bad.returncode == 1 and "nobody" in bad.stderr
    bad = cli("items", "--building", "../../etc", home=saiverse_home)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr


def test_corrupt_home_database_is_refused(saiverse_home: Path) -> None:
    saiverse_home.mkdir(parents=True)
    db = saiverse_home / "saiverse.db"
    db.write_text("garbage, not sqlite")
    out = cli("world", "--json", home=saiverse_home)
    assert out.returncode == 1 and "not a SQLite database" in out.stderr
    assert db.read_text() == "garbage, not sqlite"
