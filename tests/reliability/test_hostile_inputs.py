"""Inputs that used to hang the app, eat its memory or crash it with a bug-type exit (issue 20,
"Inputs that hang, crash"): each is now a one-line `error: …` with exit 2 and nothing written, or —
where the input is fine after all — an answer.

Every case runs `python main.py` in its own process with a generous timeout, so a case that hangs
again fails here instead of hanging the suite. The home's rows (table by table) and files are
compared before and after each refusal (tests/support/home_snapshot.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from saiverse.errors import USER_ERROR_EXIT
from tests.support.home_snapshot import snapshot as _full_snapshot
from tests.support.upstream_small import small_home

ROOT = Path(__file__).resolve().parents[2]
NO_HANG = 120
"""Seconds after which a case counts as hung (each finishes in a few seconds; this is no speed test)."""
EVIL = "a" * 32 + "!"


def _main(home: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SAIVERSE_RAISE_ERRORS": "1", "SAIVERSE_DEFAULT_MODEL": "offline"}
    return subprocess.run([sys.executable, str(ROOT / "main.py"), "--home", str(home), *argv], capture_output=True,
                          text=True, env=env, timeout=NO_HANG, check=False, input=stdin, cwd=str(home.parent))


def _snapshot(home: Path) -> dict[str, Any]:
    """Rows and files of the home; lock files (saiverse/locks.py, empty, made by any read) left out."""
    snap = _full_snapshot(home)
    snap["files"] = {k: v for k, v in snap["files"].items() if not k.startswith(".locks/")}
    return snap


def _refused(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    err = proc.stderr
    assert proc.returncode == USER_ERROR_EXIT, (proc.returncode, err[-2000:])
    assert err.startswith("エラー: ") and len(err.rstrip("\n").splitlines()) == 1, err[-2000:]
    for needle in needles:
        assert needle in err, (needle, err)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A seeded home holding a document with the line the catastrophic patterns choke on."""
    base = tmp_path_factory.mktemp("hostile")
    home = base / "home"
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import load_settings

    m = SAIVerseManager(load_settings(home))
    try:
        result = m.run_tool("document_create", "mina", None,
                            {"name": "罠の文書", "description": "長い a の行", "content": f"一行目\n{EVIL}\n三行目"})
        doc = next(i.item_id for i in m.items.list_owned("building", "library") if i.name == "罠の文書")
    finally:
        m.close()
    assert "罠の文書" in str(result)
    return {"home": home, "base": base, "doc": doc}


def _pb(path: Path, nodes: list[dict[str, Any]], **extra: Any) -> Path:
    path.write_text(json.dumps({"name": path.stem, "nodes": nodes, **extra}), encoding="utf-8")
    return path


# ---- document_search: patterns with catastrophic backtracking ---------------------------------------

@pytest.mark.parametrize("pattern", ["(a+)+$", "(a*)*b", "^(a|a?)+$"])
def test_catastrophic_patterns_of_the_probe_answer(pattern: str, world: dict[str, Any]) -> None:
    home = world["home"]
    before = _snapshot(home)
    proc = _main(home, "tool", "document_search", "--persona", "mina",
                 "--args", json.dumps({"item_id": world["doc"], "pattern": pattern}))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "見つかりませんでした" in json.loads(proc.stdout)["result"]
    assert _snapshot(home) == before


def test_a_pattern_that_would_run_for_ages_is_stopped_and_refused(world: dict[str, Any]) -> None:
    home = world["home"]
    before = _snapshot(home)
    proc = _main(home, "tool", "document_search", "--persona", "mina",
                 "--args", json.dumps({"item_id": world["doc"], "pattern": "(a|aa)+$"}))
    _refused(proc, "(a|aa)+$", "took longer than")
    assert proc.stdout == "" and _snapshot(home) == before


# ---- playbooks: expressions, sizes, files that are not files ---------------------------------------

