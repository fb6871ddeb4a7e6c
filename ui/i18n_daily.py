"""Labels of what upstream's users reach for every day: continuing a reply that stopped, items in the
room's modal, bags, and the cost panel; merged into ui/i18n.py's tables."""

from __future__ import annotations

DAILY_JA: dict[str, str] = {
    "reply_cut_stopped": "⏹ 停止しました (行を押すと「続きを生成」できます)",
    "reply_cut_length": "✂ 長さの上限で切れました (行を押すと「続きを生成」できます)",
    "line_continue": "▶ 続きを生成",
    "line_continued": "続きを書きました。",
    "line_continued_cut": "続きを書きましたが、また途中で止まりました。もう一度「続きを生成」できます。",
    "item_short_hint": "このアイテムの短い ID (部屋の中の番号)。ペルソナへの頼みごとでも使えます。",
    "item_edit": "✎ 名前と説明を編集 / 削除",
    "item_name": "名前",
    "item_description": "説明 ({n} 文字まで)",
    "item_edit_save": "💾 名前と説明を保存",
    "item_edited": "「{name}」を保存しました。",
    "item_delete": "🗑 削除",
    "item_delete_confirm": "「{name}」({short}) を削除します。削除の直前に自動バックアップを取るので、アイテムとその"
                           "ファイルはバックアップに残ります。",
    "item_delete_bag": " 中に入っている {n} 個は、袋のあった場所に出します。",
    "item_deleted": "「{name}」を削除しました。バックアップ {backup} に残っています。",
}

DAILY_EN: dict[str, str] = {
    "reply_cut_stopped": "⏹ Stopped (click the line to continue it)",
    "reply_cut_length": "✂ Cut at the length limit (click the line to continue it)",
    "line_continue": "▶ Continue",
    "line_continued": "The reply was continued.",
    "line_continued_cut": "The reply was continued but stopped again; you can continue it once more.",
    "item_short_hint": "This item's short id (its number in the room); you can use it when asking a persona.",
    "item_edit": "✎ Edit name and description / delete",
    "item_name": "Name",
    "item_description": "Description (up to {n} characters)",
    "item_edit_save": "💾 Save name and description",
    "item_edited": "Saved “{name}”.",
    "item_delete": "🗑 Delete",
    "item_delete_confirm": "“{name}” ({short}) will be deleted. A backup is taken just before, so the item and its "
                           "file are kept in the backup.",
    "item_delete_bag": " The {n} items inside are put where the bag was.",
    "item_deleted": "Deleted “{name}”. It is kept in the backup {backup}.",
}
