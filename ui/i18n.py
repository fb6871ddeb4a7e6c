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
    "plan": "制作の計画",
    "plan_done": "完了",
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
    "plan": "Production plan",
    "plan_done": "done",
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

# ---- chat controls and the tabs beside チャット --------------------------------------------------
JA.update({
    "meta_playbook": "応答の仕方",
    "sub_playbook": "実行するプレイブック",
    "sub_auto": "自動 (ルーターが選ぶ)",
    "cancelled": "⏹ 停止しました",
    "load_earlier": "↑ さらに前の会話を読み込む",
    "refresh": "🔄 更新",
    "tab_chat": "💬 チャット",
    "tab_personas": "👤 ペルソナ",
    "tab_memory": "🧠 メモリ",
    "tab_playbooks": "📜 プレイブック",
    "tab_schedules": "⏰ スケジュール",
    "tab_world": "🏙 ワールド",
    "tab_settings": "⚙ 設定",
    "col_id": "ID", "col_name": "名前", "col_mode": "モード", "col_building": "建物", "col_models": "モデル",
    "col_time": "日時", "col_role": "役割", "col_tags": "タグ", "col_content": "内容",
    "col_display": "表示名", "col_description": "説明", "col_flags": "フラグ", "col_when": "いつ",
    "col_next": "次回", "col_last": "前回", "col_playbook": "プレイブック", "col_capacity": "定員",
    "col_interval": "自律間隔", "col_present": "ここにいる",
    "persona_pick": "編集するペルソナ",
    "new_persona": "＋ 新しいペルソナ",
    "f_name": "名前",
    "f_avatar": "アバター (絵文字)",
    "f_description": "説明",
    "f_system_prompt": "システムプロンプト",
    "f_mode": "対話モード",
    "mode_user": "ユーザーに応答 (user)",
    "mode_auto": "自律 (auto)",
    "mode_sleep": "休止 (sleep)",
    "f_building": "いる建物",
    "models_hint": "モデル (空欄なら全体の既定値)",
    "persona_saved": "「{name}」を保存しました。",
    "save_button": "💾 保存",
    "mem_persona": "ペルソナ",
    "mem_tag": "タグで絞り込む",
    "tag_all": "(すべて)",
    "mem_query": "検索語",
    "mem_search": "🔍 検索",
    "mem_more": "さらに古いものを表示",
    "mem_export": "⬇ JSONL で書き出す",
    "mem_count": "{n} 件を表示",
    "mem_empty": "メッセージはありません。",
    "mem_exported": "{n} 件を書き出しました。",
    "pb_upload": "プレイブック JSON",
    "pb_validate": "✔ 検証",
    "pb_import": "⬆ インポート",
    "pb_valid": "「{name}」は正しいプレイブックです。インポートできます。",
    "pb_imported": "「{name}」をインポートしました。",
    "pb_invalid": "検証エラー: {error}",
    "pb_no_file": "JSON ファイルを選んでください。",
    "pb_graph": "グラフ",
    "pb_pick": "グラフを表示するプレイブック",
    "flag_router": "ルーター可",
    "flag_user": "ユーザー選択可",
    "flag_builtin": "組み込み",
    "flag_imported": "インポート",
    "sc_persona": "ペルソナ",
    "sc_kind": "種類",
    "kind_periodic": "定期 (曜日・時刻)",
    "kind_oneshot": "一回 (日時)",
    "kind_interval": "一定間隔",
    "sc_days": "曜日 (mon,wed,fri / daily)",
    "sc_time": "時刻 (HH:MM)",
    "sc_run_at": "日時 (YYYY-MM-DD HH:MM)",
    "sc_interval": "間隔 (秒, 60 以上)",
    "sc_meta": "メタプレイブック",
    "sc_args": "引数 (JSON オブジェクト)",
    "sc_add": "＋ 追加",
    "sc_added": "追加しました (次回: {next})。",
    "sc_pick": "削除するスケジュール",
    "sc_delete": "🗑 削除",
    "sc_deleted": "削除しました。",
    "sc_empty": "スケジュールはありません。",
    "sc_bad_args": "引数は JSON オブジェクトで書いてください: {error}",
    "wb_pick": "編集する建物",
    "new_building": "＋ 新しい建物",
    "wb_capacity": "定員",
    "wb_instruction": "システム指示",
    "wb_interval": "自律行動の間隔 (AUTO_INTERVAL_SEC, 60 以上)",
    "wb_saved": "「{name}」を保存しました。",
    "autonomous": "自律モード (auto のペルソナが自分から行動します)",
    "autonomous_on": "自律モードをオンにしました。",
    "autonomous_off": "自律モードをオフにしました。",
    "st_models": "モデル",
    "st_default_model": "既定のモデル (auto / local / offline / gpt-… / claude-… / gemini-… / openai:<model>)",
    "st_light": "軽量モデル (要約・ルーター)",
    "st_light_vision": "軽量ビジョンモデル (画像の要約)",
    "st_vision": "ビジョンモデル",
    "st_openai_url": "OpenAI 互換サーバーの URL (Ollama, LM Studio, llama.cpp)",
    "st_keys": "API キー",
    "st_gemini_key": "Gemini API キー",
    "st_key_current": "現在のキー: {masked}",
    "st_key_none": "キーは設定されていません。",
    "st_key_placeholder": "新しいキーを入力 (空欄なら変更しません)",
    "st_clear_key": "保存されたキーを削除する",
    "st_save": "💾 設定を保存",
    "st_saved": "設定を保存しました。実行中のアプリにも反映しました。",
    "st_env_note": "キーはデータフォルダの settings.json (権限 600) に保存されます。起動オプション・環境変数・.env "
                   "で決まっている項目は、そちらが優先されます (python main.py config で確認できます)。",
    "st_overridden": "ここで保存しても変わらない項目: {fields}",
})

