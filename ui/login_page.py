"""The login page a device on the network sees first (ui/web_guard.py serves it for `/` before the login).

One field: the password (a one-person app has no user to choose; saiverse/care/_login.py `Gate` checks the
password only). It posts to Gradio's own `/login` route, which sets the session cookie, then loads the app.
A refused password stays in the box, selected, and the line under it says what to do — with the exact
command for this home (ui/guard.py `password_command`) when the password is forgotten. The page is in the app's
language and carries the manifest, icons and theme colour of ui/page.py; it holds no Gradio config.
"""

from __future__ import annotations

import json
from html import escape

from ui.i18n import Labels
from ui.page import head_html


def login_page(labels: Labels, command: str) -> bytes:
    """The whole login page as UTF-8 HTML."""
    refused = labels("login_refused", command=command)
    texts = json.dumps({"refused": refused, "busy": labels("login_busy"), "empty": labels("login_empty")},
                       ensure_ascii=False).replace("</", "<\\/")
    return f"""<!doctype html>
<html lang="{labels.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SAIVerse — {escape(labels("login_title"))}</title>
<link rel="manifest" href="/manifest.json">
{head_html(labels)}
<style>
:root {{ color-scheme: light dark; --bg: #f8fafc; --fg: #0f172a; --card: #ffffff; --line: #cbd5e1;
  --muted: #475569; --accent: #4f46e5; --on-accent: #ffffff; --bad: #b91c1c; }}
@media (prefers-color-scheme: dark) {{ :root {{ --bg: #0b0f19; --fg: #f1f5f9; --card: #111827;
  --line: #334155; --muted: #94a3b8; --accent: #818cf8; --on-accent: #0b0f19; --bad: #fca5a5; }} }}
body {{ margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center;
  background: var(--bg); color: var(--fg);
  font-family: "Noto Sans CJK JP", "Hiragino Sans", "Yu Gothic UI", system-ui, sans-serif; }}
form {{ background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 28px 24px;
  width: min(360px, calc(100vw - 32px)); box-sizing: border-box; display: flex; flex-direction: column; gap: 14px; }}
h1 {{ margin: 0; font-size: 1.4rem; display: flex; align-items: center; gap: 10px; }}
h1 img {{ width: 36px; height: 36px; }}
label {{ font-size: .95rem; color: var(--muted); }}
input, button {{ font-family: inherit; }}
input {{ font-size: 1.1rem; padding: 10px 12px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--bg); color: var(--fg); min-height: 44px; box-sizing: border-box; width: 100%; }}
button {{ font-size: 1.05rem; min-height: 44px; border: 0; border-radius: 8px; background: var(--accent);
  color: var(--on-accent); cursor: pointer; }}
button:disabled {{ opacity: .6; }}
#login-line {{ min-height: 1.2em; margin: 0; font-size: .92rem; line-height: 1.5; color: var(--bad);
  overflow-wrap: anywhere; }}
#login-line code {{ user-select: all; }}
</style>
</head>
<body>
<form id="login-form" method="post" action="/login" autocomplete="on">
  <h1><img src="/saiverse/icon-192.png" alt="">SAIVerse</h1>
  <label for="login-password">{escape(labels("login_prompt"))}</label>
  <input type="hidden" name="username" value="saiverse" autocomplete="username">
  <input id="login-password" name="password" type="password" autocomplete="current-password" required autofocus>
  <button id="login-submit" type="submit">{escape(labels("login_submit"))}</button>
  <p id="login-line" role="alert" aria-live="polite"></p>
</form>
<script>
(() => {{
  const texts = {texts};
  const form = document.getElementById("login-form");
  const box = document.getElementById("login-password");
  const line = document.getElementById("login-line");
  const button = document.getElementById("login-submit");
  const say = (text) => {{
    const [before, command, after] = text.split("`");
    line.textContent = before;
    if (command !== undefined) {{
      const code = document.createElement("code");
      code.textContent = command;
      line.append(code, after || "");
    }}
  }};
  form.addEventListener("submit", async (ev) => {{
    ev.preventDefault();
    if (!box.value) {{ say(texts.empty); box.focus(); return; }}
    button.disabled = true;
    say("");
    try {{
      const r = await fetch("/login", {{method: "POST", body: new FormData(form), credentials: "same-origin"}});
      if (r.ok) {{ location.replace("/"); return; }}
      say(texts.refused);
    }} catch (e) {{
      say(texts.busy);
    }}
    button.disabled = false;
    box.focus();
    box.select();  // what was typed stays; one keystroke replaces it
  }});
}})();
</script>
</body>
</html>
""".encode()
