"""What the model layer tells a person: which model answers and why, what a provider needs, what an
embedding model lacks (saiverse/llm/registry.py, answering.py, servers.py, embeddings.py)."""

from __future__ import annotations

JA: dict[str, str] = {
    "offline_note": "（オフラインモデルで応答しています）",
    # What the offline model says of its own accord (saiverse/llm/offline/); its speech is _speech(_en).py's.
    "offline_image_unread": "添付の画像は読み込めませんでした。",
    "offline_image_seen": "画像は{width}×{height}で、{colours}が目立つ{light}絵です。",
    "offline_image_described": "{width}×{height}ピクセルの{shape}の画像。主な色は{colours}。全体に{light}画像です。",
    "offline_not_an_image": "画像として読み込めません: {why}",
    "offline_reason": "オフラインモデルがキーワード照合で判断しました。",
    "offline_untitled": "無題",
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
    # The local model (saiverse/llm/local).
    "local_no_runtime": "llama-cpp-python がインストールされていません (pip install -r requirements.txt)",
    "local_file_missing": "ローカルモデルのファイル {path} がありません",
    "local_no_package": "同梱モデルのパッケージ ({package}) がインストールされていません",
    "local_assemble_failed": "同梱モデルを {path} に組み立てられませんでした: {detail}",
    "local_corrupt": ("ローカルモデル {name} が壊れています (sha256 が取得時と違います)。"
                      "python main.py model pull {spec} でもう一度取得してください"),
    "local_outside": ("「{spec}」はデータフォルダの外にあります。ペルソナのモデル欄には {models} の中の GGUF だけを"
                      "書けます（外のファイルは SAIVERSE_LOCAL_MODEL で指定してください）"),
    "local_broken": "読み込み中に 2 回続けて異常終了したため使えません ({reason})",
    "local_unusable": "ローカルモデルを使えません: {why}",
    "local_load_failed": "ローカルモデルを読み込めませんでした: {why}",
    "local_rebuild": ("llama.cpp がこの CPU に合わない作りかもしれません: "
                      "pip install --force-reinstall --no-cache-dir -r requirements.txt で作り直せます。"),
    "local_broke_loading": ("ローカルモデル「{name}」は読み込み中に 2 回続けて異常終了しました ({reason})。"
                            "このモデルは使えない状態にし、次の返事からは別のモデルが答えます。{hint}設定タブで確かめてください。"),
    "local_hung": "応答が止まりました ({detail})",
    "local_crashed": "処理が異常終了しました ({detail})",
    "local_died": ("ローカルモデル「{name}」の{what}。この返事はここで止まりました。もう一度話しかけてください"
                   "（モデルは自動で起動し直します）。続くときは、設定タブで別のモデルを選ぶか入手してください。"),
    "local_failed": "ローカルモデル「{name}」が答えられませんでした: {detail}",
    "local_suggest_pull": ("内蔵の小さなモデルではうまく話せないことがあります。"
                           "設定タブの「モデルを入手」で日本語の得意なモデル（例: qwen2.5-1.5b-instruct, 約 1 GB）"
                           "を入れると、会話がずっと自然になります。"),
    # How the inference process ended (saiverse/llm/local/_child.py).
    "death_hung": "応答が止まりました",
    "death_code": "終了コード {code}",
    "death_signal": "シグナルで停止",
    "death_silent": "{seconds} 秒のあいだ応答がなく止めました",
    "sig_SIGSEGV": "メモリ保護違反",
    "sig_SIGILL": "この CPU にない命令",
    "sig_SIGBUS": "バスエラー",
    "sig_SIGABRT": "異常終了 (abort)",
    "sig_SIGKILL": "強制終了 — メモリ不足で OS に止められた可能性があります",
    "sig_SIGFPE": "演算エラー",
    "sig_SIGTERM": "終了させられました",
    "win_access": "アクセス違反 (access violation)",
    "win_illegal": "この CPU にない命令 (illegal instruction)",
    "win_stack": "スタック溢れ (stack overflow)",
    "win_overrun": "異常終了 (stack buffer overrun)",
}

EN: dict[str, str] = {
    "offline_note": " (the offline model answers)",
    "offline_image_unread": "I couldn't open the attached picture.",
    "offline_image_seen": "The picture is {width}×{height}, {light}, mostly {colours}.",
    "offline_image_described": ("A {shape} image of {width}×{height} pixels. Its main colours are {colours}. "
                                "It is {light} overall."),
    "offline_not_an_image": "cannot be read as an image: {why}",
    "offline_reason": "The offline model decided by matching keywords.",
    "offline_untitled": "Untitled",
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
    "local_no_runtime": "llama-cpp-python is not installed (pip install -r requirements.txt)",
    "local_file_missing": "the local model file {path} is missing",
    "local_no_package": "the packaged model's package ({package}) is not installed",
    "local_assemble_failed": "could not assemble the packaged model at {path}: {detail}",
    "local_corrupt": ("the local model {name} is broken (its sha256 differs from when it was pulled); "
                      "pull it again with python main.py model pull {spec}"),
    "local_outside": ("{spec!r} is outside the data folder; a persona's model field takes only GGUFs in {models} "
                      "(name a file elsewhere with SAIVERSE_LOCAL_MODEL)"),
    "local_broken": "unusable: it crashed twice in a row while loading ({reason})",
    "local_unusable": "The local model cannot be used: {why}",
    "local_load_failed": "Could not load the local model: {why}",
    "local_rebuild": ("llama.cpp may be built for another CPU: rebuild it with "
                      "pip install --force-reinstall --no-cache-dir -r requirements.txt. "),
    "local_broke_loading": ("The local model {name!r} crashed twice in a row while loading ({reason}). It is "
                            "marked unusable and another model answers from the next reply. {hint}Check the "
                            "settings tab."),
    "local_hung": "stopped responding ({detail})",
    "local_crashed": "crashed ({detail})",
    "local_died": ("The local model {name!r} {what}; this reply stops here. Say something again (the model "
                   "restarts by itself). If it keeps happening, choose or get another model in the settings tab."),
    "local_failed": "The local model {name!r} could not answer: {detail}",
    "local_suggest_pull": ("The small built-in model may not talk well. Get a model good at Japanese with "
                           "\"Get a model\" in the settings tab (e.g. qwen2.5-1.5b-instruct, about 1 GB) and "
                           "conversations become much more natural."),
    "death_hung": "stopped responding",
    "death_code": "exit code {code}",
    "death_signal": "stopped by a signal",
    "death_silent": "stopped after {seconds} seconds without a response",
    "sig_SIGSEGV": "memory protection fault",
    "sig_SIGILL": "an instruction this CPU lacks",
    "sig_SIGBUS": "bus error",
    "sig_SIGABRT": "aborted",
    "sig_SIGKILL": "killed — perhaps by the OS for lack of memory",
    "sig_SIGFPE": "arithmetic error",
    "sig_SIGTERM": "terminated",
    "win_access": "access violation",
    "win_illegal": "illegal instruction (an instruction this CPU lacks)",
    "win_stack": "stack overflow",
    "win_overrun": "stack buffer overrun",
}
