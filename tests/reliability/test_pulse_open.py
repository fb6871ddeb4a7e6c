"""kill -9 in the middle of a pulse (saiverse/pulse/_open.py): the next start accounts for it.

A real CLI process runs a real pulse and is SIGKILLed just before the pulse's journal would commit
(tests/support/killat.py). What the world must then show, after the app's next start:
- a user's message: kept, with a note in the persona's memory that its pulse stopped, and a line in
  the building saying the reply stopped — not a message answered by silence;
- a change a tool had made (a document): kept, and remembered by a note, as a pulse that failed
  normally remembers it (tests/test_pulse_failures.py);
- nothing open left, and a second start adds nothing.
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
from saiverse.pulse._open import EFFECT_TAGS, STOPPED_TAGS

KILLAT = Path(__file__).parents[1] / "support" / "killat.py"
COMMIT = "saiverse.pulse._journal:PulseJournal.commit"


def _killed(hook: str, *argv: str) -> None:
    proc = subprocess.run([sys.executable, str(KILLAT), "before", hook, "--", *argv], capture_output=True, text=True,
                          timeout=300, env={**os.environ})
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stdout, proc.stderr)


def _open_rows(home: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(home / "saiverse.db") as conn:
        return conn.execute("SELECT PULSE_ID, KIND, EFFECTS_JSON FROM pulse_open").fetchall()


def _memory(m: SAIVerseManager, persona: str = "mina") -> list[dict]:
    return list(reversed(m.memory.list_messages(persona, limit=50)))


def test_a_users_pulse_killed_before_its_reply_is_accounted_for_at_the_next_start(
        saiverse_home: Path, make_manager: Callable[..., SAIVerseManager]) -> None:
    _killed(COMMIT, "chat", "--persona", "mina", "--building", "library", "今日はいい天気だね")
    rows = _open_rows(saiverse_home)
    assert [r[1] for r in rows] == ["user"]  # written with the user's message, never closed
    pulse_id = rows[0][0]

    m = make_manager()
    memory = _memory(m)
    said = [x for x in memory if x["content"] == "今日はいい天気だね"]
    assert len(said) == 1 and said[0]["pulse_id"] == pulse_id  # the user's message is kept, once
    stopped = memory[-1]
    assert set(STOPPED_TAGS) <= set(stopped["tags"]) and stopped["pulse_id"] == pulse_id
    assert "アプリが途中で終了しました" in stopped["content"]
    assert not any(x["role"] == "assistant" for x in memory if x["pulse_id"] == pulse_id)  # no reply was invented
    lines = m.world.history("library", limit=5)
    assert lines[-2].speaker_kind == "user" and lines[-2].content == "今日はいい天気だね"
    assert lines[-1].speaker_kind == "system" and "ミナの返事は途中で止まりました" in lines[-1].content
    assert any(pulse_id[:8] in n for n in m.notices)
    assert _open_rows(saiverse_home) == []
    m.close()

    again = make_manager()  # accounted for once: a second start adds nothing
    assert len(_memory(again)) == len(memory)
    assert not any(pulse_id[:8] in n for n in again.notices)
    # The person can still edit the message the kill left unanswered: the stopped line goes with it.
    events = list(again.edit_last_message("library", "今日は雨だね"))
    assert events[-1]["type"] == "pulse_end" and events[-1]["status"] == "ok"
    lines = again.world.history("library", limit=3)
    assert [x.speaker_kind for x in lines[-2:]] == ["user", "persona"] and lines[-2].content == "今日は雨だね"
    assert not [x for x in again.world.history("library") if x.speaker_kind == "system"]


def test_a_change_a_killed_pulse_made_is_remembered_at_the_next_start(
        saiverse_home: Path, tmp_path: Path, make_manager: Callable[..., SAIVerseManager]) -> None:
    playbook = tmp_path / "write_then_speak.json"
    playbook.write_text(json.dumps({"name": "write_then_speak", "nodes": [
        {"id": "act", "type": "tool", "action": "document_create", "next": "tell",
         "args_input": {"name": {"$literal": "旅の記録"}, "description": {"$literal": "旅のこと"},
                        "content": {"$literal": "一日目: 図書館に行った。"}}},
        {"id": "tell", "type": "speak", "action": "書きました。", "next": None}]}, ensure_ascii=False),
        encoding="utf-8")
    _killed(COMMIT, "run-playbook", str(playbook), "--persona", "mina", "--building", "library", "--args", "{}")
    rows = _open_rows(saiverse_home)
    assert len(rows) == 1 and rows[0][1] == "playbook" and "旅の記録" in rows[0][2]

    m = make_manager()
    made = [i for i in m.items.list_owned("building", "library") if i.name == "旅の記録"]
    assert len(made) == 1  # the change stays
    memory = _memory(m)
    effect = next(x for x in memory if set(EFFECT_TAGS) <= set(x["tags"]))
    assert made[0].item_id in effect["content"] and effect["pulse_id"] == rows[0][0]
    assert set(STOPPED_TAGS) <= set(memory[-1]["tags"]) and "ここまでにしたことは残っています" in memory[-1]["content"]
    assert not any(x["content"] == "書きました。" for x in memory)  # the node after the kill never ran
    assert not [x for x in m.world.history("library") if x.speaker_kind == "system"]  # no user waited for a reply
    assert _open_rows(saiverse_home) == []