EN.update({
    "meta_playbook": "Reply mode",
    "sub_playbook": "Playbook to run",
    "sub_auto": "Auto (the router chooses)",
    "cancelled": "⏹ Stopped",
    "load_earlier": "↑ Load earlier messages",
    "refresh": "🔄 Refresh",
    "tab_chat": "💬 Chat",
    "tab_personas": "👤 Personas",
    "tab_memory": "🧠 Memory",
    "tab_playbooks": "📜 Playbooks",
    "tab_schedules": "⏰ Schedules",
    "tab_world": "🏙 World",
    "tab_settings": "⚙ Settings",
    "col_id": "ID", "col_name": "Name", "col_mode": "Mode", "col_building": "Building", "col_models": "Models",
    "col_time": "Time", "col_role": "Role", "col_tags": "Tags", "col_content": "Content",
    "col_display": "Display name", "col_description": "Description", "col_flags": "Flags", "col_when": "When",
    "col_next": "Next", "col_last": "Last", "col_playbook": "Playbook", "col_capacity": "Capacity",
    "col_interval": "Auto interval", "col_present": "Present",
    "persona_pick": "Persona to edit",
    "new_persona": "+ New persona",
    "f_name": "Name",
    "f_avatar": "Avatar (emoji)",
    "f_description": "Description",
    "f_system_prompt": "System prompt",
    "f_mode": "Interaction mode",
    "mode_user": "Answers the user (user)",
    "mode_auto": "Autonomous (auto)",
    "mode_sleep": "Asleep (sleep)",
    "f_building": "Building",
    "models_hint": "Models (empty = the global default)",
    "persona_saved": "Saved “{name}”.",
    "save_button": "💾 Save",
    "mem_persona": "Persona",
    "mem_tag": "Filter by tag",
    "tag_all": "(all)",
    "mem_query": "Search terms",
    "mem_search": "🔍 Search",
    "mem_more": "Show older",
    "mem_export": "⬇ Export as JSONL",
    "mem_count": "Showing {n}",
    "mem_empty": "No messages.",
    "mem_exported": "Exported {n} messages.",
    "pb_upload": "Playbook JSON",
    "pb_validate": "✔ Validate",
    "pb_import": "⬆ Import",
    "pb_valid": "“{name}” is a valid playbook and can be imported.",
    "pb_imported": "Imported “{name}”.",
    "pb_invalid": "Invalid: {error}",
    "pb_no_file": "Choose a JSON file.",
    "pb_graph": "Graph",
    "pb_pick": "Playbook to draw",
    "flag_router": "router",
    "flag_user": "user-selectable",
    "flag_builtin": "builtin",
    "flag_imported": "imported",
    "sc_persona": "Persona",
    "sc_kind": "Kind",
    "kind_periodic": "Periodic (days and time)",
    "kind_oneshot": "Once (date and time)",
    "kind_interval": "Interval",
    "sc_days": "Days (mon,wed,fri / daily)",
    "sc_time": "Time (HH:MM)",
    "sc_run_at": "Date and time (YYYY-MM-DD HH:MM)",
    "sc_interval": "Interval (seconds, at least 60)",
    "sc_meta": "Meta playbook",
    "sc_args": "Arguments (JSON object)",
    "sc_add": "+ Add",
    "sc_added": "Added (next run: {next}).",
    "sc_pick": "Schedule to delete",
    "sc_delete": "🗑 Delete",
    "sc_deleted": "Deleted.",
    "sc_empty": "No schedules.",
    "sc_bad_args": "Arguments must be a JSON object: {error}",
    "wb_pick": "Building to edit",
    "new_building": "+ New building",
    "wb_capacity": "Capacity",
    "wb_instruction": "System instruction",
    "wb_interval": "Autonomous interval (AUTO_INTERVAL_SEC, at least 60)",
    "wb_saved": "Saved “{name}”.",
    "autonomous": "Autonomous mode (auto personas act on their own)",
    "autonomous_on": "Autonomous mode is on.",
    "autonomous_off": "Autonomous mode is off.",
    "st_models": "Models",
    "st_default_model": "Default model (auto / local / offline / gpt-… / claude-… / gemini-… / openai:<model>)",
    "st_light": "Lightweight model (summaries, router)",
    "st_light_vision": "Lightweight vision model (picture summaries)",
    "st_vision": "Vision model",
    "st_openai_url": "OpenAI-compatible server URL (Ollama, LM Studio, llama.cpp)",
    "st_keys": "API keys",
    "st_gemini_key": "Gemini API key",
    "st_key_current": "Current key: {masked}",
    "st_key_none": "No key is set.",
    "st_key_placeholder": "Enter a new key (empty = keep the current one)",
    "st_clear_key": "Delete the saved key",
    "st_save": "💾 Save settings",
    "st_saved": "Settings saved and applied to the running app.",
    "st_env_note": "Keys are stored in settings.json in the data folder (mode 600). A value set by a flag, an "
                   "environment variable or .env wins over it (see python main.py config).",
    "st_overridden": "Saving here does not change: {fields}",
})

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


