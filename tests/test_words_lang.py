"""The backend's and the command line's one-line errors, and `--help`, in one language: Japanese by default,
English with SAIVERSE_LANG=en (words/) — never a Japanese reason after an English `error:`, nor the reverse.

A line may still carry names from the data or the command line (ids, file paths, flags, `main.py`):
those are taken out before the line is checked for the other language's letters.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

import main as cli_main
import words
from saiverse.errors import USER_ERROR_EXIT

ROOT = Path(__file__).resolve().parents[1]
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
FROM_THE_DATA = re.compile(r"'[^']*'|\{\w+\}|`[^`]*`|--[\w-]+|\S*/\S*|main\.py(?: [a-z-]+)?:|\bTEXT\b|\bJSON\b|PNG|JPEG|GIF|WebP|"
                           r"\bMB\b|\b(?:text|action|file|name|run_id|path|command)\b|\b[A-Z][A-Z0-9_-]{2,}\b")
"""What a Japanese line may hold in Latin letters: quoted ids, a playbook's `{variable}`, the command and its argument names, flags,
paths, format names, names written in capitals (NUL, UTF-8, SAIVERSE_MAX_MESSAGE_CHARS)."""
NAMED_IN_DATA = re.compile(r"\S+ \([\w-]+\)")
"""A building or persona as `name (id)`: its name is the world's (the seed world's are Japanese)."""


def _refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    code = cli_main.main(list(argv))
    err = capsys.readouterr().err
    assert code == USER_ERROR_EXIT, (code, err)
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


def _parse_refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        cli_main.main(list(argv))
    err = capsys.readouterr().err
    assert stop.value.code == USER_ERROR_EXIT, err
    return err.strip()


def _assert_in(lang: str, line: str) -> None:
    if lang == "en":
        assert line.startswith("error: ") and not JAPANESE.search(NAMED_IN_DATA.sub(" ", line)), line
    else:
        assert line.startswith("エラー: ") and JAPANESE.search(line), line
        rest = FROM_THE_DATA.sub(" ", re.sub(r"\([\w-]+\)", " ", line))  # a `name (id)`'s id is the world's
        assert not LATIN_WORD.search(rest), (LATIN_WORD.findall(rest), line)


def _empty(tmp_path: Path) -> Path:
    path = tmp_path / "blank.png"
    path.write_bytes(b"")
    return path


def _not_an_image(tmp_path: Path) -> Path:
    path = tmp_path / "photo.png"
    path.write_bytes(b"this is plain text pretending to be a PNG")
    return path


def _playbook(tmp_path: Path, **node: object) -> str:
    path = tmp_path / f"pb_{len(list(tmp_path.glob('pb_*')))}.json"
    path.write_text(json.dumps({"name": "pb_case", "nodes": [{"id": "a", "type": "say", "action": "hi", "next": None,
                                                              **node}]}), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_refusals_are_in_one_language(lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_LANG", lang)
    lines = {
        "unknown building": _refusal(capsys, "chat", "やあ", "--building", "nowhere"),
        "unknown persona": _refusal(capsys, "chat", "やあ", "--persona", "nobody"),
        "unknown persona to delete": _refusal(capsys, "persona", "delete", "nobody"),
        "not an image": _refusal(capsys, "upload", "--building", "library", str(_not_an_image(tmp_path))),
        "bad --args": _refusal(capsys, "tool", "item_list", "--persona", "mina", "--args", "[1"),
        "--args not an object": _refusal(capsys, "tool", "item_list", "--persona", "mina", "--args", "[1]"),
        "empty message": _refusal(capsys, "chat", "   "),
        "unknown run": _refusal(capsys, "production", "resume", "nope"),
        "missing argument": _parse_refusal(capsys, "chat"),
        "unknown flag": _parse_refusal(capsys, "world", "--bogus"),
        "bad choice": _parse_refusal(capsys, "building", "frob"),
        "bad number": _parse_refusal(capsys, "history", "--limit", "x"),
        # saiverse/inputs.py's checks, and the rarer refusals worded in words/_inputs.py and _city.py
        "empty upload": _refusal(capsys, "upload", "--building", "library", str(_empty(tmp_path))),
        "upload of a folder": _refusal(capsys, "upload", "--building", "library", str(tmp_path)),
        "message too long": _refusal(capsys, "chat", "x" * 20_001),
        "NUL in an argument": _refusal(capsys, "chat", "a\x00b"),
        "--args too deep": _refusal(capsys, "tool", "item_list", "--persona", "mina", "--args",
                                    '{"a":' * 70 + "1" + "}" * 70),
        "bad budget": _refusal(capsys, "usage", "--budget", "mina", "lots"),
        "budget missing its amount": _parse_refusal(capsys, "usage", "--budget", "mina"),
        "delete a building with people": _refusal(capsys, "building", "delete", "library"),
        "playbook that is a folder": _refusal(capsys, "validate-playbook", str(tmp_path)),
        # sea/playbook.py and sea/validate.py: a malformed playbook's shape, graph and variables
        "unknown node type": _refusal(capsys, "validate-playbook", _playbook(tmp_path, type="teleport")),
        "edge to no node": _refusal(capsys, "validate-playbook", _playbook(tmp_path, next="nowhere")),
        "field of the wrong type": _refusal(capsys, "validate-playbook", _playbook(tmp_path, action=["a"])),
        "unset variable": _refusal(capsys, "validate-playbook", _playbook(tmp_path, action=None, type="set",
                                                                          assignments={"x": "={ghost} + 1"})),
    }
    for what, line in lines.items():
        assert line, what
        _assert_in(lang, line)
    assert "'nowhere'" in lines["unknown building"] and "'nobody'" in lines["unknown persona"]
    if lang == "en":
        assert lines["unknown building"] == "error: There is no building 'nowhere'."
    else:
        assert lines["unknown building"] == "エラー: 建物 'nowhere' は存在しません。"


def test_a_real_run_in_english_says_every_part_in_english(saiverse_home: Path) -> None:
    """As a person runs it: the process's SAIVERSE_LANG alone decides (no flag, no setting saved)."""
    env = {**os.environ, "SAIVERSE_HOME": str(saiverse_home), "SAIVERSE_LANG": "en"}
    proc = subprocess.run([sys.executable, str(ROOT / "main.py"), "items", "--building", "nowhere"],
                          capture_output=True, text=True, env=env, cwd=saiverse_home.parent, timeout=120, check=False)
    assert proc.returncode == USER_ERROR_EXIT
    assert proc.stderr == "error: There is no building 'nowhere'.\n"


