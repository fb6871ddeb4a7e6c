"""ui/_gradio_compat.py: the Gradio internals SAIVerse relies on are trusted under the pinned Gradio only;
under another, each feature is off and the start says which (the app as plain Gradio makes it)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from ui import _gradio_compat as compat

ROOT = Path(__file__).resolve().parents[1]


def test_the_pin_is_requirements_txts() -> None:
    pinned = re.search(r"^gradio==(\S+)$", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.MULTILINE)
    assert pinned and pinned.group(1) == compat.GRADIO_PIN
    assert compat.installed() == compat.GRADIO_PIN  # the test machine runs the pinned Gradio
    assert compat.check_version() == []


@pytest.fixture
def other_gradio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compat, "installed", lambda: "7.0.0")
    monkeypatch.setattr(compat, "_told", set())


def test_another_gradio_turns_each_feature_off_and_says_so(other_gradio: None,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=compat.__name__):
        assert compat.check_version() == ["lean_start", "quiet_queue", "lazy_tabs", "known_calls", "page_words"]
        assert compat.check_version() == ["lean_start", "quiet_queue", "lazy_tabs", "known_calls", "page_words"]
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 5  # once per feature and process
    assert all("Gradio 7.0.0 is installed, SAIVerse is written for 6.31.0" in line for line in lines)
    assert any("quiet_queue is off" in line and "sent again" in line for line in lines)


def test_another_gradio_keeps_its_queue_as_it_is(other_gradio: None) -> None:
    from gradio import queueing

    before = queueing.Queue.send_message
    compat.quiet_hidden_progress()
    assert queueing.Queue.send_message is before


def test_another_gradio_gets_its_side_tabs_built_at_start(other_gradio: None) -> None:
    import gradio as gr

    from ui.i18n import Labels
    from ui.lazy_tab import side_tabs
    from ui.tabs import TabRefresh

    built: list[str] = []

    def builder(manager: object, labels: Labels) -> TabRefresh:
        built.append("now")
        return TabRefresh(fn=lambda: None, inputs=[], outputs=[])

    with gr.Blocks():
        with gr.Tabs():
            side_tabs([("tab_chat", "t", builder)], None, Labels("ja"))
    assert built == ["now"]  # not a render block waiting for the tab's first opening


def test_the_network_guards_reads_of_gradio(other_gradio: None) -> None:
    """Under another Gradio the unknown-call check is off (Gradio answers) and the login read fails closed."""
    assert compat.known_functions(object(), None) is None
    assert compat.login_tokens(object()) == (None, None)


def test_another_gradio_gets_its_own_page(other_gradio: None) -> None:
    """`page_words` off: Gradio's page is served as it is, and no script rewrites its words."""
    from ui.i18n import Labels
    from ui.page import dress_html, gradio_words_js

    page = b'<html lang="en"><head></head><body></body></html>'
    assert dress_html(page, Labels("ja")) == page
    assert gradio_words_js(Labels("ja")) == "() => {}"


def test_the_pinned_gradio_gets_the_apps_page() -> None:
    from ui.i18n import Labels
    from ui.page import dress_html, gradio_words_js

    dressed = dress_html(b'<html lang="en"><head></head><body></body></html>', Labels("ja"))
    assert dressed.startswith(b'<html lang="ja">') and b"theme-color" in dressed
    assert "toast-wrap" in gradio_words_js(Labels("ja"))


def test_only_the_compat_module_reaches_into_gradio() -> None:
    """`import gradio as gr` is Gradio's public face; its submodules (`gradio.context`, `gradio.queueing` …)
    are internals, reached from ui/_gradio_compat.py only, where the pinned version guards them."""
    import ast

    bad = []
    for top in ("ui", "cli", "saiverse"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if path == ROOT / "ui" / "_gradio_compat.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
                bad += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names if n.startswith("gradio.")]
    assert not bad, "Gradio's internals outside ui/_gradio_compat.py:\n" + "\n".join(bad)
