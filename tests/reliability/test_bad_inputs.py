"""The bad-input corpus: well over 100 hostile or mistaken inputs across the CLI, playbooks, uploads,
tools, chat text and ids. Every one must be refused the same way: exit code 2, one line
`error: …` naming the thing, no traceback, and nothing written — the database's rows (counted and
digested, table by table) and the files under the home are the same before and after.

The cases run `main.main(argv)` in this process against one shared home (a case that wrongly wrote
something would fail here, and show in the next case's "before"); a few run `python main.py` as a
user does, with command-line bytes that are not UTF-8. SAIVERSE_RAISE_ERRORS is set (tests/conftest.py),
so a bug raises with its traceback instead of passing as an exit code.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import main as cli_main
from saiverse.errors import USER_ERROR_EXIT
from tests.support.home_snapshot import snapshot

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Case:
    """One bad input: the command line and what its one-line message must name."""

    id: str
    argv: tuple[str, ...]
    needles: tuple[str, ...]
    kind: str


def _case(kind: str, id_: str, argv: list[str], *needles: str) -> Case:
    return Case(f"{kind}:{id_}", tuple(argv), tuple(needles), kind)


def _png(width: int = 16, height: int = 12) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (30, 60, 200)).save(buf, format="PNG")
    return buf.getvalue()


def _bomb_png() -> bytes:
    """A valid PNG header claiming 100000 × 100000 pixels (a decompression bomb), with no real data."""
    raw = bytearray(_png())
    import struct
    import zlib
    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    raw[8:8 + 25] = struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk) & 0xFFFFFFFF)
    return bytes(raw)


def _playbook(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "pb_case", "input_schema": [{"name": "input"}],
                            "nodes": [{"id": "say", "type": "say", "action": "やあ", "next": None}],
                            "start_node": "say"}
    return {**base, **overrides}


PLAYBOOK_FILES: dict[str, tuple[bytes, tuple[str, ...]]] = {
    # file name → (content, what the message names)
    "not_json.json": (b"{ this is not json", ("'not_json'", "JSON")),
    "array.json": (b"[1, 2, 3]", ("オブジェクト",)),
    "empty.json": (b"", ("'empty'", "JSON")),
    "huge.json": (json.dumps(_playbook(description="x" * 1_100_000)).encode(), ("huge.json", "1,000,000 バイト")),
    "deep.json": (b"[" * 100_000 + b"]" * 100_000, ("'deep'", "入れ子が深すぎて")),
    "binary.json": (_png(), ("binary.json", "UTF-8")),
    "utf16.json": (json.dumps(_playbook()).encode("utf-16"), ("utf16.json", "UTF-8")),
    "unknown_type.json": (json.dumps(_playbook(nodes=[{"id": "x", "type": "teleport", "next": None}],
                                               start_node="x")).encode(), ("teleport",)),
    "no_start.json": (json.dumps(_playbook(start_node="nowhere")).encode(), ("nowhere",)),
    "bad_next.json": (json.dumps(_playbook(nodes=[{"id": "say", "type": "say", "action": "a",
                                                   "next": "missing"}])).encode(), ("missing",)),
    "traversal_name.json": (json.dumps(_playbook(name="../../etc/passwd")).encode(), ("name",)),
    "surrogate_name.json": (b'{"name": "pb\\ud800", "nodes": [{"id": "s", "type": "say", "action": "a", '
                            b'"next": null}], "start_node": "s"}', ("name",)),
    "nul_name.json": (json.dumps(_playbook(name="pb\u0000x")).encode(), ("name",)),
    "unset_var.json": (json.dumps(_playbook(nodes=[{"id": "s", "type": "set", "assignments": {
        "x": "={nothing_sets_this} + 1"}, "next": None}], start_node="s")).encode(), ("nothing_sets_this",)),
    "unset_arg.json": (json.dumps(_playbook(nodes=[{"id": "t", "type": "tool", "action": "memory_recall",
                                                    "args_input": {"query": "nothing_sets_this"}, "next": None}],
                                            start_node="t")).encode(), ("nothing_sets_this",)),
    "surrogate_text.json": (b'{"name": "pb_text", "nodes": [{"id": "s", "type": "say", "action": "a\\udc80", '
                            b'"next": null}], "start_node": "s"}', ("UTF-8",)),
    "system_write.json": (json.dumps(_playbook(nodes=[{"id": "s", "type": "set", "assignments": {"_persona": 1},
                                                       "next": None}], start_node="s")).encode(), ("_persona",)),
    "unreachable.json": (json.dumps(_playbook(nodes=[{"id": "say", "type": "say", "action": "a", "next": None},
                                                     {"id": "lost", "type": "say", "action": "b", "next": None}]))
                         .encode(), ("lost",)),
    "bad_operator.json": (json.dumps(_playbook(nodes=[{"id": "say", "type": "pass", "conditional_next": {
        "field": "input", "operator": "spaceship", "cases": {"a": None}}}])).encode(), ("operator",)),
    "bad_expression.json": (json.dumps(_playbook(nodes=[{"id": "s", "type": "set", "assignments": {"x": "=1 +"},
                                                         "next": None}], start_node="s")).encode(),
                         ("'s'", "cannot parse")),
    "unsafe_expression.json": (json.dumps(_playbook(nodes=[{"id": "s", "type": "set", "assignments": {
        "x": "=__import__('os').system('true')"}, "next": None}], start_node="s")).encode(), ("'s'",)),
    "no_nodes.json": (json.dumps(_playbook(nodes=[])).encode(), ("nodes",)),
    "builtin_name.json": (json.dumps(_playbook(name="meta_user")).encode(), ("meta_user", "--replace")),
    "duplicate_ids.json": (json.dumps(_playbook(nodes=[{"id": "say", "type": "say", "action": "a", "next": None},
                                                       {"id": "say", "type": "say", "action": "b", "next": None}]))
                           .encode(), ("say",)),
}

UPLOAD_FILES: dict[str, bytes] = {
    "empty.png": b"",
    "text.png": b"hello, I am not a picture\n" * 10,
    "truncated.png": _png()[:40],
    "bomb.png": _bomb_png(),
    "fake.pdf": b"%PDF-1.4\n garbage that is not a PDF body \n%%EOF",
    "drawing.svg": b'<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>',
    "zip.png": b"PK\x03\x04" + bytes(range(256)) * 4,
}

UPLOAD_NEEDLES: dict[str, tuple[str, ...]] = {
    "empty.png": ("empty",), "bomb.png": ("画素数",), "fake.pdf": ("PDF",),
}


def _cases() -> list[Case]:
    c: list[Case] = []
    ids = "ids"
    c += [
        _case(ids, "chat-persona", ["chat", "--persona", "nobody", "やあ"], "nobody"),
        _case(ids, "chat-building", ["chat", "--building", "nowhere", "やあ"], "nowhere"),
        _case(ids, "chat-not-here", ["chat", "--persona", "mina", "--building", "museum", "やあ"], "mina", "museum"),
        _case(ids, "memory-persona", ["memory", "--persona", "nobody"], "nobody"),
        _case(ids, "memory-traversal", ["memory", "--persona", "../../etc/passwd"], "../../etc/passwd"),
        _case(ids, "memory-search-persona", ["memory", "--persona", "nobody", "--search", "猫"], "nobody"),
        _case(ids, "history-building", ["history", "--building", "nowhere"], "nowhere"),
        _case(ids, "items-building", ["items", "--building", "nowhere"], "nowhere"),
        _case(ids, "items-traversal", ["items", "--building", "../../etc"], "../../etc"),
        _case(ids, "model-pull-unknown", ["model", "pull", "no-such-model"], "no-such-model", "owner/repo/file.gguf"),
        _case(ids, "model-pull-traversal", ["model", "pull", "../x/../../y.gguf"], "../x/../../y.gguf"),
        _case(ids, "model-pull-not-gguf", ["model", "pull", "owner/repo/weights.bin"], "weights.bin"),
        _case(ids, "items-empty", ["items", "--building", ""], "''"),
        _case(ids, "chronicle-persona", ["chronicle", "--persona", "nobody"], "nobody"),
        _case(ids, "memopedia-persona", ["memopedia", "--persona", "nobody"], "nobody"),
        _case(ids, "memopedia-page", ["memopedia", "--persona", "mina", "--page", "存在しないページ"], "存在しないページ"),
        _case(ids, "production-show-none", ["production", "show"], "run id"),
        _case(ids, "production-show", ["production", "show", "no-such-run"], "no-such-run"),
        _case(ids, "production-resume", ["production", "resume", "no-such-run"], "no-such-run"),
        _case(ids, "restore-unknown", ["import-playbook", "--restore", "no_such_playbook"], "no_such_playbook"),
        _case(ids, "run-playbook-name", ["run-playbook", "no_such_playbook", "--persona", "mina"], "no_such_playbook"),
        _case(ids, "run-playbook-persona", ["run-playbook", "basic_chat", "--persona", "nobody"], "nobody"),
        _case(ids, "run-playbook-building", ["run-playbook", "basic_chat", "--persona", "mina", "--building",
                                             "nowhere", "--args", '{"input": "a"}'], "nowhere"),
        _case(ids, "tool-persona", ["tool", "item_list", "--persona", "nobody"], "nobody"),
        _case(ids, "tool-building", ["tool", "item_list", "--persona", "mina", "--building", "nowhere"], "nowhere"),
        _case(ids, "upload-building", ["upload", "--building", "nowhere", "{inputs}/ok.png"], "nowhere"),
        _case(ids, "import-saiverse-missing", ["import-saiverse", "{inputs}/no_such_home"], "no_such_home"),
        _case(ids, "import-saiverse-text", ["import-saiverse", "{inputs}/text.png"], "text.png"),
    ]
    flags = "flags"
    big = "999999999999999999999"
    c += [
        _case(flags, "limit-negative", ["memory", "--persona", "mina", "--limit", "-1"], "--limit", "-1"),
        _case(flags, "limit-zero", ["memory", "--persona", "mina", "--limit", "0"], "--limit"),
        _case(flags, "limit-huge", ["memory", "--persona", "mina", "--limit", big], "--limit", big),
        _case(flags, "limit-text", ["memory", "--persona", "mina", "--limit", "many"], "--limit", "many"),
        _case(flags, "limit-float", ["memory", "--persona", "mina", "--limit", "1e3"], "--limit", "1e3"),
        _case(flags, "history-limit-negative", ["history", "--building", "library", "--limit", "-1"], "--limit"),
        _case(flags, "history-limit-huge", ["history", "--building", "library", "--limit", big], "--limit"),
        _case(flags, "chronicle-limit", ["chronicle", "--persona", "mina", "--limit", "-5"], "--limit"),
        _case(flags, "level-zero", ["chronicle", "--persona", "mina", "--level", "0"], "--level"),
        _case(flags, "level-huge", ["chronicle", "--persona", "mina", "--level", big], "--level"),
        _case(flags, "port-huge", ["config", "--port", "70000"], "--port", "70000"),
        _case(flags, "port-negative", ["config", "--port", "-1"], "--port"),
        _case(flags, "port-text", ["config", "--port", "http"], "--port"),
        _case(flags, "unknown-command", ["fly"], "fly"),
        _case(flags, "unknown-flag", ["world", "--colour"], "--colour"),
        _case(flags, "production-action", ["production", "explode"], "explode"),
        _case(flags, "memory-no-persona", ["memory"], "--persona"),
        _case(flags, "restore-with-file", ["import-playbook", "{inputs}/array.json", "--restore", "basic_chat"],
              "--restore"),
        _case(flags, "import-no-file", ["import-playbook"], "file"),
        _case(flags, "migrate-not-sqlite", ["migrate", "--db", "{inputs}/text.png"], "not a SQLite database"),
        _case(flags, "migrate-folder", ["migrate", "--db", "{inputs}"], "folder"),
    ]
    text = "text"
    c += [
        _case(text, "chat-surrogate", ["chat", "--persona", "mina", "こんにちは\udcff"], "TEXT", "UTF-8"),
        _case(text, "chat-nul", ["chat", "--persona", "mina", "こん\x00にちは"], "NUL"),
        _case(text, "chat-too-long", ["chat", "--persona", "mina", "あ" * 20_001], "20,001", "20,000"),
        _case(text, "chat-two-million", ["chat", "--persona", "mina", "x" * 2_000_000], "2,000,000"),
        _case(text, "chat-empty", ["chat", "--persona", "mina", ""], "空です"),
        _case(text, "chat-blank", ["chat", "--persona", "mina", "   \n\t "], "空です"),
        _case(text, "persona-surrogate", ["chat", "--persona", "mi\udcffna", "やあ"], "--persona", "UTF-8"),
        _case(text, "building-surrogate", ["items", "--building", "lib\udc80rary"], "--building"),
        _case(text, "search-surrogate", ["memory", "--persona", "mina", "--search", "\udcff"], "--search"),
        _case(text, "page-surrogate", ["memopedia", "--persona", "mina", "--page", "\ud800"], "--page"),
        _case(text, "home-surrogate", ["world", "--home", "/tmp/\udcffhome"], "--home"),
        _case(text, "db-surrogate", ["migrate", "--db", "/tmp/\udcff.db"], "--db"),
        _case(text, "run-id-surrogate", ["production", "show", "\udcff"], "RUN_ID"),
    ]
    args = "args"
    tool = ["tool", "item_list", "--persona", "mina", "--args"]
    c += [
        _case(args, "not-json", [*tool, "{oops"], "--args", "JSON"),
        _case(args, "array", [*tool, "[1]"], "--args", "オブジェクト"),
        _case(args, "string", [*tool, '"a"'], "--args", "オブジェクト"),
        _case(args, "empty", [*tool, ""], "--args"),
        _case(args, "trailing", [*tool, "{} {}"], "--args"),
        _case(args, "deep-100000", [*tool, "[" * 100_000 + "]" * 100_000], "--args", "入れ子が深すぎ"),
        _case(args, "deep-70", [*tool, '{"a":' * 70 + "1" + "}" * 70], "--args", "64"),
        _case(args, "nan", [*tool, '{"x": NaN}'], "--args", "NaN"),
        _case(args, "infinity", [*tool, '{"x": -Infinity}'], "--args", "Infinity"),
        _case(args, "huge-int", [*tool, '{"x": 1000000000000000000000000000000}'], "--args", "大きすぎ"),
        _case(args, "digits-5000", [*tool, '{"x": ' + "9" * 5000 + "}"], "--args", "桁が多すぎ"),
        _case(args, "surrogate-value", [*tool, '{"x": "\\ud800"}'], "--args", "$.x"),
        _case(args, "surrogate-key", [*tool, '{"\\udc80": 1}'], "--args", "キー"),
        _case(args, "nul-value", [*tool, '{"x": "a\\u0000b"}'], "--args", "NUL"),
        _case(args, "run-playbook-not-json", ["run-playbook", "basic_chat", "--persona", "mina", "--args", "nope"],
              "--args"),
        _case(args, "run-playbook-array", ["run-playbook", "basic_chat", "--persona", "mina", "--args", "[]"],
              "--args"),
        _case(args, "run-playbook-deep", ["run-playbook", "basic_chat", "--persona", "mina", "--args",
                                          "[" * 50_000 + "]" * 50_000], "--args"),
        _case(args, "run-playbook-missing", ["run-playbook", "memory_recall", "--persona", "mina", "--args", "{}"],
              "input"),
        _case(args, "run-playbook-unknown", ["run-playbook", "basic_chat", "--persona", "mina", "--args",
                                             '{"input": "a", "bogus": 1}'], "bogus"),
    ]
    tools = "tools"

    def t(id_: str, name: str, tool_args: dict[str, Any] | str, *needles: str) -> Case:
        raw = tool_args if isinstance(tool_args, str) else json.dumps(tool_args, ensure_ascii=False)
        return _case(tools, id_, ["tool", name, "--persona", "mina", "--building", "library", "--args", raw],
                     *needles)

    doc = {"name": "報告", "description": "d", "content": "本文"}
    c += [
        _case(tools, "unknown", ["tool", "no_such_tool", "--persona", "mina"], "no_such_tool"),
        t("unavailable", "searxng_search", {"query": "猫"}, "searxng_search"),
        t("missing-arg", "document_create", {"name": "x"}, "content"),
        t("extra-arg", "item_list", {"colour": "red"}, "colour"),
        t("wrong-type", "memory_recall", {"query": "猫", "topk": "many"}, "topk"),
        t("topk-zero", "memory_recall", {"query": "猫", "topk": 0}, "topk"),
        t("topk-negative", "memory_recall", {"query": "猫", "topk": -3}, "topk"),
        t("doc-too-long", "document_create", {**doc, "content": "x" * 200_001}, "200,001", "200,000"),
        t("doc-empty", "document_create", {**doc, "content": "  "}, "空"),
        t("doc-name-empty", "document_create", {**doc, "name": " "}, "名前"),
        t("doc-name-nul", "document_create", '{"name": "a\\u0000b", "description": "d", "content": "c"}', "NUL"),
        t("doc-name-control", "document_create", {**doc, "name": "a\u0007b"}, "制御文字"),
        t("doc-name-long", "document_create", {**doc, "name": "名" * 201}, "201"),
        t("doc-content-nul", "document_create", '{"name": "a", "description": "d", "content": "x\\u0000"}', "NUL"),
        t("view-unknown", "item_view", {"item_id": "no-such-item"}, "no-such-item"),
        t("view-traversal", "item_view", {"item_id": "../../etc/passwd"}, "../../etc/passwd"),
        t("read-unknown", "document_read", {"item_id": "no-such-item"}, "no-such-item"),
        t("use-bad-json", "item_use", {"item_id": "{key}", "action_json": "{nope"}, "action_json"),
        t("use-unknown-action", "item_use", {"item_id": "{key}", "action_json": {"action_type": "burn"}}, "burn"),
        t("use-far-item", "item_view", {"item_id": "{picture}"}, "ここにはありません"),
        t("pickup-unknown", "item_pickup", {"item_id": "nope"}, "nope"),
        t("move-unknown", "move_building", {"building": "月の裏側"}, "月の裏側"),
        t("move-other", "move_persona", {"building_id": "museum", "persona_id": "sora"}, "sora"),
        t("schedule-kind", "schedule_add", {"schedule_type": "sometimes", "meta_playbook": "meta_auto"},
          "schedule_type"),
        t("schedule-playbook", "schedule_add", {"schedule_type": "interval", "meta_playbook": "no_such_meta",
                                                "interval_seconds": 600}, "no_such_meta"),
        t("around-unknown", "memory_read_around", {"message_id": "987654321"}, "987654321"),
        t("around-type", "memory_read_around", {"message_id": 987654321}, "message_id"),
        t("building-empty", "create_building", {"name": " ", "description": "d", "system_instruction": "s"}, "名前"),
        t("building-nul", "create_building", '{"name": "a\\u0000", "description": "d", "system_instruction": "s"}',
          "NUL"),
        t("building-capacity", "create_building", {"name": "小屋", "description": "d", "system_instruction": "s",
                                                   "capacity": 0}, "capacity"),
        t("calc-import", "calculate_expression", {"expression": "__import__('os').system('true')"}, "__import__"),
        t("calc-power", "calculate_expression", {"expression": "9**9**9**9"}, "累乗"),
        t("calc-empty", "calculate_expression", {"expression": ""}, "expression"),
        t("pdf-not-pdf", "pdf_read", {"item_id": "{doc}"}, "PDF"),
        t("memopedia-unknown", "memopedia_get_page", {"page_id": "no-such-page"}, "no-such-page"),
        t("chronicle-date", "chronicle_search", {"start_date": "yesterday-ish"}, "start_date"),
        t("working-memory-nul", "update_working_memory", '{"key": "a\\u0000", "value": "v"}', "NUL"),
    ]
    pbs = "playbooks"
    for name, (_content, needles) in PLAYBOOK_FILES.items():
        command = "import-playbook" if name == "builtin_name.json" else "validate-playbook"
        c.append(_case(pbs, name, [command, f"{{inputs}}/{name}"], *needles))
    c += [
        _case(pbs, "missing-file", ["validate-playbook", "{inputs}/no_such.json"], "no_such.json"),
        _case(pbs, "folder", ["validate-playbook", "{inputs}"], "フォルダー"),
        _case(pbs, "run-bad-file", ["run-playbook", "{inputs}/unknown_type.json", "--persona", "mina"], "teleport"),
        _case(pbs, "import-bad-file", ["import-playbook", "{inputs}/bad_next.json"], "missing"),
    ]
    up = "uploads"
    for name in UPLOAD_FILES:
        c.append(_case(up, name, ["upload", "--building", "library", f"{{inputs}}/{name}"], name,
                       *UPLOAD_NEEDLES.get(name, ("画像ファイルではありません",))))
    c += [
        _case(up, "missing", ["upload", "--building", "library", "{inputs}/no_such.png"], "no_such.png"),
        _case(up, "folder", ["upload", "--building", "library", "{inputs}"], "フォルダー"),
        _case(up, "dev-zero", ["upload", "--building", "library", "/dev/zero"], "/dev/zero", "普通のファイルではありません"),
        _case(up, "sparse-3gb", ["upload", "--building", "library", "{inputs}/sparse.png"], "3072.0 MB"),
        _case(up, "just-over", ["upload", "--building", "library", "{inputs}/over.png"], "over.png",
              "20,971,", "20.0 MB"),
    ]
    return c


CASES = _cases()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One home for every case (opened once, seeded) and a folder of bad files beside it."""
    base = tmp_path_factory.mktemp("corpus")
    home, inputs = base / "home", base / "inputs"
    inputs.mkdir()
    for name, (content, _needles) in PLAYBOOK_FILES.items():
        (inputs / name).write_bytes(content)
    for name, content in UPLOAD_FILES.items():
        (inputs / name).write_bytes(content)
    (inputs / "ok.png").write_bytes(_png())
    with (inputs / "sparse.png").open("wb") as fh:
        fh.truncate(3 * 1024**3)
    (inputs / "over.png").write_bytes(_png() + b"\0" * (20 * 1024 * 1024))
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import load_settings

    m = SAIVerseManager(load_settings(home))
    try:
        items = {i.name: i.item_id for b in m.world.buildings() for i in m.items.list_owned("building", b.building_id)}
    finally:
        m.close()
    return {"home": str(home), "inputs": str(inputs), "key": items["古い鍵"], "picture": items["星空の絵"],
            "doc": items["SAIVerse使い方ガイド"]}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = cli_main.main(argv)
    except SystemExit as exc:  # argparse refuses before main() can return
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def _refused(code: int, err: str, needles: tuple[str, ...]) -> None:
    assert code == USER_ERROR_EXIT, (code, err[:500])
    assert err.startswith("エラー: ") and len(err.rstrip("\n").splitlines()) == 1, err[:500]
    assert "Traceback" not in err and len(err) < 2000, err[:500]
    for needle in needles:
        assert needle in err, (needle, err[:500])


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_in_one_line_and_changes_nothing(
        case: Case, world: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    home = Path(world["home"])
    argv = [a.replace("{inputs}", world["inputs"]).replace("{key}", world["key"])
            .replace("{picture}", world["picture"]).replace("{doc}", world["doc"]) for a in case.argv]
    before = snapshot(home)
    code, out, err = _run(["--home", str(home), *argv], capsys)
    _refused(code, err, case.needles)
    assert out == "", out[:500]
    after = snapshot(home)
    assert after["rows"] == before["rows"], [t for t in after["rows"] if after["rows"][t] != before["rows"].get(t)]
    assert after["files"] == before["files"], set(after["files"]) ^ set(before["files"])


BYTES_CASES = [  # what a shell hands over: bytes that are not UTF-8 (Python sees lone surrogates)
    ("chat-latin1", [b"chat", b"--persona", b"mina", b"caf\xe9"], "TEXT"),
    ("persona-latin1", [b"memory", b"--persona", b"\xffmina"], "--persona"),
    ("search-latin1", [b"memory", b"--persona", b"mina", b"--search", b"\xe9t\xe9"], "--search"),
]


@pytest.mark.parametrize(("name", "argv", "needle"), BYTES_CASES, ids=[c[0] for c in BYTES_CASES])
def test_non_utf8_command_line_bytes_as_a_user_types_them(
        name: str, argv: list[bytes], needle: str, world: dict[str, str]) -> None:
    home = Path(world["home"])
    before = snapshot(home)
    env = {**os.environ, "SAIVERSE_RAISE_ERRORS": ""}  # what a user's shell has
    proc = subprocess.run([sys.executable.encode(), str(ROOT / "main.py").encode(), b"--home", str(home).encode(),
                           *argv], capture_output=True, env=env, check=False, timeout=60)
    err = proc.stderr.decode("utf-8", "replace")
    _refused(proc.returncode, err, (needle, "UTF-8"))
    assert snapshot(home) == before


def test_the_corpus_is_large_and_covers_every_kind() -> None:
    kinds = {c.kind for c in CASES}
    assert len(CASES) + len(BYTES_CASES) >= 100, len(CASES)
    assert {"ids", "flags", "text", "args", "tools", "playbooks", "uploads"} <= kinds
    print(f"\nbad-input corpus: {len(CASES) + len(BYTES_CASES)} cases "
          f"({', '.join(f'{k} {sum(c.kind == k for c in CASES)}' for k in sorted(kinds))}, bytes {len(BYTES_CASES)})")
