"""The workers: writer → documents, visualizer → pictures, data_analyst → a packaged bundle + stats.

Each makes real items through `ProductionPorts` (idempotently, keyed by run / step) and reports on
the stream with the spec's `data-*` event names. No worker executes generated code.
"""

from __future__ import annotations

import re
from typing import Any

from chat import ChatRequest, Message
from sea.production.ports import ProductionPorts
from sea.production.state import ProductionState, TaskStep

EXCERPT = 160


def step_by_id(state: ProductionState, step_id: int | None) -> TaskStep:
    for step in state.get("plan", []):
        if step["id"] == step_id:
            return step
    raise LookupError(f"plan has no step {step_id}")


def dependency_texts(state: ProductionState, step: TaskStep) -> list[str]:
    """Text artifacts of the steps this one depends on (what a writer builds upon)."""
    arts = state.get("artifacts", {})
    return [str(arts[f"step{d}"].get("text", "")) for d in step.get("depends_on", []) if f"step{d}" in arts]


def offline_draft(step: TaskStep, topic: str, sources: list[str]) -> str:
    """What the embedded offline model writes for a step: structured, on topic, from its sources."""
    title = step.get("title", "")
    lines = [ln.strip("-・ ") for src in sources for ln in src.splitlines() if ln.strip()]
    hero = topic.split("の")[0] if "の" in topic else topic
    facts = [ln.split(") ", 1)[1] for ln in lines if ln.startswith("(") and ") " in ln][:3]
    if "あらすじ" in title or "構成" in title or "登場人物" in title:
        body = [f"「{topic}」{title}", "", "登場人物:", f"- {hero}: この物語の主人公。好奇心が強い。",
                "- 旅の仲間: 道で出会う友だち。", "", "あらすじ:",
                f"1. はじまり — {hero}は、いつもの場所を出て旅に出る。",
                f"2. 出会い — {hero}は旅の仲間と出会い、困りごとを知る。",
                f"3. 試練 — {hero}と仲間は力を合わせて困難を乗り越える。",
                f"4. おわり — {hero}は家に帰り、旅のことを思い出す。"]
    else:
        scenes = [re.sub(r"^\d+\.\s*", "", ln) for ln in lines if re.match(r"^\d+\.", ln)]
        body = [f"「{topic}」{title}", ""]
        for n, scene in enumerate(scenes or [f"{topic}のお話"], start=1):
            head, _, rest = scene.partition(" — ")
            body += [f"ページ{n} {head}".rstrip(), f"{rest or scene}", ""]
    if facts:
        body += ["参考にした記録:"] + [f"- {f}" for f in facts] + [""]
    body += [f"指示: {step.get('instruction', '')}", "（オフラインモデルで作成しました）"]
    return "\n".join(body)


def compose(ports: ProductionPorts, state: ProductionState, step: TaskStep) -> str:
    """The text a writer step produces: the persona's model, or the offline draft."""
    topic = state.get("target_scope", {}).get("topic", "")
    sources = dependency_texts(state, step)
    model = ports.model("normal")
    if model.provider == "offline":
        return offline_draft(step, topic, sources)
    prompt = (f"依頼: {state.get('request', '')}\n作業: {step.get('title')} — {step.get('instruction')}\n\n"
              + ("これまでの成果:\n" + "\n---\n".join(sources) if sources else "")
              + "\n\nこの作業の成果物の本文だけを書いてください。")
    result = model.generate(ChatRequest(messages=[Message(role="user", content=prompt)], system=ports.system_prompt()))
    if not result.text.strip():
        raise RuntimeError("モデルが空の文章を返しました")
    return result.text


def _artifact(kind: str, item: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "item_id": item["item_id"], "name": item["name"], "summary": item.get("description", ""),
            "file_path": item.get("file_path"), **extra}


def writer(ports: ProductionPorts, state: ProductionState, step: TaskStep) -> dict[str, Any]:
    topic = state.get("target_scope", {}).get("topic", "")
    item = ports.find_item(step["id"], "text")
    text = compose(ports, state, step) if item is None else None
    if item is None:
        item = ports.create_document(step["id"], "text", f"{topic} — {step.get('title', '')}".strip(" —"), text or "")
    art = _artifact("document", item, text=text if text is not None else item.get("text", ""))
    ports.emit({"type": "data-writer-output", "run_id": ports.run_id, "step_id": step["id"], "item": item,
                "excerpt": (art["text"] or "")[:EXCERPT]})
    return art


def visualizer(ports: ProductionPorts, state: ProductionState, step: TaskStep) -> dict[str, Any]:
    topic = state.get("target_scope", {}).get("topic", "")
    outline = next((t for t in dependency_texts(state, step) if t), "")
    scene = " ".join(outline.splitlines()[1:4])[:120]
    prompt = f"{topic}。{step.get('instruction', '')}。{scene}".strip("。")
    refs = [c.get("file_path") for c in state.get("selected_image_inputs", [])[:2]]
    ports.emit({"type": "data-visual-plan", "run_id": ports.run_id, "step_id": step["id"], "prompt": prompt,
                "references": refs})
    item = ports.find_item(step["id"], "image") or ports.create_picture(
        step["id"], "image", f"{topic} — {step.get('title', '')}".strip(" —"), prompt)
    ports.emit({"type": "data-visual-image", "run_id": ports.run_id, "step_id": step["id"], "item": item})
    return _artifact("picture", item, prompt=prompt)


def data_analyst(ports: ProductionPorts, state: ProductionState, step: TaskStep) -> dict[str, Any]:
    """Statistics over the artifacts and a bundle of their files — computed here, never by running code."""
    arts = [a for k, a in sorted(state.get("artifacts", {}).items()) if a.get("kind") in ("document", "picture")]
    docs = [a for a in arts if a["kind"] == "document"]
    stats = {
        "documents": len(docs), "pictures": len(arts) - len(docs),
        "characters": sum(len(a.get("text") or "") for a in docs),
        "lines": sum(len((a.get("text") or "").splitlines()) for a in docs),
        "per_document": {a["name"]: len(a.get("text") or "") for a in docs},
    }
    ports.emit({"type": "data-analyst-stats", "run_id": ports.run_id, "step_id": step["id"], "stats": stats})
    topic = state.get("target_scope", {}).get("topic", "")
    manifest = "\n".join(
        [f"「{topic}」制作物一覧", f"依頼: {state.get('request', '')}", "",
         f"文書 {stats['documents']} 点 / 絵 {stats['pictures']} 点 / 本文 {stats['characters']} 文字", ""]
        + [f"- [{a['kind']}] {a['name']} ({a.get('file_path')})" for a in arts])
    item = ports.find_item(step["id"], "bundle") or ports.package(
        step["id"], "bundle", f"{topic} — 制作物一式".strip(" —"), [a["item_id"] for a in arts], manifest)
    ports.emit({"type": "data-analyst-package", "run_id": ports.run_id, "step_id": step["id"], "item": item})
    return _artifact("bundle", item, stats=stats, text=manifest)
