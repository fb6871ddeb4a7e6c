"""Labels of issue 21's smaller pieces: the per-persona model line, the autonomy switch, attachment
refusals (ui/i18n.py merges them)."""

from __future__ import annotations

HANDS_JA: dict[str, str] = {
    "model_local_short": "ローカルモデル",
    "model_offline_short": "オフライン",
    "model_settings_link": "⚙ 設定タブで API キーを入れる",
    "autonomy_switch": "自律",
    "autonomy_on": "自律を ON にしました。自律モードのペルソナ ({names}) が {minutes} 分ごとに自分から動きます。",
    "autonomy_on_nobody": "自律を ON にしました。いまは自律モードのペルソナがいません (ペルソナ タブで "
                          "「自律」にすると動き出します)。",
    "autonomy_off": "自律を OFF にしました。ペルソナは話しかけられたときだけ応えます。",
    "attach_bad_type": "「{name}」は添付できません。添付できるのは画像 (PNG・JPEG・GIF・WebP) です。"
                       "メッセージは入力欄に残しました。",
    "attach_too_big": "「{name}」は大きすぎます ({size}、上限 {limit})。メッセージは入力欄に残しました。",
    "st_follows_persona": "(空欄: 各ペルソナの通常のモデルが担当します。Gemini キーを入れると Gemini の既定モデル)",
    "step_took": "{clock} 開始・{seconds} 秒",
    "step_running": "{clock} から作業中…",
    "attach_missing": "添付ファイルを読めませんでした。もう一度添付してください。メッセージは入力欄に残しました。",
}

HANDS_EN: dict[str, str] = {
    "model_local_short": "local model",
    "model_offline_short": "offline",
    "model_settings_link": "⚙ Add an API key in the Settings tab",
    "autonomy_switch": "Autonomy",
    "autonomy_on": "Autonomy is ON. Autonomous personas ({names}) act on their own every {minutes} min.",
    "autonomy_on_nobody": "Autonomy is ON. No persona is in autonomous mode yet (set one to 自律 in the "
                          "Personas tab).",
    "autonomy_off": "Autonomy is OFF. Personas only answer when spoken to.",
    "attach_bad_type": "“{name}” cannot be attached: images (PNG, JPEG, GIF, WebP) only. "
                       "Your message is still in the box.",
    "attach_too_big": "“{name}” is too large ({size}; the limit is {limit}). Your message is still in the box.",
    "st_follows_persona": "(empty: each persona's own model does this; with a Gemini key, Gemini's default)",
    "step_took": "started {clock}, {seconds} s",
    "step_running": "at work since {clock}…",
    "attach_missing": "The attachment could not be read; attach it again. Your message is still in the box.",
}
