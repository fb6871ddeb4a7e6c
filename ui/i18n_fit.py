"""Labels of the phone layout, the per-window building and the chat basics (ui/fit.py,
ui/session.py, ui/chat_actions.py); merged into ui/i18n.py's tables."""

from __future__ import annotations

FIT_JA: dict[str, str] = {
    "loading": "読み込み中…",
    "menu_buildings": "建物",
    "menu_panel": "この建物",
    "menu_more": "その他 (プレイブック・自律・モデル・検索)",
    "move_while_busy": "この建物で応答の途中です。終わるのを待つか ■ 停止 を押してから移動してください。",
    "send_not_shown": "画面が建物を切り替えている途中でした。送信していません — もう一度送ってください。",
}

FIT_EN: dict[str, str] = {
    "loading": "Loading…",
    "menu_buildings": "Buildings",
    "menu_panel": "This building",
    "menu_more": "More (playbook, autonomy, models, search)",
    "move_while_busy": "A reply is still streaming here. Wait for it or press ■ Stop, then move.",
    "send_not_shown": "The window was still switching buildings. Nothing was sent — please send again.",
}