def test_an_expression_that_unfolds_to_gigabytes_is_refused_by_validation(world: dict[str, Any]) -> None:
    home, base = world["home"], world["base"]
    pb = _pb(base / "bomb.json", [{"id": "s", "type": "set",
                                   "assignments": {"x": "=str([[[0]*10000]*10000]*10000)"}, "next": None}])
    before = _snapshot(home)
    for argv in (["validate-playbook", str(pb)], ["run-playbook", str(pb), "--persona", "mina"],
                 ["import-playbook", str(pb)]):
        _refused(_main(home, *argv), "'s'", "1,000,000")
    assert _snapshot(home) == before


def test_sizes_are_bounded_while_an_expression_runs(world: dict[str, Any]) -> None:
    """The same bomb built from a variable cannot be folded at validation: the run stops at the
    bound before making it (an `error` event, exit 1), and nothing of it is kept."""
    home, base = world["home"], world["base"]
    pb = _pb(base / "bomb_var.json", [
        {"id": "s", "type": "set", "assignments": {"n": "=10000"}, "next": "t"},
        {"id": "t", "type": "set", "assignments": {"x": "=str([[[0]*{n}]*{n}]*{n})"}, "next": None}])
    proc = _main(home, "run-playbook", str(pb), "--persona", "mina")
    assert proc.returncode == 1, proc.stderr[-2000:]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    error = next(e for e in events if e["type"] == "error")
    assert "1,000,000" in error["message"] and "'t'" in error["message"], error


def test_deep_unary_minus_is_refused_by_validation(world: dict[str, Any]) -> None:
    home, base = world["home"], world["base"]
    pb = _pb(base / "deep_minus.json", [{"id": "s", "type": "set", "assignments": {"x": "=" + "-" * 1990 + "1"},
                                         "next": None}])
    before = _snapshot(home)
    _refused(_main(home, "validate-playbook", str(pb)), "'s'", "nested", "at most 100")
    _refused(_main(home, "run-playbook", str(pb), "--persona", "mina"), "nested")
    assert _snapshot(home) == before


def test_a_playbook_of_14000_nodes_is_refused_and_1000_validate(world: dict[str, Any]) -> None:
    home, base = world["home"], world["base"]

    def chain(n: int) -> list[dict[str, Any]]:
        return [{"id": f"{i}", "type": "pass", "next": f"{i + 1}" if i < n - 1 else None} for i in range(n)]

    big = base / "big.json"
    big.write_text(json.dumps({"name": "big", "nodes": chain(14_000)}, separators=(",", ":")), encoding="utf-8")
    assert big.stat().st_size < 1_000_000  # under the byte limit: the node count is what refuses it
    before = _snapshot(home)
    _refused(_main(home, "validate-playbook", str(big)), "14,000 個", "1,000 個まで")  # in the default language
    ok = _pb(base / "thousand.json", chain(1000))
    proc = _main(home, "validate-playbook", str(ok))
    assert proc.returncode == 0 and json.loads(proc.stdout)["nodes"] == 1000, proc.stderr[-2000:]
    assert _snapshot(home) == before


@pytest.mark.parametrize("command", ["validate-playbook", "import-playbook", "run-playbook", "upload", "restore"])
def test_a_fifo_is_refused_not_waited_on(command: str, world: dict[str, Any], tmp_path: Path) -> None:
    home = world["home"]
    fifo = tmp_path / ("pipe.zip" if command == "restore" else "pipe.json")
    os.mkfifo(fifo)
    argv = {"validate-playbook": [command, str(fifo)], "import-playbook": [command, str(fifo)],
            "run-playbook": [command, str(fifo), "--persona", "mina"],
            "upload": [command, "--building", "library", str(fifo)], "restore": [command, str(fifo)]}[command]
    target = tmp_path / "restored" if command == "restore" else home
    before = _snapshot(home)
    proc = _main(target, *argv)
    _refused(proc, str(fifo), "普通のファイルではありません")
    assert _snapshot(home) == before
    if command == "restore":
        assert not target.exists() or not any(target.iterdir())


