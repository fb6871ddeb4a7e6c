"""Router support: the list of router-callable playbooks injected into a schema at run time.

A `response_schema` property written as `{"type": "string", "x-enum-source": "router_playbooks"}`
becomes an `enum` of the router-callable playbook names, with `x-keywords` (names, display names,
declared keywords) so the offline model can choose by keyword and an online model sees each
playbook's description.

A playbook that acts on an item (`acts_on: "item"`) is offered only for a request that names or
points at one: `with_targets` adds, per pulse, `x-targets` (the names of the items here and the
words that point at an item) and says so in the description, so an online router reads the rule and
the offline model applies it (saiverse/llm/schema.py).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from sea.playbook import Playbook

ENUM_SOURCE = "x-enum-source"
ACTS_ON = "x-acts-on"
TARGETS = "x-targets"

POINTERS: dict[str, tuple[str, ...]] = {}
"""By what a playbook acts on (`acts_on`): words that point at one without naming it."""

ITEM_POINTERS = (
    "アイテム", "絵を", "絵は", "絵の", "画像", "写真", "イラスト", "文書", "ドキュメント", "書類", "資料",
    "この本", "その本", "あの本", "本を読", "日記を", "メモを", "手紙を", "ファイル", "PDF",
    "これを", "それを", "あれを", "これは", "これ見", "これ読", "item",
)
"""Words that point at an item without naming it (「この絵を見せて」, 「文書を読んで」): with the names
of the items here, what a request to act on an item must contain. Bound to a particle where the bare
noun hides in other words (本 in 日本, 絵 in 絵本 is a production)."""

BUILDING_POINTERS = ("建物", "部屋に", "部屋へ", "ここを出", "外に出", "外へ")
"""Words that point at a building to go to without naming it."""

POINTERS.update(item=ITEM_POINTERS, building=BUILDING_POINTERS)


def catalogue(playbooks: Sequence[Playbook]) -> str:
    """One line per playbook: name, display name and description (for the router's prompt)."""
    return "\n".join(
        f"- {pb.name}: {pb.display_name or pb.name} — {pb.description}".rstrip(" —") for pb in playbooks
    )


_PREPARED: dict[tuple[str, tuple[Any, ...]], dict[str, Any]] = {}


_SAME: dict[tuple[int, ...], tuple[dict[str, Any], tuple[Playbook, ...], dict[str, Any]]] = {}
"""(id of the schema, ids of the playbooks) → (them, the prepared schema). A loaded playbook and its
node schemas are never changed in place (sea/runtime.py, `compile_playbook`), so the same objects
give the same result without serialising the schema; they are held, so their ids are not reused."""


def prepare_schema(schema: dict[str, Any], playbooks: Sequence[Playbook]) -> dict[str, Any]:
    """A copy of `schema` with every `x-enum-source: router_playbooks` filled in (cached: the same
    node schema and the same catalogue give the same result, and routers run on every pulse)."""
    key = (id(schema), *map(id, playbooks))
    same = _SAME.get(key)
    if same is not None and same[0] is schema and all(a is b for a, b in zip(same[1], playbooks, strict=True)):
        return same[2]
    out = _prepare(schema, playbooks)
    if len(_SAME) > 256:
        _SAME.clear()
    _SAME[key] = (schema, tuple(playbooks), out)
    return out


def _prepare(schema: dict[str, Any], playbooks: Sequence[Playbook]) -> dict[str, Any]:
    text = json.dumps(schema, sort_keys=True, ensure_ascii=False)
    if ENUM_SOURCE not in text:
        return schema
    key = (text, tuple((pb.name, pb.display_name, pb.description, tuple(pb.keywords), pb.acts_on)
                       for pb in playbooks))
    cached = _PREPARED.get(key)
    if cached is not None:
        return cached  # shared: readers never mutate a request schema
    if len(_PREPARED) > 256:
        _PREPARED.clear()
    out = _PREPARED[key] = _fill(copy.deepcopy(schema), playbooks)
    return out


def _fill(out: dict[str, Any], playbooks: Sequence[Playbook]) -> dict[str, Any]:
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get(ENUM_SOURCE) == "router_playbooks":
                node.pop(ENUM_SOURCE)
                node["enum"] = [pb.name for pb in playbooks]
                node["x-keywords"] = {
                    pb.name: [w for w in (pb.name, pb.display_name, *pb.keywords) if w] for pb in playbooks
                }
                acting = {pb.name: pb.acts_on for pb in playbooks if pb.acts_on}
                if acting:
                    node[ACTS_ON] = acting
                listing = catalogue(playbooks)
                node["description"] = (node.get("description", "") + "\n" + listing).strip()
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(out)
    return out


_RULES = {
    "item": "アイテムを見る・編集するプレイブックは、発言がここにあるアイテムの名前を挙げるか「この絵」「文書を」の"
            "ように指すときだけ選ぶ (ここにあるアイテム: {shown})。動詞が同じだけの文 (「星を見るのが好き」) は雑談。",
    "building": "移動のプレイブックは、発言が行き先の建物を名指すときだけ選ぶ (建物: {shown})。",
}
"""The rule in words, for a router that reads (no option named: the offline catalogue would take the
line for the option's description, its names for evidence)."""


def _acts_on_text(schema: dict[str, Any]) -> str:
    """The `x-acts-on` maps of a schema as text ('' when it has none): which kinds it needs."""
    found: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if ACTS_ON in node:
                found.append(node[ACTS_ON])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema)
    return json.dumps(found, ensure_ascii=False) if found else ""


_NAME_WORD = re.compile(r"[\u4e00-\u9fff\u3005]{2,}|[\u30a0-\u30ff\u30fc]{2,}|[A-Za-z0-9]{3,}")
_TARGETED: dict[tuple[int, tuple[str, ...]], tuple[dict[str, Any], dict[str, Any]]] = {}


def with_targets(schema: dict[str, Any], names: Callable[[str], Sequence[str]]) -> dict[str, Any]:
    """`schema` (prepared) with `x-targets` for every option that acts on something: `names(kind)`
    (the items here, the buildings of the city) and their words, and `POINTERS[kind]`; the description
    says the rule and lists the names. Unchanged when no option acts on anything (cached per schema
    object and names)."""
    acting_kinds = sorted({k for k in POINTERS if f'"{k}"' in _acts_on_text(schema)})
    named = {kind: [n for n in dict.fromkeys(names(kind)) if n][:50] for kind in acting_kinds}
    key = (id(schema), tuple((k, tuple(v)) for k, v in named.items()))
    kept = _TARGETED.get(key)
    if kept is not None and kept[0] is schema:
        return kept[1]
    out = copy.deepcopy(schema) if acting_kinds else schema

    def words_for(kind: str) -> list[str]:
        # A name's own words point at it too: 「ガイドを読んで」 for 「SAIVerse使い方ガイド」.
        parts = [w for n in named[kind] for w in _NAME_WORD.findall(n) if w != n]
        return list(dict.fromkeys([*named[kind], *parts, *POINTERS[kind]]))

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            acting = node.pop(ACTS_ON, None)
            if isinstance(acting, dict) and acting:
                node[TARGETS] = {name: words_for(kind) for name, kind in acting.items() if kind in named}
                rules = [_RULES[kind].format(shown="、".join(f"「{n}」" for n in named[kind]) or "なし")
                         for kind in acting_kinds]
                node["description"] = "\n".join([node.get("description", ""), *rules]).strip()
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    if out is not schema:
        walk(out)
    if len(_TARGETED) > 256:
        _TARGETED.clear()
    _TARGETED[key] = (schema, out)
    return out
