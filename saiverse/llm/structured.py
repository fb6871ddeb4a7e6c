"""Structured output against servers that each take it differently, negotiated once per server.

OpenAI-compatible servers differ in what they accept for "answer as this JSON schema":
1. `json_schema` — `response_format: {"type": "json_schema", …}` (OpenAI, vLLM, LM Studio, Ollama);
2. `json_object` — `response_format: {"type": "json_object", "schema": …}` (llama-cpp-python's server
   turns the schema into a grammar; others at least return JSON), the schema also in the instructions;
3. `tool` — a forced call of one tool whose parameters are the schema;
4. `prompt` — the schema in the instructions only.
Whatever mode answers, the JSON is validated and a wrong answer — prose, broken JSON, or JSON against
the schema — gets one retry: the answer and what is wrong with it are sent back with a firmer
instruction, at temperature 0 (what Ollama advises for structured output), the format enforced in
the strongest way the server has shown it honours (`Enforced`: a server that let prose through
`json_schema` ignored it, so the retry asks for `json_object`). Still wrong, it raises
`chat.InvalidAnswer`, and a pulse lets the deterministic rules decide (sea/decisions.py). A server
that rejects a mode as invalid (sdk_errors) makes it step down to the next; the mode that worked is
remembered per server for the life of the process.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from chat import ChatRequest, ChatResult, InvalidAnswer, Message, ToolCall
from saiverse.llm.retry import invalid_json_error, problem_of
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

    def refused(self, server: str, mode: str, *, how: str = "refused") -> str | None:
        """`server` refused `mode` (or, `how="ignored"`, let prose through it): the next mode to try
        (remembered), None when none is left."""
        with self._lock:
            index = MODES.index(mode) + 1
            if index >= len(MODES):
                return None
            self._modes[server] = max(self._modes.get(server, 0), index)
            log.info("%s %s structured output as %s; using %s from now on", server, how, mode, MODES[index])
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


RETRY_ECHO = 1000
"""Most characters of the wrong answer that the retry sends back."""
_FIRMER = {
    "prose": "文章ではなく JSON だけで答えてください。最初の文字は {、最後の文字は } です。",
    "broken_json": "この JSON は壊れていて読めません。閉じ忘れや余計な文字のない、正しい JSON だけを答えてください。",
    "schema": "この JSON はスキーマに合っていません。",
}


def retry_request(request: ChatRequest, answer: str, problems: list[str], problem: str) -> ChatRequest:
    """The one retry of a decision: the wrong `answer`, what is wrong with it, and a firmer instruction
    naming the schema again (a `json_schema` request never showed it in words), at temperature 0."""
    assert request.response_schema is not None
    fix = Message(role="user", content=(
        _FIRMER.get(problem, _FIRMER["broken_json"]) + " 問題: " + "; ".join(problems[:5]) + "\n" +
        instructions(request.response_schema)))
    # A rambling answer is sent back clipped: a small model's window must still hold the question.
    said = answer if len(answer) <= RETRY_ECHO else answer[:RETRY_ECHO] + "…"
    return replace(request, messages=[*request.messages, Message(role="assistant", content=said), fix],
                   temperature=0.0)


@dataclass
class Enforced:
    """How a provider sends the one retry of a decision."""

    call: Callable[[ChatRequest], ChatResult]
    how: str = ""
    """The format the retry enforces (`json_object`, `json_schema`, `tool`, …), for the trace; empty:
    as the first try."""
    on_valid: Callable[[], None] | None = None
    """Called when the retry's answer was valid (a provider remembers the format that worked)."""


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
                strict: bool = False, retry: Callable[[str], Enforced] | None = None) -> ChatResult:
    """Call, validate the JSON answer against `request.response_schema`, and retry once if wrong.

    `strict`: the schema was sent through `strict_schema` (optional fields may come back null).
    `retry`: how the provider enforces the format of the retry, given what was wrong (`prose`,
    `broken_json`, `schema`); by default the retry goes as the first try did.
    Raises `chat.InvalidAnswer` when the retried answer is still wrong.
    """
    schema = request.response_schema
    result = call(request)
    if schema is None or result.tool_calls:
        return result
    problems = checked(result, schema, strict=strict)
    if not problems:
        return result
    problem = problem_of(result.text, problems)
    enforced = retry(problem) if retry is not None else Enforced(call)
    log.info("model answered a decision with %s (%s); retrying once%s", problem, problems[:1],
             f" as {enforced.how}" if enforced.how else "")
    repaired = enforced.call(retry_request(request, result.text, problems, problem))
    if repaired.tool_calls:
        return repaired
    problems = checked(repaired, schema, strict=strict)
    if problems:
        raise invalid_json_error(repaired.text, problems, retried_as=enforced.how)
    if enforced.on_valid is not None:
        enforced.on_valid()
    return repaired


TOOL_ARGS_RULE = "ツールを呼ぶときは、引数を正しい JSON オブジェクトで書いてください。"
"""The firmer instruction of the one retry of a tool call whose arguments were not JSON."""


def answer_tools(call: Callable[[ChatRequest], ChatResult], request: ChatRequest) -> ChatResult:
    """Call with tools offered; a tool call whose arguments are not JSON (`chat.InvalidAnswer` from the
    provider) gets one retry with a firmer instruction at temperature 0, then raises again."""
    try:
        return call(request)
    except InvalidAnswer as exc:
        log.info("model wrote a tool call whose arguments are not JSON (%s); retrying once", exc)
    system = "\n\n".join(p for p in (request.system, TOOL_ARGS_RULE) if p)
    try:
        return call(replace(request, system=system, temperature=0.0))
    except InvalidAnswer as exc:
        exc.retried_as = "tool"
        raise
