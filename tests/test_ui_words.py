"""Every text a person reads follows SAIVERSE_LANG (issue 35), walked in real Chromium.

The Japanese app is opened in an English browser and the English app in a Japanese one, so nothing
passes by following the browser: every tab (its sub-tabs chosen and its folded sections opened) shows
no text of the other language — Gradio's own words included (its toasts, tooltips and screen-reader
labels). What is allowed: on the Japanese page, proper nouns, formats and commands (`ALLOWED_WORDS`) and
the data's ids (persona, building and playbook ids, model and provider names); on the English page, the
data's own Japanese (persona and building names, descriptions, playbooks' titles, Memopedia's
categories — every string the home's database and playbooks/ hold). Also: the manifest and icons over
HTTP, and the one-field login. Screenshots (desktop 1440×900 and phone 390×844, light and dark, both
languages) in /tmp/saiverse-shots/words/.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.browser import (
    SHOTS_DIR,
    RunningApp,
    act,
    chromium,
    free_port,
    served,
    settle,
    start_app,
    wait_toast,
    watch_events,
)
from ui.i18n import Labels

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]
ROOT = Path(__file__).resolve().parents[1]
SHOTS = SHOTS_DIR / "words"
DESKTOP, PHONE = {"width": 1440, "height": 900}, {"width": 390, "height": 844}
PASSWORD = "correct horse battery"
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]")
ALLOWED_WORDS = frozenset({
    # names of things and products
    "SAIVerse", "SAIMemory", "Chronicle", "Memopedia", "OpenAI", "Anthropic", "Gemini", "Ollama", "LM", "Studio",
    "Hugging", "Face", "Whisper", "llama", "cpp", "server", "gpt", "claude", "gemini", "openai", "anthropic", "python",
    # formats, units, keys on the keyboard
    "JSON", "JSONL", "API", "MCP", "ID", "URL", "CPU", "GB", "MB", "KB", "PC", "UTC", "PNG", "JPEG", "GIF", "WebP",
    "PDF", "GGUF", "zip", "Enter", "HH", "MM", "YYYY", "DD",
    # the modes and model choices as the settings name them (`auto`, `local`, …), written as they are typed
    "auto", "user", "sleep", "local", "offline", "base", "instruct",
})
"""Latin words the Japanese page may show: proper nouns, formats and the values a person types."""
COMMAND = re.compile(r"python main\.py(?: [-\w./:=]+)*")
QUOTED = re.compile(r'"[^"]*"')
TEXTS_JS = r"""
() => {
  const out = [];
  const shown = (el) => el && el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.nodeValue.trim();
    const el = n.parentElement;
    if (!text || !el || ['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(el.tagName) || !shown(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.width && box.height) out.push(text);
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (!shown(el)) continue;
    for (const name of ['title', 'aria-label', 'placeholder']) {
      const value = (el.getAttribute(name) || '').trim();
      if (value) out.push(value);
    }
  }
  return out;
}
"""
"""Every text node a person sees, and the tooltips, screen-reader labels and placeholders of what is shown."""
TABS = ("tab_chat", "tab_personas", "tab_memory", "tab_playbooks", "tab_schedules", "tab_world", "tab_settings")


def data_strings(home: Path) -> set[str]:
    """Every text the world's data holds: each string value of every table of the home's database, and of
    the playbooks (playbooks/*.json); ids and names as well as descriptions."""
    found: set[str] = set()
    with sqlite3.connect(home / "saiverse.db") as db:
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE "
                                   "VIRTUAL%' AND name NOT LIKE '%fts%'"):  # the search index repeats the rows
            for row in db.execute(f'SELECT * FROM "{table}"'):
                found.update(v.strip() for v in row if isinstance(v, str) and v.strip())

    def walk(value: Any) -> None:
        if isinstance(value, str) and value.strip():
            found.add(value.strip())
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in sorted((ROOT / "playbooks").glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return found


def foreign(texts: list[str], lang: str, data: set[str], ids: set[str]) -> list[str]:
    """The texts holding words of the other language, each with the words found."""
    out = []
    for text in dict.fromkeys(texts):
        if lang == "en":
            rest = text
            for piece in sorted((d for d in data if JAPANESE.search(d) and d in rest), key=len, reverse=True):
                rest = rest.replace(piece, " ")
            if JAPANESE.search(rest):
                out.append(f"{text!r} (left: {rest.strip()[:80]!r})")
            continue
        rest = QUOTED.sub(" ", COMMAND.sub(" ", text))  # a command or a quoted value is written as typed
        words = []
        for token in re.findall(r"[A-Za-z0-9_.:<>@/\\+-]+", rest):
            if re.match(r"\.\w", token) or re.search(r"[0-9_<>@/\\]|\w[.:-]\w", token):
                continue  # an id, a path, a file, a model name, a version: written as it is typed
            token = token.strip(".:-+")
            if not re.search(r"[A-Za-z]{2}", token) or token in ids:
                continue
            if token not in ALLOWED_WORDS:
                words.append(token)
        if words:
            out.append(f"{text!r}: {words}")
    return out


@contextmanager
def _context(browser: Any, locale: str, viewport: dict[str, int], scheme: str = "light") -> Iterator[Any]:
    context = browser.new_context(viewport=viewport, locale=locale, color_scheme=scheme)
    context.set_default_timeout(45_000)
    watch_events(context)
    try:
        yield context
    finally:
        context.close()


def _open(context: Any, url: str) -> Any:
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#building-select", state="attached")  # on a phone it waits in the drawer
    page.wait_for_selector("#item-list [data-item-id], #item-list .sv-empty", state="attached")
    settle(page)
    return page


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def walk(page: Any, labels: Labels, shots: str) -> dict[str, list[str]]:
    """Open every tab, each of its sub-tabs and folded sections; the texts seen on each tab."""
    seen: dict[str, list[str]] = {}
    for key in TABS:
        if key != "tab_chat":
            act(page, page.locator("#sv-tabs button[role='tab']", has_text=labels(key)).first)
            page.locator(f"#tab-{key.removeprefix('tab_')} .block:visible").first.wait_for()
            settle(page)
        _shot(page, f"{shots}_{key.removeprefix('tab_')}")
        texts: list[str] = []
        subs = page.locator(".tabitem:visible button[role='tab']")
        for i in range(max(subs.count(), 1)):
            if subs.count():
                subs.nth(i).click()
                settle(page)
            for _ in range(40):  # each folded section opened (opening one may show more)
                folded = page.locator("button.label-wrap:visible:not(.open)")
                if not folded.count():
                    break
                folded.first.click()
            settle(page)
            page.wait_for_timeout(1100)  # ui/page.py rewrites Gradio's tooltips once a second
            texts += page.evaluate(TEXTS_JS)
        seen[key] = texts
    return seen


@pytest.fixture(scope="module")
def chrome() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def ja_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("words-ja") / "home", lang="ja") as app:
        yield app


@pytest.fixture(scope="module")
def en_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("words-en") / "home", lang="en") as app:
        yield app


def _ids(app: RunningApp) -> set[str]:
    """The data's ids the Japanese page shows as they are (written by people or by the data)."""
    from saiverse.llm import installed_models
    from saiverse.llm.registry import provider_status

    ids = {p.persona_id for p in app.manager.personas()} | {b.building_id for b in app.manager.buildings()}
    ids |= {s.provider for s in provider_status(app.manager.settings)}
    ids |= {m.name for m in installed_models(app.manager.settings)}
    return ids | {d for d in data_strings(app.home) if re.fullmatch(r"[a-z][a-z0-9_]*", d)}


@pytest.mark.parametrize("lang, browser_locale", [("ja", "en-US"), ("en", "ja-JP")])
def test_every_tab_speaks_the_apps_language_not_the_browsers(lang: str, browser_locale: str, request: Any,
                                                              chrome: Any) -> None:
    app: RunningApp = request.getfixturevalue(f"{lang}_app")
    labels = Labels(lang)
    scheme = "light" if lang == "ja" else "dark"
    with _context(chrome, browser_locale, DESKTOP, scheme) as context:
        page = _open(context, app.url)
        assert page.evaluate("document.documentElement.lang") == lang
        seen = walk(page, labels, f"{lang}_desktop_{scheme}")
    data, ids = data_strings(app.home), _ids(app)
    found = {tab: foreign(texts, lang, data, ids) for tab, texts in seen.items()}
    assert all(len(texts) > 20 for texts in seen.values()), {t: len(x) for t, x in seen.items()}  # the walk saw
    assert not any(found.values()), json.dumps({t: f for t, f in found.items() if f}, ensure_ascii=False, indent=1)
    # The same window on a phone, in the other colour scheme.
    other = "dark" if scheme == "light" else "light"
    with _context(chrome, browser_locale, PHONE, other) as context:
        page = _open(context, app.url)
        _shot(page, f"{lang}_phone_{other}_chat")
        page.wait_for_timeout(1100)  # ui/page.py rewrites Gradio's tooltips once a second
        assert not foreign(page.evaluate(TEXTS_JS), lang, data, ids)


def test_gradio_toasts_and_tooltips_speak_japanese_in_an_english_browser(ja_app: RunningApp, chrome: Any) -> None:
    """A toast's title, the chat's copy button, and the lost connection: Gradio's words, in Japanese."""
    with _context(chrome, "en-US", DESKTOP) as context:
        page = _open(context, ja_app.url)
        box = page.locator("#chat-input textarea")
        box.fill("星の話をしよう")
        box.press("Enter")
        page.locator("#chat .message", has_text="オフライン").last.wait_for()
        page.wait_for_function("() => !document.querySelector('#chat-live')?.innerText.trim()")
        settle(page)
        line = page.locator("#chat [data-testid='user']").filter(has_text="星の話をしよう").last
        line.hover()
        copy = page.locator("#chat button[title='メッセージをコピー'], #chat button[aria-label='メッセージをコピー']")
        copy.first.wait_for(state="attached")
        assert page.locator("#chat button[title='Copy message'], #chat button[aria-label='Copy message']").count() == 0
        line.click()
        act(page, page.locator("#sv-line-delete"))
        toast = wait_toast(page, "削除しました")
        page.wait_for_function("() => document.querySelector('.toast-title')?.innerText.includes('お知らせ')")
        assert "Info" not in toast.inner_text()
        _shot(page, "ja_desktop_light_toast")
    # Gradio's own lost-connection toast, from a window whose server goes away.
    gone, closed = start_app(ja_app.home.parent / "gone", lang="ja"), False
    try:
        with _context(chrome, "en-US", DESKTOP) as context:
            page = _open(context, gone.url)
            gone.close()
            closed = True
            lost = wait_toast(page, "サーバーとの接続が切れました")
            page.wait_for_function("() => document.querySelector('.toast-title')?.innerText.includes('エラー')")
            assert "Connection" not in lost.inner_text() and "Error" not in lost.inner_text()
            _shot(page, "ja_desktop_light_connection_lost")
    finally:
        if not closed:
            gone.close()


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_manifest_and_icons_name_saiverse(lang: str, request: Any) -> None:
    from PIL import Image

    app: RunningApp = request.getfixturevalue(f"{lang}_app")
    with httpx.Client(base_url=app.url, timeout=30) as client:
        r = client.get("/manifest.json")
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/manifest+json")
        manifest = r.json()
        assert manifest["name"] == manifest["short_name"] == "SAIVerse" and manifest["lang"] == lang
        assert manifest["theme_color"].startswith("#") and manifest["background_color"].startswith("#")
        assert manifest["display"] == "standalone" and manifest["start_url"]
        sizes = {}
        for icon in manifest["icons"]:
            got = client.get(icon["src"])
            assert got.status_code == 200 and got.headers["content-type"] == "image/png", icon
            image = Image.open(BytesIO(got.content))
            assert image.format == "PNG" and f"{image.width}x{image.height}" == icon["sizes"], icon
            sizes.setdefault(icon["purpose"], set()).add(icon["sizes"])
        assert sizes == {"any": {"192x192", "512x512"}, "maskable": {"512x512"}}
        page = client.get("/").text
        assert f'<html lang="{lang}"' in page.replace("\n\t", " ").replace("\n", " ")
        assert '<meta name="theme-color"' in page and '<link rel="apple-touch-icon" href="/saiverse/' in page
        touch = re.search(r'rel="apple-touch-icon" href="([^"]+)"', page).group(1)
        assert Image.open(BytesIO(client.get(touch).content)).size == (180, 180)
        assert client.get("/saiverse/nothing.png").status_code == 404


@contextmanager
def _served_with_login(home: Path, lang: str) -> Iterator[str]:
    """The app on loopback with the login the network needs (as `--host 0.0.0.0` serves it)."""
    from saiverse.care import set_login
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import Settings
    from ui.app import build_app, launch_kwargs

    home.mkdir(parents=True)
    set_login(home, PASSWORD)
    port = free_port()
    settings = Settings(home=home, database_url=f"sqlite:///{home / 'saiverse.db'}", port=port, lang=lang,
                        default_model="offline")
    manager = SAIVerseManager(settings)
    app = build_app(manager)
    try:
        app.launch(**launch_kwargs(settings, port=port, login_required=True), prevent_thread_lock=True)
        yield f"http://127.0.0.1:{port}/"
    finally:
        app.close()
        manager.close()


@pytest.mark.parametrize("lang, browser_locale", [("ja", "en-US"), ("en", "ja-JP")])
def test_the_login_asks_the_password_only_and_keeps_a_refused_one(lang: str, browser_locale: str, chrome: Any,
                                                                   tmp_path: Path) -> None:
    home = tmp_path / "my city"
    labels = Labels(lang)
    with _served_with_login(home, lang) as url:
        for viewport, scheme, name in ((PHONE, "light", "phone_light"), (PHONE, "dark", "phone_dark"),
                                       (DESKTOP, "light", "desktop_light"), (DESKTOP, "dark", "desktop_dark")):
            with _context(chrome, browser_locale, viewport, scheme) as context:
                page = context.new_page()
                page.goto(url)
                fields = page.locator("input:visible")
                assert fields.count() == 1 and fields.first.get_attribute("type") == "password"
                assert page.evaluate("document.documentElement.lang") == lang
                assert page.locator("label[for='login-password']").inner_text() == labels("login_prompt")
                _shot(page, f"{lang}_{name}_login")
        with _context(chrome, browser_locale, PHONE) as context:
            page = context.new_page()
            page.goto(url)
            box = page.locator("#login-password")
            box.fill("not the password")
            page.locator("#login-submit").click()
            line = page.locator("#login-line")
            line.locator("code").wait_for()
            # The exact command for this home, with --home (it is not ~/.saiverse), quoted for its space.
            assert line.locator("code").inner_text() == f"python main.py --home '{home}' password set"
            assert box.input_value() == "not the password"  # what was typed stays
            assert not JAPANESE.search(line.inner_text()) if lang == "en" else JAPANESE.search(line.inner_text())
            _shot(page, f"{lang}_phone_light_login_refused")
            box.fill(PASSWORD)
            box.press("Enter")
            page.wait_for_selector("#building-select", state="attached")  # the app itself, logged in
            assert page.context.cookies()  # the session Gradio's login gave
