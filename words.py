"""What the backend and the command line tell a person, worded once per language (SAIVERSE_LANG).

Every layer may import this module (it imports nothing first-party: tests/test_layers.py), so an
error raised in database/, tools/ or saiverse/ is worded where it is raised, in the language in force.
That language is the process's: the command line (cli/_app.py) and the manager (saiverse/manager.py)
set it from `settings.lang` with `use`; nothing here reads the environment. Japanese is the default,
and a key English lacks falls back to it. tests/test_labels.py holds both tables to the same keys and
placeholders (Japanese may leave out a detail only Python words, in English). The model layer's
own lines live in saiverse/llm/words.py; the page's labels in ui/labels/.
"""

from __future__ import annotations

from typing import Any

WORDS: dict[str, dict[str, str]] = {
    "ja": {
        # The command line's frame (cli/_app.py, cli/_args.py).
        "cli_error": "エラー: {message}",
        "cli_bug": "エラー ({kind}): {message}\n(トレースバックを見るには {env}=1 を設定してください)",
        "cli_usage": "エラー: {prog}: {message} (`python {prog} --help` を参照)",
        "ap_required": "次の引数が必要です: {args}",
        "ap_unrecognized": "知らない引数です: {args}",
        "ap_choice": "引数 {arg}: {value} は選べません ({choices} から選んでください)",
        "ap_one_value": "引数 {arg}: 値を 1 つ書いてください",
        "ap_invalid": "引数 {arg}: {value} は {kind} として読めません",
        "ap_argument": "引数 {arg}: {rest}",
        "ap_whole": "{low:,} から {high:,} までの整数にしてください ({raw} が渡されました)",
        "ap_range": "{low:,} から {high:,} までにしてください ({raw} が渡されました)",
        "cli_empty_message": "メッセージが空です。何か書いてください (TEXT)",
        "cli_not_json": "{what} は JSON として読めません ({col} 文字目)",  # Python's own {msg} is English
        "cli_json_object": "{what} は JSON のオブジェクトにしてください ({kind} が渡されました)",
        "cli_json_constant": "{what} に {name} があります。これは JSON の数値ではありません",
        "cli_json_deep": "{what} は入れ子が深すぎて読めません",
        "json_list": "配列", "json_str": "文字列", "json_int": "数値", "json_float": "数値", "json_bool": "真偽値",
        "json_NoneType": "null",
        "cli_json_digits": "{what} に桁が多すぎて読めない数値があります",
        "db_locked": ("データベースが他のプログラムにロックされています (SQLite ブラウザーか、"
                      "書き込み中の別のコマンド?)。何も書き込んでいません。そのプログラムを閉じてもう一度試してください"),
        # Unknown ids (saiverse/world, saiverse/care).
        "no_building": "建物 {id!r} は存在しません。",
        "no_persona": "ペルソナ {id!r} は存在しません。",
        "no_item": "アイテム {id!r} は存在しません。",
        "no_move_to": "移動先の建物 {id!r} (--move-to) は存在しません。",
        "no_run": "制作 {id!r} は存在しません (`python main.py production list` で一覧)。",
        "no_run_record": "制作 {id!r} の記録がありません (`python main.py production list` で一覧)。",
        "building_full": "{name} は満員です (定員 {capacity})。",
        "persona_elsewhere": "ペルソナ {persona!r} は {building!r} にいません ({where!r} にいます)",
        # Uploaded images (saiverse/world/_media.py, saiverse/llm/imagefile.py).
        "img_empty": "ファイルが空です (0 bytes)。画像ファイルを選んでください。",
        "img_too_big": "ファイルが大きすぎます ({mb:.1f} MB)。上限は {limit:.0f} MB です。",
        "img_format": "対応していない画像形式です ({fmt})。PNG/JPEG/GIF/WebP に対応しています。",
        "img_format_unknown": "不明",
        "img_pixels": ("画像の画素数が多すぎます ({w}×{h} = {mp:.0f} メガピクセル)。"
                       "上限は {limit:.0f} メガピクセルです。"),
        "img_bomb": "画像の画素数が多すぎます (展開すると巨大になる画像です)。上限は {limit:.0f} メガピクセルです。",
        "img_not_image": "画像ファイルではありません (内容から画像形式を判別できませんでした)。",
        "img_broken": "画像ファイルが壊れています: {detail}",
        "img_unreadable": "添付画像を読み込めません: {name} ({why})",
        "pdf_password": "パスワードで保護された PDF は読めません。",
        "pdf_broken": "PDF ファイルが壊れています: {detail}",
        "pdf_empty": "ファイルが空です (0 bytes)。",
        "pdf_not_pdf": "PDF ファイルではありません (内容が %PDF- で始まっていません)。",
        "img_default_name": "アップロード画像",
        "upload_refused": "{path} はアップロードできません: {why}",
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
    },
    "en": {
        "cli_error": "error: {message}",
        "cli_bug": "error ({kind}): {message}\n(set {env}=1 to see the traceback)",
        "cli_usage": "error: {prog}: {message} (see `python {prog} --help`)",
        "ap_required": "the following arguments are required: {args}",
        "ap_unrecognized": "unrecognized arguments: {args}",
        "ap_choice": "argument {arg}: invalid choice: {value} (choose from {choices})",
        "ap_one_value": "argument {arg}: expected one argument",
        "ap_invalid": "argument {arg}: invalid {kind} value: {value}",
        "ap_argument": "argument {arg}: {rest}",
        "ap_whole": "must be a whole number from {low:,} to {high:,}, got {raw}",
        "ap_range": "must be from {low:,} to {high:,}, got {raw}",
        "cli_empty_message": "the message is empty; say something (TEXT)",
        "cli_not_json": "{what} is not valid JSON ({msg} at column {col})",
        "cli_json_object": "{what} must be a JSON object, not {kind}",
        "cli_json_constant": "{what} holds {name}, which is not a JSON number",
        "cli_json_deep": "{what} is nested too deeply to read",
        "json_list": "an array", "json_str": "a string", "json_int": "a number", "json_float": "a number",
        "json_bool": "a boolean", "json_NoneType": "null",
        "cli_json_digits": "{what} holds a number with too many digits to read",
        "db_locked": ("the database is locked by another program (an SQLite browser, or a command still writing?); "
                      "nothing was written — close that program and try again"),
        "no_building": "There is no building {id!r}.",
        "no_persona": "There is no persona {id!r}.",
        "no_item": "There is no item {id!r}.",
        "no_move_to": "There is no building {id!r} to move to (--move-to).",
        "no_run": "There is no production run {id!r} (`python main.py production list` shows them).",
        "no_run_record": "Production run {id!r} has no record (`python main.py production list` shows them).",
        "building_full": "{name} is full (it holds {capacity}).",
        "persona_elsewhere": "persona {persona!r} is not in {building!r} (it is in {where!r})",
        "img_empty": "The file is empty (0 bytes). Choose an image file.",
        "img_too_big": "The file is too large ({mb:.1f} MB). The limit is {limit:.0f} MB.",
        "img_format": "This image format is not supported ({fmt}). PNG, JPEG, GIF and WebP are.",
        "img_format_unknown": "unknown",
        "img_pixels": "The image has too many pixels ({w}×{h} = {mp:.0f} megapixels). The limit is {limit:.0f}.",
        "img_bomb": "The image has too many pixels (it expands to a huge image). The limit is {limit:.0f} megapixels.",
        "img_not_image": "This is not an image file (its content matches no image format).",
        "img_broken": "The image file is broken: {detail}",
        "img_unreadable": "Cannot read the attached image: {name} ({why})",
        "pdf_password": "A password-protected PDF cannot be read.",
        "pdf_broken": "The PDF file is broken: {detail}",
        "pdf_empty": "The file is empty (0 bytes).",
        "pdf_not_pdf": "This is not a PDF file (its content does not start with %PDF-).",
        "img_default_name": "uploaded image",
        "upload_refused": "upload {path}: {why}",
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
    },
}

_lang = "ja"
"""The language in force for this process (`use`)."""


def use(lang: str) -> None:
    """Word every later message in `lang` (`en`; anything else is Japanese)."""
    global _lang
    _lang = "en" if str(lang).lower().startswith("en") else "ja"


def current() -> str:
    """The language in force: `ja` or `en`."""
    return _lang


def say(key: str, **fields: Any) -> str:
    """The line `key` in the language in force (Japanese for a key English lacks)."""
    text = WORDS[_lang].get(key) or WORDS["ja"][key]
    return text.format(**fields) if fields else text