# The memory tab's Chronicle and Memopedia panels (ui/tabs/memory_chronicle.py, ui/tabs/memopedia.py).
JA.update({
    "mem_sub_messages": "💬 メッセージ",
    "mem_sub_chronicle": "📚 Chronicle (あらすじ)",
    "mem_sub_memopedia": "📖 Memopedia",
    "mem_exported_all": "メッセージ {message} 件、あらすじ {chronicle} 件、ページ {memopedia} 件を書き出しました。",
    "chr_level": "レベル",
    "chr_all_levels": "すべて",
    "chr_until": "この日まで (YYYY-MM-DD)",
    "chr_show": "表示",
    "chr_build": "🧩 今すぐまとめる",
    "chr_built": "あらすじを {n} 件書きました (まとめたメッセージ {m} 件)。",
    "chr_nothing": "いまはまとめるものがありません。",
    "chr_empty": "あらすじはまだありません。",
    "chr_levels": "レベル別: {levels}",
    "chr_detail": "詳しく見る",
    "col_level": "レベル",
    "col_period": "期間",
    "col_count": "件数",
    "col_summary": "あらすじ",
    "col_state": "状態",
    "chr_consolidated": "まとめ済み",
    "mp_tree": "ページの木",
    "mp_page": "ページ",
    "mp_title": "題名",
    "mp_category": "カテゴリ (新しいページ)",
    "mp_parent": "親ページ",
    "mp_summary": "要約",
    "mp_keywords": "キーワード (読点かカンマ区切り)",
    "mp_content": "本文",
    "mp_important": "重要 (いつも思い出す)",
    "mp_save": "💾 保存",
    "mp_new": "＋ 新しいページ",
    "mp_saved": "「{title}」を保存しました。",
    "mp_history": "編集の履歴",
    "mp_no_history": "履歴はありません。",
    "mp_empty": "ページはまだありません。",
})

