"""A tool's intent in a pulse that fails (saiverse/pulse/_intent.py): remembered only when the tool's
result is unknown, never for a tool that refused.

In-process, on real SQLite: the item store is made to fail *after* it committed a document (as a full
disk would fail the step after the commit), so the tool never reports its change. The pulse fails, and
the persona must remember that it stopped in the middle of `document_create`, result unknown; the
document stays. A tool that refuses (an item that is not there) changes nothing and leaves no note.
"""

from __future__ import annotations

from typing import Any

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.pulse._open import EFFECT_TAGS, INTENT_TAGS, STOPPED_TAGS
from saiverse.world import ItemStore
from sea.playbook import parse_playbook

CREATE = {"id": "act", "type": "tool", "action": "document_create", "next": "tell",
          "args_input": {"name": {"$literal": "旅の記録"}, "description": {"$literal": "旅のこと"},
                         "content": {"$literal": "一日目: 図書館に行った。"}}}
PICKUP = {"id": "act", "type": "tool", "action": "item_pickup", "next": "tell",
          "args_input": {"item_id": {"$literal": "no-such-item"}}}
TELL = {"id": "tell", "type": "speak", "action": "できました。", "next": None}


def _open_rows(m: SAIVerseManager) -> int:
    with m.db.engine.connect() as conn:
        return int(conn.exec_driver_sql("SELECT COUNT(*) FROM pulse_open").scalar() or 0)


def _run(m: SAIVerseManager, first: dict[str, Any]) -> list[dict[str, Any]]:
    events = list(m.run_playbook(parse_playbook({"name": "act_then_tell", "nodes": [first, TELL]}), "mina", "library"))
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "error"
    return list(reversed(m.memory.list_messages("mina", limit=50)))


def test_a_tool_failing_after_its_change_leaves_a_note_that_its_result_is_unknown(
        manager: SAIVerseManager, monkeypatch: pytest.MonkeyPatch) -> None:
    real = ItemStore.create_document

    def committed_then_failed(self: ItemStore, *args: Any, **kwargs: Any) -> Any:
        real(self, *args, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ItemStore, "create_document", committed_then_failed)
    memory = _run(manager, CREATE)
    assert [i.name for i in manager.items.list_owned("building", "library")].count("旅の記録") == 1
    told = [x for x in memory if set(INTENT_TAGS) <= set(x["tags"])]
    assert len(told) == 1 and "「document_create」の途中で止まりました" in told[0]["content"]
    assert not [x for x in memory if set(EFFECT_TAGS) <= set(x["tags"])]
    assert set(STOPPED_TAGS) <= set(memory[-1]["tags"]) and "残っています" not in memory[-1]["content"]
    assert _open_rows(manager) == 0


def test_a_tool_that_refused_leaves_no_note(manager: SAIVerseManager) -> None:
    memory = _run(manager, PICKUP)
    assert not [x for x in memory if {"pulse_intent", "pulse_effect", "pulse_stopped"} & set(x["tags"])]
    assert _open_rows(manager) == 0


MEMORY_WRITES = {"remember", "forget", "set_building_cursor", "memopedia_set_open"}
"""Changes that are themselves memory writes (`on_effect(None)`): the memory holds them, no intent."""


def test_every_method_that_reports_a_change_is_marked() -> None:
    import inspect

    from saiverse.pulse._toolctx_city import CityTools
    from saiverse.pulse._toolctx_items import ItemTools
    from saiverse.pulse._toolctx_memory import MemoryTools
    from saiverse.pulse._toolctx_v03 import V03Tools

    # The tool context delegates each method to one of its services: the services are where changes are made.
    methods = {name: fn for service in (CityTools, ItemTools, MemoryTools, V03Tools)
               for name, fn in inspect.getmembers(service, inspect.isfunction)}
    reporting = {name for name, fn in methods.items()
                 if not name.startswith("_") and any(
                     call in inspect.getsource(inspect.unwrap(fn)) for call in ("on_effect(", "_changed("))}
    marked = {name for name in reporting if hasattr(methods[name], "__wrapped__")}
    assert len(reporting) >= 20
    assert reporting - marked == MEMORY_WRITES  # a new method that reports a change must be @changes
