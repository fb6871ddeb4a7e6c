"""Labels of the 設定 tab's 「モデルを入手」 section (ui/tabs/models.py; ui/i18n.py merges them)."""

from __future__ import annotations

MODELS_JA: dict[str, str] = {
    "md_title": "モデルを入手",
    "md_note": "API キーがなくても、日本語の得意な小さなモデルを入れれば、このコンピューターの中で自然に会話できます。"
               "ダウンロードは途中で止まっても続きから再開し、配布元が公開する sha256 で確かめてから使います。",
    "md_col_name": "名前", "md_col_size": "大きさ", "md_col_params": "パラメータ", "md_col_good": "得意なこと",
    "md_col_state": "状態", "md_col_profile": "種類", "md_col_ctx": "文脈長",
    "md_ctx_runs": "{runs} (学習時 {trained})", "md_col_users": "使っているペルソナ",
    "md_have": "入手済み", "md_default": "★ 既定",
    "md_pick": "おすすめから選ぶ", "md_other": "ほかのモデル (Hugging Face の owner/repo/file.gguf)",
    "md_set_default": "入手したら既定にする", "md_get": "⬇ 入手",
    "md_progress": "{done} / {total} ・ {speed}/s ・ 残り {eta}",
    "md_verifying": "sha256 を確かめています…",
    "md_done": "入手しました。local:{name} として使えます。",
    "md_failed": "{name} を入手できませんでした: {error}",
    "md_installed": "このコンピューターにあるモデル", "md_none": "まだありません。",
    "md_first_use": "(初回使用時)", "md_use_pick": "既定にするモデル", "md_use": "★ 既定にする",
    "md_pick_first": "モデルを選んでください。",
    "md_now_default": "{name} がペルソナの既定のモデルになりました (ペルソナ自身の指定が優先されます)。",
    "md_servers": "このコンピューターで動いているモデルサーバー",
    "md_no_servers": "Ollama (11434)・LM Studio (1234)・llama.cpp server (8080) は見つかっていません。",
    "md_look": "🔍 もう一度探す",
    "md_chat_get": "⬇ 日本語の得意なモデル {name} ({size}) を入手して使う",
}
MODELS_EN: dict[str, str] = {
    "md_title": "Get a model",
    "md_note": "Without an API key, a small model that writes good Japanese lets you talk naturally on this computer. "
               "A download resumes where it stopped and is checked against the sha256 its publisher lists.",
    "md_col_name": "Name", "md_col_size": "Size", "md_col_params": "Params", "md_col_good": "Good at",
    "md_col_state": "State", "md_col_profile": "Kind", "md_col_ctx": "Context",
    "md_ctx_runs": "{runs} (trained {trained})", "md_col_users": "Used by",
    "md_have": "installed", "md_default": "★ default",
    "md_pick": "Recommended", "md_other": "Another model (Hugging Face owner/repo/file.gguf)",
    "md_set_default": "Make it the default", "md_get": "⬇ Get",
    "md_progress": "{done} / {total} · {speed}/s · {eta} left",
    "md_verifying": "Checking the sha256…",
    "md_done": "Done. Use it as local:{name}.",
    "md_failed": "Could not get {name}: {error}",
    "md_installed": "Models on this computer", "md_none": "None yet.",
    "md_first_use": "(first use)", "md_use_pick": "Model to make the default", "md_use": "★ Make default",
    "md_pick_first": "Pick a model first.",
    "md_now_default": "{name} now answers personas without their own model.",
    "md_servers": "Model servers running on this computer",
    "md_no_servers": "No Ollama (11434), LM Studio (1234) or llama.cpp server (8080) found.",
    "md_look": "🔍 Look again",
    "md_chat_get": "⬇ Get {name} ({size}), a model that writes good Japanese, and use it",
}
