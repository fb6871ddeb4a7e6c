"""A small everyday thesaurus for recall's query expansion: a question's word finds a memory that names the
same thing otherwise (医者 → 内科・クリニック, 乗り物 → 自転車, "animal doctor" → vet, newspaper → critic).

Written for this project (the project's licence): a companion hears about work, home, health, family,
pets, hobbies and days out, so the groups are those topics' everyday words, not a domain's. Checked
and not used: Japanese WordNet and the Sudachi synonym dictionary are not shipped by any PyPI package
that installs offline (`chikkarpy` carries the reader only, and its sdist no longer builds); NLTK's
WordNet downloads its data at run time, which the app must not do.

Each group is written `names | kinds`: the names stand for one another (医者, 病院, クリニック), the kinds
are narrower words or things that go with them (内科, 耳鼻科). A question naming the group (乗り物) adds
every other word of it; a question naming a kind (犬) adds the names only (ペット), not the other kinds
(猫: a question about the dog is not about the cat). A group without `|` is names only. Added words
weigh saiverse/memory/_lexical.py's `SYNONYM_WEIGHT`. English words are matched by stem, Japanese ones
as they are written (a substring of the question), so they are kept in their stem (辞め, 引っ越) where
the inflected form varies.
"""

from __future__ import annotations

GROUPS_JA: tuple[str, ...] = (
    "医者 医師 病院 医院 クリニック 診療所 | 内科 外科 整形外科 耳鼻科 皮膚科 眼科 小児科 診察 受診 診て",
    "歯医者 歯科",
    "動物病院 獣医",
    "仕事 職場 会社 勤め 勤務 職業 | 就職 転職 内定 入社 バイト アルバイト 担当 職",
    "辞め 退職 退社 辞職",
    "上司 | 部長 課長 店長 社長 先輩",
    "同僚 仲間 | 先輩 後輩",
    "友達 友人 親友 仲間",
    "住 住まい 家 部屋 | 引っ越 新居 移った アパート マンション 一人暮らし 寮 ワンルーム シェアハウス 実家",
    "引っ越 移った 移り住 転居",
    "乗り物 | 車 自動車 軽自動車 自転車 バイク ロードバイク スクーター 電車 バス",
    "通勤 通学 | 電車 自転車 車 バス",
    "楽器 | ギター ピアノ バイオリン ドラム ベース ウクレレ 三味線 フルート チェロ",
    "ペット 飼 | 猫 犬 インコ 小鳥 ハムスター うさぎ 金魚",
    "家族 | 母 父 姉 兄 妹 弟 両親 祖母 祖父 親",
    "母 お母さん 母親",
    "父 お父さん 父親",
    "祖母 おばあさん おばあちゃん",
    "祖父 おじいさん おじいちゃん",
    "姉 お姉さん お姉ちゃん",
    "兄 お兄さん お兄ちゃん",
    "子ども 子供 | 赤ちゃん 息子 娘 双子 甥 姪 出産 生まれ",
    "恋人 パートナー | 彼氏 彼女 付き合 婚約 結婚",
    "結婚 | 結婚式 披露宴 婚約 夫 妻",
    "運動 スポーツ | ジム ヨガ ランニング マラソン 走 水泳 サッカー テニス 登山 筋トレ",
    "趣味 | 好き 習 教室 はまって",
    "旅行 旅 | 観光 出張 帰省 ツアー",
    "学校 | 大学 大学院 高校 中学 授業 ゼミ 研究室 論文 卒業 入学 留学",
    "試験 テスト | 資格 検定 合格 受験",
    "病気 体調 | けが 怪我 骨折 風邪 熱 咳 痛 入院 手術 症状 診断 アレルギー",
    "けが 怪我 | 骨折 ねんざ",
    "料理 自炊 | ごはん 食事 レシピ 作った 焼い",
    "お金 費用 | 給料 貯金 ローン 借 家賃 値段 払",
    "贈り物 プレゼント | もらった お土産 土産 記念品 お祝い",
    "お土産 土産",
    "本 | 小説 作品 出版 漫画 絵本",
    "名前 | 名付け 呼",
    "祭り 祭 イベント | 展示会 ライブ コンサート フェス",
    "逃げ 脱走 いなくなった 迷子 行方不明",
    "食べ物 | パン ケーキ 料理 お菓子",
    "朝ごはん 朝食 朝ご飯",
    "陶芸 焼き物 陶器",
    "映画 | ドラマ アニメ",
    "絵 イラスト | 描",
    "写真 | カメラ 撮",
)
"""Japanese groups, `names | kinds` (see the module docstring), words as written."""

GROUPS_EN: tuple[str, ...] = (
    "doctor physician clinic hospital gp | dermatologist specialist surgeon appointment",
    "dentist | teeth tooth",
    "vet veterinarian animal_doctor",
    "job work career profession employ | office position hire promot boss shift",
    "quit resign | notice leave retire",
    "colleague coworker | boss manager team",
    "live home house | flat apartment move rent room lease neighbourhood",
    "move relocate",
    "vehicle | car bike bicycle motorbike truck van scooter",
    "commute | train bus bike car drive",
    "instrument | guitar piano violin drum cello ukulele flute saxophone",
    "pet animal | cat dog parrot bird rabbit hamster puppy kitten fish",
    "family | mother mom mum father dad sister brother parent grandmother grandfather",
    "mother mom mum",
    "father dad",
    "child kid | baby son daughter twin nephew niece born",
    "partner | girlfriend boyfriend wife husband fiance dating",
    "wedding marri marry | engag ceremony",
    "newspaper paper press | magazine journal critic article review column",
    "gift present | souvenir card gave",
    "souvenir keepsake",
    "trip holiday vacation travel | visit journey tour",
    "race | marathon 10k 5k run",
    "exercise sport workout | gym yoga swim run climb hike cycling training",
    "school study | university college class course student teach lesson degree graduat",
    "teach | school class lesson student",
    "exam test | certificate pass qualif",
    "money cost | loan pay paid bank salary saving price afford fund raise",
    "ill sick illness | rash pain injury surgery fever cough allergy",
    "injury | broke fracture sprain",
    "shop store | bakery cafe restaurant business",
    "colour color | paint",
    "cook bake | recipe dinner meal bread loaf",
    "food | bread cake meal dish bun",
    "friend buddy mate",
    "book novel | story read manuscript draft author",
    "music | song band concert album gig",
    "escape run_away ran_off lost missing",
    "film movie cinema | series show",
    "photo picture | camera",
    "name | call named",
)
"""English groups, `names | kinds`; `_` joins the words of a phrase (animal_doctor is "animal doctor")."""
