"""Labels of the chat's per-line actions (ui/chat_actions.py); merged into ui/i18n.py's tables."""

from __future__ import annotations

CHAT_JA: dict[str, str] = {
    "line_chosen": "選んだ行 ({time}): 「{text}」",
    "line_from_both": "会話の履歴と{names}の記憶から消します。",
    "line_from_history": "会話の履歴から消します (誰の記憶にもありません)。",
    "line_delete": "🗑 削除する",
    "line_cancel": "やめる",
    "line_regenerate": "↻ 再生成",
    "chat_search": "🔍 この建物の会話を検索",
    "chat_search_placeholder": "言葉を入れて Enter (スペースで区切るとすべてを含む行)",
    "chat_search_none": "「{q}」を含む行はありません。",
    "chat_search_count": "{n} 行 (新しい順)",
    "line_edit_last_only": "編集できるのは、あなたの最後のメッセージだけです。",
    "line_edited": "メッセージを直して、返事を作り直しました (前の返事は消しました)。",
    "line_swipe": "返事 {n}/{of} (‹ › で選べます。選んだ返事が記憶に残ります)",
    "line_regenerated": "返事を作り直しました ({n}/{of})。前の返事は ‹ で選べます。",
    "line_deleted_both": "削除しました (会話の履歴と{names}の記憶から)。",
    "line_deleted_history": "削除しました (会話の履歴から)。",
    "line_not_found": "この行は選べません (お知らせの行か、もう消された行です)。",
    "line_busy": "応答の途中です。終わるのを待つか ■ 停止 を押してから削除してください。",
}

CHAT_EN: dict[str, str] = {
    "line_chosen": "Chosen line ({time}): “{text}”",
    "line_from_both": "Deletes it from the chat history and from {names}'s memory.",
    "line_from_history": "Deletes it from the chat history (nobody remembers it).",
    "line_delete": "🗑 Delete",
    "line_cancel": "Cancel",
    "line_regenerate": "↻ Regenerate",
    "chat_search": "🔍 Search this building's chat",
    "chat_search_placeholder": "Words, then Enter (lines containing all of them)",
    "chat_search_none": "No line contains “{q}”.",
    "chat_search_count": "{n} lines (newest first)",
    "line_edit_last_only": "Only your last message can be edited.",
    "line_edited": "Message changed and answered again (the earlier reply was deleted).",
    "line_swipe": "Answer {n}/{of} (‹ › to choose; the chosen one is remembered)",
    "line_regenerated": "Answered again ({n}/{of}). The earlier answer is one ‹ away.",
    "line_deleted_both": "Deleted (from the chat history and {names}'s memory).",
    "line_deleted_history": "Deleted (from the chat history).",
    "line_not_found": "This line cannot be chosen (a notice, or a line already deleted).",
    "line_busy": "A reply is still streaming. Wait for it or press ■ Stop, then delete.",
}
