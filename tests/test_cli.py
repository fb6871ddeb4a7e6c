"""The CLI, every command: success, the `--json` shape, and bad input (exit 2, one line, no traceback).

Most cases call `main.main(argv)` in this process (the same code path, without a Python start-up
per case); a few run `python main.py` as a user does, to check the process exit codes and that a
known error never shows a traceback.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import main as cli_main
from saiverse.errors import FAILED_EXIT, USER_ERROR_EXIT

ROOT = Path(__file__).resolve().parents[1]
TEA = {
    "name": "tea_time", "display_name": "お茶の時間", "description": "お茶を淹れてひと休みする。",
    "input_schema": [{"name": "input", "description": "ユーザーの発言"}], "router_callable": True,
    "nodes": [{"id": "pour", "type": "say", "action": "🍵 お茶を淹れました。", "next": None}],
    "start_node": "pour",
}


@dataclass
class Run:
    """One in-process CLI run."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.splitlines()]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def call(*argv: str) -> Run:
        capsys.readouterr()
        code = cli_main.main(list(argv))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return call


def cli(*args: str, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "SAIVERSE_HOME": str(home), **(env or {})}
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          env=full_env, cwd=home.parent, timeout=120, check=False)


def _refused(r: Run, *needles: str) -> None:
    assert r.code == USER_ERROR_EXIT, (r.code, r.err)
    assert r.err.startswith("エラー: ") and len(r.err.strip().splitlines()) == 1, r.err
    for needle in needles:
        assert needle in r.err, (needle, r.err)


def _png(path: Path) -> Path:
    buf = io.BytesIO()
    Image.new("RGB", (16, 12), (30, 60, 200)).save(buf, format="PNG")
    path.write_bytes(buf.getvalue())
    return path


# ---- as a user runs it (subprocess) ---------------------------------------------------------------

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


def test_known_errors_are_one_line_without_traceback(saiverse_home: Path) -> None:
    quiet = {"SAIVERSE_RAISE_ERRORS": ""}  # what a user's shell has
    for args in (("chat", "--persona", "nobody", "やあ"), ("memory", "--persona", "nobody"),
                 ("items", "--building", "../../etc"), ("tool", "no_such_tool", "--persona", "mina")):
        bad = cli(*args, home=saiverse_home, env=quiet)
        assert bad.returncode == USER_ERROR_EXIT, (args, bad.stderr)
        assert bad.stderr.startswith("エラー: ") and "Traceback" not in bad.stderr, bad.stderr


def test_corrupt_home_database_is_refused(saiverse_home: Path) -> None:
    saiverse_home.mkdir(parents=True)
    db = saiverse_home / "saiverse.db"
    db.write_text("garbage, not sqlite")
    out = cli("world", "--json", home=saiverse_home)
    assert out.returncode == USER_ERROR_EXIT and "not a SQLite database" in out.stderr
    assert db.read_text() == "garbage, not sqlite"


# ---- every command, in process ----------------------------------------------------------------

def test_world(run: Callable[..., Run], saiverse_home: Path) -> None:
    snap = run("world", "--json").json()
    assert set(snap) == {"user_building", "buildings", "personas"}
    assert {"building_id", "name", "items"} <= set(snap["buildings"][0])
    assert set(snap["personas"][0]) == {"persona_id", "name", "building_id", "interaction_mode", "default_model",
                                        "lightweight_model", "vision_model", "lightweight_vision_model",
                                        "private_room_id", "avatar_image", "activity_state"}
    text = run("world")
    assert text.code == 0 and "図書館" in text.out
    (saiverse_home.parent / "bad").mkdir()
    (saiverse_home.parent / "bad" / "saiverse.db").write_text("not a database")
    _refused(run("world", "--home", str(saiverse_home.parent / "bad")), "not a SQLite database")


