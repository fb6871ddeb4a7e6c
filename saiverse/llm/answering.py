"""Which model each persona really answers with, and why — what the UI and the CLI show.

A persona's model column may name a model that cannot answer here (an imported persona's
`gemini-2.5-flash` without GEMINI_API_KEY); `resolve_model` then falls back (saiverse/llm/registry.py)
and this module says so per persona: `エア: gemini-2.5-flash — キーがないため ローカルモデル`. Nothing is
loaded or contacted: the answer comes from the names and the settings alone, like `provider_status`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from saiverse.llm.names import parse_name
from saiverse.llm.registry import (
    _KEYS,
    _load_failure,
    auto_choice,
    fallback_name,
    local_problem,
    model_name_for,
    unavailable,
)
from saiverse.settings import Settings
from words import say

SHORT_LABELS = {"local": "short_local", "offline": "short_offline"}
"""How a line names the embedded models (words/_models.py keys; any other model by its own name)."""


@dataclass(frozen=True)
class Answering:
    """One persona's chat model: what is configured, what answers, and why."""

    persona_id: str
    persona_name: str
    configured: str
    """The name in force for the persona: its own model column, else the default setting (`auto`)."""
    own: bool
    """Whether the name comes from the persona's own column (not the default setting)."""
    answers: str
    """The model that answers: `offline`, `local`, `gemini-2.5-flash`, …"""
    reason: str
    """Why, in a few words of `lang`: キーがないため, 設定どおり, GEMINI_API_KEY があるため, …"""
    fallback: bool
    """True when the configured model cannot answer and another one does."""
    needs: str | None = None
    """The environment variable that would let the configured model answer (the 設定 tab sets it)."""
    lang: str = "ja"
    """The language `reason` and `line()` are worded in (settings.lang)."""

    def line(self) -> str:
        """`エア: gemini-2.5-flash — キーがないため ローカルモデル` / `ミナ: ローカルモデル — キーがないため`."""
        answers = say(SHORT_LABELS[self.answers], lang=self.lang) if self.answers in SHORT_LABELS else self.answers
        if self.fallback:
            return f"{self.persona_name}: {self.configured} — {self.reason} {answers}"
        return f"{self.persona_name}: {answers} — {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "line": self.line()}


def _auto_reason(settings: Settings, answers: str) -> str:
    if answers == "local":
        return say("why_no_key", lang=settings.lang)
    if answers == "offline":
        problem = local_problem(settings) or _load_failure(settings) or ""
        lang = settings.lang
        return say("why_no_key_no_local", lang=lang, problem=problem) if problem else say("why_no_key", lang=lang)
    env = next((env for field, env in _KEYS.values() if getattr(settings, field)), "API key")
    return say("why_has_key", lang=settings.lang, env=env)


def answering(settings: Settings, persona: Mapping[str, Any]) -> Answering:
    """What `persona` (a PersonaContext or PersonaInfo-like mapping) answers chats with, and why (worded in
    `settings.lang`)."""
    return replace(_choose(settings, persona), lang=getattr(settings, "lang", "ja"))


def _choose(settings: Settings, persona: Mapping[str, Any]) -> Answering:
    configured = model_name_for(settings, persona, "normal")
    own = bool(persona.get("default_model"))
    pid, pname = str(persona.get("persona_id") or ""), str(persona.get("name") or "")
    parsed = parse_name(configured)
    if parsed.kind == "auto":
        answers = auto_choice(settings)[0]
        return Answering(pid, pname, "auto", own, answers, _auto_reason(settings, answers), False)
    if parsed.kind == "offline":
        return Answering(pid, pname, parsed.raw, own, "offline", say("why_as_set", lang=settings.lang), False)
    if parsed.kind == "unknown":
        return Answering(pid, pname, parsed.raw, own, fallback_name(settings, parsed.raw),
                         say("why_unknown_name", lang=settings.lang), True)
    problem = unavailable(parsed, settings)
    if problem is None and parsed.kind == "local" and not parsed.model_id:
        problem = _load_failure(settings)
    if problem is None:
        return Answering(pid, pname, parsed.raw, own, parsed.raw, say("why_as_set", lang=settings.lang), False)
    answers = fallback_name(settings, parsed.raw)
    if parse_name(answers).kind == "local" and (local_problem(settings) or _load_failure(settings)):
        answers = "offline"
    if parsed.kind in _KEYS:
        return Answering(pid, pname, parsed.raw, own, answers, say("why_no_key", lang=settings.lang), True,
                         _KEYS[parsed.kind][1])
    if parsed.kind == "compatible":
        return Answering(pid, pname, parsed.raw, own, answers, say("why_no_server", lang=settings.lang), True,
                         "SAIVERSE_OPENAI_BASE_URL")
    return Answering(pid, pname, parsed.raw, own, answers, say("why_problem", lang=settings.lang, problem=problem),
                     True)


def answering_all(settings: Settings, personas: Iterable[Any]) -> list[Answering]:
    """`answering` for each persona (PersonaInfo objects or mappings), in the order given."""
    out = []
    for p in personas:
        data = p if isinstance(p, Mapping) else {k: getattr(p, k, None) for k in
                                                 ("persona_id", "name", "default_model")}
        out.append(answering(settings, data))
    return out
