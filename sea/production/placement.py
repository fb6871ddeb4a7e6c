"""Where an instruction given during a run goes, when it says so, and what its new step is called.

"挿絵の前に表紙を入れて" names a place: before the pending step 挿絵. Such an instruction becomes a
`split_pending` of the named step into the new step and the step itself (or, after it, the step and
then the new one); "最初に" goes before the first pending step and "最後に" at the end. Where the
named step has already started, the new step goes as early as it still can: before the first
pending step. The place is a fact of the wording, so the rules decide it for every model.

The new step is titled from the instruction, not with the instruction: "表紙", not the sentence.
"""

from __future__ import annotations

import re
from typing import Any

from sea.production.state import TaskStep

_BEFORE = ("前",)
_ANCHOR = re.compile(r"(?P<anchor>[^\s、。,.「」をはがもにでとへ]+)\s*の\s*(?P<rel>前|後|あと|次)に")
_FIRST = re.compile(r"(最初|はじめ|初め|先頭|冒頭|一番前)に")
_LAST = re.compile(r"(最後|末尾|一番後ろ|おしまい)に")
_TAIL = re.compile(r"(な|ね|よ|ね。|よ。|。|！|!|\.|…)+$")
_VERB = re.compile(
    r"(を|も|は|が)?\s*(追加し|挿入し|追加|挿入|加え|足し|入れ|付け|つけ|作っ|作成し|書い|描い|用意し|置い|はさん|挟ん|"
    r"まとめ)(て|で|る|た)?\s*(ください|下さい|ほしい|欲しい|おいて|くれる|もらえる|みて)?\s*(かな|か)?$")
VERBS = {"writer": "書く", "visualizer": "描く", "researcher": "調べる", "data_analyst": "まとめる"}
"""What a step of each capability does, for the instruction of a new step."""
MAX_TITLE = 24


def _strip_position(text: str) -> str:
    """The instruction without the phrase that says where it goes."""
    text = _ANCHOR.sub("", text, count=1)
    text = _FIRST.sub("", text, count=1)
    return _LAST.sub("", text, count=1).strip(" 、,")


def step_title(text: str) -> str:
    """A short step title made from an instruction: "挿絵の前に表紙を入れて" → "表紙"."""
    core = _TAIL.sub("", _strip_position(text.strip()))
    core = _VERB.sub("", core).strip(" 、,「」『』")
    core = re.sub(r"(を|も|は|が)$", "", core)
    if not core:
        core = _TAIL.sub("", text.strip())
    return core[:MAX_TITLE]


def new_step_fields(text: str, capability: str) -> dict[str, Any]:
    """Title and instruction of the step an instruction adds."""
    title = step_title(text)
    return {"capability": capability, "title": title,
            "instruction": f"{title}を{VERBS.get(capability, '作る')}（指示: {text.strip()}）"}


def _named(plan: list[TaskStep], anchor: str) -> TaskStep | None:
    """The step `anchor` names: a title containing it (or contained in it); pending ones first."""
    found = [s for s in plan if anchor in str(s.get("title", "")) or str(s.get("title", "")) in anchor]
    found = [s for s in found if s.get("title")]
    pending = [s for s in found if s.get("status") == "pending"]
    return (pending or found or [None])[0]


def _original(step: TaskStep) -> dict[str, Any]:
    return {"title": step.get("title", ""), "instruction": step.get("instruction", ""),
            "capability": step.get("capability", "writer"), "depends_on": list(step.get("depends_on", []))}


def _insert_before(target: TaskStep, fields: dict[str, Any], text: str) -> dict[str, Any]:
    # A picture asked for by name (a cover) is one picture: it needs no text to draw scenes from.
    deps = [] if fields["capability"] == "visualizer" else list(target.get("depends_on", []))
    return {"op": "split_pending", "step_id": target["id"], "source": text, "position": "before",
            "parts": [{**fields, "depends_on": deps}, _original(target)]}


def positioned_ops(text: str, plan: list[TaskStep], capability: str) -> list[dict[str, Any]] | None:
    """The op for an instruction that names its place, or None when it names none (or no known step)."""
    fields = new_step_fields(text, capability)
    pending = [s for s in plan if s.get("status") == "pending"]
    tail = [{"op": "append_tail", "source": text, "position": "last", "step": fields}]
    match = _ANCHOR.search(text)
    if match:
        anchor = _named(plan, match.group("anchor"))
        if anchor is None:
            return None
        before = match.group("rel") in _BEFORE
        if anchor.get("status") == "pending":
            if before:
                return [_insert_before(anchor, fields, text)]
            return [{"op": "split_pending", "step_id": anchor["id"], "source": text, "position": "after",
                     "parts": [_original(anchor), {**fields, "depends_on": []}]}]
        # The named step has started: the new one goes as early as it still can.
        later = pending if before else [s for s in pending if plan.index(s) > plan.index(anchor)]
        return [_insert_before(later[0], fields, text)] if later else tail
    if _FIRST.search(text):
        return [_insert_before(pending[0], fields, text)] if pending else tail
    if _LAST.search(text):
        return tail
    return None