def test_image_refusals_follow_the_language(monkeypatch: pytest.MonkeyPatch) -> None:
    from saiverse.world import InvalidImageError
    from saiverse.world._media import check_image

    buf = io.BytesIO()
    Image.new("RGB", (300, 300)).save(buf, format="PNG")
    for lang in ("ja", "en"):
        words.use(lang)
        for data, kwargs in ((b"", {}), (b"x" * 2000, {"max_bytes": 1000}), (b"not an image", {}),
                             (buf.getvalue(), {"max_pixels": 1000})):
            with pytest.raises(InvalidImageError) as refused:
                check_image(data, **{"max_bytes": 10_000_000, "max_pixels": 10_000_000, **kwargs})
            assert bool(JAPANESE.search(str(refused.value))) == (lang == "ja"), str(refused.value)


def test_input_checks_follow_the_language(tmp_path: Path) -> None:
    """saiverse/inputs.py and what builds on it: each refusal whole in the language in force."""
    from saiverse.care._login import check_password
    from saiverse.inputs import InputError, check_json_value, check_name, check_text, read_limited
    from saiverse.world._items import check_document_text, check_item_name

    (tmp_path / "empty.txt").write_bytes(b"")
    refusals = (lambda: check_password("ab"), lambda: check_password(" long enough "),
                lambda: check_text("a\x00b", words.say("what_message")), lambda: check_name("a\nb", "x"),
                lambda: check_json_value({"a": float("nan")}, "--args"), lambda: read_limited(tmp_path / "empty.txt", 9),
                lambda: read_limited(tmp_path / "none.txt", 9), lambda: read_limited(tmp_path, 9),
                lambda: check_document_text("x\x00"), lambda: check_item_name("  "))
    for lang in ("ja", "en"):
        words.use(lang)
        for refuse in refusals:
            with pytest.raises(InputError) as refused:
                refuse()
            line = str(refused.value)
            if lang == "en":
                assert not JAPANESE.search(line), line
            else:
                assert JAPANESE.search(line) and not LATIN_WORD.search(FROM_THE_DATA.sub(" ", line)), line


