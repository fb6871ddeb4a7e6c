"""ui/_gradio_compat.py's quiet_queue on real Gradio over HTTP: a hidden-progress event gets no queue-place or start
message, and still every update and its end; an event that shows progress gets them all as before."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import gradio as gr
import httpx
import pytest

from tests.support.browser import free_port
from ui._gradio_compat import quiet_hidden_progress


def count_to(n: float) -> Iterator[str]:
    for i in range(int(n)):
        yield f"{i + 1}"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, dict[str, int]]]:
    quiet_hidden_progress()
    quiet_hidden_progress()  # a second window in the same process: installed once
    with gr.Blocks(analytics_enabled=False) as demo:
        n = gr.Number(3)
        hidden_out = gr.Textbox()
        shown_out = gr.Textbox()
        hidden_btn = gr.Button("hidden")
        shown_btn = gr.Button("shown")
        hidden_btn.click(count_to, n, hidden_out, show_progress="hidden", api_name="hidden")
        shown_btn.click(count_to, n, shown_out, show_progress="full", api_name="shown")
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    fns = {d["api_name"]: d["id"] for d in demo.config["dependencies"] if d.get("api_name")}
    try:
        yield f"http://127.0.0.1:{port}/gradio_api", fns
    finally:
        demo.close()


def run_event(base: str, fn_index: int) -> list[dict[str, Any]]:
    """Join the queue and read the event's messages off the session's stream up to its end."""
    session = uuid.uuid4().hex
    with httpx.Client(timeout=30) as client:
        joined = client.post(f"{base}/queue/join", json={
            "data": [3], "fn_index": fn_index, "session_hash": session, "event_data": None, "trigger_id": None})
        joined.raise_for_status()
        event_id = joined.json()["event_id"]
        messages: list[dict[str, Any]] = []
        with client.stream("GET", f"{base}/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                msg = json.loads(line[5:])
                if msg.get("event_id") == event_id:
                    messages.append(msg)
                if msg.get("msg") in ("process_completed", "close_stream"):
                    break
    return messages


def test_hidden_progress_event_has_no_queue_place_or_start_but_every_update(served: Any) -> None:
    base, fns = served
    messages = run_event(base, fns["hidden"])
    kinds = [m["msg"] for m in messages]
    assert "estimation" not in kinds and "process_starts" not in kinds
    updates = [m["output"]["data"][0] for m in messages if m["msg"] == "process_generating"]
    assert updates[0] == "1" and "3" in json.dumps(updates)
    assert kinds[-1] == "process_completed" and messages[-1]["success"] is True


def test_event_showing_progress_keeps_its_messages(served: Any) -> None:
    base, fns = served
    kinds = [m["msg"] for m in run_event(base, fns["shown"])]
    assert kinds[0] == "estimation" and "process_starts" in kinds
    assert "process_generating" in kinds and kinds[-1] == "process_completed"
