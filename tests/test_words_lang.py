"""The backend's and the command line's one-line errors in one language: Japanese by default, English
with SAIVERSE_LANG=en (words.py) — never a Japanese reason after an English `error:`, nor the reverse.

A line may still carry names from the data or the command line (ids, file paths, flags, `main.py`):
those are taken out before the line is checked for the other language's letters.
"""

from __future__ import annotations

import io
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
FROM_THE_DATA = re.compile(r"'[^']*'|`[^`]*`|--[\w-]+|\S*/\S*|main\.py(?: [a-z-]+)?:|\bTEXT\b|\bJSON\b|PNG|JPEG|GIF|WebP|"
                           r"\bMB\b|\b(?:text|action|file|name|run_id|path|command)\b")
"""What a Japanese line may hold in Latin letters: quoted ids, the command and its argument names, flags,
paths, format names."""


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
        assert line.startswith("error: ") and not JAPANESE.search(line), line
    else:
        assert line.startswith("エラー: ") and JAPANESE.search(line), line
        rest = FROM_THE_DATA.sub(" ", line)
        assert not LATIN_WORD.search(rest), (LATIN_WORD.findall(rest), line)


def _not_an_image(tmp_path: Path) -> Path:
    path = tmp_path / "photo.png"
    path.write_bytes(b"this is plain text pretending to be a PNG")
    return path


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


def test_local_model_words_follow_the_language() -> None:
    from saiverse.llm.local._child import death_words
    from saiverse.llm.local._health import broken_words

    words.use("en")
    assert death_words(-9) == "SIGKILL: killed — perhaps by the OS for lack of memory"
    assert death_words(1) == "exit code 1" and death_words(None) == "stopped responding"
    assert not JAPANESE.search(broken_words("SIGSEGV")) and not JAPANESE.search(death_words(0xC000001D))
    words.use("ja")
    assert death_words(1) == "終了コード 1" and "2 回続けて" in broken_words("SIGSEGV")


def test_both_tables_have_the_same_keys_and_blanks() -> None:
    import string

    ja, en = words.WORDS["ja"], words.WORDS["en"]
    assert set(ja) == set(en)

    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f}

    # Japanese may leave out a blank only Python fills, in English (json's own message): never add one.
    assert [k for k in ja if not fields(ja[k]) <= fields(en[k])] == []
    assert [k for k in ja if fields(ja[k]) != fields(en[k])] == ["cli_not_json"]
    assert [k for k, text in en.items() if JAPANESE.search(text)] == []
    words.use("fr")
    assert words.current() == "ja"
