"""Labels of the 設定 tab's login section (ui/tabs/login.py); ui/i18n.py merges them."""

from __future__ import annotations

LOGIN_JA: dict[str, str] = {
    "lg_title": "スマホから使う (ログイン)",
    "lg_note": "ほかの端末 (スマホ・タブレット) から開くには、パスワードを設定してから "
               "`python main.py --host 0.0.0.0` で起動します。パスワードはデータフォルダの login.json に "
               "ハッシュだけが保存され、バックアップには入りません。信頼できるネットワークでだけ使ってください。",
    "lg_status_set": "パスワードは設定済みです (ユーザー名: {user})。",
    "lg_status_none": "パスワードは未設定です。このままではこのパソコン (127.0.0.1) からしか開けません。",
    "lg_serving_wide": "いまは {host} で待ち受けています。開くアドレス: {urls}",
    "lg_serving_local": "いまはこのパソコンだけ (127.0.0.1) で待ち受けています。",
    "lg_user": "ユーザー名",
    "lg_password": "新しいパスワード (8 文字以上)",
    "lg_again": "もう一度",
    "lg_set": "🔑 パスワードを設定",
    "lg_clear": "パスワードを削除",
    "lg_mismatch": "2 つのパスワードが違います。何も変更していません。",
    "lg_saved": "パスワードを設定しました (ユーザー名: {user})。次回から `python main.py --host 0.0.0.0` で "
                "スマホから開けます。",
    "lg_cleared": "パスワードを削除しました。次回の起動からはこのパソコンからしか開けません。",
    "lg_failed": "設定できませんでした: {error}",
}
LOGIN_EN: dict[str, str] = {
    "lg_title": "From a phone (login)",
    "lg_note": "To open SAIVerse from another device (a phone, a tablet), set a password, then start it with "
               "`python main.py --host 0.0.0.0`. Only a hash of the password is stored, in login.json in the data "
               "folder, never in a backup. Use it only on a network you trust.",
    "lg_status_set": "A password is set (user name: {user}).",
    "lg_status_none": "No password is set: SAIVerse can be opened from this computer (127.0.0.1) only.",
    "lg_serving_wide": "Listening on {host} now. Open: {urls}",
    "lg_serving_local": "Listening on this computer only (127.0.0.1) now.",
    "lg_user": "User name",
    "lg_password": "New password (8 characters or more)",
    "lg_again": "Again",
    "lg_set": "🔑 Set the password",
    "lg_clear": "Remove the password",
    "lg_mismatch": "The two passwords differ; nothing was changed.",
    "lg_saved": "Password set (user name: {user}). Start with `python main.py --host 0.0.0.0` to open it from a phone.",
    "lg_cleared": "Password removed. From the next start SAIVerse can be opened from this computer only.",
    "lg_failed": "Could not set it: {error}",
}
