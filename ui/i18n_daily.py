"""Labels of what upstream's users reach for every day: continuing a reply that stopped, items in the
room's modal, bags, and the cost panel; merged into ui/i18n.py's tables."""

from __future__ import annotations

DAILY_JA: dict[str, str] = {
    "reply_cut_stopped": "⏹ 停止しました (行を押すと「続きを生成」できます)",
    "reply_cut_length": "✂ 長さの上限で切れました (行を押すと「続きを生成」できます)",
    "line_continue": "▶ 続きを生成",
    "line_continued": "続きを書きました。",
    "line_continued_cut": "続きを書きましたが、また途中で止まりました。もう一度「続きを生成」できます。",
}

DAILY_EN: dict[str, str] = {
    "reply_cut_stopped": "⏹ Stopped (click the line to continue it)",
    "reply_cut_length": "✂ Cut at the length limit (click the line to continue it)",
    "line_continue": "▶ Continue",
    "line_continued": "The reply was continued.",
    "line_continued_cut": "The reply was continued but stopped again; you can continue it once more.",
}
