"""Structured output against servers that each take it differently, negotiated once per server.

OpenAI-compatible servers differ in what they accept for "answer as this JSON schema":
1. `json_schema` — `response_format: {"type": "json_schema", …}` (OpenAI, vLLM, LM Studio, Ollama);
2. `json_object` — `response_format: {"type": "json_object", "schema": …}` (llama-cpp-python's server
   turns the schema into a grammar; others at least return JSON), the schema also in the instructions;
3. `tool` — a forced call of one tool whose parameters are the schema;
4. `prompt` — the schema in the instructions only.
Whatever mode answers, the JSON is validated and a wrong answer gets one repair try (the answer and
what is wrong with it are sent back). A server that rejects a mode as invalid (sdk_errors) makes it
step down to the next; the mode that worked is remembered per server for the life of the process.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from chat import ChatRequest, ChatResult, Message, ToolCall
from saiverse.llm.retry import invalid_json_error
from saiverse.llm.schema import drop_added_nulls, parse_json_text, validate

log = logging.getLogger(__name__)

MODES = ("json_schema", "json_object", "tool", "prompt")
"""Structured-output modes, best first."""
ANSWER_TOOL = "answer"
"""The tool a `tool`-mode request forces; its arguments are the answer."""


class ModeMemory:
    """Which structured-output mode works for each server (base URL), learnt by trying."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._modes: dict[str, int] = {}

    def mode(self, server: str) -> str:
        """The best mode not yet refused by `server`."""
        with self._lock:
            return MODES[self._modes.get(server, 0)]

    def refused(self, server: str, mode: str) -> str | None:
        """`server` refused `mode`: the next mode to try (remembered), None when none is left."""
        with self._lock:
            index = MODES.index(mode) + 1
            if index >= len(MODES):
                return None
            self._modes[server] = max(self._modes.get(server, 0), index)
            log.info("%s refused structured output as %s; using %s from now on", server, mode, MODES[index])
            return MODES[self._modes[server]]

    def forget(self) -> None:
        """Forget every server (tests)."""
        with self._lock:
            self._modes.clear()


SERVER_MODES = ModeMemory()
"""The process-wide memory of what each OpenAI-compatible server accepts."""


def strict_ok(schema: Any) -> bool:
    """Whether OpenAI's strict mode can take the schema: every object lists its properties."""
    if isinstance(schema, dict):
        typ = schema.get("type")
        if (typ == "object" or (isinstance(typ, list) and "object" in typ)) and not schema.get("properties"):
            return False
        return all(strict_ok(v) for k, v in schema.items() if not str(k).startswith("x-"))
    if isinstance(schema, list):
        return all(strict_ok(v) for v in schema)
    return True


def unwrap_answer_tool(text: str, calls: list[ToolCall], mode: str | None) -> tuple[str, list[ToolCall]]:
    """In `tool` mode the answer arrives as a call of ANSWER_TOOL: its arguments are the answer's JSON text."""
    if mode == "tool" and calls and calls[0].get("name") == ANSWER_TOOL:
        return json.dumps(calls[0].get("arguments") or {}, ensure_ascii=False), []
    return text, calls


def schema_text(schema: dict[str, Any]) -> str:
    """The schema as compact JSON without this project's `x-` extensions, for instructions."""
    def clean(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: clean(v) for k, v in node.items() if not str(k).startswith("x-")}
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node
    return json.dumps(clean(schema), ensure_ascii=False)


def instructions(schema: dict[str, Any]) -> str:
    """What a model told the schema in words reads (modes `json_object` and `prompt`)."""
    return ("次の JSON スキーマに合う JSON オブジェクトだけを答えてください。"
            "説明の文やコードブロックは付けないでください。\n"
            f"JSON Schema: {schema_text(schema)}")


def with_instructions(request: ChatRequest) -> ChatRequest:
    """`request` with the schema instructions appended to its system prompt."""
    assert request.response_schema is not None
    system = "\n\n".join(p for p in (request.system, instructions(request.response_schema)) if p)
    return replace(request, system=system)


def repair_request(request: ChatRequest, answer: str, problems: list[str]) -> ChatRequest:
    """The request asking the model to correct `answer` (its JSON did not fit the schema)."""
    fix = Message(role="user", content=(
        "この回答はスキーマに合っていません: " + "; ".join(problems[:5]) +
        "\nスキーマに合う JSON オブジェクトだけを、もう一度答えてください。"))
    return replace(request, messages=[*request.messages, Message(role="assistant", content=answer), fix])


def checked(result: ChatResult, schema: dict[str, Any], *, strict: bool) -> list[str]:
    """Parse and validate `result.text` into `result.data`; the problems found (empty: valid)."""
    try:
        data = parse_json_text(result.text)
    except ValueError as exc:
        return [f"JSON として読めません: {getattr(exc, 'msg', exc)}"]
    if strict:
        data = drop_added_nulls(data, schema)
    problems = validate(data, schema)
    if not problems:
        result.data = data
    return problems


def answer_json(call: Callable[[ChatRequest], ChatResult], request: ChatRequest, *,
                strict: bool = False) -> ChatResult:
    """Call, validate the JSON answer against `request.response_schema`, and repair once if wrong.

    `strict`: the schema was sent through `strict_schema` (optional fields may come back null).
    Raises `invalid_json` when the repaired answer is still wrong.
    """
    schema = request.response_schema
    result = call(request)
    if schema is None or result.tool_calls:
        return result
    problems = checked(result, schema, strict=strict)
    if not problems:
        return result
    log.info("model answered JSON that does not fit the schema (%s); asking it to repair", problems[:1])
    repaired = call(repair_request(request, result.text, problems))
    if repaired.tool_calls:
        return repaired
    problems = checked(repaired, schema, strict=strict)
    if problems:
        raise invalid_json_error(repaired.text, problems)
    return repaired
