"""item_use: apply an effect to an item — update its description, or patch a document's text."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolArgumentError, ToolError, tool

ACTIONS = ("update_description", "patch_content")


def _parse(action_json: Any) -> dict[str, Any]:
    if isinstance(action_json, dict):
        return action_json
    try:
        action = json.loads(action_json)
    except (TypeError, json.JSONDecodeError) as exc:
        raise ToolArgumentError(
            f"tool 'item_use': action_json is not valid JSON ({getattr(exc, 'msg', exc)}); expected e.g. "
            '{"action_type": "update_description", "description": "..."}'
        ) from exc
    if not isinstance(action, dict):
        raise ToolArgumentError("tool 'item_use': action_json must be a JSON object")
    return action


@tool("item_use")
def item_use(
    ctx: ToolContext,
    item_id: Annotated[str, Field(description="Identifier of the item to use.")],
    action_json: Annotated[str | dict[str, Any], Field(description="JSON (string or object) with action details.")],
) -> str:
    """Use an item to apply effects. action_json: {"action_type": "update_description", "description": "..."}
    for any item, or {"action_type": "patch_content", "patch": "..."} for documents (a unified diff is
    applied; other text is appended).
    """
    action = _parse(action_json)
    kind = action.get("action_type")
    if kind not in ACTIONS:
        raise ToolArgumentError(f"tool 'item_use': action_type must be one of {', '.join(ACTIONS)}, got {kind!r}")
    item = ctx.item(item_id.strip())
    if kind == "update_description":
        text = action.get("description")
        if not isinstance(text, str) or not text.strip():
            raise ToolArgumentError("tool 'item_use': update_description needs a non-empty \"description\"")
        updated = ctx.update_description(item["item_id"], text)
        return f"「{updated['name']}」の説明を更新しました: {updated['description']}"
    if item["type"] != "document":
        raise ToolError(f"「{item['name']}」は文書ではないので patch_content は使えません ({item['type']})。")
    patch = action.get("patch")
    if not isinstance(patch, str) or not patch.strip():
        raise ToolArgumentError("tool 'item_use': patch_content needs a non-empty \"patch\"")
    updated, how = ctx.patch_document(item["item_id"], patch)
    verb = "差分を適用しました" if how == "diff" else "追記しました"
    return f"文書「{updated['name']}」に{verb}。新しい要約: {updated['description']}"
