"""Build the development conversations (benchmarks/data/dev_*.json) in LoCoMo's JSON shape.

    python benchmarks/data/build_dev.py

The facts and questions are handwritten in dev_en_dana.py, dev_en_leo.py, dev_ja_yuki.py and dev_ja_haru.py; around
them this mixes small talk drawn from the pools below (fixed seed), so a question's evidence is one
turn among ~150 and the pools' everyday words (work, group, doctor, 仕事, 病院...) compete with it.
The JSON files are committed; rebuild only when the sources change.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType

from benchmarks.data import dev_en_dana, dev_en_leo, dev_ja_haru, dev_ja_yuki

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


def build(module: ModuleType, pool: list[str], replies: list[str], seed: int) -> dict[str, object]:
    """One conversation: each session's facts in order, small talk (user line, persona reply) between them."""
    rng = random.Random(seed)
    conv: dict[str, object] = {"speaker_a": module.A, "speaker_b": module.B}
    filler = 0
    for n, (when, turns) in enumerate(module.SESSIONS, start=1):
        lines = [{"speaker": s, "dia_id": i, "text": t} for i, s, t in turns]
        for _ in range(SMALL_TALK_PER_SESSION // 2):
            at = rng.randint(0, len(lines))
            filler += 1
            lines[at:at] = [{"speaker": module.A, "dia_id": f"s{filler}a", "text": rng.choice(pool)},
                            {"speaker": module.B, "dia_id": f"s{filler}b", "text": rng.choice(replies)}]
        conv[f"session_{n}_date_time"] = when
        conv[f"session_{n}"] = lines
    return {"sample_id": module.__name__.rsplit(".", 1)[-1], "conversation": conv, "qa": module.QA}


def main() -> None:
    for module, pool, replies, seed in ((dev_en_dana, SMALL_TALK_EN, ASSISTANT_EN, 1),
                                        (dev_en_leo, SMALL_TALK_EN, ASSISTANT_EN, 2),
                                        (dev_ja_yuki, SMALL_TALK_JA, ASSISTANT_JA, 3),
                                        (dev_ja_haru, SMALL_TALK_JA, ASSISTANT_JA, 4)):
        out = HERE / f"{module.__name__.rsplit('.', 1)[-1]}.json"
        out.write_text(json.dumps(build(module, pool, replies, seed), ensure_ascii=False, indent=1) + "\n",
                       encoding="utf-8")
        print(out)


if __name__ == "__main__":
    main()