def test_a_bug_names_its_type_or_raises_when_asked(run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(args: Any) -> int:
        raise RuntimeError("an unexpected state")

    import cli._world

    monkeypatch.setattr(cli._world, "world_", broken)
    with pytest.raises(RuntimeError):  # SAIVERSE_RAISE_ERRORS is set for every test (conftest)
        run("world")
    monkeypatch.delenv("SAIVERSE_RAISE_ERRORS")
    hidden = run("world")
    assert hidden.code == FAILED_EXIT
    assert hidden.err.startswith("エラー (RuntimeError): an unexpected state") and "SAIVERSE_RAISE_ERRORS=1" in hidden.err


def test_home_flag_before_the_subcommand_counts(run: Callable[..., Run], tmp_path: Path) -> None:
    other = tmp_path / "other-home"
    assert run("--home", str(other), "world", "--json").code == 0
    assert (other / "saiverse.db").exists()


def test_chat(run: Callable[..., Run]) -> None:
    r = run("chat", "--persona", "mina", "こんにちは")
    assert r.code == 0, r.err
    events = r.lines()
    assert events[0]["type"] == "user_message" and events[-1]["type"] == "pulse_end"
    assert all({"type"} <= set(e) for e in events)
    _refused(run("chat", "--persona", "nobody", "やあ"), "nobody")
    _refused(run("chat", "--building", "nowhere", "やあ"), "nowhere")


def test_memory(run: Callable[..., Run]) -> None:
    run("chat", "--persona", "mina", "海の本はありますか")
    rows = run("memory", "--persona", "mina", "--json").lines()
    assert [r["role"] for r in rows] == ["user", "assistant"]
    assert {"role", "content", "tags", "pulse_id", "created_at"} <= set(rows[0])
    assert "海の本" in run("memory", "--persona", "mina", "--search", "海").out
    _refused(run("memory", "--persona", "nobody"), "nobody")


def test_items(run: Callable[..., Run]) -> None:
    rows = run("items", "--building", "library", "--json").lines()
    assert {r["name"] for r in rows} >= {"古い鍵", "SAIVerse使い方ガイド"}
    assert {"item_id", "name", "type", "description", "file_path"} <= set(rows[0])
    assert "古い鍵" in run("items", "--building", "library").out
    _refused(run("items", "--building", "../../etc"), "../../etc")


def test_upload(run: Callable[..., Run], tmp_path: Path) -> None:
    r = run("upload", "--building", "museum", str(_png(tmp_path / "blue.png")))
    assert r.code == 0, r.err
    item = r.json()
    assert item["type"] == "picture" and item["name"] == "blue" and item["file_path"].startswith("image/")
    _refused(run("upload", "--building", "museum", str(tmp_path / "missing.png")), "missing.png")
    (tmp_path / "note.png").write_text("not an image")
    _refused(run("upload", "--building", "museum", str(tmp_path / "note.png")), "画像")
    _refused(run("upload", "--building", "nowhere", str(tmp_path / "blue.png")), "nowhere")


def test_playbook_commands(run: Callable[..., Run], tmp_path: Path) -> None:
    good = tmp_path / "tea_time.json"
    good.write_text(json.dumps(TEA, ensure_ascii=False))
    checked = run("validate-playbook", str(good)).json()
    assert checked == {"ok": True, "name": "tea_time", "display_name": "お茶の時間", "stored": False, "nodes": 1,
                       "router_callable": True,
                       "user_selectable": False, "needs": [], "ignored": [], "expects": [],
                       "deprecated": [], "mcp_tools": {}}
    assert "tea_time" not in run("playbooks").out
    assert run("import-playbook", str(good)).json()["stored"] is True
    rows = {r["name"]: r for r in run("playbooks", "--json").lines()}
    assert rows["tea_time"] == {"name": "tea_time", "display_name": "お茶の時間", "description": TEA["description"],
                                "router_callable": True, "user_selectable": False, "builtin": False, "overridden": False}
    assert rows["meta_user"]["builtin"] is True

    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps({**TEA, "name": "broken", "nodes": [{**TEA["nodes"][0], "next": "nowhere"}]}))
    _refused(run("validate-playbook", str(bad)), "broken", "nowhere")
    _refused(run("import-playbook", str(bad)), "broken")
    assert "broken" not in run("playbooks").out  # nothing stored
    _refused(run("validate-playbook", str(tmp_path / "absent.json")), "absent.json")


