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
from typing import Any, NoReturn

CHROMIUM = os.environ.get("SAIVERSE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
SHOTS_DIR = Path(os.environ.get("SAIVERSE_SHOTS", "/tmp/saiverse-shots"))
VIEWPORT = {"width": 1440, "height": 900}
TIMEOUT_MS = 45_000
"""Every wait's default: generous, as CI machines are slow and shared. A wait should name the state it
expects (a form value, a list row, a status line); a longer timeout only helps a wait that already does."""
QUIET_MS = 500
"""How long no Gradio event may be pending before `settle` calls the window idle: a `.then` step
is sent in the same turn of the page's event loop as its predecessor's result, well within this."""

# Counts the window's own Gradio events as the page sees them: a `queue/join` sent is pending until
# its `process_completed` arrives on the `queue/data` stream. Timer ticks (gr.Timer, and the steps
# chained after them) are left out: they come every second or so and never stop, and a test waits for
# what a tick shows by its state. Installed before Gradio's scripts, so its client fetches through it.
EVENTS_JS = r"""
(() => {
  if (window.__svEvents) return;
  const sv = window.__svEvents = {sent: 0, joining: 0, open: new Set(), done: new Set(), changed: 0};
  sv.pending = () => sv.joining + sv.open.size;
  const touch = () => { sv.changed = performance.now(); };
  let ticks = null;
  const isTick = (fn) => {
    const deps = (window.gradio_config || {}).dependencies;
    if (!deps) return false;
    if (ticks === null) {
      ticks = new Set(deps.filter(d => d.targets.length && d.targets.every(t => t[1] === 'tick')).map(d => d.id));
      for (let grew = true; grew;) {
        grew = false;
        for (const d of deps) {
          if (d.trigger_after != null && ticks.has(d.trigger_after) && !ticks.has(d.id)) { ticks.add(d.id); grew = true; }
        }
      }
    }
    return ticks.has(fn);
  };
  const finish = (id) => { sv.done.add(id); if (sv.open.delete(id)) touch(); };
  const readStream = async (body) => {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      let chunk;
      try { chunk = await reader.read(); } catch (e) { return; }
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, {stream: true});
      const lines = buffer.split('\n');
      buffer = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('data:')) continue;
        let msg;
        try { msg = JSON.parse(line.slice(5)); } catch (e) { continue; }
        if (msg.event_id && (msg.msg === 'process_completed' || msg.msg === 'unexpected_error')) finish(msg.event_id);
      }
    }
  };
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : (input && input.url) || String(input);
    if (url.includes('/queue/join')) {
      let fn = null;
      try { fn = JSON.parse(init && init.body).fn_index; } catch (e) {}
      if (isTick(fn)) return original(input, init);
      sv.sent += 1; sv.joining += 1; touch();
      try {
        const response = await original(input, init);
        try {
          const id = (await response.clone().json()).event_id;
          if (id && !sv.done.has(id)) sv.open.add(id);
        } catch (e) {}
        return response;
      } finally { sv.joining -= 1; touch(); }
    }
    const response = await original(input, init);
    if (url.includes('/queue/data') && response.body) {
      const [mine, theirs] = response.body.tee();
      readStream(mine);
      return new Response(theirs, {status: response.status, statusText: response.statusText, headers: response.headers});
    }
    return response;
  };
})();
"""


def require_chromium() -> None:
    """Browser tests need the Debian Chromium; `scripts/test.sh` installs it. Without it a
    developer's run skips them, but CI fails: a browser suite that silently ran nothing is a lie."""
    if not Path(CHROMIUM).exists():
        not_installed(f"no Chromium at {CHROMIUM} (apt-get install chromium, or run scripts/test.sh)")


def not_installed(message: str) -> NoReturn:
    """A program a test needs is missing: a developer's run skips, CI fails (scripts/test.sh installs it)."""
    import pytest

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


MEDIA_ARGS = ["--autoplay-policy=no-user-gesture-required", "--use-fake-ui-for-media-stream",
              "--use-fake-device-for-media-stream"]
"""Sound without a person at the keyboard: audio plays unasked, the microphone is allowed and is Chromium's
fake device (with `--use-file-for-fake-audio-capture=F.wav`, that WAV, looped)."""


@contextmanager
def chromium(*extra_args: str) -> Iterator[Any]:
    """A headless Chromium (the system one) under Playwright's sync API; `extra_args` join CHROMIUM_ARGS."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *extra_args], headless=True)
        try:
            yield browser
        finally:
            browser.close()


def watch_events(context: Any) -> Any:
    """Count the Gradio events of every page in `context` (for `settle`); returns the context."""
    context.add_init_script(EVENTS_JS)
    return context


def new_context(browser: Any) -> Any:
    """A browser context as every browser test uses it: the window's size, Japanese, the default
    timeout, and its pages' Gradio events counted (`settle`)."""
    context = browser.new_context(viewport=VIEWPORT, locale="ja-JP")
    context.set_default_timeout(TIMEOUT_MS)
    return watch_events(context)


def sent(page: Any) -> int:
    """How many Gradio events (timer ticks aside) this page has sent so far: a mark for `settle`."""
    return int(page.evaluate("() => window.__svEvents ? window.__svEvents.sent : 0"))


def settle(page: Any, after: int | None = None, timeout: float = TIMEOUT_MS) -> None:
    """Wait until the page has no Gradio event in flight (and none for QUIET_MS): every result the
    server sent has landed in the page, so the next action cannot be overwritten by a late one.

    With `after` (a `sent(page)` taken before an action), also wait until that action's event was
    sent — a click's event may leave a moment after the click returns.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            """([after, quiet]) => { const sv = window.__svEvents;
                 return !!sv && sv.sent > after && sv.pending() === 0 && performance.now() - sv.changed >= quiet; }""",
            arg=[-1 if after is None else after, QUIET_MS], timeout=timeout,
        )
    except PlaywrightTimeout as exc:  # say which of the two never came: the event, or its answer
        state = page.evaluate("() => { const sv = window.__svEvents; return sv ? {sent: sv.sent,"
                              " joining: sv.joining, open: [...sv.open]} : null; }")
        raise AssertionError(f"the window did not settle (events after {after}): {state}") from exc


def act(page: Any, locator: Any) -> None:
    """Click `locator` (a button, a tab) and wait until the event it sends has been answered and drawn."""
    mark = sent(page)
    locator.click()
    settle(page, mark)


def send_for_reply(page: Any, text: str) -> Any:
    """Type `text` in the chat's box and press Enter; once the message shows in the chat, the offline
    model's reply to it (its last bubble) when that has arrived."""
    box = page.locator("#chat-input textarea")
    box.fill(text)
    box.press("Enter")
    chat = page.locator("#chat")
    chat.get_by_text(text[-8:], exact=False).first.wait_for()
    reply = chat.locator(".message", has_text="オフライン").last
    reply.wait_for()
    return reply


def open_tab(page: Any, name: str) -> None:
    """Select the top-level tab labelled `name` and wait for its refresh to land (tab.select
    re-reads the world: a refresh landing late would reset what the test types next)."""
    act(page, page.locator("#sv-tabs button[role='tab']", has_text=name).first)


def pick(page: Any, elem_id: str, option: str, *, loads: bool = True) -> None:
    """Choose `option` in the dropdown `#elem_id`: wait until it shows the choice and, when the choice
    `loads` something (an event of the app), until that has landed."""
    mark = sent(page)
    page.locator(f"#{elem_id} input").click()
    page.locator("[role='option']", has_text=option).first.click()
    page.wait_for_function(
        """([id, text]) => (document.querySelector(`#${id} input`) || {}).value?.includes(text)""",
        arg=[elem_id, option],
    )
    if loads:
        settle(page, mark)


def textbox(page: Any, elem_id: str) -> Any:
    """The text box (input or textarea) of the Gradio textbox `#elem_id`."""
    return page.locator(f"#{elem_id} textarea, #{elem_id} input").first


def wait_value(page: Any, elem_id: str, value: str, timeout: float = TIMEOUT_MS) -> None:
    """Wait until the text box `#elem_id` holds exactly `value` (what the app loaded into it)."""
    page.wait_for_function(
        """([id, value]) => { const el = document.querySelector(`#${id} textarea, #${id} input`);
             return !!el && el.value === value; }""",
        arg=[elem_id, value], timeout=timeout,
    )


def settled_look(page: Any) -> None:
    """Wait until the window's load events have landed and its fonts are in: what a screenshot or a
    measurement of the page should see."""
    settle(page)
    page.evaluate("() => document.fonts.ready.then(() => true)")


def wait_toast(page: Any, text: str, timeout: float = TIMEOUT_MS) -> Any:
    """Wait for a Gradio toast holding `text` and return it. Toasts stack and dismiss themselves, so
    the locator picks the one with this text among any others; a test should also check what stays
    (a status line, the form, the stored world), as a toast may be gone by the time one looks."""
    toast = page.locator(".toast-body, [data-testid='toast-body']").filter(has_text=text).first
    toast.wait_for(timeout=timeout)
    return toast


@contextmanager
def new_page(browser: Any, url: str) -> Iterator[Any]:
    """A fresh browser context and page on `url`, waiting until the window is rendered and its load
    events have landed."""
    context = new_context(browser)
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_selector("#building-select")
        page.wait_for_selector("#item-list [data-item-id], #item-list .sv-empty")
        settle(page)
        yield page
    finally:
        context.close()


def shot(page: Any, name: str) -> Path:
    """Save a full-window screenshot to SHOTS_DIR/<name>.png and return its path."""
    SHOTS_DIR.mkdir(parents=True, exist_ok=True)
    path = SHOTS_DIR / f"{name}.png"
    page.screenshot(path=str(path))
    return path
