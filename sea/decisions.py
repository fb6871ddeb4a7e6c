"""A weak answer is not a failed turn: the rules decide what a model could not.

An llm node that asks for a decision — structured output (a router's choice, JSON fields) or a choice
of tools — gets it from the persona's model. A model that answers it with prose or broken JSON has
already had its one retry with the format enforced (saiverse/llm/structured.py) when it raises
`chat.InvalidAnswer`; the deterministic rules the ports hand over (`RuntimePorts.decision_rules`, the
offline model) then decide for that one request, and the pulse goes on: the persona still replies.
What happened is kept where the pulse is followed: a `decision_fallback` notice (which model, what was
wrong, how the retry was sent, who decided) and an entry in the pulse's activity trace.
Only when the rules cannot decide either does the pulse end as before (`model_invalid_json`), with a
Japanese line saying what to do.
"""

from __future__ import annotations

from dataclasses import replace

from chat import ChatModel, ChatRequest, ChatResult, InvalidAnswer, LLMError
from sea.events import event
from sea.nodes import Emit, RunContext
from sea.playbook import Node

FALLBACK = "decision_fallback"
"""The notice kind (and the trace entry's suffix) of a decision the rules made."""
_WRONG = {
    "prose": "答えが JSON ではなく文章だった",
    "broken_json": "答えの JSON が壊れていた",
    "schema": "答えの JSON が形式 (スキーマ) に合わなかった",
}


def is_decision(request: ChatRequest) -> bool:
    """Whether the request asks the model to decide (structured output, or a choice of tools)."""
    return request.response_schema is not None or bool(request.tools)


def generate_deciding(ctx: RunContext, node: Node, model: ChatModel, request: ChatRequest, emit: Emit) -> ChatResult:
    """`model.generate(request)`; a decision the model still answered wrongly after its retry is made
    by the rules, and said so in the pulse's events and trace."""
    try:
        return model.generate(request)
    except InvalidAnswer as exc:
        if not is_decision(request):
            raise
        failure = exc
    rules = ctx.ports.decision_rules()
    try:
        result = rules.generate(request)
    except (LLMError, ValueError, TypeError) as exc:
        raise _no_rule(model, failure) from exc
    if request.response_schema is not None and result.data is None:
        raise _no_rule(model, failure)
    if request.response_schema is None and not result.tool_calls:
        # The rules call no tool: the persona's own model writes the answer, as the local model does
        # when it leaves the choice of tools to the rules (saiverse/llm/local/_model.py, `generate`).
        result = model.generate(replace(request, tools=[]))
    else:
        result.model = rules.name
    what = _WRONG.get(failure.problem, _WRONG["broken_json"])
    how = f"形式を {failure.retried_as} で強めて" if failure.retried_as else "形式を念押しして"
    text = (f"{model.name} の判断 ({ctx.playbook}.{node.id}) で{what}ため、{how} 1 回聞き直しましたが、"
            "やはり使えませんでした。この判断は決まった規則で行い、返事はそのまま続けます。"
            "たびたび起きるなら、設定タブで判断の得意なモデル (3B より大きいものなど) を選べます。")
    emit(event("notice", kind=FALLBACK, text=text, model=model.name, problem=failure.problem,
               retried_as=failure.retried_as or "same", decided_by=rules.name, **ctx.base(node)))
    ctx.trace.append(f"{ctx.playbook}.{node.id}:{FALLBACK}")
    return result


def _no_rule(model: ChatModel, failure: InvalidAnswer) -> InvalidAnswer:
    """The error a pulse ends with when no rule can decide either (kind `invalid_json`, Japanese first)."""
    return InvalidAnswer(
        f"{model.name} の答えを 2 回とも判断として読めず、決まった規則でも決められませんでした。"
        f"もう一度送るか、設定タブで別のモデルを選んでください。({failure})",
        problem=failure.problem, retried_as=failure.retried_as)