def test_local_model_words_follow_the_language() -> None:
    from saiverse.llm.local._child import death_words
    from saiverse.llm.local._health import broken_words

    words.use("en")
    assert death_words(-9) == "SIGKILL: killed — perhaps by the OS for lack of memory"
    assert death_words(1) == "exit code 1" and death_words(None) == "stopped responding"
    assert not JAPANESE.search(broken_words("SIGSEGV")) and not JAPANESE.search(death_words(0xC000001D))
    words.use("ja")
    assert death_words(1) == "終了コード 1" and "2 回続けて" in broken_words("SIGSEGV")


def test_the_model_layer_and_the_errors_are_one_table() -> None:
    """One place for the backend's words: the model layer's lines are asked of `words` like every other."""
    assert not (ROOT / "saiverse" / "llm" / "words.py").exists() and not (ROOT / "words.py").exists()
    assert words.say("why_as_set", lang="en") == "as configured" and words.say("no_item", id="x").startswith("アイテム")
    for path in ROOT.glob("saiverse/**/*.py"):
        assert "llm.words" not in path.read_text(encoding="utf-8"), path


def test_both_tables_have_the_same_keys_and_blanks() -> None:
    import string

    ja, en = words.WORDS["ja"], words.WORDS["en"]
    assert set(ja) == set(en)

    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f}

    # Japanese may leave out a blank only Python fills, in English (json's own message): never add one.
    assert [k for k in ja if not fields(ja[k]) <= fields(en[k])] == []
    assert [k for k in ja if fields(ja[k]) != fields(en[k])] == ["cli_not_json", "pb_not_json"]
    assert [k for k, text in en.items() if JAPANESE.search(text)] == []
    words.use("fr")
    assert words.current() == "ja"


def _parser_texts() -> set[str]:
    """Every English text the whole parser shows in --help: descriptions, commands' lines, arguments' help."""
    import argparse

    from cli._app import build_parser

    texts: set[str] = {"usage: ", "positional arguments", "options"}
    todo = [build_parser()]
    while todo:
        parser = todo.pop()
        texts.add(parser.description or "SAIVerse: a city of AI personas.")
        for action in parser._actions:
            if action.help and action.help != argparse.SUPPRESS:
                texts.add(action.help)
            if isinstance(action, argparse._SubParsersAction):
                texts.update(a.help for a in action._choices_actions if a.help)
                todo.extend(action.choices.values())
    return texts


