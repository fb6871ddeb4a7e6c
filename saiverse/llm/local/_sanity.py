"""What keeps a small base model's line sane (the packaged Gemma 3 270M; saiverse/llm/local/_prompt.py).

A 270M model continues text; it does not know who it is. Three checks and one honest answer:
- it never takes a name as its own that is not the persona's (「私の名前はタロウです」 from ミナ,
  after the user said his name is タロウ);
- it never answers with a bare predicate (「あります。」) or a lone greeting to a question;
- recalled lines reach it labelled with who said them (「あなたが言った: …」), never as bare text it
  would read as its own;
- when its line is unusable the persona says so (`honest_line`) instead of a canned reply, and the
  pulse carries a `model_suggest_pull` notice: pull a model that can talk (docs/ARCHITECTURE.md, "Models").
"""

from __future__ import annotations

import re

from saiverse.llm.offline import Voice

_I = r"(?:私|わたし|わたくし|僕|ぼく|俺|おれ|あたし|うち)"
_NAME_CHARS = r"[^\s、。，．！!？?」』「『がをにでともへやの]"
_SELF_NAME = re.compile(  # 「わたしはタロウです」: a name in katakana or Latin letters after 「わたしは」
    _I + r"は\s*[「『]?(?P<name>[ァ-ヴー]{2,12}|[A-Za-z]{2,16})[」』]?\s*"
    r"(?:です|だよ|だ(?:[。！!]|$)|と申します|といいます|と言います|っていいます|って言います)")
_CALLED = re.compile(  # 「私の名前はタロウです」, 「タロウと申します」
    _I + r"の(?:名前|なまえ)は\s*[「『]?(?P<name>" + _NAME_CHARS + r"{1,16}?)[」』]?\s*"
    r"(?:です|だ|と申します|といいます)"
    r"|(?:^|[。、\s])(?P<intro>" + _NAME_CHARS + r"{1,10})(?:と申します|といいます)")
_NOT_NAMES = {"ここ", "それ", "これ", "あなた", "司書", "図書館", "画家", "ただ", "まだ", "もう", "ちょっと",
              "元気", "大丈夫", "好き", "嫌い", "本", "人間", "ai", "ＡＩ", "AI"}
_BARE = re.compile(r"^(?:はい|ええ|いいえ|うん|いや)?[、,]?(?:あります|ありません|あるよ|います|いません|です|"
                   r"でした|ます|そうです(?:ね|か)?|なります|できます|わかりました|はい|ええ|うん|そう(?:ですね)?|ですね)$")
_GREETING = re.compile(
    r"^(?:はじめまして|初めまして|こんにちは|こんばんは|おはようございます|おはよう|よろしく(?:お願いします)?)$")
_PUNCT = re.compile(r"[\s。、．，！!？?…・「」『』（）()〜~ー-]+")
_QUESTION = re.compile(r"[？?]|(?:ですか|ますか|でしょうか|かな|の)[。]?\s*$")
_RECALL_LINE = re.compile(r"^- \[[^\]]*\]\s*\((?P<who>[^)]*)\)\s*(?P<text>.+)$")
HONEST = ("……ごめんなさい、うまく言葉がまとまりませんでした。もう一度、言い方を変えて話しかけてもらえますか？",
          "……ごめん、うまく言葉にならなかった。もう一度、言い方を変えて話しかけてくれる？")
"""(polite, plain) what the persona says when the model's line was unusable."""
SUGGEST_PULL = "model_suggest_pull"
"""The notice kind that suggests pulling a model that can hold a conversation."""


def claims_other_name(line: str, persona_name: str) -> bool:
    """Whether the line names the speaker as someone other than `persona_name` (「私の名前はタロウです」)."""
    own = persona_name.strip()
    for pattern in (_SELF_NAME, _CALLED):
        for match in pattern.finditer(line):
            name = (match.group("name") or match.groupdict().get("intro") or "").strip().removesuffix("さん")
            if name and name.lower() not in _NOT_NAMES and not (own and (name in own or own in name)):
                return True
    return False


def is_bare(line: str, said: str) -> bool:
    """Whether the line says nothing: a bare predicate, or only a greeting (or a few characters) to a question."""
    core = _PUNCT.sub("", line)
    if not core or _BARE.match(core):
        return True
    asked = bool(said) and bool(_QUESTION.search(said.strip()))
    return asked and (bool(_GREETING.match(core)) or len(core) < 5)


def recalled(body: str, persona_name: str) -> list[str]:
    """A memory_recall result as transcript narration, each recalled line labelled with who said it."""
    name = persona_name or "わたし"
    out: list[str] = []
    for raw in body.splitlines()[1:]:
        match = _RECALL_LINE.match(raw.strip())
        if not match:
            continue
        who, text = match.group("who").strip(), re.sub(r"\s+", " ", match.group("text")).strip()[:120]
        if who in ("相手", "user"):
            out.append(f"（{name}は思い出した。以前、訪ねてきた人（あなた）が「{text}」と言っていた。）")
        elif who in ("自分", "assistant"):
            out.append(f"（{name}は思い出した。以前、{name}自身が「{text}」と話していた。）")
        else:
            out.append(f"（{name}は思い出した。{who}に「{text}」とある。）")
    return out[:4]


def honest_line(voice: Voice) -> str:
    """The persona's own words for 'I could not put it into words' (never a canned answer to the question)."""
    return voice.speak(*HONEST)
