"""The line under the chat that says which model each persona really answers with, and why.

One entry per persona (`エア: gemini-2.5-flash — キーがないため ローカルモデル`), from
`SAIVerseManager.persona_models()` (saiverse/llm/answering.py); a persona whose model fell back
for want of a key gets a link that opens the 設定 tab, where the key goes.
"""

from __future__ import annotations

from html import escape
from typing import Any

from saiverse.port import CityPort
from ui.i18n import Labels

SETTINGS_LINK_JS = """
// js_on_load of the model notice: a click on the settings link opens the 設定 tab.
element.addEventListener('click', (ev) => {
  const link = ev.target.closest('.sv-settings-link');
  if (!link || !element.contains(link)) return;
  ev.preventDefault();
  const tab = document.querySelector('#tab-settings-button')
    || [...document.querySelectorAll('button[role="tab"]')].find((b) => b.id && b.id.startsWith('tab-settings'));
  if (tab) tab.click();
});
"""
"""Opens the settings tab from a link in the notice (a delegated listener: the HTML re-renders)."""


def persona_model_title(entry: dict[str, Any] | None) -> str:
    """A persona chip's tooltip and badge text: the persona's model line ('' when unknown)."""
    return str(entry.get("line", "")) if entry else ""


def model_badge(entry: dict[str, Any] | None, labels: Labels) -> str:
    """A small badge under a persona chip's name: the model that answers (⚠ when it fell back)."""
    if not entry:
        return ""
    shown = {"local": labels("model_local_short"), "offline": labels("model_offline_short")}.get(
        entry["answers"], entry["answers"])
    mark = "⚠ " if entry.get("fallback") else ""
    cls = "sv-model-badge sv-model-fallback" if entry.get("fallback") else "sv-model-badge"
    return f'<span class="{cls}">{escape(mark + shown)}</span>'


def models_notice_html(manager: CityPort, labels: Labels, general: str | None) -> str:
    """The notice under the chat: the general line (why the default model answers) and each persona's."""
    try:
        entries = [a.to_dict() for a in manager.persona_models()]
    except Exception as exc:  # noqa: BLE001 - a broken model config must not stop the window
        entries, general = [], str(exc)
    if not general and not any(e["fallback"] or e["own"] for e in entries):
        return ""
    parts = [f'<div class="sv-notice-general">ℹ️ {escape(general)}</div>'] if general else []
    lines = [f'<span class="sv-model-line{" sv-model-fallback" if e["fallback"] else ""}" '
             f'data-persona-id="{escape(e["persona_id"])}">{escape(e["line"])}</span>' for e in entries]
    if lines:
        parts.append(f'<div class="sv-model-lines">{" · ".join(lines)}</div>')
    if any(e["fallback"] and e.get("needs") for e in entries):
        parts.append(f'<a href="#" class="sv-settings-link">{escape(labels("model_settings_link"))}</a>')
    return f'<div class="sv-notice" id="sv-model-notice">{"".join(parts)}</div>'


def any_fallback(manager: CityPort) -> bool:
    """Whether some persona answers with another model than its own (the notice says so)."""
    try:
        return any(a.fallback for a in manager.persona_models())
    except Exception:  # noqa: BLE001 - same as models_notice_html
        return False