EN.update({
    "mem_sub_messages": "💬 Messages",
    "mem_sub_chronicle": "📚 Chronicle",
    "mem_sub_memopedia": "📖 Memopedia",
    "mem_exported_all": "Exported {message} messages, {chronicle} Chronicle entries and {memopedia} pages.",
    "chr_level": "Level",
    "chr_all_levels": "All",
    "chr_until": "Until (YYYY-MM-DD)",
    "chr_show": "Show",
    "chr_build": "🧩 Summarise now",
    "chr_built": "Wrote {n} entries ({m} messages summarised).",
    "chr_nothing": "Nothing to summarise right now.",
    "chr_empty": "No Chronicle entries yet.",
    "chr_levels": "By level: {levels}",
    "chr_detail": "Details",
    "col_level": "Level",
    "col_period": "Period",
    "col_count": "Messages",
    "col_summary": "Summary",
    "col_state": "State",
    "chr_consolidated": "consolidated",
    "mp_tree": "Page tree",
    "mp_page": "Page",
    "mp_title": "Title",
    "mp_category": "Category (new page)",
    "mp_parent": "Parent page",
    "mp_summary": "Summary",
    "mp_keywords": "Keywords (comma-separated)",
    "mp_content": "Content",
    "mp_important": "Important (always remembered)",
    "mp_save": "💾 Save",
    "mp_new": "+ New page",
    "mp_saved": "Saved “{title}”.",
    "mp_history": "Edit history",
    "mp_no_history": "No history.",
    "mp_empty": "No pages yet.",
})


# The settings tab's model providers (ui/tabs/settings.py).
JA.update({
    "st_providers": "モデルの提供元",
    "st_answering": "いまの既定の応答: {model} — {why}",
    "st_openai_key": "OpenAI API キー (gpt-… / o…)",
    "st_anthropic_key": "Anthropic API キー (claude-…)",
})
EN.update({
    "st_providers": "Model providers",
    "st_answering": "Answering by default: {model} — {why}",
    "st_openai_key": "OpenAI API key (gpt-… / o…)",
    "st_anthropic_key": "Anthropic API key (claude-…)",
})

# Backups and deleting (ui/tabs/backups.py, the personas and world tabs).
from ui.i18n_care import CARE_EN, CARE_JA  # noqa: E402

JA.update(CARE_JA)
EN.update(CARE_EN)

# The login for other devices (ui/tabs/login.py).
from ui.i18n_login import LOGIN_EN, LOGIN_JA  # noqa: E402

JA.update(LOGIN_JA)
EN.update(LOGIN_EN)

# Upstream v0.3 tracks and notes (ui/tabs/memory_tracks.py).
from ui.i18n_tracks import TRACKS_EN, TRACKS_JA  # noqa: E402

JA.update(TRACKS_JA)
EN.update(TRACKS_EN)

# Getting a model (ui/tabs/models.py, the 設定 tab).
from ui.i18n_models import MODELS_EN, MODELS_JA  # noqa: E402

JA.update(MODELS_JA)
EN.update(MODELS_EN)

# Phone layout, one building per window, chat basics (ui/fit.py, ui/session.py).
from ui.i18n_fit import FIT_EN, FIT_JA  # noqa: E402

JA.update(FIT_JA)
EN.update(FIT_EN)

# The per-persona model line, the 自律 switch, attachment refusals (ui/model_lines.py, ui/autonomy.py).
from ui.i18n_hands import HANDS_EN, HANDS_JA  # noqa: E402

JA.update(HANDS_JA)
EN.update(HANDS_EN)

# The chat's per-line actions: delete (ui/chat_actions.py).
from ui.i18n_chat import CHAT_EN, CHAT_JA  # noqa: E402

JA.update(CHAT_JA)
EN.update(CHAT_EN)
