"""Development conversation (Japanese): はる、大学院生、2023年秋から2024年春。言い換えの多い質問。

Same shape as benchmarks/data/dev_en_dana.py.
"""

from __future__ import annotations

A, B = "はる", "ミナ"

SESSIONS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("8:00 pm on 10 October, 2023", [
        ("h1", A, "修士論文のテーマ、ようやく決まった。江戸時代の貸本屋について書くことにしたよ。"),
        ("h2", B, "面白そうなテーマですね。指導教員の先生は何と？"),
        ("h3", A, "小林先生は賛成してくれた。資料は国会図書館で探すつもり。"),
        ("h4", A, "アルバイトは駅ビルの本屋で週三回。レジより品出しのほうが好き。"),
        ("h5", A, "最近、自転車を盗まれたの。大学の駐輪場に置いていたのに。"),
    ]),
    ("9:30 pm on 12 November, 2023", [
        ("h6", A, "自転車は結局見つからなくて、中古のクロスバイクを買った。青いやつ。"),
        ("h7", B, "見つからなかったのは残念でしたね。新しい自転車はどうですか？"),
        ("h8", A, "軽くて坂道も楽。通学が十五分短くなった。"),
        ("h9", A, "弟の陸が高校のバスケ部でキャプテンになったって連絡があった。"),
        ("h10", A, "寒くなってきたから、ゼミの帰りにおでん屋に寄るのが楽しみ。"),
    ]),
    ("10:15 pm on 20 December, 2023", [
        ("h11", A, "本屋のバイト、辞めることにした。論文に集中したいから。"),
        ("h12", A, "代わりに週一回、塾で中学生に国語を教えることになったよ。"),
        ("h13", B, "教えるのも勉強になりますね。"),
        ("h14", A, "年末は実家の金沢に帰る。新幹線の切符、やっと取れた。"),
    ]),
    ("7:20 pm on 15 February, 2024", [
        ("h15", A, "修士論文、提出したよ！全部で百二十ページになった。"),
        ("h16", B, "お疲れさまでした！本当によく頑張りましたね。"),
        ("h17", A, "口頭試問は三月四日。小林先生に質問を想定しておけって言われてる。"),
        ("h18", A, "春から地元の出版社に就職が決まったの。まさか金沢に戻るとは。"),
        ("h19", A, "陸のチーム、県大会でベスト四だったって。"),
    ]),
    ("6:45 pm on 30 March, 2024", [
        ("h20", A, "口頭試問、無事に通って修士号がもらえることになった。"),
        ("h21", A, "来週、金沢に引っ越す。東京の部屋は今週末に引き払うよ。"),
        ("h22", B, "いよいよですね。荷造りは進んでいますか？"),
        ("h23", A, "本が多すぎて段ボール四十箱。クロスバイクも実家に送る。"),
    ]),
]

QA: list[dict[str, object]] = [
    {"question": "はるさんの研究テーマは何？", "answer": "江戸時代の貸本屋",
     "evidence": ["h1"], "category": "reworded"},
    {"question": "論文を指導している教授は誰？", "answer": "小林先生",
     "evidence": ["h3"], "category": "reworded"},
    {"question": "はるさんのアルバイトは？", "answer": "塾で国語を教える（以前は本屋）",
     "evidence": ["h12"], "category": "changed"},
    {"question": "盗まれた自転車はどうなった？", "answer": "見つからず中古のクロスバイクを買った",
     "evidence": ["h5", "h6"], "category": "multi"},
    {"question": "弟さんの部活は何？", "answer": "バスケ部（キャプテン）",
     "evidence": ["h9"], "category": "single"},
    {"question": "修論を出したのはいつ？", "answer": "2024年2月",
     "evidence": ["h15"], "category": "date"},
    {"question": "口頭試問の日程は？", "answer": "三月四日",
     "evidence": ["h17"], "category": "single"},
    {"question": "卒業後の仕事は？", "answer": "金沢の出版社",
     "evidence": ["h18"], "category": "reworded"},
    {"question": "はるさんはこれからどこに住む？", "answer": "金沢（東京から）",
     "evidence": ["h21"], "category": "changed"},
    {"question": "弟のチームは大会でどこまで勝ち進んだ？", "answer": "県大会ベスト四",
     "evidence": ["h19"], "category": "reworded"},
    {"question": "いつ本屋を辞めると決めた？", "answer": "2023年12月",
     "evidence": ["h11"], "category": "date"},
    {"question": "引っ越しの荷物はどのくらい？", "answer": "段ボール四十箱",
     "evidence": ["h23"], "category": "single"},
    {"question": "自転車に乗るようになって通学はどう変わった？", "answer": "十五分短くなった",
     "evidence": ["h8"], "category": "reworded"},
]