def test_run_playbook(run: Callable[..., Run], tmp_path: Path) -> None:
    good = tmp_path / "tea_time.json"
    good.write_text(json.dumps(TEA, ensure_ascii=False))
    events = run("run-playbook", str(good), "--persona", "mina", "--args", '{"input": "休憩"}').lines()
    assert [e["type"] for e in events if e["type"] == "say"] == ["say"]
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "ok"
    by_name = run("run-playbook", "meta_simple_speak", "--persona", "mina", "--args", '{"input": "やあ"}')
    assert by_name.code == 0 and any(e["type"] == "speak" for e in by_name.lines())
    _refused(run("run-playbook", "no_such_playbook", "--persona", "mina"), "no_such_playbook")
    _refused(run("run-playbook", str(good), "--persona", "mina", "--args", "{not json"), "--args", "JSON")
    _refused(run("run-playbook", str(good), "--persona", "mina", "--args", "[1]"), "JSON のオブジェクト")
    _refused(run("run-playbook", str(good), "--persona", "mina", "--args", '{"mood": "x"}'), "mood")
    _refused(run("run-playbook", str(good), "--persona", "nobody"), "nobody")


def test_tool(run: Callable[..., Run]) -> None:
    out = run("tool", "building_look", "--persona", "mina").json()
    assert set(out) == {"ok", "tool", "result"} and out["ok"] is True and "図書館" in out["result"]
    _refused(run("tool", "no_such_tool", "--persona", "mina"), "no_such_tool")
    _refused(run("tool", "item_view", "--persona", "mina", "--args", "{}"), "item_id")
    _refused(run("tool", "building_look", "--persona", "nobody"), "nobody")


def test_production_list_show_resume(run: Callable[..., Run]) -> None:
    assert run("production", "list", "--json").out == ""
    _refused(run("chat", "--persona", "sora", "--building", "library", "資料を作って: 港の灯台"), "sora", "library")
    chat = run("chat", "--persona", "sora", "資料を作って: 港の灯台")
    assert chat.code == 0, chat.err
    (row,) = run("production", "list", "--json").lines()
    assert set(row) == {"run_id", "persona_id", "building_id", "request", "status"}
    assert row["status"] == "done" and row["request"] == "資料を作って: 港の灯台"
    assert row["run_id"] in run("production", "list").out
    shown = run("production", "show", row["run_id"]).json()
    assert set(shown) == {"run_id", "finished", "plan", "next"} and shown["finished"] is True
    assert all(s["status"] == "completed" for s in shown["plan"])
    resumed = run("production", "resume", row["run_id"])
    assert resumed.code == 0 and resumed.lines()[-1]["type"] == "production_resumed"
    _refused(run("production", "show", "no-such-run"), "no-such-run")
    _refused(run("production", "resume", "no-such-run"), "no-such-run")
    _refused(run("production", "show"), "needs a run id")


def test_migrate(run: Callable[..., Run], saiverse_home: Path, tmp_path: Path) -> None:
    first = run("migrate", "--json").json()
    assert set(first) == {"db_path", "version_before", "version_after", "applied", "backup_path"}
    assert first["version_before"] == 0 and first["applied"] and first["db_path"] == str(saiverse_home / "saiverse.db")
    again = run("migrate")
    assert again.code == 0 and "nothing to do" in again.out
    other = tmp_path / "other.db"
    assert run("migrate", "--db", str(other), "--json").json()["version_after"] == first["version_after"]
    (tmp_path / "junk.db").write_text("junk")
    _refused(run("migrate", "--db", str(tmp_path / "junk.db")), "not a SQLite database")


def test_config(run: Callable[..., Run], saiverse_home: Path, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaVerySecret4321")
    (tmp_path / ".env").write_text("SAIVERSE_LANG=en\n")
    shown = run("config", "--port", "9100", "--json").json()
    assert shown["gemini_api_key"] == {"env": "GEMINI_API_KEY", "value": "****4321", "source": "env",
                                       "where": "GEMINI_API_KEY"}
    assert shown["port"]["value"] == 9100 and shown["port"]["source"] == "flag"
    assert shown["lang"] == {"env": "SAIVERSE_LANG", "value": "en", "source": ".env", "where": str(tmp_path / ".env")}
    # tests/conftest.py keeps the deterministic model answering through the environment
    assert shown["home"]["value"] == str(saiverse_home) and shown["default_model"]["source"] == "env"
    assert set(shown["database_url"]) == {"env", "value", "source", "where"}
    text = run("config")
    assert text.code == 0 and "VerySecret" not in text.out + json.dumps(shown)
    assert "****4321" in text.out and "default_model" in text.out
    monkeypatch.setenv("SAIVERSE_PORT", "eighty")
    _refused(run("config"), "SAIVERSE_PORT", "integer")
