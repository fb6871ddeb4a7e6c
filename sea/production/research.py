"""The researcher subgraph: `research_manager` splits the task into queries, `research_worker` runs
them one by one against SAIMemory and the city's documents and pictures (there is no web here),
and `research_report` files the findings as a document item with image candidates.
"""

from __future__ import annotations

import re
import time
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from sea.production.state import ProductionState
from sea.production.workers import step_by_id

_WORDS = re.compile(r"[\u4e00-\u9fff々]{2,}|[\u30a0-\u30ffー]{2,}|[A-Za-z0-9]{3,}|[\u4e00-\u9fff]")
_STOP = {"関係", "記憶", "街", "文書", "集", "絵", "資料", "題材"}
LICENCE = "SAIVerse 内の作品 (この街のローカルな素材。外部への公開は作者に確認)"


def queries_for(topic: str, instruction: str) -> list[str]:
    """The topic itself, then its content words: broad first, narrower after."""
    words = [w for w in _WORDS.findall(topic) if w not in _STOP]
    out = [topic] + [w for w in words if w != topic]
    return list(dict.fromkeys(q for q in out if q.strip()))[:4] or [instruction[:20]]


def _ports(config: RunnableConfig) -> Any:
    return config["configurable"]["production"]


def research_manager(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    step = step_by_id(state, state.get("current_step"))
    topic = state.get("target_scope", {}).get("topic", "") or state.get("request", "")
    return {"research": {"step_id": step["id"], "queries": queries_for(topic, step.get("instruction", "")),
                         "done": 0, "findings": [], "images": []}}


def research_worker(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    ports = _ports(config)
    research = dict(state.get("research") or {})
    query = research["queries"][research["done"]]
    memories = ports.search_memory(query, 3)
    items = ports.search_items(query, 5)
    findings = list(research["findings"])
    known_texts = {f["text"] for f in findings}
    request = state.get("request", "")
    found = [{"query": query, "source": "memory", "text": m.get("content", "")[:120]} for m in memories
             if m.get("content", "").strip() != request.strip()] + [
        {"query": query, "source": f"item:{i['item_id']}", "text": f"{i['name']}: {i.get('description', '')[:100]}"}
        for i in items if i["type"] == "document"]
    for finding in found:  # a line several queries find is one finding
        if finding["text"] not in known_texts:
            known_texts.add(finding["text"])
            findings.append(finding)
    images = list(research["images"])
    known = {c["item_id"] for c in images}
    for i in items:
        if i["type"] == "picture" and i["item_id"] not in known:
            images.append({"item_id": i["item_id"], "name": i["name"], "path": i.get("file_path"),
                           "source": f"SAIVerse アイテム「{i['name']}」({i.get('building_name', '')})",
                           "licence": LICENCE})
    research.update(findings=findings, images=images, done=research["done"] + 1)
    return {"research": research}


def more_queries(state: ProductionState) -> str:
    research = state.get("research") or {}
    return "research_worker" if research.get("done", 0) < len(research.get("queries", [])) else "research_report"


def research_report(state: ProductionState, config: RunnableConfig) -> dict[str, Any]:
    ports = _ports(config)
    research = state.get("research") or {}
    step = step_by_id(state, research.get("step_id"))
    topic = state.get("target_scope", {}).get("topic", "")
    lines = [f"「{topic}」調査メモ", "", f"検索した言葉: {'、'.join(research.get('queries', []))}", ""]
    findings = research.get("findings", [])
    lines += [f"- ({f['source']}) {f['text']}" for f in findings] or ["- 関係する記憶や資料は見つかりませんでした。"]
    images = research.get("images", [])
    if images:
        lines += ["", "画像候補:"] + [
            f"- {c['name']} — {c['path']} / 出典: {c['source']} / {c['licence']}" for c in images]
    text = "\n".join(lines)
    ports.emit({"type": "data-image-search-results", "run_id": ports.run_id, "step_id": step["id"], "results": images})
    item = ports.find_item(step["id"], "notes") or ports.create_document(step["id"], "notes",
                                                                       f"{topic} — 調査メモ".strip(" —"), text)
    artifacts = dict(state.get("artifacts", {}))
    artifacts[f"step{step['id']}"] = {"kind": "document", "item_id": item["item_id"], "name": item["name"],
                                     "summary": item.get("description", ""), "file_path": item.get("file_path"),
                                     "text": text, "images": images, "findings": findings}
    plan = _complete(state, step["id"], f"{len(findings)} 件の記録と {len(images)} 枚の画像候補")
    return {"artifacts": artifacts, "selected_image_inputs": images, "plan": plan}


def _complete(state: ProductionState, step_id: int, summary: str) -> list[dict[str, Any]]:
    plan = [dict(s) for s in state.get("plan", [])]
    for s in plan:
        if s["id"] == step_id:
            s["status"], s["result_summary"], s["finished_at"] = "completed", summary, time.time()
    return plan


def build_research_graph() -> Any:
    """The subgraph added to the production graph as its `researcher` node."""
    g = StateGraph(ProductionState)
    g.add_node("research_manager", research_manager)
    g.add_node("research_worker", research_worker)
    g.add_node("research_report", research_report)
    g.add_edge(START, "research_manager")
    g.add_edge("research_manager", "research_worker")
    g.add_conditional_edges("research_worker", more_queries, ["research_worker", "research_report"])
    g.add_edge("research_report", END)
    return g.compile(name="researcher")
