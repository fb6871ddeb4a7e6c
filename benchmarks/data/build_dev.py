"""Build the development conversations (benchmarks/data/dev_*.json) in LoCoMo's JSON shape.

    python benchmarks/data/build_dev.py

The facts and questions are handwritten in dev_en_dana.py, dev_en_leo.py, dev_ja_yuki.py and dev_ja_haru.py; around
them this mixes small talk drawn from the pools below (fixed seed), so a question's evidence is one
turn among ~150 and the pools' everyday words (work, group, doctor, 仕事, 病院...) compete with it.
dev_en_rosa.py and dev_ja_kaito.py were written apart from those: their small talk comes from the `_B`
pools (both speakers chatting, on the same everyday topics as their facts: shops, doctors, moving,
cats, dates said as 先週 or "last week"), three times as much of it
(~630 turns a conversation, as long as the held-out ones). dev_en_omar.py and dev_ja_mao.py were
written after the recall changes of issue 33 and not tuned on (the nearest thing here to held-out).
The JSON files are committed; rebuild only when the sources change.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType

from benchmarks.data import (
    dev_en_dana,
    dev_en_leo,
    dev_en_omar,
    dev_en_rosa,
    dev_ja_haru,
    dev_ja_kaito,
    dev_ja_mao,
    dev_ja_yuki,
)

HERE = Path(__file__).resolve().parent
SMALL_TALK_PER_SESSION = 24

SMALL_TALK_EN = [
    "The weather was grey all week, I barely saw the sun.", "I made pasta again, I should learn a new recipe.",
    "Did you watch anything good lately? I need a new series.", "Work was busy today, lots of meetings.",
    "I spent the afternoon cleaning the kitchen.", "My phone battery is dying so fast these days.",
    "I tried a new coffee place near the station, it was okay.", "I'm so tired, I think I'll go to bed early.",
    "There was a long queue at the supermarket.", "I finally replied to all my emails.",
    "A friend sent me a funny video of a goat, I laughed for ages.", "I should drink more water, honestly.",
    "The neighbours are renovating and the drilling never stops.", "I read an article about sleep and habits.",
    "My group chat has been very loud today.", "I think I need new running shoes, mine are worn out.",
    "The train was late again this morning.", "I watered the plants on the balcony.",
    "Tell me something nice, it's been a long day.", "I bought a new notebook just because it was pretty.",
    "We had pizza at work for someone's birthday.", "I keep forgetting to call the bank.",
    "There was a thunderstorm last night, very loud.", "I listened to an old album from school days.",
    "My back hurts a bit from sitting too long.", "I want to visit the sea sometime this year.",
    "The doctor's waiting room at my friend's place had the oldest magazines.",
    "I tried meditation for five minutes, it's harder than it looks.", "I found a nice blanket at the market.",
    "What do you usually think about when it's quiet?", "It's been a good week overall, I think.",
    "I cooked soup for the whole week.", "I saw a beautiful sunset on the way home.",
    "Someone at the office brought cookies.", "I cleaned out my wardrobe and found old letters.",
    "I'm thinking of learning a language, maybe Spanish.", "My laptop updated itself overnight again.",
    "I ordered too much takeaway this month.", "The park was full of families today.",
    "I should plan something fun for the weekend.", "Honestly, I just want a quiet evening.",
    "Thanks for listening, it helps.", "That makes sense, thank you.", "Haha, yes, exactly.",
    "I'll tell you more about it next time.", "Good night, talk soon!", "Morning! I'm on my second coffee.",
    "I watched a documentary about whales.", "The group at the gym was huge this evening.",
]
SMALL_TALK_JA = [
    "今日は一日中雨だったね。", "晩ごはん、何にしようか迷ってる。", "最近ちょっと寝不足気味かも。",
    "駅前に新しいパン屋ができてたよ。", "仕事でずっと会議だった。疲れた。", "週末は部屋の掃除をしたいな。",
    "コンビニの新作スイーツ、美味しかった。", "電車が遅れて大変だった。", "久しぶりに友達と電話したよ。",
    "スマホの充電がすぐ切れるんだよね。", "なんだか甘いものが食べたい気分。", "明日は早起きしないと。",
    "ドラマの続きが気になって眠れない。", "最近、朝の空気が気持ちいいね。", "洗濯物がなかなか乾かない。",
    "お昼は会社の近くでラーメンを食べた。", "ちょっと肩がこってる。", "今日はいいことがあった気がする。",
    "本屋さんで面白そうな小説を見つけた。", "散歩していたら桜が咲いてた。", "お茶を入れて一息ついてるところ。",
    "隣の部屋の工事がうるさくて。", "そういえば、最近映画を観てないな。", "夜ごはんはカレーにした。",
    "話を聞いてくれてありがとう。", "うん、そうだね。", "また明日ね、おやすみ。", "おはよう、今日も頑張る。",
    "病院の待合室って、なんであんなに寒いんだろう。", "友達の家の犬がすごく可愛かった。",
    "最近はまっている音楽があるんだ。", "週末に海を見に行きたいな。", "家計簿をつけ始めたけど続くかな。",
    "職場のコーヒーマシンが壊れてた。", "天気予報、また外れたね。", "新しいノートを買っちゃった。",
    "今日はなんだかぼんやりしてた。", "帰り道に夕焼けがきれいだった。", "あったかいお風呂に入りたい。",
    "ミナはどんな本が好き？", "最近のニュース、ちょっと疲れるね。", "寒くなってきたから鍋が食べたい。",
    "冷蔵庫の中が空っぽだった。", "ひさしぶりに手紙を書いてみた。", "ゆっくり休める日がほしいな。",
    "先週のことなんだけど、ちょっと聞いて。", "近所の公園で子どもたちが遊んでた。", "ちょっと散歩してくるね。",
]
ASSISTANT_EN = ["I'm listening, tell me more.", "That sounds nice.", "Oh, I see!", "How did that feel?",
                "I hope you get some rest.", "That's good to hear."]
ASSISTANT_JA = ["うん、聞いてるよ。", "それはいいね。", "そうなんだ！", "どんな気持ちだった？", "ゆっくり休んでね。",
                "それはよかった。"]


SMALL_TALK_EN_B = [
    "Work was chaos today, two people off sick and the printer broke.", "I went to the doctor for my knee, "
    "she just told me to rest it.", "We're thinking about moving somewhere with a garden one day.",
    "The bakery near the bus stop has started doing pretzels, they're alright.", "My cat knocked a glass off "
    "the table last week, on purpose I swear.", "I had a long call with my sister last night about nothing.",
    "The bank app logged me out three times today.", "I walked along the canal yesterday, it was lovely.",
    "I want to learn to make proper bread one day, but it seems hard.", "The shops in town are all closing "
    "early this month.", "School holidays start soon, the roads will be empty.", "I've been sleeping badly "
    "again, I keep waking up at four.", "A new cafe opened on our road, the walls are bright orange.",
    "My parents want us to visit more often.", "I paid the rent late last month, never again.",
    "I tried running last week and my legs still hurt.", "The newspaper at the station was all bad news.",
    "The students next door had a party until two in the morning.", "I bought a plant for the kitchen, "
    "I give it a week.", "We watched a film about a bakery in Paris, it made me hungry.",
    "My skin always gets dry in winter.", "The vet bills for my friend's dog are unbelievable.",
    "I got a parking ticket yesterday, on my own street.", "My old teacher from school messaged me out of "
    "the blue.", "The flat is freezing in the mornings now.", "I spent the whole weekend doing paperwork.",
    "When was the last time we went out for dinner, honestly?", "Someone at work is leaving and we "
    "had cake.", "I've started a new book about the history of salt.", "The trains were cancelled again.",
    "The delivery man left my parcel with the neighbours.", "I think I need a holiday, even a short one.",
]
FRIEND_EN_B = [
    "Ha, that sounds about right.", "Oh no, are you okay?", "I know exactly what you mean.",
    "My week was quiet, I mostly read.", "I went to the market on Saturday, it was packed.",
    "My job has been boring lately, lots of spreadsheets.", "We should get coffee soon.",
    "My cousin just moved to Manchester.", "I've been meaning to call my mum.", "That's lovely to hear!",
    "Tell me more about it next time.", "I burnt my toast this morning, classic.",
]
SMALL_TALK_JA_B = [
    "今日は仕事がばたばたで、お昼を食べそこねた。", "膝が痛くて病院に行ったけど、様子見だって。",
    "いつか庭のある家に住みたいな。", "駅前のパン屋、新しいメニューが出てたよ。", "先週、近所の猫が玄関まで来てた。",
    "昨日は姉と長電話しちゃった。", "会社の引っ越しで、机の中を全部片付けた。", "川沿いを散歩したら気持ちよかった。",
    "最近また寝つきが悪いんだよね。", "今月は出費が多くて、家計がきびしい。", "自転車のタイヤがパンクした。",
    "週末は実家に顔を出すつもり。", "新しいカフェができてたけど、まだ入ってない。",
    "先月の電気代が高くてびっくりした。",
    "健康のために、エレベーターをやめて階段を使ってる。", "ニュースで京都の紅葉の特集をやってた。",
    "職場の先輩に、おいしいラーメン屋を教えてもらった。", "昨日は雨で、洗濯物が全然乾かなかった。",
    "車の免許の更新に行かないと。", "友達の結婚式の招待状が届いた。", "最近、音楽を聴きながら料理してる。",
    "いつの間にかもう年末だね。", "部屋の模様替えをしたいけど、気力がない。",
    "電車で席をゆずったら、お礼にあめをもらった。",
    "祭りの季節になると、夜がにぎやかだね。", "新しい靴を買ったら、靴ずれした。", "歯医者の予約をすっかり忘れてた。",
    "ゲームのセールで、つい三本も買っちゃった。", "来週は出張で東京に行く。", "大学の友達と久しぶりに飲んだ。",
    "甘いものを控えようと思って三日で挫折した。", "母から野菜が段ボールで届いた。",
]
FRIEND_JA_B = [
    "わかる、それ。", "えー、大丈夫？", "いいなあ、うらやましい。", "こっちは相変わらずだよ。",
    "私も最近ちょっと疲れ気味。", "今度ごはん行こうよ。", "それは笑う。", "うちの会社も似たようなものだよ。",
    "週末は家でのんびりしてた。", "また詳しく聞かせて。", "へえ、知らなかった。", "無理しないでね。",
]


def build(module: ModuleType, pool: list[str], replies: list[str], seed: int,
          small_talk: int = SMALL_TALK_PER_SESSION) -> dict[str, object]:
    """One conversation: each session's facts in order, small talk (user line, persona reply) between them."""
    rng = random.Random(seed)
    conv: dict[str, object] = {"speaker_a": module.A, "speaker_b": module.B}
    filler = 0
    for n, (when, turns) in enumerate(module.SESSIONS, start=1):
        lines = [{"speaker": s, "dia_id": i, "text": t} for i, s, t in turns]
        for _ in range(small_talk // 2):
            at = rng.randint(0, len(lines))
            filler += 1
            lines[at:at] = [{"speaker": module.A, "dia_id": f"s{filler}a", "text": rng.choice(pool)},
                            {"speaker": module.B, "dia_id": f"s{filler}b", "text": rng.choice(replies)}]
        conv[f"session_{n}_date_time"] = when
        conv[f"session_{n}"] = lines
    return {"sample_id": module.__name__.rsplit(".", 1)[-1], "conversation": conv, "qa": module.QA}


def main() -> None:
    for module, pool, replies, seed, talk in (
            (dev_en_dana, SMALL_TALK_EN, ASSISTANT_EN, 1, SMALL_TALK_PER_SESSION),
            (dev_en_leo, SMALL_TALK_EN, ASSISTANT_EN, 2, SMALL_TALK_PER_SESSION),
            (dev_ja_yuki, SMALL_TALK_JA, ASSISTANT_JA, 3, SMALL_TALK_PER_SESSION),
            (dev_ja_haru, SMALL_TALK_JA, ASSISTANT_JA, 4, SMALL_TALK_PER_SESSION),
            (dev_en_rosa, SMALL_TALK_EN_B, FRIEND_EN_B, 5, 3 * SMALL_TALK_PER_SESSION + 2),
            (dev_ja_kaito, SMALL_TALK_JA_B, FRIEND_JA_B, 6, 3 * SMALL_TALK_PER_SESSION + 2),
            (dev_en_omar, SMALL_TALK_EN_B, FRIEND_EN_B, 7, 3 * SMALL_TALK_PER_SESSION + 2),
            (dev_ja_mao, SMALL_TALK_JA_B, FRIEND_JA_B, 8, 3 * SMALL_TALK_PER_SESSION + 2)):
        out = HERE / f"{module.__name__.rsplit('.', 1)[-1]}.json"
        out.write_text(json.dumps(build(module, pool, replies, seed, talk), ensure_ascii=False, indent=1) + "\n",
                       encoding="utf-8")
        print(out)


if __name__ == "__main__":
    main()
