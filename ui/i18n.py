"""UI label tables: Japanese first, English when `settings.lang == "en"` (SAIVERSE_LANG=en).

Every user-visible string of the Gradio UI lives here so the two languages stay in step; a key
missing from the English table falls back to Japanese rather than showing a raw key.
"""

from __future__ import annotations

JA: dict[str, str] = {
    "app_title": "SAIVerse",
    "app_subtitle": "サイバース市",
    "buildings": "建物",
    "present": "ここにいる",
    "nobody": "誰もいません",
    "personas": "ペルソナ",
    "items": "アイテム",
    "no_items": "アイテムはありません",
    "chat": "チャット",
    "input_placeholder": "メッセージを入力… (Enter で送信 / 📎 で画像を添付)",
    "you": "あなた",
    "stop": "■ 停止",
    "stopped": "{n} 件の応答を停止しました。",
    "nothing_to_stop": "停止する応答はありません。",
    "close": "閉じる",
    "save": "保存",
    "summary": "要約",
    "no_summary": "(要約はまだありません)",
    "not_viewable": "このアイテムは閲覧不可です。手に取って使うことはできますが、中身を見ることはできません。",
    "saved": "保存しました。要約を更新しました。",
    "save_failed": "保存できませんでした: {error}",
    "error": "⚠️ エラー: {message}",
    "error_from": "⚠️ {name} のエラー: {message}",
    "notice": "ℹ️ {text}",
    "moved": "「{name}」に移動しました。",
    "thinking": "…",
    "no_reply": "(応答はありませんでした)",
    "type_object": "オブジェクト",
    "type_picture": "絵",
    "type_document": "文書",
    "item_hint": "クリックして開く",
    "chat_placeholder": "まだ会話はありません。話しかけてみましょう。",
    "empty_message": "メッセージが空です。",
    "read_failed": "添付ファイルを読み込めませんでした: {name}",
}

EN: dict[str, str] = {
    "app_title": "SAIVerse",
    "app_subtitle": "SAIVerse City",
    "buildings": "Buildings",
    "present": "Here",
    "nobody": "Nobody here",
    "personas": "Personas",
    "items": "Items",
    "no_items": "No items here",
    "chat": "Chat",
    "input_placeholder": "Type a message… (Enter to send / 📎 to attach an image)",
    "you": "You",
    "stop": "■ Stop",
    "stopped": "Stopped {n} reply(s).",
    "nothing_to_stop": "Nothing to stop.",
    "close": "Close",
    "save": "Save",
    "summary": "Summary",
    "no_summary": "(no summary yet)",
    "not_viewable": "This item cannot be viewed (閲覧不可). It can be used, but it has no contents to show.",
    "saved": "Saved. The summary was regenerated.",
    "save_failed": "Could not save: {error}",
    "error": "⚠️ Error: {message}",
    "error_from": "⚠️ Error from {name}: {message}",
    "notice": "ℹ️ {text}",
    "moved": "Moved to “{name}”.",
    "thinking": "…",
    "no_reply": "(no reply)",
    "type_object": "object",
    "type_picture": "picture",
    "type_document": "document",
    "item_hint": "Click to open",
    "chat_placeholder": "No conversation yet. Say hello.",
    "empty_message": "The message is empty.",
    "read_failed": "Could not read the attachment: {name}",
}

TABLES = {"ja": JA, "en": EN}


class Labels:
    """Label lookup for one language: `labels("saved")`, `labels("error", message=...)`."""

    def __init__(self, lang: str = "ja") -> None:
        self.lang = lang if lang in TABLES else "ja"
        self._table = TABLES[self.lang]

    def __call__(self, key: str, **kwargs: object) -> str:
        text = self._table.get(key) or JA[key]
        return text.format(**kwargs) if kwargs else text


ITEM_ICONS = {"object": "📦", "picture": "🖼", "document": "📄"}
"""Icon shown before an item's name, by item type."""


def item_icon(item_type: str) -> str:
    """The icon of an item type (📦 for anything unknown)."""
    return ITEM_ICONS.get(item_type, "📦")
