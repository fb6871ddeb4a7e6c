"""Labels of caring for a world: backups (設定 tab), deleting personas and buildings (ui/i18n.py merges them)."""

from __future__ import annotations

CARE_JA: dict[str, str] = {
    "delete_yes": "削除する",
    "delete_no": "やめる",
    "delete_failed": "削除できませんでした: {error}",
    "persona_delete": "🗑 このペルソナを削除…",
    "persona_pick_first": "削除するペルソナを選んでください。",
    "persona_delete_confirm": "{name} を削除します。削除の直前に自動バックアップを取るので、{name} の記憶 "
                              "(SAIMemory・Chronicle・Memopedia) はそのバックアップに残ります。持ち物は今いる建物 "
                              "({building}) に置かれ、スケジュールは消えます。{name} の応答が進行中なら先に止めます。",
    "persona_deleted": "「{name}」を削除しました。記憶はバックアップ {backup} に残っています。",
    "wb_delete": "🗑 この建物を削除…",
    "wb_pick_first": "削除する建物を選んでください。",
    "wb_move_to": "アイテムの移動先",
    "wb_no_target": "(移動先なし)",
    "wb_delete_confirm": "{name} を削除します。この建物の会話の履歴も消えます (削除の直前に自動バックアップを取り、"
                         "そこに残ります)。アイテム {n} 個は {target} に移します。",
    "wb_deleted": "「{name}」を削除しました。バックアップ: {backup}",
    "bk_title": "バックアップ",
    "bk_note": "世界のすべて (会話・記憶・アイテム・アバター・設定。API キーは含みません) を 1 つの zip にします。"
               "自動バックアップは毎日 (アプリの起動中) と、データベースの移行や削除の前に取られ、種類ごとに新しい "
               "{keep} 個を残します。保存先: {folder}",
    "bk_create": "💾 バックアップを作成",
    "bk_created": "バックアップを作成しました: {name} ({size})",
    "bk_file": "バックアップファイル",
    "bk_list": "バックアップ一覧",
    "bk_none": "バックアップはまだありません。",
    "col_file": "ファイル",
    "col_kind": "種類",
    "col_size": "大きさ",
    "bk_kind_manual": "手動",
    "bk_kind_daily": "毎日",
    "bk_kind_migration": "移行の前",
    "bk_kind_delete": "削除の前",
    "bk_restore_title": "新しいフォルダに復元",
    "bk_restore_pick": "復元するバックアップ",
    "bk_restore_upload": "またはバックアップファイル (.zip) をアップロード",
    "bk_restore_target": "復元先のフォルダ (空か、まだないフォルダの絶対パス)",
    "bk_restore": "♻ 復元",
    "bk_restored": "{home} に復元しました (スキーマ {schema}、ペルソナ {personas} 人、メッセージ {messages} 件)。"
                   "起動するには: python main.py --home {home}",
    "bk_need_source": "復元するバックアップを選ぶか、ファイルをアップロードしてください。",
    "bk_need_target": "復元先のフォルダを絶対パスで入力してください。",
    "bk_failed": "できませんでした: {error}",
    "bk_progress": "バックアップ中: {what}",
    "bk_progress_restore": "確認・復元中: {what}",
}

CARE_EN: dict[str, str] = {
    "delete_yes": "Delete",
    "delete_no": "Cancel",
    "delete_failed": "Could not delete: {error}",
    "persona_delete": "🗑 Delete this persona…",
    "persona_pick_first": "Pick the persona to delete first.",
    "persona_delete_confirm": "{name} will be deleted. A backup is taken just before, so {name}'s memory (SAIMemory, "
                              "Chronicle, Memopedia) stays in that backup. What {name} carries is left in {building}, "
                              "and {name}'s schedules go. A reply in progress is stopped first.",
    "persona_deleted": "Deleted “{name}”. The memory is kept in the backup {backup}.",
    "wb_delete": "🗑 Delete this building…",
    "wb_pick_first": "Pick the building to delete first.",
    "wb_move_to": "Move its items to",
    "wb_no_target": "(nowhere)",
    "wb_delete_confirm": "{name} will be deleted with its chat history (a backup is taken just before and keeps it). "
                         "Its {n} items move to {target}.",
    "wb_deleted": "Deleted “{name}”. Backup: {backup}",
    "bk_title": "Backups",
    "bk_note": "The whole world (conversations, memory, items, avatars, settings — never API keys) in one zip. "
               "Automatic backups are taken daily while the app runs and before a migration or a delete; the newest "
               "{keep} of each kind are kept. Folder: {folder}",
    "bk_create": "💾 Create a backup",
    "bk_created": "Backup written: {name} ({size})",
    "bk_file": "Backup file",
    "bk_list": "Backups",
    "bk_none": "No backups yet.",
    "col_file": "File",
    "col_kind": "Kind",
    "col_size": "Size",
    "bk_kind_manual": "by hand",
    "bk_kind_daily": "daily",
    "bk_kind_migration": "before a migration",
    "bk_kind_delete": "before a delete",
    "bk_restore_title": "Restore into a new folder",
    "bk_restore_pick": "Backup to restore",
    "bk_restore_upload": "or upload a backup file (.zip)",
    "bk_restore_target": "Folder to restore into (an absolute path; empty or new)",
    "bk_restore": "♻ Restore",
    "bk_restored": "Restored into {home} (schema {schema}, {personas} personas, {messages} messages). "
                   "Start it with: python main.py --home {home}",
    "bk_need_source": "Pick a backup or upload a file to restore.",
    "bk_need_target": "Enter the folder to restore into, as an absolute path.",
    "bk_failed": "Could not do it: {error}",
    "bk_progress": "Backing up: {what}",
    "bk_progress_restore": "Checking and restoring: {what}",
}
