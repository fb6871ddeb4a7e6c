"""Instructions that name a place ("Xの前に", "Xの後に", "最初に", "最後に") land there, with a short title."""

from __future__ import annotations

from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.pulse._production import RunPorts
from sea.production.graph import patch_planner
from sea.production.patches import apply_ops, propose_ops
from sea.production.placement import step_title
from sea.production.planner import template_plan
from sea.production.state import TargetScope
from tests.support.models import ScriptedModel


def _book(done: int = 1) -> list[Any]:
    plan = template_plan("絵本を作って: 猫の冒険", TargetScope(building_id="atelier"))
    for step in plan[:done]:
        step["status"] = "completed"
    return plan


def _apply(text: str, plan: list[Any]) -> tuple[list[Any], list[Any]]:
    new, log = apply_ops(plan, propose_ops(text, plan))
    assert [e["status"] for e in log] == ["applied"], log
    return new, log


@pytest.mark.parametrize(("text", "title"), [
    ("挿絵の前に表紙を入れて", "表紙"), ("表紙を挿絵の前に入れて", "表紙"), ("最後にあとがきも追加して", "あとがき"),
    ("最初に登場人物の紹介ページを作ってください", "登場人物の紹介ページ"), ("本文の後に作者紹介を加えて", "作者紹介"),
    ("最後に、まとめのページも追加してほしいな", "まとめのページ"), ("あとがきを書いて", "あとがき"),
])
def test_a_new_step_is_titled_from_the_instruction(text: str, title: str) -> None:
    assert step_title(text) == title


def test_before_a_named_pending_step() -> None:
    plan, log = _apply("挿絵の前に表紙を入れて", _book())
    assert [s["title"] for s in plan] == ["題材集め", "あらすじと登場人物", "本文", "表紙", "挿絵", "製本"]
    cover, pictures, bundle = plan[3], plan[4], plan[5]
    assert cover["capability"] == "visualizer" and cover["status"] == "pending"
    assert cover["depends_on"] == []  # one picture, not one per scene of the outline
    assert pictures["depends_on"] == [2, cover["id"]] and pictures["instruction"].startswith("絵本「猫の冒険」の場面")
    assert bundle["depends_on"] == [3, pictures["id"]]
    assert "表紙" in log[0]["message"] and "before 挿絵" in log[0]["message"]


def test_after_a_named_pending_step_and_first_and_last() -> None:
    plan, _ = _apply("本文の後に作者紹介を加えて", _book())
    titles = [s["title"] for s in plan]
    assert titles == ["題材集め", "あらすじと登場人物", "本文", "作者紹介", "挿絵", "製本"]
    body, about = plan[2], plan[3]
    assert body["depends_on"] == [2] and about["depends_on"] == [body["id"]] and about["capability"] == "writer"
    assert plan[5]["depends_on"] == [about["id"], 4]  # the bundle waits for what came after 本文
    plan, _ = _apply("最初に登場人物の紹介ページを作って", _book())
    assert [s["title"] for s in plan][:3] == ["題材集め", "登場人物の紹介ページ", "あらすじと登場人物"]
    plan, _ = _apply("最後にあとがきも追加して", _book())
    assert plan[-1]["title"] == "あとがき" and "最後に" in plan[-1]["instruction"]


def test_a_named_step_that_already_started_gets_the_earliest_place_left() -> None:
    plan = _book(done=3)  # 題材集め, あらすじ, 本文 done
    plan, _ = _apply("本文の前に扉のページを書いて", plan)
    assert [s["title"] for s in plan] == ["題材集め", "あらすじと登場人物", "本文", "扉のページ", "挿絵", "製本"]
    everything_done = _book(done=5)
    plan, log = _apply("挿絵の前に表紙を入れて", everything_done)
    assert plan[-1]["title"] == "表紙" and log[0]["op"] == "append_tail"


def test_an_unknown_anchor_falls_back_to_the_wording_rules() -> None:
    ops = propose_ops("エピローグの前に地図を足して", _book())
    assert ops[0]["op"] == "append_tail" and ops[0]["step"]["title"] == "地図"


def test_a_model_that_follows_instructions_is_not_asked_where_the_wording_says() -> None:
    model = ScriptedModel()

    class Ports:
        run_id = "r"
        events: list[dict[str, Any]] = []

        def model(self, kind: str = "normal") -> ScriptedModel:
            return model

        def system_prompt(self) -> str:
            return ""

        def emit(self, event: dict[str, Any]) -> None:
            self.events.append(event)

    out = patch_planner({"plan": _book(), "instructions": ["挿絵の前に表紙を入れて"]},
                        {"configurable": {"production": Ports()}})
    assert not model.history and out["proposed_ops"][0]["op"] == "split_pending"


def test_a_run_places_the_cover_before_the_pictures(manager: SAIVerseManager,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    manager.world.move_persona("sora", "atelier")
    manager.move_user("atelier")
    original = RunPorts.create_document
    sent: list[list[dict[str, Any]]] = []

    def create_and_instruct(self: RunPorts, step_id: int, key: str, name: str, content: str) -> dict[str, Any]:
        if not sent:  # said while the first text is being written
            sent.append(list(manager.handle_user_input("atelier", "挿絵の前に表紙を入れて")))
        return original(self, step_id, key, name, content)

    monkeypatch.setattr(RunPorts, "create_document", create_and_instruct)
    events = list(manager.handle_user_input("atelier", "絵本を作って: 猫の冒険"))
    final = [e for e in events if e["type"] == "data-plan_update"][-1]["plan"]
    assert [s["title"] for s in final] == ["題材集め", "あらすじと登場人物", "本文", "表紙", "挿絵", "製本"]
    assert all(s["status"] == "completed" for s in final)
    pictures = [e["item"]["name"] for e in events if e["type"] == "data-visual-image"]
    assert pictures[0] == "猫の冒険 — 表紙" and pictures[1:] == [f"猫の冒険 — 挿絵 {n}" for n in (1, 2, 3, 4)]