@pytest.mark.parametrize("command", ["run-playbook", "validate-playbook", "upload", "restore"])
def test_dev_zero_is_refused_at_once(command: str, world: dict[str, Any], tmp_path: Path) -> None:
    home = world["home"]
    argv = {"run-playbook": [command, "/dev/zero", "--persona", "mina"], "validate-playbook": [command, "/dev/zero"],
            "upload": [command, "--building", "library", "/dev/zero"], "restore": [command, "/dev/zero"]}[command]
    before = _snapshot(home)
    _refused(_main(tmp_path / "new" if command == "restore" else home, *argv), "/dev/zero", "普通のファイルではありません")
    assert _snapshot(home) == before


# ---- import-saiverse: one damaged log does not stop the rest ---------------------------------------

def test_a_log_nested_200000_deep_is_reported_and_the_rest_imported(tmp_path: Path) -> None:
    root = tmp_path / "upstream"
    small_home(root)
    log = root / "cities" / "city_a" / "buildings" / "library_city_a" / "log.json"
    log.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    home = tmp_path / "imported"
    proc = _main(home, "import-saiverse", str(root), "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    problems = {p["where"]: p["message"] for p in report["problems"]}
    assert "log of library_city_a" in problems and "nested too deeply" in problems["log of library_city_a"]
    assert report["imported"]["personas"] == 3 and report["per_owner"]["building_log_lines"]["cafe_city_a"] == 7
    with sqlite3.connect(home / "saiverse.db") as conn:
        assert conn.execute("SELECT count(*) FROM building_history WHERE BUILDINGID = 'cafe_city_a'").fetchone()[0] \
            == 7


# ---- the database held by another program ------------------------------------------------------------

def test_chat_on_a_locked_database_says_so_in_one_line(world: dict[str, Any]) -> None:
    home = world["home"]
    before = _snapshot(home)
    holder = sqlite3.connect(home / "saiverse.db", isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")  # what an SQLite browser with a pending change does
        proc = _main(home, "chat", "やあ")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    _refused(proc, "ロックされています", "何も書き込んでいません")
    assert "INSERT" not in proc.stderr and "[SQL" not in proc.stderr
    assert _snapshot(home) == before


# ---- a model server whose decisions are junk (issue 32, item 6) -----------------------------------------

JUNK = {
    "prose": "ルーターとしては basic_chat が良いと考えます。",
    "broken": '{"playbook": "basic_chat", "args": {',
    "empty": "",
    "null": "null",
    "wrong-type": '["basic_chat"]',
    "not-a-choice": '{"playbook": "rm -rf /", "args": "all"}',
    "long": "考え中。" * 5000,
}


@pytest.mark.parametrize("junk", list(JUNK), ids=list(JUNK))
def test_a_found_ollama_answering_decisions_with_junk_still_replies(junk: str, world: dict[str, Any]) -> None:
    from tests.support.fakes_hub import FakeModelServer
    from tests.support.model_servers import closed_port

    with FakeModelServer("ollama", ["qwen2.5:3b"], say="はい、ミナです。", decide=lambda body: JUNK[junk]) as ollama:
        env = {**os.environ, "SAIVERSE_RAISE_ERRORS": "1", "SAIVERSE_DETECT_SERVERS": "1",
               "SAIVERSE_OLLAMA_URL": ollama.url, "SAIVERSE_LMSTUDIO_URL": closed_port(),
               "SAIVERSE_LLAMACPP_URL": closed_port()}
        env.pop("SAIVERSE_DEFAULT_MODEL", None)  # `auto`, no cloud key: the found Ollama answers
        proc = subprocess.run([sys.executable, str(ROOT / "main.py"), "--home", str(world["home"]), "chat",
                               "--persona", "mina", "こんにちは"], capture_output=True, text=True, env=env,
                              timeout=NO_HANG, check=False, cwd=str(world["home"].parent))
        asked = [r.body for r in ollama.requests if r.method == "POST" and r.body.get("response_format")]
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert not [e for e in events if e["type"] == "error"], events
    assert [e["text"] for e in events if e["type"] == "speak"] == ["はい、ミナです。"]
    assert [e["kind"] for e in events if e["type"] == "notice"] == ["decision_fallback"]
    assert len(asked) == 2  # the first try and its one retry, nothing more
