"""Continuing a reply that stopped (upstream's 「続きの生成」): a reply cut by the answer length (the
providers' `length` / `max_tokens` on the wire) or by the user's stop is kept as a cut line, and
`continue_reply` writes on from where it stopped into that same line and the same remembered answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Generator
from typing import Any

from chat import CUT_LENGTH, ChatRequest
from saiverse.llm.anthropic_sdk import AnthropicModel
from saiverse.llm.openai_sdk import OpenAIModel
from saiverse.llm.retry import RetryPolicy
from saiverse.manager import SAIVerseManager
from tests.support.fakes_llm import FakeServer, anthropic_stream, openai_stream
from tests.support.models import CuttingModel

KEY = "sk-fake-secret-0123456789abcdef"


def _stream_all(gen: Generator[str, None, str | None]) -> tuple[str, str | None]:
    parts: list[str] = []
    while True:
        try:
            parts.append(next(gen))
        except StopIteration as end:
            return "".join(parts), end.value


def test_openai_and_anthropic_streams_say_when_the_answer_length_cut_them() -> None:
    with FakeServer() as fake:
        cut = openai_stream(["星は", "遠い。"])
        cut.sse = [e.replace('"finish_reason": "stop"', '"finish_reason": "length"') for e in cut.sse or []]
        fake.queue(cut, openai_stream(["おしまい。"]))
        m = OpenAIModel("openai:x", model_id="x", base_url=f"{fake.url}/v1", api_key=KEY, timeout=5,
                        retry=RetryPolicy(attempts=1), compatible=True)
        try:
            assert _stream_all(m.stream(ChatRequest(messages=[{"role": "user", "content": "話して"}]))) == \
                ("星は遠い。", CUT_LENGTH)
            assert _stream_all(m.stream(ChatRequest(messages=[{"role": "user", "content": "話して"}]))) == \
                ("おしまい。", None)
        finally:
            m.close()
    with FakeServer() as fake:
        cut = anthropic_stream(["月が", "きれい"])
        cut.events = [(n, d.replace('"stop_reason": "end_turn"', '"stop_reason": "max_tokens"'))
                      if n == "message_delta" else (n, d) for n, d in cut.events or []]
        fake.queue(cut)
        a = AnthropicModel("claude-x", model_id="claude-x", api_key=KEY, base_url=fake.url, timeout=5,
                           retry=RetryPolicy(attempts=1))
        try:
            assert _stream_all(a.stream(ChatRequest(messages=[{"role": "user", "content": "話して"}]))) == \
                ("月がきれい", CUT_LENGTH)
        finally:
            a.close()


def _mina_memory(manager: SAIVerseManager) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in manager.memory_messages("mina", limit=500)]


def test_a_reply_cut_by_the_answer_length_is_continued_into_the_same_line(
        make_manager: Callable[..., SAIVerseManager]) -> None:
    model = CuttingModel(follows_instructions=False)
    manager = make_manager(model)
    model.cut.add("星座の話をしましょう。まずオリオン座は")
    model.enqueue(data={"playbook": "basic_chat", "args": {}})  # the router's choice
    model.enqueue("星座の話をしましょう。まずオリオン座は", when="星の話をして")
    list(manager.handle_user_input("library", "星の話をして", persona_id="mina"))
    line = manager.history("library", limit=1)[-1]
    assert (line.speaker_id, line.content, line.cut) == ("mina", "星座の話をしましょう。まずオリオン座は", "length")

    model.enqueue("冬の夜空でいちばん目立ちます。", when="途切れた")
    events = list(manager.continue_reply("library"))
    assert events[-1]["type"] == "continued"
    whole = "星座の話をしましょう。まずオリオン座は冬の夜空でいちばん目立ちます。"
    assert events[-1]["text"] == whole and "cut" not in events[-1]
    asked = model.history[-1].messages
    # The model saw its cut answer as its own last words, then the request to go on from there.
    assert asked[-2] == {"role": "assistant", "content": "星座の話をしましょう。まずオリオン座は"}
    assert "途切れた" in asked[-1]["content"]
    lines = manager.history("library", limit=50)
    assert (lines[-1].id, lines[-1].content, lines[-1].cut) == (line.id, whole, "")
    assert [e.content for e in lines].count(whole) == 1 and lines[-2].content == "星の話をして"
    memory = _mina_memory(manager)
    assert memory[-2:] == [("user", "星の話をして"), ("assistant", whole)]  # one answer, the whole of it

    events = list(manager.continue_reply("library"))  # it is whole now: nothing to continue
    assert events[-1]["type"] == "error" and "途中で止まった" in events[-1]["message"]


def test_a_reply_the_user_stopped_stays_and_is_continued(make_manager: Callable[..., SAIVerseManager]) -> None:
    model = CuttingModel(follows_instructions=False, chunk_delay=0.05)
    manager = make_manager(model)
    long = "むかしむかし、ある山に小さな天文台がありました。" * 6
    model.enqueue(data={"playbook": "basic_chat", "args": {}})  # the router's choice
    model.enqueue(long, when="お話をして")
    events: list[dict[str, Any]] = []
    started = threading.Event()

    def talk() -> None:
        for ev in manager.handle_user_input("library", "お話をして", persona_id="mina"):
            events.append(ev)
            if ev["type"] == "speak_chunk" and len([e for e in events if e["type"] == "speak_chunk"]) >= 3:
                started.set()

    worker = threading.Thread(target=talk)
    worker.start()
    assert started.wait(20)
    manager.cancel_pulses("library")  # ■停止
    worker.join(20)
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "cancelled"
    said = next(e for e in events if e["type"] == "speak")
    assert said["cut"] == "stopped" and long.startswith(said["text"]) and said["text"] != long
    line = manager.history("library", limit=1)[-1]
    assert (line.content, line.cut) == (said["text"], "stopped")
    assert _mina_memory(manager)[-2:] == [("user", "お話をして"), ("assistant", said["text"])]

    model.chunk_delay = 0.0
    model.enqueue("天文台には星の好きな猫が住んでいました。", when="途切れた")
    done = list(manager.continue_reply("library"))[-1]
    assert done["type"] == "continued" and done["history_id"] == line.id
    assert done["text"] == said["text"] + "天文台には星の好きな猫が住んでいました。"
    assert manager.history("library", limit=1)[-1].content == done["text"]
    assert _mina_memory(manager)[-1] == ("assistant", done["text"])
    assert json.dumps(done, ensure_ascii=False)  # an event is plain data (the CLI prints it as JSON)
