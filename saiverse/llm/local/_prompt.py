"""Prompts for local models: a base model continues a dialogue transcript; its line is checked.

A base model does not follow instructions, but it continues text well: the request becomes the record
of a conversation — a short persona header, the recent lines (`あなた: …`, `ミナ: …`), what the
persona just did as a narration line — ending with `ミナ:`; the model writes the next line. What
comes back is cut to that one line and refused when it repeats the user or is not speech.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from chat import ChatRequest, Message
from saiverse.llm.local._sanity import claims_other_name, is_bare, recalled
from saiverse.llm.offline import (
    Voice,
    clean,
    happened,
    is_instruction,
    last_user_message,
    place_of,
    result_blocks,
    without_note,
)

USER = "あなた"
"""How the user is named in a transcript."""
_SYSTEM_BLOCK = re.compile(r"^\s*<system>(.*?)</system>\s*$", re.S)
_MEMORY = re.compile(r"\n\s*##\s")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _one_line(text: str, limit: int = 200) -> str:
    text = re.sub(r"^\s*[@＠]\S+\s*", "", without_note(text))
    text = re.sub(r"\s+", " ", text).strip()
    return text[:limit]


def header(request: ChatRequest, voice: Voice) -> str:
    """Who the persona is and where, in the third person, from the system prompt (memory sections cut)."""
    name = voice.name or "わたし"
    system = _MEMORY.split(request.system or "", maxsplit=1)[0]
    keep = [ln.strip() for ln in system.splitlines()
            if ln.strip() and not re.match(r"^\s*(一人称|語尾|口調|現在地|一緒にいるペルソナ)\s*[:：]", ln)
            and not re.fullmatch(rf"あなたは{re.escape(name)}です。?", ln.strip())]
    profile = re.sub(r"あなたは", f"{name}は", " ".join(keep))[:200]
    place = place_of(request.system)
    where = f"{place}での、" if place else ""
    lines = [f"{name}のプロフィール: {profile}" if profile else "",
             f"以下は{where}{name}と訪ねてきた人との会話の記録です。{name}は短く、自然な話し言葉で答えます。"]
    return "\n".join(ln for ln in lines if ln)


def transcript_lines(request: ChatRequest, voice: Voice) -> list[str]:
    """The conversation as transcript lines, oldest first (sub-playbook results as narration)."""
    name = voice.name or "わたし"
    place = place_of(request.system)
    out: list[str] = []
    for msg in request.messages:
        content = msg.get("content") or ""
        if msg.get("role") == "user" and _SYSTEM_BLOCK.match(content):
            for playbook, body in result_blocks([msg]):
                lines = recalled(body, name) if "に関する記憶" in body.split("\n", 1)[0] else []
                told = None if lines else happened(playbook, body, place)
                out.extend(lines)  # who said each recalled line, so the model never takes it as its own
                if told:
                    out.append(f"（{name}は{told[1]}。）")
            continue
        if msg.get("role") == "user" and is_instruction(content):
            continue  # the app's own prompt to the model is not a line anyone said
        line = _one_line(content)
        if not line:
            continue
        speaker = name if msg.get("role") == "assistant" else USER
        entry = f"{speaker}: {line}"
        if not out or out[-1] != entry:  # a node's `{input}` repeats what the user just said
            out.append(entry)
    return out


def transcript(request: ChatRequest, voice: Voice, count: Callable[[str], int], limit: int) -> str:
    """The whole prompt, its oldest lines dropped until it fits `limit` tokens."""
    name = voice.name or "わたし"
    head = header(request, voice)
    lines = transcript_lines(request, voice)
    if len(lines) < 3:
        # One exchange in the persona's voice shows a base model how long and how polite a line is.
        lines = [f"{USER}: こんにちは。", f"{name}: " + voice.speak("こんにちは。ゆっくりしていってくださいね",
                                                                  "こんにちは。ゆっくりしていって"), *lines]
    while True:
        prompt = f"{head}\n\n" + "\n".join([*lines, f"{name}:"])
        if count(prompt) <= limit or len(lines) <= 1:  # the last line (what was just said) always stays
            return prompt
        lines = lines[1:]


def stops(voice: Voice) -> list[str]:
    """Where a transcript answer ends: the end of the line, or another speaker's turn."""
    return ["\n", f"{USER}:", f"{USER}：", "（"]


def usable_line(text: str, request: ChatRequest, voice: Voice) -> str:
    """The model's line, cleaned; '' when it is not usable speech (empty, not Japanese, an echo)."""
    line = _one_line(text.split("\n", 1)[0], 300)
    if voice.name:
        line = re.sub(rf"^{re.escape(voice.name)}\s*[:：]\s*", "", line)
    line = clean(line).strip("「」 ")
    last = last_user_message(request.messages)
    said = _one_line(last.get("content", "")) if last else ""
    if len(line) < 2 or not _JAPANESE.search(line):
        return ""
    if said and len(said) >= 4 and (said in line or line in said):
        return ""  # the user's words handed back
    if claims_other_name(line, voice.name) or is_bare(line, said):
        return ""  # someone else's name taken as its own, or nothing said (saiverse/llm/local/_sanity.py)
    return line


def chat_messages(request: ChatRequest) -> list[dict[str, str]]:
    """The request as chat-template messages (system first, `<system>` results kept as user turns)."""
    out: list[dict[str, str]] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    for msg in request.messages:
        role = msg.get("role", "user")
        content = msg.get("content") or ""
        if content:
            out.append({"role": "system" if role == "system" else role, "content": content})
    return out


def merged_system(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The same messages with system turns folded into the first user turn (templates without a system role)."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    rest: list[dict[str, str]] = [m for m in messages if m["role"] != "system"]
    if not rest or rest[0]["role"] != "user":
        rest.insert(0, Message(role="user", content=""))  # type: ignore[arg-type]
    if system:
        rest[0] = {"role": "user", "content": f"{system}\n\n{rest[0]['content']}".strip()}
    return rest
