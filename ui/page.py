"""The served page as SAIVerse's own, in the language SAIVERSE_LANG names (issue 35).

- **Manifest and icons.** Gradio's `/manifest.json` (its `pwa=True`, gradio/routes.py `manifest_json`)
  names the Blocks' title and Gradio's logo only. `PageDress` answers `/manifest.json` itself: name,
  short_name, lang, theme and background colours, PNG icons 192/512 and a maskable 512 — drawn by
  scripts/make_icons.py into ui/static/ and served under `/saiverse/`.
- **The page's head.** Gradio builds `<head>` from its own template (`<html lang="en">`) and adds the
  `head` given to `launch` only after the app's config has loaded, too late for what a phone reads when
  the page is saved to its home screen. `PageDress` writes into the page as it is served:
  `<html lang=…>`, `<meta name=theme-color>` (light and dark), `<link rel=apple-touch-icon>`, and the
  line that makes the browser's language the app's (next point).
- **Gradio's own words.** Gradio's page translates its words by the browser's language (gr.I18n's
  docstring: "the translation lookup happens on the frontend based on the browser's locale"), so an
  English browser shows 「コピー」 as "Copy message" in a Japanese app. The page is told the app's
  language before Gradio's script reads it (`navigator.language`); words Gradio's Japanese table lacks
  are given through `gr.I18n` (`gradio_i18n`); and the few Gradio writes without a table — a toast's
  title ("Info", "Error"), the lost-connection toast, its components' screen-reader labels and tooltips
  (`GRADIO_ATTRS`) — are rewritten as they appear (`gradio_words_js`). None of this reaches into Gradio's
  Python, but it reads Gradio's page template and its markup: the `page_words` feature of
  ui/_gradio_compat.py, off (Gradio's own page and words) under a Gradio other than the pinned one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ui._gradio_compat import feature
from ui.i18n import Labels

STATIC_DIR = Path(__file__).with_name("static")
ICON_PREFIX = "/saiverse/"
"""Where the files of STATIC_DIR are served (open before the login: the login page shows them too)."""
ICONS = (("icon-192.png", "192x192", "any"), ("icon-512.png", "512x512", "any"),
         ("icon-maskable-512.png", "512x512", "maskable"))
APPLE_ICON = "apple-touch-icon.png"
THEME_COLOR = "#4f46e5"
"""The theme's primary indigo (ui/app.py `app_theme`)."""
DARK_THEME_COLOR = "#1e1b4b"
BACKGROUND_COLOR = "#ffffff"
GRADIO_KEYS = {"chatbot.copy_message": "gr_copy_message", "chatbot.copied_message": "gr_copied_message",
               "chatbot.retry": "gr_retry", "chatbot.undo": "gr_undo", "chatbot.edit": "gr_edit",
               "chatbot.clear": "gr_clear", "common.clear": "gr_clear", "upload_text.drop_file": "gr_drop_file",
               "upload_text.click_to_upload": "gr_click_to_upload", "upload_text.or": "gr_or"}
"""Gradio's translation keys (its frontend's lang/*.json) → our label, for the words it shows here."""


def manifest(labels: Labels) -> dict[str, Any]:
    """The web app manifest in the language of `labels`."""
    return {
        "name": "SAIVerse", "short_name": "SAIVerse", "description": labels("app_description"),
        "lang": labels.lang, "start_url": "./", "scope": "./", "display": "standalone",
        "theme_color": THEME_COLOR, "background_color": BACKGROUND_COLOR,
        "icons": [{"src": f"{ICON_PREFIX}{name}", "sizes": sizes, "type": "image/png", "purpose": purpose}
                  for name, sizes, purpose in ICONS],
    }


def head_html(labels: Labels) -> str:
    """What the page's `<head>` gets: theme colours, the home-screen icon, and the browser told the
    app's language before Gradio's script asks it (module scripts run after this inline one)."""
    lang = json.dumps(labels.lang)
    return (
        f'<meta name="theme-color" content="{THEME_COLOR}" media="(prefers-color-scheme: light)">'
        f'<meta name="theme-color" content="{DARK_THEME_COLOR}" media="(prefers-color-scheme: dark)">'
        f'<link rel="apple-touch-icon" href="{ICON_PREFIX}{APPLE_ICON}">'
        f'<link rel="icon" type="image/png" sizes="192x192" href="{ICON_PREFIX}icon-192.png">'
        '<meta name="apple-mobile-web-app-title" content="SAIVerse">'
        '<meta name="mobile-web-app-capable" content="yes">'
        f"<script>(() => {{ const lang = {lang}; for (const [name, value] of "
        "[['language', lang], ['languages', Object.freeze([lang])]]) { try { "
        "Object.defineProperty(Navigator.prototype, name, {get: () => value, configurable: true}); "
        "} catch (e) {} } })();</script>"
    )


def gradio_i18n(labels: Labels) -> Any:
    """`gr.I18n` for `launch(i18n=…)`: Gradio's words this page shows, in the app's language."""
    import gradio as gr

    return gr.I18n(**{labels.lang: {key: labels(ours) for key, ours in GRADIO_KEYS.items()}})


