"""`python main.py --help` in Japanese: each English text of the parser (a command's docstring, an argument's
help, argparse's own headings) and its Japanese, as gettext pairs a message with its translation.
cli/_args.py's formatter asks `words.help_text`; tests/test_words_lang.py walks the whole parser and
finds every text here."""

from __future__ import annotations

JA: dict[str, str] = {
    'usage: ':
        '使い方: ',
    'positional arguments':
        '位置引数',
    'options':
        'オプション',
    'SAIVerse: a city of AI personas.':
        'SAIVerse: AI ペルソナたちの街。',
    'show this help message and exit':
        'このヘルプを表示して終了します',
    'data home (default: $SAIVERSE_HOME or ~/.saiverse)':
        'データのフォルダー (既定: $SAIVERSE_HOME か ~/.saiverse)',
    'interface to bind (default 127.0.0.1)':
        '待ち受けるアドレス (既定 127.0.0.1)',
    'port (default $SAIVERSE_PORT or 7860)':
        'ポート (既定 $SAIVERSE_PORT か 7860)',
    'start the UI (the default)':
        '画面を起動します (既定)',
    'import an upstream SAIVerse data home (its folder or its saiverse.db)':
        '本家 SAIVerse のデータフォルダー (フォルダーか saiverse.db) を取り込みます',
    'bring the database to the current schema':
        'データベースを今の形式にそろえます',
    'run pulses from the queue in PostgreSQL (a city in PostgreSQL only)':
        'PostgreSQL の待ち行列からパルスを実行します (PostgreSQL の街だけ)',
    "copy this home's world between SQLite and PostgreSQL (--to URL, or --to sqlite to come back)":
        'このフォルダーの世界を SQLite と PostgreSQL の間で写します (--to URL、戻すときは --to sqlite)',
    'every setting, its value and where it came from (API keys masked)':
        'すべての設定と、その値と出どころ (API キーは伏せます)',
    'buildings with their items, personas with their building':
        '建物とそのアイテム、ペルソナとその居場所',
    "send one user message; prints the pulse's events as JSON lines":
        'メッセージを 1 つ送り、パルスの出来事を JSON の行で表示します',
    'items of a building':
        '建物のアイテム',
    'put a new bag (an item that holds items) in a building':
        '新しい袋 (アイテムを入れられるアイテム) を建物に置きます',
    'add an image (picture item), a PDF (document item) or audio (audio item) to a building':
        '画像 (絵のアイテム)、PDF (文書のアイテム) か音声 (音声のアイテム) を建物に加えます',
    "a building's history lines, oldest first (speaker, text, time)":
        '建物の会話の行を古い順に (話し手、本文、時刻)',
    "a persona's SAIMemory messages as JSON lines; --pin/--unpin ID pins a message, --pins lists them":
        'ペルソナの SAIMemory のメッセージを JSON の行で。--pin/--unpin ID でピン留め、--pins で一覧',
    'what a persona would be given for a message: every part of the prompt, its tokens and the budget':
        'あるメッセージでペルソナに渡されるもの: プロンプトの各部分、そのトークン数と予算',
    'index messages for recall with the embedding model (SAIVERSE_EMBEDDING_MODEL); --wait until all are done':
        '想起のためにメッセージを埋め込みモデル (SAIVERSE_EMBEDDING_MODEL) で索引付けします。--wait で全部終わるまで待ちます',
    "a persona's Chronicle entries, newest first (--build writes what is due)":
        'ペルソナのクロニクルを新しい順に (--build で書く時期のものを書きます)',
    "a persona's Memopedia pages, or one page with its history":
        'ペルソナのメモペディアのページ一覧、または 1 ページとその履歴',
    "a persona's tracks (upstream v0.3) with their open notes and logs":
        'ペルソナのトラック (本家 v0.3) と、その開いているノートとログ',
    "a persona's notes (upstream v0.3) with their pages and messages":
        'ペルソナのノート (本家 v0.3) と、そのページとメッセージ',
    'run one playbook (name or JSON file) as a persona; JSON-line events':
        'プレイブックを 1 つ (名前か JSON ファイル) ペルソナとして実行します。出来事は JSON の行で',
    'validate a playbook JSON file and store it':
        'プレイブックの JSON ファイルを検査して保存します',
    'validate a playbook JSON file without storing it':
        'プレイブックの JSON ファイルを保存せずに検査します',
    'list playbooks':
        'プレイブックの一覧',
    'run one tool as a persona; prints its result as JSON':
        'ツールを 1 つペルソナとして実行し、結果を JSON で表示します',
    "a persona's MCP servers: their tools, or why one cannot be used":
        'ペルソナの MCP サーバー: そのツール、または使えない理由',
    'production runs: list, resume, show':
        '制作: 一覧 (list)、再開 (resume)、表示 (show)',
    'write the whole world into one .zip (while the app may run)':
        '世界のすべてを 1 つの .zip に書き出します (アプリが動いていてもかまいません)',
    'rebuild a world from a backup archive in an empty home (--home DIR)':
        'バックアップから空のフォルダー (--home DIR) に世界を作り直します',
    'persona administration: create one, delete a persona (a backup keeps its memory), turn its reflex':
        'ペルソナの管理: 作る、消す (記憶はバックアップに残ります)、反射想起の入り切り、声の表示と設定',
    'building administration: create one, place it on the city map (move-on-map), or delete an empty building':
        '建物の管理: 作る、街の地図に置く (move-on-map)、空の建物を消す',
    'say a text in a persona\'s voice into a WAV file: speak --persona P "text" --out F.wav [--keep-in BUILDING]':
        'ペルソナの声で文を読み上げて WAV ファイルに書きます: speak --persona P "文" --out F.wav [--keep-in 建物]',
    'also keep the voice as an audio item in this building':
        'その声をこの建物の音声アイテムとしても残します',
    'write down what a recording says (SAIVERSE_STT_URL or the listener set in 設定)':
        '録音の中身を文字にします (SAIVERSE_STT_URL か 設定 の聞き取り)',
    'local models: pull one from the hub, list what is installed or found':
        'ローカルモデル: ハブから入手する、入っているもの・見つかったものの一覧',
    'set or clear the login needed to open the app from other devices':
        'ほかの機器からアプリを開くためのログインを設定・解除します',
    "https for the page (a phone's microphone needs it): make a self-signed certificate, show or clear it":
        '画面を https で開きます (スマホのマイクに必要): 自己署名の証明書を作る・表示する・外す',
    'make: another host name or address the certificate is for (repeatable)':
        'make: 証明書に加えるホスト名かアドレス (くり返し指定できます)',
    'make: days it is valid (default 825)':
        'make: 有効な日数 (既定 825)',
    "tokens per persona per day and their price; --budget sets a persona's daily budget":
        'ペルソナごと・日ごとのトークン数とその料金。--budget でペルソナの 1 日の予算を設定します',
    'the upstream home (holding user_data/database/saiverse.db) or that saiverse.db':
        '本家のデータフォルダー (user_data/database/saiverse.db があるもの) か、その saiverse.db',
    'add to a home that already holds a world (existing ids are kept, never overwritten)':
        'すでに世界があるフォルダーに加えます (今ある id はそのまま、上書きしません)',
    'print the summary as JSON':
        'まとめを JSON で表示します',
    'path of the SQLite file':
        'SQLite ファイルのパス',
    'print what was done as one JSON object':
        'したことを 1 つの JSON オブジェクトで表示します',
    'pulses this worker runs at once (default 2)':
        'このワーカーが同時に走らせるパルスの数 (既定 2)',
    "switch the city's 自律 on as this worker starts, and start autonomous turns from its tick":
        'このワーカーの起動時に街の 自律 を入れ、その刻みで自律の番を始めます',
    "postgresql+psycopg://USER@HOST:PORT/DB (empty), or `sqlite`: a PostgreSQL city back into this home's saiverse.db":
        'postgresql+psycopg://USER@HOST:PORT/DB (空のもの)、または `sqlite`: PostgreSQL の街をこのフォルダーの saiverse.db に戻します',
    'print what was copied as one JSON object':
        '写したものを 1 つの JSON オブジェクトで表示します',
    'print one JSON object':
        '1 つの JSON オブジェクトで表示します',
    'print JSON':
        'JSON で表示します',
    'only this persona answers':
        'このペルソナだけが答えます',
    'building id (default: where the user is)':
        '建物の id (既定: あなたのいる建物)',
    'the message':
        'メッセージ',
    'the latest N lines (default 200)':
        '新しいほうから N 行 (既定 200)',
    'print JSON lines':
        'JSON の行で表示します',
    'recall search query':
        '想起の検索語',
    'pin message ID (its `id`): always in her prompt':
        'メッセージ ID (その `id`) をピン留めします: いつもプロンプトに入ります',
    'unpin message ID':
        'メッセージ ID のピン留めを外します',
    'list her pinned messages, in the order pinned':
        'ピン留めしたメッセージを留めた順に一覧します',
    'print JSON lines (the default)':
        'JSON の行で表示します (既定)',
    'where she is asked (default: where she is)':
        'どこで尋ねるか (既定: ペルソナのいる建物)',
    "the user's message":
        'あなたのメッセージ',
    'only this persona (default: every persona)':
        'このペルソナだけ (既定: すべてのペルソナ)',
    'index now and return when every message is indexed':
        '今すぐ索引付けし、すべてのメッセージが済んだら戻ります',
    'first write the entries that are due':
        '先に書く時期のものを書きます',
    'only this level':
        'この段だけ',
    'title (or id) of the page to print':
        '表示するページの題 (か id)',
    'playbook name or path of a JSON file':
        'プレイブックの名前か JSON ファイルのパス',
    'building id (default: where the persona is)':
        '建物の id (既定: ペルソナのいる建物)',
    'arguments as a JSON object':
        '引数 (JSON オブジェクト)',
    'allow the import to override a builtin of the same name':
        '同じ名前の組み込みを上書きする取り込みを許します',
    'remove the import that overrides builtin NAME':
        '組み込み NAME を上書きしている取り込みを外します',
    'check the MCP tools of this persona only (default: of every persona)':
        'このペルソナの MCP ツールだけを確かめます (既定: すべてのペルソナ)',
    "replace the persona's servers with this JSON list ('[]' removes all)":
        "ペルソナのサーバーをこの JSON の配列に置き換えます ('[]' で全部外します)",
    'run id (resume, show)':
        '制作の id (resume、show)',
    'the archive to write (default: <home>/backups/saiverse-manual-<time>.zip)':
        '書き出すファイル (既定: <home>/backups/saiverse-manual-<time>.zip)',
    'hold the spoken audio cache (<home>/audio) too (default: the setting voice_in_backups, off)':
        '読み上げた音声のキャッシュ (<home>/audio) も入れます (既定: 設定 voice_in_backups、切)',
    'print what was written as one JSON object':
        '書いたものを 1 つの JSON オブジェクトで表示します',
    'the backup archive (.zip)':
        'バックアップのファイル (.zip)',
    'print what was restored as one JSON object':
        '戻したものを 1 つの JSON オブジェクトで表示します',
    'the persona id (delete; optional for persona create)':
        'ペルソナの id (delete。persona create では省略可)',
    "the new persona's name (create)":
        '新しいペルソナの名前 (create)',
    'a description (create)':
        '説明 (create)',
    'the building it lives in (create; default: where the user is)':
        '住む建物 (create。既定: あなたのいる建物)',
    'interaction mode (create; default user)':
        'ふるまい (create。既定 user)',
    'an emoji or short text (create)':
        '絵文字か短い文字 (create)',
    'its system prompt (create)':
        'システムプロンプト (create)',
    'voice: embedded | openai-compatible | openai | gemini | browser | off':
        '声: embedded | openai-compatible | openai | gemini | browser | off',
    "voice: an OpenAI-compatible server's base URL (…/v1)":
        '声: OpenAI 互換サーバーのベース URL (…/v1)',
    "voice: the engine's voice name (--list-voices shows them)":
        '声: エンジンの声の名前 (--list-voices で一覧)',
    'voice: 0.5 … 2.0 (1.0 is normal)':
        '声: 0.5 … 2.0 (1.0 がふつう)',
    'voice: -12 … 12, where the engine has it (browser)':
        '声: -12 … 12 (エンジンにあれば: browser)',
    "voice: the server's TTS model (default: the engine's)":
        '声: サーバーの TTS モデル (既定: エンジンのもの)',
    'voice: list the voices her engine offers':
        '声: エンジンが出せる声の一覧',
    'the building id (delete; optional for persona create)':
        '建物の id (delete。persona create では省略可)',
    "the new building's name (create)":
        '新しい建物の名前 (create)',
    'how many personas fit (create; default 10)':
        '入れるペルソナの数 (create。既定 10)',
    'seconds between autonomous turns of personas inside (create; default 600, at least 60)':
        '中のペルソナの自律の番の間隔 (秒、create。既定 600、60 以上)',
    'position on the city map (create, move-on-map; with --map-y)':
        '街の地図での位置 (create、move-on-map。--map-y と一緒に)',
    'position on the city map (create, move-on-map; with --map-x)':
        '街の地図での位置 (create、move-on-map。--map-x と一緒に)',
    'move-on-map: forget the position, place it automatically':
        'move-on-map: 位置を忘れて自動で置きます',
    "the building that takes the deleted building's items":
        '消す建物のアイテムを受け取る建物',
    'the persona (id or name) whose voice speaks':
        '声で話すペルソナ (id か名前)',
    'what to say':
        '話す文',
    'the WAV file to write':
        '書き出す WAV ファイル',
    'a recording: WAV, MP3, WebM, Ogg, FLAC or M4A (at most 25 MB)':
        '録音: WAV、MP3、WebM、Ogg、FLAC か M4A (25 MB まで)',
    'only say who listens (the file is not read)':
        '誰が聞き取るかだけ示します (ファイルは読みません)',
    'print one JSON object ({"text": …})':
        '1 つの JSON オブジェクト ({"text": …}) で表示します',
    'download a GGUF into <home>/models/ (a listed name or owner/repo/file.gguf)':
        'GGUF を <home>/models/ に入手します (一覧の名前か owner/repo/file.gguf)',
    'try a local model marked broken again (its next use loads it afresh)':
        '壊れたとされたローカルモデルをもう一度試します (次に使うとき読み込み直します)',
    'the models in <home>/models/: size, profile, whether it ran here, who uses it':
        '<home>/models/ のモデル: 大きさ、特徴、ここで動いたか、誰が使うか',
    'the models `model pull` offers by name':
        '`model pull` が名前で入手できるモデル',
    'look for Ollama, LM Studio and llama.cpp servers on this machine now':
        'このコンピューターの Ollama、LM Studio、llama.cpp のサーバーを今探します',
    'a name from `model catalog`, or owner/repo/file.gguf':
        '`model catalog` の名前か、owner/repo/file.gguf',
    'then answer with it by default (settings.json)':
        'そのあと既定でそれが答えます (settings.json)',
    'print the result as one JSON object':
        '結果を 1 つの JSON オブジェクトで表示します',
    "local:NAME's NAME (default: the default local model)":
        'local:NAME の NAME (既定: 既定のローカルモデル)',
    'how many days back, today included (default 7)':
        '何日前まで (今日を含む、既定 7)',
    'only this persona':
        'このペルソナだけ',
    "set PERSONA's daily budget in US dollars (none: no budget)":
        'PERSONA の 1 日の予算を米ドルで設定します (none: 予算なし)',
    'write the whole world into one .zip (while the app may run)\n\nDefault: `<home>/backups/saiverse-manual-<time>.zip`, kept until removed.':
        '世界のすべてを 1 つの .zip に書き出します (アプリが動いていてもかまいません)\n\n既定: `<home>/backups/saiverse-manual-<time>.zip`。消すまで残ります。',
    'persona administration: create one, delete a persona (a backup keeps its memory), turn its reflex\nrecall on or off (reflex-on / reflex-off), or show or set her voice (voice P [--engine …] [--voice …])':
        'ペルソナの管理: 作る (create)、消す (delete。記憶はバックアップに残ります)、反射想起の入り切り\n(reflex-on / reflex-off)、声の表示と設定 (voice P [--engine …] [--voice …])',
}
