"""UI labels: one catalogue per language, Japanese first, English when `settings.lang == "en"` (SAIVERSE_LANG=en).

The catalogues are data: `ui/labels/ja.json` and `ui/labels/en.json`. Each is one JSON object of sections
named after the part of the window that shows them (`"window"`, `"tabs"`, `"login"`, `"sight"`, …), each
section an object of `key → text`; `{name}` marks a value filled in by `Labels(...)("key", name=...)`.
A key is unique across sections, and both files hold the same keys (tests/test_labels.py checks both,
and that every `labels("key")` written in ui/ exists). A key missing from the English table falls back
to Japanese rather than showing a raw key.

**Adding labels.** Put the key in the same section of both files (a new part of the window: a new
section in both). A part that still keeps its labels in a module of the old shape (`ui/i18n_<part>.py`
holding `<PART>_JA` and `<PART>_EN`) is imported here by name and listed in `OLD_STYLE_PARTS`; its
keys then join the catalogues (tests/test_labels.py fails for a `ui/i18n_*.py` not listed).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

LABELS_DIR = Path(__file__).with_name("labels")
"""Where the catalogues live: `<lang>.json`."""
LANGS = ("ja", "en")
"""The languages SAIVERSE_LANG may name; the first is the default and the fallback."""
OLD_STYLE_PARTS: tuple[tuple[str, ModuleType], ...] = ()
"""(part name, module) of the label modules still in the old shape, merged after the catalogues."""


def read_catalogue(lang: str) -> dict[str, dict[str, str]]:
    """The sections of `ui/labels/<lang>.json` as they are written (section → key → text)."""
    return json.loads((LABELS_DIR / f"{lang}.json").read_text(encoding="utf-8"))


def _flat(lang: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for section in read_catalogue(lang).values():
        table.update(section)
    for part, module in OLD_STYLE_PARTS:
        table.update(getattr(module, f"{part.upper()}_{lang.upper()}"))
    return table


JA: dict[str, str] = _flat("ja")
EN: dict[str, str] = _flat("en")
TABLES = {"ja": JA, "en": EN}


class Labels:
    """Label lookup for one language: `labels("saved")`, `labels("error", message=...)`."""

    def __init__(self, lang: str = "ja") -> None:
        self.lang = lang if lang in TABLES else "ja"
        self._table = TABLES[self.lang]

    def __call__(self, key: str, **kwargs: object) -> str:
        text = self._table.get(key) or JA[key]
        return text.format(**kwargs) if kwargs else text


ITEM_ICONS = {"object": "📦", "picture": "🖼", "document": "📄", "bag": "👜", "audio": "🎵"}
"""Icon shown before an item's name, by item type (each has its `type_<type>` label)."""


def item_icon(item_type: str) -> str:
    """The icon of an item type (📦 for anything unknown)."""
    return ITEM_ICONS.get(item_type, "📦")
