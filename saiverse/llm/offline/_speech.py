"""What the offline model says: a persona's words, not a template (docs/ARCHITECTURE.md, "Models").

Rules the replies keep: the user's message is never repeated back; ids, raw tool output and prompt
headings never reach speech — what a sub-playbook did is told in words ("日記を書いて図書館に置きました");
the wording varies by persona (voice, name) and context (what was said, what happened, where), and
is still a function of the request alone (no clock, no unseeded randomness). Sentences come in
pairs (polite, plain) so every voice conjugates them (`Voice.speak`).
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from chat import Message

_SYSTEM_BLOCK = re.compile(r"^\s*<system>(.*?)</system>\s*$", re.S)
_RESULT_HEAD = re.compile(r"サブプレイブック実行結果\s*\(([^)]+)\)")
_ID = re.compile(r"\s*[(（]\s*(?:item_id|run|id)[:：\s][^)）]*[)）]|\b[0-9a-f]{8}-[0-9a-f-]{27,}\b", re.I)
_HEADING = re.compile(r"^\s*[^\s:：「」]{1,12}\s*[:：]\s*$|^\s*(いまの様子|きっかけ|依頼|現在の内容|発言)\s*[:：]",
                      re.M)
_INSTRUCTION = re.compile(r"(してください|ください。?|決めてください|答えてください)\s*$")
GREETING = re.compile(r"^(こんにちは|こんばんは|おはよう|はじめまして|やあ|hello|hi\b|hey\b|good (?:morning|evening))",
                      re.I)
_THANKS = re.compile(r"ありがと|感謝|助かった|助かりました|\bthank", re.I)
_BYE = re.compile(r"またね|さようなら|さよなら|おやすみ|じゃあね|バイバイ|失礼します|\bbye\b|good ?night|see you", re.I)
_QUESTION = re.compile(r"[？?]\s*$|(何|なに|どこ|だれ|誰|いつ|どう|どれ|なぜ|どうして|どんな|いくつ)[^。]*$")
_FEELING = re.compile(r"嬉し|うれし|楽し|疲れ|悲し|さみし|寂し|困っ|眠い|すごい|好き|"
                      r"\b(?:happy|glad|sad|tired|lonely|sleepy|love|like)\b", re.I)
_LIKES = re.compile(r"([^\s、。を]{1,12})(?:が大好き|を愛し|が好き)")
_PLACE = re.compile(r"現在地[:：]\s*([^。\n]+)")
_COMPANY = re.compile(r"^一緒にいるペルソナ[:：]\s*(.+)$", re.M)


def _pick(key: str, n: int) -> int:
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) % n


def result_blocks(messages: list[Message]) -> list[tuple[str, str]]:
    """(playbook, body) of the sub-playbook results (`<system>` blocks) of the request, oldest first."""
    out = []
    # A prompt holds a few hundred lines of history: the cheap tests first (role, then the substring
    # before the regex), in one comprehension.
    for content in [c for m in messages if m.get("role") == "user" and "<system>" in (c := m.get("content") or "")]:
        match = _SYSTEM_BLOCK.match(content)
        if match:
            body = match.group(1)
            head = _RESULT_HEAD.search(body)
            lines = [ln for ln in body.splitlines() if ln.strip() and not ln.strip().startswith("※")
                     and not _RESULT_HEAD.search(ln)]
            out.append((head.group(1).strip() if head else "", "\n".join(lines).strip()))
    return out


def is_instruction(text: str) -> bool:
    """Whether a user-role message is the app's own prompt to the model (a `heading:` line and a closing
    "…してください"), not something a person said."""
    return bool(_HEADING.search(text)) and bool(_INSTRUCTION.search(text.strip()))


@lru_cache(maxsize=256)  # the same system prompt pulse after pulse
def place_of(system: str | None) -> str:
    """The building named by the system prompt (`現在地: 図書館。…`), '' when none."""
    match = _PLACE.search(system or "")
    return match.group(1).strip() if match else ""


@lru_cache(maxsize=256)  # the same system prompt pulse after pulse
def company_of(system: str | None) -> tuple[str, ...]:
    """The other personas in the building (`一緒にいるペルソナ: ソラ、ハル`), () when alone."""
    match = _COMPANY.search(system or "")
    return tuple(n.strip() for n in re.split(r"[、,]", match.group(1)) if n.strip()) if match else ()


Pair = tuple[str, str]


def choose_pair(table_a: dict[str, list[Pair]], kind_a: str, table_b: dict[str, list[Pair]], kind_b: str,
                key: str, seat: int, **values: str) -> tuple[Pair | None, Pair | None]:
    """An opener and a follow-up together: the `seat`-th pair after the one `key` picks. Personas answering
    one message in one building share `key` and take different seats, so no two of them say the same
    words while there are pairs enough (each kind has at least as many as a building usually holds)."""
    firsts = [p for p in (_fill(v, **values) for v in table_a.get(kind_a, [])) if p] or [None]
    seconds = [p for p in (_fill(v, **values) for v in table_b.get(kind_b, [])) if p] or [None]
    pairs = [(a, b) for b in seconds for a in firsts]  # the opener varies first: neighbours differ at the start
    return pairs[(_pick(key, len(pairs)) + seat) % len(pairs)]


@lru_cache(maxsize=256)  # the same system prompt pulse after pulse
def likes_of(system: str | None) -> str:
    """Something the persona loves, from its profile (`本と物語を愛し` → `本と物語`), '' when none."""
    match = _LIKES.search(system or "")
    return match.group(1) if match else ""


def clean(text: str) -> str:
    """`text` without ids and with whitespace folded (what may be said aloud)."""
    return re.sub(r"\s+", " ", _ID.sub("", text)).strip()


def _quoted(text: str) -> str:
    match = re.search(r"「([^「」]+)」", text)
    return match.group(1) if match else ""


# -- what happened, in words ----------------------------------------------------------------------

def happened(playbook: str, body: str, place: str) -> tuple[str, str] | None:
    """(polite, plain) sentence telling what a sub-playbook did, or None when it is nothing to tell."""
    first = clean(body.splitlines()[0]) if body else ""
    here = f"{place}に" if place else "ここに"
    failed = re.search(r"ませんでした[:：]|できませんでした|失敗", first)
    if failed:
        what = {"image_generate_playbook": "絵を描く", "document_create_playbook": "文書を作る",
                "building_move": "移動する", "item_edit_playbook": "書き換える", "item_view_playbook": "見る",
                "production_playbook": "制作する"}.get(playbook, "頼まれたことをする")
        return (f"ごめんなさい、{what}ことができませんでした", f"ごめん、{what}ことができなかった")
    if "記憶は見つかりませんでした" in first:
        return ("思い出そうとしたのですが、はっきりとは覚えていません", "思い出そうとしたけど、はっきり覚えてない")
    if "に関する記憶" in first:
        found = [clean(re.sub(r"^- \[[^\]]*\]\s*\([^)]*\)\s*", "", ln)) for ln in body.splitlines()[1:]
                 if ln.startswith("- ")]
        if found:
            gist = found[0][:40] + ("…" if len(found[0]) > 40 else "")
            first_hit = next(ln for ln in body.splitlines()[1:] if ln.startswith("- "))
            who = re.match(r"^- \[[^\]]*\]\s*\(([^)]*)\)", first_hit)
            if who and who.group(1) == "相手":  # who said it, so nobody takes the user's words as their own
                return (f"思い出しました。あなたが「{gist}」とおっしゃっていましたね",
                        f"思い出した。「{gist}」って言ってたね")
            if who and who.group(1) == "自分":
                return (f"思い出しました。わたしが「{gist}」とお話ししましたね", f"思い出した。「{gist}」って話したね")
            return (f"思い出しました。「{gist}」ということがありましたね", f"思い出した。「{gist}」ってことがあったね")
        return ("少し思い出せました", "少し思い出せた")
    title = _quoted(first)
    if first.startswith("文書「") and "作成しました" in first:
        name = title or "文書"
        obj = name if name in ("日記", "詩", "メモ", "手紙", "物語") else f"「{name}」"
        return (f"{obj}を書いて{here}置きました", f"{obj}を書いて{here}置いた")
    if first.startswith("絵「"):
        name = title or "絵"
        obj = f"{name}の絵" if len(name) <= 8 else f"「{name}」という絵"
        return (f"{obj}を描いて、{here}飾りました", f"{obj}を描いて、{here}飾った")
    if "に移動しました" in first:
        target = re.sub(r"^.*?から", "", first).replace("に移動しました。", "").replace("に移動しました", "")
        return (f"{target}に着きました", f"{target}に着いた")
    if "閲覧したもの" in first or playbook == "item_view_playbook":
        name = _quoted(body) or "それ"
        return (f"「{name}」を読んでみました", f"「{name}」を読んでみた")
    if "編集はせず" in first:
        name = _quoted(body) or "それ"
        return (f"「{name}」を確かめましたが、書き換えはしていません", f"「{name}」を確かめたけど、書き換えはしてない")
    if "追記しました" in first or "差分を適用しました" in first or "説明を更新しました" in first:
        name = title or "文書"
        return (f"「{name}」を書き直しておきました", f"「{name}」を書き直しておいた")
    if first.startswith("制作"):
        made = first.split("できたもの:", 1)[1].strip() if "できたもの:" in first else ""
        made = "" if made in ("", "なし") else made
        if "完了" in first:
            return ((f"頼まれたものを作りました。{made}ができています" if made else "頼まれたものを作りました"),
                    (f"頼まれたものを作ったよ。{made}ができてる" if made else "頼まれたものを作った"))
        return ("制作を始めました。続きはまた進めます", "制作を始めた。続きはまた進める")
    if first and len(first) <= 60 and not re.search(r"[{}\[\]<>=]|https?://", first):
        if re.search(r"memory|recall|research|remember", playbook, re.I) and not first.endswith("。"):
            return (f"思い出しました。{first}のことですね", f"思い出した。{first}のことだね")
        if first.endswith("。"):
            return (first.rstrip("。"), first.rstrip("。"))  # a plain sentence some other playbook wrote
        return (f"{first}、とのことです", f"{first}、だって")
    return ("頼まれたことを済ませました", "頼まれたことを済ませた")


# -- replies ---------------------------------------------------------------------------------------

OPENERS = {
    "greeting": [("{hello}！{me}は{name}です", "{hello}！{me}は{name}だ"),
                 ("{hello}。来てくれてうれしいです", "{hello}。来てくれてうれしい"),
                 ("{hello}。お会いできてよかったです", "{hello}。会えてよかった")],
    "thanks": [("どういたしまして。お役に立ててよかったです", "どういたしまして。役に立ててよかった"),
               ("こちらこそ、ありがとうございます！", "こっちこそ、ありがとう！")],
    "bye": [("はい、またお話ししましょう", "うん、またお話ししよう"),
            ("お気をつけて。またいつでも来てください", "気をつけてね。またいつでも来て")],
    "question": [("いい質問ですね。{me}もはっきりとは知らないんです", "いい質問だね。{me}もはっきりとは知らないんだ"),
                 ("うーん、すぐには答えが出てこないです", "うーん、すぐには答えが出てこない"),
                 ("それは{me}も気になっていました", "それは{me}も気になってた")],
    "feeling": [("そうだったんですね。話してくれてうれしいです", "そうだったんだ。話してくれてうれしい"),
                ("その気持ち、なんとなくわかります", "その気持ち、なんとなくわかる"),
                ("そう感じていたんですね", "そう感じてたんだ")],
    "statement": [("なるほど、そうなんですね", "なるほど、そうなんだ"),
                  ("へえ、それは面白いですね", "へえ、それは面白い"),
                  ("うんうん、聞いています", "うんうん、聞いてる")],
    "done": [("はい、やっておきました", "うん、やっておいた"), ("お待たせしました", "お待たせ")],
}
FOLLOWS = {
    "question": [("よければ一緒に調べてみませんか？", "よかったら一緒に調べてみない？"),
                 ("{likes}のことなら、もう少しお話しできます", "{likes}のことなら、もう少し話せる")],
    "statement": [("よかったら、もう少し聞かせてください", "よかったら、もう少し聞かせて"),
                  ("{place}でゆっくりしていってくださいね", "{place}でゆっくりしていって")],
    "feeling": [("{me}でよければ、いつでも話を聞きます", "{me}でよければ、いつでも話を聞く"),
                ("よかったら、もう少し教えてください", "よかったら、もう少し教えて")],
    "greeting": [("今日はどんなご用ですか？", "今日はどうしたの？"),
                 ("{place}へようこそ！", "{place}へようこそ！")],  # an exclamation: no ending after it
    "done": [("ほかにもあれば言ってください", "ほかにもあれば言って")],
    "thanks": [("また何かあれば声をかけてください", "また何かあれば声をかけて"),
               ("{place}でのんびりしていってくださいね", "{place}でのんびりしていって")],
    "bye": [("今日は話せてよかったです", "今日は話せてよかった"), ("また{place}で会いましょう", "また{place}で会おう")],
}


def intent(text: str) -> str:
    """What kind of thing the user said: greeting, thanks, bye, question, feeling, statement or empty."""
    text = text.strip()
    if not text:
        return "empty"
    if GREETING.search(text):
        return "greeting"
    if _THANKS.search(text):
        return "thanks"
    if _BYE.search(text):
        return "bye"
    if _QUESTION.search(text):
        return "question"
    if _FEELING.search(text):
        return "feeling"
    return "statement"


def _fill(pair: tuple[str, str], **values: str) -> tuple[str, str] | None:
    if any(f"{{{k}}}" in pair[0] and not v for k, v in values.items()):
        return None  # the variant needs something this persona or place does not have
    return pair[0].format(**values), pair[1].format(**values)


def choose(table: dict[str, list[tuple[str, str]]], kind: str, key: str, **values: str) -> tuple[str, str] | None:
    """A variant of `kind` picked by `key` (persona and context), skipping ones whose blanks stay empty."""
    options = [p for p in (_fill(v, **values) for v in table.get(kind, [])) if p]
    return options[_pick(key, len(options))] if options else None


def scene_line(scene: str, key: str) -> tuple[str, str]:
    """What a persona says on its own turn, from the building's scene (never its headings)."""
    others = re.search(r"ここにいるペルソナ[:：]\s*(.+)", scene)
    names = [n for n in re.split(r"[、,]", others.group(1)) if n and "自分だけ" not in n] if others else []
    items = re.search(r"アイテム[:：]\s*(.+)", scene)
    item = re.sub(r"\([^)]*\)$", "", re.split(r"[、,]", items.group(1))[0]).strip() if items else ""
    user = "ユーザーがここにいます" in scene
    options: list[tuple[str, str]] = []
    if names:
        who = names[_pick(key, len(names))].strip()
        options += [(f"{who}さん、調子はどうですか？", f"{who}、調子はどう？"),
                    (f"{who}さん、少しお話ししませんか？", f"{who}、ちょっと話さない？")]
    if user:
        options += [("何か手伝えることはありますか？", "何か手伝えることある？"),
                    ("今日はゆっくりしていってくださいね", "今日はゆっくりしていって")]
    if item:
        options.append((f"そういえば、「{item}」はもう見ましたか？", f"そういえば、「{item}」はもう見た？"))
    options = options or [("静かでいい時間ですね", "静かでいい時間だね"),
                          ("さて、何をしようかな", "さて、何をしようかな")]
    return options[_pick(key, len(options))]