GRADIO_ATTRS = {"Multimedia input field": "gr_input_field", "Upload a file": "gr_upload_file", "Submit": "gr_submit",
                "Stop": "gr_stop", "chatbot conversation": "gr_conversation", "Close": "gr_close",
                "Click to upload or drop files": "gr_click_or_drop", "Clear": "gr_clear", "Copy": "gr_copy",
                "Copied!": "gr_copied", "Remove": "gr_remove", "Download": "gr_download", "Share": "gr_share",
                "Fullscreen": "gr_fullscreen", "Exit fullscreen mode": "gr_exit_fullscreen",
                "Scroll down": "gr_scroll_down", "Loading...": "gr_loading", "Textbox": "gr_textbox",
                "More tabs": "gr_more_tabs", "Reset to default value": "gr_reset_default"}
"""The `aria-label`/`title` words Gradio writes into its components without a translation key → our label."""

GRADIO_PREFIXED = {"number input for ": "gr_number_for", "range slider for ": "gr_slider_for"}
"""Gradio's words that name a field after them (its slider's inputs) → our label with a `{name}`."""


def gradio_words_js(labels: Labels) -> str:
    """A page-load function: Gradio's untranslated words rewritten in the app's language — a toast's
    title and the lost-connection toast as they appear, and the screen-reader and tooltip words of its
    components (checked once a second: cheap, and nothing watches the streaming chat for them)."""
    words = {"Info": labels("gr_info"), "Warning": labels("gr_warning"), "Error": labels("gr_error"),
             "Success": labels("gr_success"),
             "Connection to the server was lost. Attempting reconnection...": labels("gr_connection_lost")}
    attrs = {english: labels(key) for english, key in GRADIO_ATTRS.items()}
    # A slider's screen-reader words name its field: "number input for 速さ".
    prefixed = [[english, labels(key, name="{name}")] for english, key in GRADIO_PREFIXED.items()]
    if not feature("page_words"):
        return "() => {}"
    return """() => {
  const words = WORDS, attrs = ATTRS, prefixed = PREFIXED;
  const fix = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const said = node.nodeValue.trim();
      if (words[said] !== undefined) node.nodeValue = node.nodeValue.replace(said, words[said]);
    }
  };
  const watch = () => {
    const area = document.querySelector('.toast-wrap');
    if (!area) { setTimeout(watch, 300); return; }
    fix(area);
    new MutationObserver(() => fix(area)).observe(area, {childList: true, subtree: true, characterData: true});
  };
  watch();
  const sweep = () => {
    for (const el of document.querySelectorAll('[aria-label], [title]')) {
      for (const name of ['aria-label', 'title']) {
        const said = el.getAttribute(name);
        if (!said) continue;
        if (attrs[said] !== undefined) { el.setAttribute(name, attrs[said]); continue; }
        for (const [english, ours] of prefixed) {
          if (said.startsWith(english)) {
            el.setAttribute(name, ours.replace('{name}', said.slice(english.length)));
            break;
          }
        }
      }
    }
  };
  sweep();
  setInterval(sweep, 1000);
}""".replace("WORDS", json.dumps(words, ensure_ascii=False)).replace("ATTRS", json.dumps(attrs, ensure_ascii=False)) \
        .replace("PREFIXED", json.dumps(prefixed, ensure_ascii=False))


HTML_TAG = re.compile(rb"<html(\s[^>]*?)?\blang=\"[^\"]*\"")
HEAD_END = b"</head>"


def dress_html(body: bytes, labels: Labels) -> bytes:
    """Gradio's page with our language and head (unchanged where its template no longer matches)."""
    if not feature("page_words"):
        return body
    body = HTML_TAG.sub(lambda m: b"<html" + (m.group(1) or b"") + f'lang="{labels.lang}"'.encode(), body, count=1)
    return body.replace(HEAD_END, head_html(labels).encode() + HEAD_END, 1)


async def _send(send: Any, status: int, body: bytes, content_type: str, cache: str = "no-cache") -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", cache.encode())]})
    await send({"type": "http.response.body", "body": body})


class PageDress:
    """ASGI middleware: `/manifest.json`, the files under ICON_PREFIX, and the page's head (see above)."""

    def __init__(self, app: Any, lang: str = "ja") -> None:
        self.app = app
        self.labels = Labels(lang)
        self.files = {f"{ICON_PREFIX}{p.name}": p.read_bytes() for p in STATIC_DIR.glob("*.png")}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path == "/manifest.json":
            body = json.dumps(manifest(self.labels), ensure_ascii=False).encode()
            await _send(send, 200, body, "application/manifest+json")
        elif path in self.files:
            await _send(send, 200, self.files[path], "image/png", "public, max-age=86400")
        elif path.startswith(ICON_PREFIX):
            await _send(send, 404, b"Not found\n", "text/plain; charset=utf-8")
        elif path == "/" and scope.get("method") == "GET":
            await self.app(scope, receive, _dressed(send, self.labels))
        else:
            await self.app(scope, receive, send)


def _dressed(send: Any, labels: Labels) -> Any:
    """A `send` that buffers an HTML answer and serves it through `dress_html`; anything else passes."""
    start: dict[str, Any] = {}
    parts: list[bytes] = []

    async def wrapped(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            headers = {k.lower(): v for k, v in message.get("headers", [])}
            if not headers.get(b"content-type", b"").startswith(b"text/html"):
                start.clear()
                await send(message)
                return
            start.update(message)
            return
        if message["type"] != "http.response.body" or not start:
            await send(message)
            return
        parts.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = dress_html(b"".join(parts), labels)
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return wrapped
