"""The planner: one canonical plan, made once at the start of a run.

A model that follows instructions (`ChatModel.follows_instructions`) is asked for the plan as JSON
(checked; a bad plan falls back to the template with a notice). Otherwise the plan comes from
templates chosen by the kind of product the request names (絵本, 資料, リスト, …).
"""

from __future__ import annotations

import re
from typing import Any

from chat import ChatModel, ChatRequest, LLMError, Message
from chat.titles import GENERIC_NOUNS, TITLE_LIMIT, RequestParts, request_clause, request_parts, request_title
from sea.production.state import CAPABILITIES, TargetScope, TaskStep

PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"title": {"type": "string", "maxLength": 20,
                             "description": "作るものの短い題名 (20 字以内、依頼文を繰り返さない)"},
                   "steps": {"type": "array", "minItems": 1, "maxItems": 8, "items": {
        "type": "object",
        "properties": {
            "capability": {"type": "string", "enum": list(CAPABILITIES)},
            "title": {"type": "string"}, "instruction": {"type": "string"},
            "depends_on": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["capability", "title", "instruction"],
    }}},
    "required": ["steps"],
}

_TEMPLATES: dict[str, list[tuple[str, str, str, list[int]]]] = {
    # kind: [(capability, title, instruction, depends_on)]
    "絵本": [
        ("researcher", "題材集め", "「{topic}」に関係する記憶と、街にある文書や絵を集める", []),
        ("writer", "あらすじと登場人物", "絵本「{topic}」のあらすじと登場人物を考える", [1]),
        ("writer", "本文", "絵本「{topic}」の各ページの文章を書く", [2]),
        ("visualizer", "挿絵", "絵本「{topic}」の場面ごとの絵を描く", [2]),
        ("data_analyst", "製本", "本文と挿絵をひとつにまとめ、文字数などの統計を出す", [3, 4]),
    ],
    "物語": [
        ("researcher", "題材集め", "「{topic}」に関係する記憶と、街にある文書を集める", []),
        ("writer", "あらすじと登場人物", "物語「{topic}」のあらすじと登場人物を考える", [1]),
        ("writer", "本文", "物語「{topic}」を章ごとに書く", [2]),
        ("data_analyst", "まとめ", "物語をひとつにまとめ、文字数などの統計を出す", [3]),
    ],
    "リスト": [
        ("researcher", "下調べ", "「{topic}」に当てはまるものを記憶と街の資料から集める", []),
        ("writer", "リスト", "「{topic}」のリストを作る", [1]),
        ("data_analyst", "まとめ", "リストをまとめ、統計を出す", [2]),
    ],
    "資料": [
        ("researcher", "下調べ", "「{topic}」について記憶と街の資料を集める", []),
        ("writer", "構成", "資料「{topic}」の章立てを考える", [1]),
        ("writer", "本文", "資料「{topic}」の本文を書く", [2]),
        ("data_analyst", "まとめ", "資料をひとつにまとめ、統計を出す", [3]),
    ],
    "作品": [
        ("writer", "構成", "「{topic}」の構成を考える", []),
        ("writer", "本文", "「{topic}」の本文を書く", [1]),
        ("visualizer", "挿絵", "「{topic}」の絵を描く", [1]),
        ("data_analyst", "まとめ", "作品をひとつにまとめ、統計を出す", [2, 3]),
    ],
}
KINDS: list[tuple[str, tuple[str, ...]]] = [
    ("絵本", ("絵本",)),
    ("物語", ("物語", "童話", "お話", "おはなし", "小説")),
    ("リスト", ("リスト", "一覧")),
    ("資料", ("資料", "レポート", "報告書", "まとめ", "ガイド")),
]
"""Kind of product → the words of a request that name it (first match wins; otherwise 作品)."""
_ONLY_A_WORD = re.compile(r"[ぁ-んァ-ヶー一-龠]{0,3}(い|な|の)")
"""An adjective or a bare modifier (短い, 小さな): not a topic by itself."""
_VERBS = r"(を|の)?(作って|制作して|つくって|書いて|作成して|まとめて)(ください)?$"


def request_kind(request: str) -> str | None:
    """The kind of product a request names (絵本, 物語, リスト, 資料), or None."""
    return next((k for k, words in KINDS if any(w in request for w in words)), None)


