"""kill -9 between a tool's change and its note (saiverse/pulse/_intent.py): the persona still learns of it.

A real CLI process runs a real pulse whose tool makes a document, and is SIGKILLed just after the item
store committed the document — before the tool could report it (tests/support/killat.py). The
intent the pulse kept before the tool ran must then become, at the next start, a memory note naming
the tool and saying its result is unknown; the document stays. A read-only tool keeps no intent.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from saiverse.manager import SAIVerseManager
from saiverse.pulse._open import EFFECT_TAGS, INTENT_TAGS, STOPPED_TAGS

KILLAT = Path(__file__).parents[1] / "support" / "killat.py"
CREATE = "saiverse.world._items:ItemStore.create_document"
COMMIT = "saiverse.pulse._journal:PulseJournal.commit"


def _run_killed(when: str, hook: str, playbook: Path) -> None:
    argv = ["run-playbook", str(playbook), "--persona", "mina", "--building", "library", "--args", "{}"]
    proc = subprocess.run([sys.executable, str(KILLAT), when, hook, "--", *argv], capture_output=True, text=True,
                          timeout=300, env={**os.environ})
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stdout, proc.stderr)


def _open_rows(home: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(home / "saiverse.db") as conn:
        return conn.execute("SELECT PULSE_ID, KIND, EFFECTS_JSON FROM pulse_open").fetchall()


def _playbook(tmp_path: Path, first: dict) -> Path:
    path = tmp_path / "act_then_speak.json"
    path.write_text(json.dumps({"name": "act_then_speak", "nodes": [
        {"id": "act", "type": "tool", "next": "tell", **first},
        {"id": "tell", "type": "speak", "action": "しました。", "next": None}]}, ensure_ascii=False), encoding="utf-8")
    return path


WRITE = {"action": "document_create", "args_input": {
    "name": {"$literal": "旅の記録"}, "description": {"$literal": "旅のこと"},
    "content": {"$literal": "一日目: 図書館に行った。"}}}


def test_a_change_killed_before_its_note_is_remembered_as_unknown_at_the_next_start(
        saiverse_home: Path, tmp_path: Path, make_manager: Callable[..., SAIVerseManager]) -> None:
    _run_killed("after", CREATE, _playbook(tmp_path, WRITE))
    rows = _open_rows(saiverse_home)
    assert len(rows) == 1 and json.loads(rows[0][2]) == [["mina", None, "document_create"]]

    m = make_manager()
    made = [i for i in m.items.list_owned("building", "library") if i.name == "旅の記録"]
    assert len(made) == 1  # the change stays
    memory = list(reversed(m.memory.list_messages("mina", limit=50)))
    told = [x for x in memory if set(INTENT_TAGS) <= set(x["tags"])]
    assert len(told) == 1 and told[0]["pulse_id"] == rows[0][0]
    assert "「document_create」の途中で止まりました" in told[0]["content"] and "分かりません" in told[0]["content"]
    assert not [x for x in memory if set(EFFECT_TAGS) <= set(x["tags"])]  # no change is claimed
    assert set(STOPPED_TAGS) <= set(memory[-1]["tags"]) and "残っています" not in memory[-1]["content"]
    assert not any(x["content"] == "しました。" for x in memory)
    assert _open_rows(saiverse_home) == []
    m.close()
    m = make_manager()  # a second start adds nothing
    assert len(m.memory.list_messages("mina", limit=50)) == len(memory)


def test_the_note_replaces_the_intent_once_the_change_is_reported(
        saiverse_home: Path, tmp_path: Path, make_manager: Callable[..., SAIVerseManager]) -> None:
    _run_killed("before", COMMIT, _playbook(tmp_path, WRITE))
    rows = _open_rows(saiverse_home)
    assert len(rows) == 1
    [[who, note]] = json.loads(rows[0][2])  # one entry, the note: the intent is gone
    assert who == "mina" and "旅の記録" in note
    m = make_manager()
    memory = m.memory.list_messages("mina", limit=50)
    assert not [x for x in memory if set(INTENT_TAGS) <= set(x["tags"])]
    assert [x for x in memory if set(EFFECT_TAGS) <= set(x["tags"])]


def test_a_read_only_tool_keeps_no_intent(
        saiverse_home: Path, tmp_path: Path, make_manager: Callable[..., SAIVerseManager]) -> None:
    playbook = _playbook(tmp_path, {"action": "item_list", "args_input": {}})
    # armed to die after the row's first write, the run ends well: the pulse never wrote one
    argv = ["run-playbook", str(playbook), "--persona", "mina", "--building", "library", "--args", "{}"]
    proc = subprocess.run([sys.executable, str(KILLAT), "after", "saiverse.pulse._open:record_effects", "--", *argv],
                          capture_output=True, text=True, timeout=300, env={**os.environ})
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    _run_killed("before", COMMIT, playbook)
    assert _open_rows(saiverse_home) == []  # nothing written before the pulse's end: nothing to account for
    m = make_manager()
    assert not [x for x in m.memory.list_messages("mina", limit=50) if set(INTENT_TAGS) <= set(x["tags"])]


def test_a_tool_that_changed_nothing_leaves_nothing_to_account_for(
        saiverse_home: Path, tmp_path: Path, make_manager: Callable[..., SAIVerseManager]) -> None:
    # schedule_delete of an unknown entry changes nothing: its intent is kept before it runs...
    playbook = _playbook(tmp_path, {"action": "schedule_delete", "args_input": {"schedule_id": {"$literal": "nope"}}})
    _run_killed("after", "saiverse.pulse._open:record_effects", playbook)
    assert [json.loads(r[2]) for r in _open_rows(saiverse_home)] == [[["mina", None, "schedule_delete"]]]
    make_manager().close()  # (this start accounts for that kill)
    # ...and dropped, with the row, once it returned
    _run_killed("before", COMMIT, playbook)
    assert _open_rows(saiverse_home) == []
    m = make_manager()
    assert len([x for x in m.memory.list_messages("mina", limit=50) if set(INTENT_TAGS) <= set(x["tags"])]) == 1