def test_every_help_text_has_its_japanese_and_none_is_stale() -> None:
    from words import _help

    words.use("ja")
    texts = _parser_texts()
    assert sorted(texts - set(_help.JA)) == []  # a new --help text needs its Japanese in words/_help.py
    assert sorted(set(_help.JA) - texts) == []  # a changed one leaves no stale entry behind
    assert [en for en, ja in _help.JA.items() if not JAPANESE.search(ja)] == []


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("argv", [["--help"], ["persona", "--help"], ["usage", "--help"], ["model", "--help"]])
def test_help_follows_the_language(lang: str, argv: list[str], saiverse_home: Path) -> None:
    """As a person asks for it: `python main.py … --help` with SAIVERSE_LANG alone deciding."""
    env = {**os.environ, "SAIVERSE_HOME": str(saiverse_home), "SAIVERSE_LANG": lang}
    proc = subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], capture_output=True, text=True, env=env,
                          cwd=saiverse_home.parent, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    if lang == "en":
        assert out.startswith("usage: ") and "show this help message and exit" in out
        # An English help may name the page's own Japanese labels (設定, 自律), as the page shows them.
        assert not JAPANESE.search(out.replace("設定", "").replace("自律", "")), out
    else:
        assert out.startswith("使い方: ") and "このヘルプを表示して終了します" in out
        assert "options:" not in out and "show this help" not in out
        for line in out.splitlines():
            if not JAPANESE.search(line) and line.strip():
                # a line without Japanese is only the usage's flags and metavars, or a wrapped option name
                assert not re.search(r"[a-z]{3,} [a-z]{3,} [a-z]{3,}", FROM_THE_DATA.sub(" ", line)), line


def test_the_offline_note_follows_the_language_and_is_read_past_in_either() -> None:
    from chat import ChatRequest, Message
    from saiverse.llm.offline import OfflineModel, without_note

    for lang in ("ja", "en"):
        words.use(lang)
        reply = OfflineModel().generate(ChatRequest(messages=[Message(role="user", content="こんにちは")])).text
        assert reply.endswith(words.say("offline_note")), reply
        assert bool(JAPANESE.search(words.say("offline_note"))) == (lang == "ja")
    assert without_note("やあ" + words.say("offline_note", lang="ja") + words.say("offline_note", lang="en")) == "やあ"


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_what_the_commands_print_follows_the_language(lang: str, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`bag`, `world`, `persona create`, `usage`: what the command itself says, in one language (the seed
    world's names stay as they are written)."""
    monkeypatch.setenv("SAIVERSE_LANG", lang)
    world_names = re.compile("|".join(["エントランス", "ユーザーの部屋", "図書館", "美術館", "アトリエ", "ソラ", "ミナ",
                                       "サイバース市"]))

    def said(*argv: str) -> list[str]:
        capsys.readouterr()
        assert cli_main.main(list(argv)) == 0, argv
        return [line for line in capsys.readouterr().out.splitlines() if line.strip()]

    lines = [*said("bag", "--building", "library", "--name", "travel"), *said("world"),
             *said("persona", "create", "--name", "Umi"), said("usage")[0]]
    for line in lines:
        ids = r"^[!-~]+\s|\[[^\]]*\]|\([\w-]+\)|item:\d+|[0-9a-f-]{36}|\S*/\S*|Umi|travel"  # ids, paths, names given
        own = world_names.sub(" ", re.sub(ids, " ", line.strip()))
        if lang == "en":
            assert not JAPANESE.search(own), line
        else:
            assert JAPANESE.search(own) and not LATIN_WORD.search(FROM_THE_DATA.sub(" ", own)), line


def test_every_key_the_backend_asks_for_exists_and_is_asked_rightly() -> None:
    """Each `say("key", …)` names a line of words/ and passes the key alone as its positional argument (the
    model layer once passed its settings first: `say(settings, "key")`)."""
    import ast

    keys, wrong = set(words.WORDS["ja"]), []
    for path in [*ROOT.glob("*.py"), *(p for d in ("cli", "saiverse", "sea", "tools", "database", "chat", "ui")
                                        for p in (ROOT / d).rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = getattr(node, "func", None)
            if not isinstance(node, ast.Call) or not (
                    (isinstance(func, ast.Name) and func.id == "say")
                    or (isinstance(func, ast.Attribute) and func.attr == "say"
                        and isinstance(func.value, ast.Name) and func.value.id == "words")):
                continue
            first = node.args[0] if len(node.args) == 1 else None
            named = [x.value for x in ([first] if isinstance(first, ast.Constant) else
                                       [first.body, first.orelse] if isinstance(first, ast.IfExp) else [])
                     if isinstance(x, ast.Constant)]
            if first is None or any(k not in keys for k in named):
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert wrong == []
