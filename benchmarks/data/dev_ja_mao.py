"""Development conversation (Japanese): まお、札幌の看護師から大学院生へ、友人さきとの2022〜2023年。

Written after the thesaurus, time-aware ranking and packing of issue 33 were done, and not tuned on:
its figures (benchmarks/RESULTS-recall.md) are the nearest thing here to a held-out conversation.
"""

from __future__ import annotations

A, B = "まお", "さき"

SESSIONS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("8:00 pm on 9 October, 2022", [
        ("m1", A, "夜勤明けでくたくた。札幌の総合病院の救急外来で看護師をしてもう六年になる。"),
        ("m2", A, "同居している祖母が最近ひざを痛めて、毎週整骨院に付き添ってるんだ。"),
        ("m3", B, "おばあちゃん、大丈夫？"),
        ("m4", A, "歩くのはゆっくりだけど元気。口だけは達者だよ。"),
        ("m5", A, "趣味で始めた刺しゅう、初めてハンカチを一枚仕上げた。"),
    ]),
    ("9:30 pm on 27 November, 2022", [
        ("m6", A, "先週、職場の先輩に誘われて初めてスキーに行った。ずっと転んでた。"),
        ("m7", A, "看護の大学院を受けようか迷ってる。公衆衛生を勉強したいんだ。"),
        ("m8", B, "いいじゃない、応援するよ。"),
        ("m9", A, "弟の大輝が東京の商社に就職が決まった。春から一人暮らしだって。"),
    ]),
    ("7:40 pm on 22 January, 2023", [
        ("m10", A, "大学院の願書を出した。試験は二月の終わり。"),
        ("m11", A, "祖母がデイサービスに通い始めた。書道の時間が一番楽しいらしい。"),
        ("m12", A, "刺しゅうの作品をフリマアプリで出したら、三日で売れた。"),
    ]),
    ("8:15 pm on 12 March, 2023", [
        ("m13", A, "合格した！四月から北大の大学院で公衆衛生を学ぶ。"),
        ("m14", A, "病院は三月末で辞める。救急のみんなが寄せ書きをくれた。"),
        ("m15", B, "泣いちゃうね。"),
        ("m16", A, "うん、号泣した。師長さんが一番泣いてた。"),
    ]),
    ("9:00 pm on 30 April, 2023", [
        ("m17", A, "大学院の研究室は、感染症の広がり方を統計で調べているところ。"),
        ("m18", A, "生活費のために、週二回クリニックの健診センターで非常勤で働いてる。"),
        ("m19", A, "弟が東京で風邪をこじらせて、母が心配して飛んで行った。"),
    ]),
    ("8:45 pm on 18 June, 2023", [
        ("m20", A, "祖母と二人で、大学の近くの古いマンションに引っ越した。エレベーター付き。"),
        ("m21", A, "刺しゅう教室の先生から、秋の作品展に出さないかって言われた。"),
        ("m22", A, "研究室の指導教員の佐藤先生は、毎朝六時に大学に来るらしい。"),
    ]),
    ("9:20 pm on 3 September, 2023", [
        ("m23", A, "夏休みに研究室のみんなで函館に行った。朝市のいか刺しが最高だった。"),
        ("m24", A, "作品展に出す刺しゅうは、祖母の家の庭に咲いていたすずらんにした。"),
        ("m25", A, "健診センターの仕事はやめて、今は大学のティーチングアシスタントをしてる。"),
    ]),
    ("8:30 pm on 29 October, 2023", [
        ("m26", A, "作品展ですずらんの刺しゅうが奨励賞をもらった！祖母も見に来てくれた。"),
        ("m27", A, "修士論文のテーマが決まった。高齢者施設でのインフルエンザの広がり方。"),
        ("m28", A, "弟が年末に婚約者を連れて帰ってくるって。"),
    ]),
]

QA: list[dict[str, object]] = [
    {"question": "まおさんの以前の仕事は？", "answer": "札幌の総合病院の救急外来の看護師",
     "evidence": ["m1"], "category": "single"},
    {"question": "まおさんは今何をしている？", "answer": "北大の大学院生、ティーチングアシスタント",
     "evidence": ["m13", "m25"], "category": "changed"},
    {"question": "アルバイトは何をしている？", "answer": "大学のティーチングアシスタント（以前は健診センターの非常勤）",
     "evidence": ["m25"], "category": "changed"},
    {"question": "どこに住んでいる？", "answer": "祖母と二人で大学近くのマンション",
     "evidence": ["m20"], "category": "changed"},
    {"question": "おばあさんの足の具合は？", "answer": "ひざを痛めて整骨院に通っている",
     "evidence": ["m2"], "category": "reworded"},
    {"question": "手芸の作品はどうなった？", "answer": "ハンカチを仕上げ、フリマで売れ、すずらんの作品が奨励賞",
     "evidence": ["m12", "m26"], "category": "multi"},
    {"question": "スキーに行ったのはいつ？", "answer": "2022年11月中旬",
     "evidence": ["m6"], "category": "date"},
    {"question": "大学院に受かったのはいつ？", "answer": "2023年3月",
     "evidence": ["m13"], "category": "date"},
    {"question": "弟さんの勤め先は？", "answer": "東京の商社",
     "evidence": ["m9"], "category": "reworded"},
    {"question": "研究のテーマは？", "answer": "高齢者施設でのインフルエンザの広がり方",
     "evidence": ["m27"], "category": "single"},
    {"question": "病院を辞めるとき、同僚から何をもらった？", "answer": "寄せ書き",
     "evidence": ["m14"], "category": "reworded"},
    {"question": "研究室の旅行はどこだった？", "answer": "函館",
     "evidence": ["m23"], "category": "single"},
    {"question": "作品展に出したのは何の刺しゅう？", "answer": "すずらん",
     "evidence": ["m24"], "category": "single"},
    {"question": "指導教員はどんな人？", "answer": "毎朝六時に大学に来る佐藤先生",
     "evidence": ["m22"], "category": "reworded"},
    {"question": "引っ越したのはいつ？", "answer": "2023年6月ごろ",
     "evidence": ["m20"], "category": "date"},
    {"question": "おばあさんはデイサービスで何が好き？", "answer": "書道",
     "evidence": ["m11"], "category": "single"},
]
