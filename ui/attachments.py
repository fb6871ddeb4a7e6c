"""Attachments refused in Japanese, with the message kept in the box.

Gradio's own refusals are English ("Invalid file type…", "File(s) exceed…") and, for a wrong type,
the message went out without the file. So the chat input accepts any file and this module judges:
in the browser before anything uploads (`guard_js`: too large or not an image/PDF → a Japanese toast,
the file is not added), and again on the server when the message is sent (`refusal`: by size and by
content, whatever the name says) — a refused message is not sent and stays in the box. A chat
attachment becomes a picture in the building, or an audio item for a sound file (a voice message from a
phone's recorder: saiverse/world/_item_audio.py); PDFs go in with `upload`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from saiverse.port import audio_kind, human_size
from ui.i18n import Labels

IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")
"""How the image formats the app keeps begin (WebP is RIFF….WEBP, checked apart)."""
ACCEPTED_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "audio/wav", "audio/x-wav", "audio/wave",
                  "audio/mpeg", "audio/mp3", "audio/webm", "audio/ogg", "audio/flac", "audio/x-flac", "audio/mp4",
                  "audio/x-m4a", "audio/m4a", "audio/aac")
"""MIME types the browser guard lets through (the server checks the content again)."""


def _looks_accepted(head: bytes) -> bool:
    webp = head[:4] == b"RIFF" and head[8:12] == b"WEBP"
    return head.startswith(IMAGE_MAGIC) or webp or audio_kind(head) is not None


def refusal(files: list[Any], max_bytes: int, labels: Labels) -> str | None:
    """Why these attachments (Gradio cache paths) cannot be sent, in the UI's language; None if they can."""
    for f in files:
        path = Path(f if isinstance(f, str) else (f or {}).get("path") or "")
        name = path.name
        try:
            size = path.stat().st_size
            with path.open("rb") as fh:
                head = fh.read(1024)
        except OSError:
            return labels("attach_missing")
        if size > max_bytes:
            return labels("attach_too_big", name=name, size=human_size(size), limit=human_size(max_bytes))
        if not _looks_accepted(head):
            return labels("attach_bad_type", name=name)
    return None


_GUARD = """
() => {
  const LIMIT = %(limit)d, TYPES = %(types)s, TOO_BIG = %(too_big)s, BAD_TYPE = %(bad_type)s;
  const human = (n) => n >= 1048576 ? (n / 1048576).toFixed(1) + ' MB' : n >= 1024 ? (n / 1024).toFixed(1) + ' KB'
    : n + ' B';
  const toast = (text) => {
    let box = document.querySelector('#sv-toast');
    if (!box) {
      box = document.createElement('div');
      box.id = 'sv-toast';
      box.setAttribute('role', 'alert');
      document.body.appendChild(box);
    }
    box.textContent = text;
    box.classList.add('sv-toast-show');
    clearTimeout(box._hide);
    box._hide = setTimeout(() => box.classList.remove('sv-toast-show'), 7000);
  };
  const refused = (files) => {
    for (const f of files || []) {
      if (f.size > LIMIT) return TOO_BIG.replace('{name}', f.name).replace('{size}', human(f.size))
        .replace('{limit}', human(LIMIT));
      if (!TYPES.includes(f.type)) return BAD_TYPE.replace('{name}', f.name);
    }
    return null;
  };
  const inChat = (ev) => ev.target && ev.target.closest && ev.target.closest('#chat-input');
  const stop = (ev, why) => { ev.stopImmediatePropagation(); ev.preventDefault(); toast(why); };
  document.addEventListener('change', (ev) => {
    if (!inChat(ev) || ev.target.type !== 'file') return;
    const why = refused(ev.target.files);
    if (why) { stop(ev, why); ev.target.value = ''; }
  }, true);
  document.addEventListener('drop', (ev) => {
    if (!inChat(ev)) return;
    const why = refused(ev.dataTransfer && ev.dataTransfer.files);
    if (why) stop(ev, why);
  }, true);
  document.addEventListener('paste', (ev) => {
    if (!inChat(ev)) return;
    const why = refused(ev.clipboardData && ev.clipboardData.files);
    if (why) stop(ev, why);
  }, true);
}
"""


def guard_js(max_bytes: int, labels: Labels) -> str:
    """The browser half: refuse a too large or unsupported file before Gradio uploads it."""
    return _GUARD % {
        "limit": max_bytes, "types": json.dumps(list(ACCEPTED_TYPES)),
        "too_big": json.dumps(labels("attach_too_big")), "bad_type": json.dumps(labels("attach_bad_type")),
    }


def with_guard(global_js: str, max_bytes: int, labels: Labels) -> str:
    """The app's start-up JS followed by the attachment guard (both are `() => {…}` functions)."""
    return f"() => {{ ({global_js.strip()})(); ({guard_js(max_bytes, labels).strip()})(); }}"
