"""generate_image: draw a picture and hang it in the current building as a picture item.

Upstream's arguments are accepted. The picture is drawn by the persona's own image model (offline:
procedurally); upstream's `model` and `quality` name cloud models this install does not choose
between, so they are only recorded with the picture. `aspect_ratio` crops the drawing to that shape,
`title` names the picture, and `input_images` (picture item ids) are described in the prompt.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field

from tools.context import ToolContext
from tools.registry import ToolError, tool

Model = Literal["nano_banana_2", "nano_banana_pro", "gpt_image_1_5", "grok_imagine"]
Aspect = Literal["1:1", "16:9", "9:16", "4:3", "3:4", "2:3", "3:2", "4:5", "5:4", "1:4", "4:1", "1:8", "8:1", "21:9"]
Quality = Literal["low", "medium", "high", "auto"]
_ITEM_URI = re.compile(r"^saiverse://item/([^/]+)(?:/image)?$")


def _references(ctx: ToolContext, refs: list[str]) -> list[dict[str, Any]]:
    found = []
    for ref in refs:
        m = _ITEM_URI.match(ref.strip())
        item = ctx.item(m.group(1) if m else ref.strip())
        if item["type"] != "picture":
            raise ToolError(f"「{item['name']}」は絵ではないので参考画像にできません ({item['type']})。")
        found.append(item)
    return found


@tool("generate_image")
def generate_image(
    ctx: ToolContext,
    prompt: Annotated[str, Field(description="What to draw.")],
    model: Annotated[Model, Field(description="Upstream's image model name; here your own image model draws.")]
    = "nano_banana_2",
    aspect_ratio: Annotated[Aspect | None, Field(description="Shape of the picture; omit to keep the model's.")]
    = None,
    quality: Annotated[Quality, Field(description="Upstream's quality setting (recorded with the picture).")]
    = "high",
    title: Annotated[str | None, Field(description="Name of the picture item (default: from the prompt).")] = None,
    input_images: Annotated[tuple[str, ...], Field(
        description="Picture item ids to draw from (their descriptions are added to the prompt).")] = (),
) -> tuple[str, str, str, dict[str, Any]]:
    """Generate an image from a prompt; it becomes a picture item in your current building.

    Returns (text, snippet, file_path, metadata): the node's `output_keys`.
    """
    prompt = prompt.strip()
    if not prompt:
        raise ToolError("何を描くかが空です。")
    references = _references(ctx, list(input_images))
    full = prompt + "".join(f"\n参考画像「{r['name']}」: {r['description']}" for r in references)
    state = {"requested_model": model, "quality": quality,
             **({"input_images": [r["item_id"] for r in references]} if references else {})}
    item = ctx.generate_picture(full, name=title, aspect_ratio=aspect_ratio, state=state)
    text = f"絵「{item['name']}」を描いて飾りました (item_id: {item['item_id']})。{item['description']}"
    snippet = f"[picture:{item['item_id']}] {item['name']}"
    return text, snippet, item["file_path"], {"item_id": item["item_id"], "prompt": prompt, **item["state"]}
