"""The workers: writer → documents, visualizer → pictures, data_analyst → a packaged bundle + stats.

Each makes real items through `ProductionPorts` (idempotently, keyed by run / step) and reports on
the stream with the `data-*` events (docs/ARCHITECTURE.md, "Events"). No worker executes generated code.
"""

from __future__ import annotations

from typing import Any

from chat import ChatRequest, Message
from sea.production.drafts import STORY_KINDS, draft, scenes
from sea.production.ports import ProductionPorts
from sea.production.state import ProductionState, TaskStep

EXCERPT = 160


def plan_event(ports: ProductionPorts, plan: list[TaskStep], note: str = "") -> None:
    """Report the plan as it stands (`data-plan_update`): each step's status, and when it started and ended."""
    ports.emit({"type": "data-plan_update", "run_id": ports.run_id, "note": note, "plan": [
        {k: s.get(k) for k in ("id", "capability", "title", "instruction", "status", "depends_on", "result_summary",
                               "fallback", "started_at", "finished_at")}
        for s in plan]})


def step_by_id(state: ProductionState, step_id: int | None) -> TaskStep:
    for step in state.get("plan", []):
        if step["id"] == step_id:
            return step
    raise LookupError(f"plan has no step {step_id}")


def dependency_texts(state: ProductionState, step: TaskStep) -> list[str]:
    """Text artifacts of the steps this one depends on (what a writer builds upon)."""
    arts = state.get("artifacts", {})
    return [str(arts[f"step{d}"].get("text", "")) for d in step.get("depends_on", []) if f"step{d}" in arts]


def compose(ports: ProductionPorts, state: ProductionState, step: TaskStep) -> str:
    """The text a writer step produces: the persona's model, or the rule-based draft for a model that
    does not follow instructions."""
    sources = dependency_texts(state, step)
    model = ports.model("normal")
    if not model.follows_instructions:
        return draft(step, state, sources, ports.draft_note(model))
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


MAX_PICTURES = 4
"""A picture book gets one picture per scene of its outline, up to this many (or the pages it asked for)."""


def visualizer(ports: ProductionPorts, state: ProductionState, step: TaskStep) -> dict[str, Any]:
    """Pictures for the step: one per scene of a story's outline (a picture book), else one."""
    scope = state.get("target_scope", {})
    topic = scope.get("topic", "")
    outline = next((t for t in dependency_texts(state, step) if t), "")
    cover = "表紙" in step.get("title", "")
    most = int(scope.get("pages") or MAX_PICTURES)
    parts = scenes(outline)[:most] if scope.get("kind") in STORY_KINDS and not cover else []
    if cover:  # one picture: the cover of the whole work
        wanted = [("image", f"{topic}の表紙。{step.get('instruction', '')}", f"{topic} — 表紙")]
    elif parts:
        wanted = [(f"image-{n}", f"{topic}。{head}: {rest}".rstrip(": "), f"{topic} — {step.get('title', '')} {n}")
                  for n, (head, rest) in enumerate(parts, start=1)]
    else:
        scene = " ".join(outline.splitlines()[1:4])[:120]
        wanted = [("image", f"{topic}。{step.get('instruction', '')}。{scene}".strip("。"),
                   f"{topic} — {step.get('title', '')}".strip(" —"))]
    refs = [c.get("file_path") for c in state.get("selected_image_inputs", [])[:2]]
    items = []
    for key, prompt, name in wanted:
        ports.emit({"type": "data-visual-plan", "run_id": ports.run_id, "step_id": step["id"], "prompt": prompt,
                    "references": refs})
        item = ports.find_item(step["id"], key) or ports.create_picture(step["id"], key, name, prompt)
        ports.emit({"type": "data-visual-image", "run_id": ports.run_id, "step_id": step["id"], "item": item})
        items.append(item)
    return _artifact("picture", items[0], prompt=wanted[0][1], pictures=[
        {"item_id": i["item_id"], "name": i["name"], "file_path": i.get("file_path")} for i in items])


def data_analyst(ports: ProductionPorts, state: ProductionState, step: TaskStep) -> dict[str, Any]:
    """Statistics over the artifacts and a bundle of their files — computed here, never by running code."""
    arts: list[dict[str, Any]] = []
    for _key, a in sorted(state.get("artifacts", {}).items()):
        if a.get("kind") == "document":
            arts.append(a)
        elif a.get("kind") == "picture":  # a step may have drawn several
            arts += [{"kind": "picture", **p} for p in a.get("pictures") or [a]]
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
        [f"「{topic}」制作物一覧", "",
         f"文書 {stats['documents']} 点 / 絵 {stats['pictures']} 点 / 本文 {stats['characters']} 文字", ""]
        + [f"- [{a['kind']}] {a['name']} ({a.get('file_path')})" for a in arts])
    item = ports.find_item(step["id"], "bundle") or ports.package(
        step["id"], "bundle", f"{topic} — 制作物一式".strip(" —"), [a["item_id"] for a in arts], manifest)
    ports.emit({"type": "data-analyst-package", "run_id": ports.run_id, "step_id": step["id"], "item": item})
    return _artifact("bundle", item, stats=stats, text=manifest)