def read_request(request: str) -> tuple[str, str]:
    """(kind, topic) of a request like `絵本を作って: 猫の冒険` or `港の灯台のレポートを書いて`.

    Only the clause that asks is read (`短い絵本を作って。表紙の絵と3ページの文章` → 短い絵本; the parts
    are `request_parts`'); a topic that is only a word like 短い keeps its kind (短い絵本)."""
    kind = request_kind(request) or "作品"
    head, sep, tail = request.partition(":") if ":" in request else request.partition("：")
    if sep and tail.strip():
        topic = tail.strip()
    else:
        head = request_clause(head)
        topic = re.sub(_VERBS, "", head.strip())
    words = "|".join(w for _, ws in KINDS for w in ws) + "|作品"
    phrase = topic.strip(" 「」")
    topic = re.sub(rf"^({words})(を|の)?", "", topic)
    topic = re.sub(rf"(の)?({words})$", "", topic).strip(" 「」")
    if not topic or _ONLY_A_WORD.fullmatch(topic):
        topic = phrase if phrase and phrase not in GENERIC_NOUNS else request_title(request) or request.strip()
    return kind, topic[:60]


def _step(i: int, cap: str, title: str, instruction: str, deps: list[int], scope: TargetScope) -> TaskStep:
    return TaskStep(
        id=i, capability=cap, instruction=instruction, title=title, fallback=[],  # type: ignore[typeddict-item]
        depends_on=list(deps), target_scope=scope, status="pending", result_summary=None, attempts=0,
    )


def _scope(request: str, scope: TargetScope) -> TargetScope:
    kind, topic = read_request(request)
    parts = request_parts(request)
    extra: dict[str, Any] = {"topic": topic, "kind": kind}
    if parts.pages is not None:
        extra["pages"] = parts.pages
    return TargetScope(**{**scope, **extra})  # type: ignore[typeddict-item]


def _picture_book(parts: RequestParts) -> list[tuple[str, str, str, list[int]]]:
    """A picture book's steps when the request names its parts: the pages it asks for, a cover step
    when it asks for a cover, a picture per page only when it asks for those (or names no picture)."""
    pages = f"全{parts.pages}ページ" if parts.pages else "各ページ"
    steps: list[tuple[str, str, str, list[int]]] = [
        ("researcher", "題材集め", "「{topic}」に関係する記憶と、街にある文書や絵を集める", []),
        ("writer", "あらすじと登場人物", f"絵本「{{topic}}」のあらすじと登場人物を考える ({pages})", [1]),
        ("writer", "本文", f"絵本「{{topic}}」の文章を書く ({pages})", [2]),
    ]
    if parts.cover:
        steps.append(("visualizer", "表紙", "絵本「{topic}」の表紙の絵を描く", [2]))
    if parts.illustrations or not parts.cover:
        steps.append(("visualizer", "挿絵", f"絵本「{{topic}}」の場面ごとの絵を描く ({pages})", [2]))
    steps.append(("data_analyst", "製本", "本文と絵をひとつにまとめ、文字数などの統計を出す",
                  list(range(3, len(steps) + 1))))
    return steps


def template_plan(request: str, scope: TargetScope) -> list[TaskStep]:
    """The plan for a request from the template of its kind, following the parts and counts it names."""
    scope = _scope(request, scope)
    kind, topic = scope["kind"], scope["topic"]
    parts = request_parts(request)
    template = _picture_book(parts) if kind == "絵本" and parts.named else _TEMPLATES[kind]
    return [_step(i, cap, title, instr.format(topic=topic), deps, scope)
            for i, (cap, title, instr, deps) in enumerate(template, start=1)]


def model_plan(model: ChatModel, system: str, request: str, scope: TargetScope) -> list[TaskStep] | None:
    """The model's plan, or None when it gives nothing usable (the caller falls back)."""
    prompt = (f"依頼: {request}\n\n次の作業者で実行する計画を立ててください: writer (文章), "
              "researcher (記憶と街の資料の調査), visualizer (絵), data_analyst (まとめ・統計)。"
              "depends_on は先に終わるべきステップ番号 (1 始まり)。依頼がページ数や表紙などの部分を"
              "指定していれば、その数と部分のとおりにしてください。全体の title は作るものの題名 (20 字以内)、"
              "各ステップの title は短い作業名 (どちらも依頼文を繰り返さない)。")
    try:
        result = model.generate(ChatRequest(messages=[Message(role="user", content=prompt)], system=system,
                                             response_schema=PLAN_SCHEMA))
    except LLMError:
        return None
    steps = (result.data or {}).get("steps") if isinstance(result.data, dict) else None
    if not steps:
        return None
    scope = _scope(request, scope)
    title = " ".join(str(result.data.get("title") or "").split())  # type: ignore[union-attr]
    if 0 < len(title) <= TITLE_LIMIT and title != request.strip():
        scope = TargetScope(**{**scope, "topic": title})  # the model's title names the items; else the rule's
    plan = []
    for i, s in enumerate(steps, start=1):
        deps = [d for d in s.get("depends_on", []) if isinstance(d, int) and 0 < d < i]
        plan.append(_step(i, s["capability"], s["title"], s["instruction"], deps, scope))
    return plan
