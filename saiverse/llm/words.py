"""What the model layer tells a person — which model answers and why, what a provider needs — in the
language of `settings.lang` (SAIVERSE_LANG: `ja`, the default, or `en`).

The page (ui/) and the command line show these lines as they are, so they are worded here once per
language rather than translated afterwards. `say(settings, key, **fields)`; a key missing in English
falls back to Japanese. tests/test_labels.py holds both tables to the same keys and placeholders.
"""

from __future__ import annotations

from typing import Any

WORDS: dict[str, dict[str, str]] = {
    "ja": {
        "short_local": "ローカルモデル",
        "short_offline": "オフライン",
        "label_local": "組み込みのローカルモデル (llama.cpp)",
        "label_offline": "オフラインモデル",
        "why_no_key": "キーがないため",
        "why_no_key_no_local": "キーがなく、ローカルモデルも使えないため ({problem})",
        "why_has_key": "{env} があるため",
        "why_as_set": "設定どおり",
        "why_unknown_name": "対応していない名前のため",
        "why_no_server": "接続先がないため",
        "why_problem": "{problem}ため",
        "env_unset": "{env} が設定されていない",
        "local_file_missing": "ローカルモデルのファイル {path} がありません",
        "auto_key": "{env} が設定されているため {name} で応答します",
        "auto_local": "API キーがないため、組み込みのローカルモデル (llama.cpp) で応答します",
        "auto_offline": ("API キーがなく、ローカルモデルも使えないため ({problem})、"
                         "オフラインモデル (決定的な応答) で応答します"),
        "auto_server": ("API キーがなく、このコンピューターで動いている {label} ({url}) が見つかったため、"
                        "そのモデル {model} で応答します"),
        "chosen_default": "既定の設定",
        "chosen_from": "{kind} ({where}) の指定",
        "default_offline": "オフラインモデル (決定的な応答、API キー不要) で応答します ({chosen})",
        "default_local": "組み込みのローカルモデル (llama.cpp) で応答します ({chosen})",
        "default_named": "{name} で応答します ({chosen})",
        "pv_local_ok": "llama.cpp がこのコンピューターで応答しました ({at} UTC、キー不要)",
        "pv_local_untried": ("llama.cpp はこのコンピューターでまだ応答していません: 最初の返事で確かめます "
                             "(キー不要、別のプロセスで動くので失敗してもアプリは止まりません)"),
        "pv_key_set": "{env} が設定されています",
        "pv_key_needed": "{env} を設定すると使えます",
        "pv_compatible": "{url} (openai:<モデル名>)",
        "pv_compatible_needed": "SAIVERSE_OPENAI_BASE_URL を設定すると openai:<モデル名> で使えます",
        "pv_no_models": "モデルがありません",
        "pv_offline": "決定的な応答 (テスト用・最後の手段)、常に使えます",
        "purpose_lightweight": "（軽量モデル）",
        "purpose_vision": "（画像認識）",
        "purpose_image": "（画像生成）",
        "notice_unknown": "モデル「{name}」{what}には対応していないため、{label}で応答します（書けるのは {forms}）。",
        "notice_instead": "{problem}ため、「{name}」{what}の代わりに{label}で応答します。",
        "name_forms": ("auto / offline / local / local:<GGUF のパスか名前> / gpt-… / o3… / claude-… / gemini-… / "
                       "openai:<モデル名> (OpenAI 互換サーバー) / ollama:<モデル名> / lmstudio:<モデル名> / "
                       "llamacpp:<モデル名>"),
        "startup": "モデル: {model} — {why}",
        "embed_needs": "{name} には {what} が必要です",
        "embed_no_server": "{name} のサーバーがこのコンピューターに見つかりません",
        "embed_unknown": "{name} は埋め込みモデルの名前として読めません",
        "embed_not_set": ("埋め込みモデルが設定されていません: SAIVERSE_EMBEDDING_MODEL に local:<名前> "
                          "(例: `python main.py model pull multilingual-e5-small` で入れたもの)、"
                          "gemini-embedding-001 か text-embedding-3-small を設定してください"),
        "embed_cannot_use": "SAIVERSE_EMBEDDING_MODEL={name} は使えません: {why}",
        "embed_cannot_use_log": "SAIVERSE_EMBEDDING_MODEL={name} は使えません (理由はログにあります)",
    },
    "en": {
        "short_local": "local model",
        "short_offline": "offline",
        "label_local": "the built-in local model (llama.cpp)",
        "label_offline": "the offline model",
        "why_no_key": "no API key",
        "why_no_key_no_local": "no API key, and the local model cannot run ({problem})",
        "why_has_key": "{env} is set",
        "why_as_set": "as configured",
        "why_unknown_name": "a model name SAIVerse does not know",
        "why_no_server": "no server to connect to",
        "why_problem": "{problem}",
        "env_unset": "{env} is not set",
        "local_file_missing": "the local model file {path} is missing",
        "auto_key": "{env} is set, so {name} answers",
        "auto_local": "No API key, so the built-in local model (llama.cpp) answers",
        "auto_offline": "No API key and the local model cannot run ({problem}), so the offline model "
                        "(deterministic replies) answers",
        "auto_server": "No API key, and {label} ({url}) runs on this computer, so its model {model} answers",
        "chosen_default": "the default setting",
        "chosen_from": "set by {kind} ({where})",
        "default_offline": "The offline model (deterministic replies, no API key) answers ({chosen})",
        "default_local": "The built-in local model (llama.cpp) answers ({chosen})",
        "default_named": "{name} answers ({chosen})",
        "pv_local_ok": "llama.cpp answered on this computer ({at} UTC, no key needed)",
        "pv_local_untried": ("llama.cpp has not answered on this computer yet: the first reply will tell (no key "
                             "needed; it runs in its own process, so a failure never stops the app)"),
        "pv_key_set": "{env} is set",
        "pv_key_needed": "usable once {env} is set",
        "pv_compatible": "{url} (openai:<model>)",
        "pv_compatible_needed": "usable as openai:<model> once SAIVERSE_OPENAI_BASE_URL is set",
        "pv_no_models": "no models",
        "pv_offline": "deterministic replies (for tests, the last resort), always available",
        "purpose_lightweight": " (lightweight model)",
        "purpose_vision": " (image recognition)",
        "purpose_image": " (image generation)",
        "notice_unknown": "SAIVerse does not know the model {name!r}{what}, so {label} answers (names: {forms}).",
        "notice_instead": "{problem}, so {label} answers instead of {name!r}{what}.",
        "name_forms": ("auto / offline / local / local:<GGUF path or name> / gpt-… / o3… / claude-… / gemini-… / "
                       "openai:<model> (an OpenAI-compatible server) / ollama:<model> / lmstudio:<model> / "
                       "llamacpp:<model>"),
        "startup": "model: {model} — {why}",
        "embed_needs": "{name} needs {what}",
        "embed_no_server": "no server for {name} was found on this computer",
        "embed_unknown": "{name} is not a name of an embedding model",
        "embed_not_set": ("no embedding model is set: set SAIVERSE_EMBEDDING_MODEL to local:<name> (e.g. one "
                          "pulled with `python main.py model pull multilingual-e5-small`), gemini-embedding-001 "
                          "or text-embedding-3-small"),
        "embed_cannot_use": "SAIVERSE_EMBEDDING_MODEL={name} cannot be used: {why}",
        "embed_cannot_use_log": "SAIVERSE_EMBEDDING_MODEL={name} cannot be used (the log says why)",
    },
}


def say_in(lang: str, key: str, **fields: Any) -> str:
    """The line `key` in `lang` (Japanese for any other language, or a key English lacks)."""
    text = WORDS.get(lang, WORDS["ja"]).get(key) or WORDS["ja"][key]
    return text.format(**fields) if fields else text


def say(settings: Any, key: str, **fields: Any) -> str:
    """The line `key` in the language of `settings` (its `lang`)."""
    return say_in(getattr(settings, "lang", "ja"), key, **fields)
