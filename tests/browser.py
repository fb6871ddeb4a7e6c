"""Helpers for browser tests: serve the real app on a free loopback port, drive it in Chromium.

The app runs in this process (Gradio's server thread) over its own temp data home, so a test can
look at the manager and the files on disk while the browser clicks. Chromium is the Debian one at
/usr/bin/chromium — Playwright's own browser download is never used.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("SAIVERSE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
SHOTS_DIR = Path(os.environ.get("SAIVERSE_SHOTS", "/tmp/saiverse-shots"))
VIEWPORT = {"width": 1440, "height": 900}


def require_chromium() -> None:
    """Browser tests need the Debian Chromium; `scripts/test.sh` installs it. Without it a
    developer's run skips them, but CI fails: a browser suite that silently ran nothing is a lie."""
    import pytest

    if Path(CHROMIUM).exists():
        return
    message = f"no Chromium at {CHROMIUM} (apt-get install chromium, or run scripts/test.sh)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing is listening on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RunningApp:
    """A served SAIVerse window: its URL, the manager behind it, and its data home."""

    url: str
    manager: Any
    app: Any
    home: Path

    def close(self) -> None:
        self.app.close()
        self.manager.close()


def start_app(home: Path, *, lang: str = "ja", refresh_sec: float | None = None, model: Any = None) -> RunningApp:
    """Open a world under `home` (seeded on first run) and serve it without blocking.

    Settings are built directly, not read from the environment, so neither a developer's `.env`
    nor their SAIVERSE_* variables can reach the test server; the offline model answers. `refresh_sec` shortens
    the window's background-refresh timer; `model` (a ChatModel, e.g. a slow ScriptedModel) answers every call.
    """
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import Settings
    from ui.app import build_app, launch_kwargs

    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    settings = Settings(home=home, database_url=f"sqlite:///{home / 'saiverse.db'}", port=port, lang=lang,
                        default_model="offline")  # the deterministic model, as every test (tests/conftest.py)
    manager = SAIVerseManager(settings, models=None if model is None else (lambda _p, _k: (model, None)))
    app = build_app(manager) if refresh_sec is None else build_app(manager, refresh_sec=refresh_sec)
    app.launch(**launch_kwargs(settings, port=port), prevent_thread_lock=True)
    return RunningApp(f"http://127.0.0.1:{port}/", manager, app, home)


@contextmanager
def served(home: Path, **kwargs: Any) -> Iterator[RunningApp]:
    """`start_app` for the length of a `with` (a module's `running` fixture); skips without Chromium."""
    require_chromium()
    app = start_app(home, **kwargs)
    try:
        yield app
    finally:
        app.close()


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (the system one) under Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def new_page(browser: Any, url: str) -> Iterator[Any]:
    """A fresh browser context and page on `url`, waiting until the window is rendered."""
    context = browser.new_context(viewport=VIEWPORT, locale="ja-JP")
    context.set_default_timeout(45_000)  # generous: CI machines are slow and shared
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_selector("#building-select")
        page.wait_for_selector("#item-list [data-item-id], #item-list .sv-empty")
        yield page
    finally:
        context.close()


def shot(page: Any, name: str) -> Path:
    """Save a full-window screenshot to SHOTS_DIR/<name>.png and return its path."""
    SHOTS_DIR.mkdir(parents=True, exist_ok=True)
    path = SHOTS_DIR / f"{name}.png"
    page.screenshot(path=str(path))
    return path
