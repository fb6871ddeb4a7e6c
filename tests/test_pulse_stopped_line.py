"""A reply that stops says what stopped it, where and when it happened (issue 35).

The walkthrough saw 「アプリが途中で終了しました」 for a reply the local model's crash had stopped, stamped
with the time of the crash but below later replies. A user's pulse that fails now leaves its line at
once (after its message, before any later reply) naming the model; a pulse a kill cut short is still
accounted for at the next start and says the app ended, and when its message was sent.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from chat import LLMError
from saiverse.manager import SAIVerseManager
from saiverse.pulse._open import KILLED, MODEL_STOPPED, OpenPulse, recover_open, stop_reason
from tests.support.models import ScriptedModel
from words import say

CRASHES = [("local_crashed", "ローカルモデルのプロセスが異常終了しました"),
           ("local_hang", "ローカルモデルが応答しなくなりました"),
           ("local_broken", "ローカルモデルがこのマシンでは動きません")]


@pytest.mark.parametrize(("kind", "words"), CRASHES)
def test_a_reply_the_model_stopped_says_so_in_place(make_manager: Callable[..., SAIVerseManager],
                                                    kind: str, words: str) -> None:
    model = ScriptedModel()
    model.enqueue(error=LLMError("ローカルモデル「gemma」の処理が異常終了しました (SIGSEGV)", kind=kind))
    m = make_manager(model)
    events = list(m.handle_user_input("library", "こんにちは"))
    assert [e["kind"] for e in events if e["type"] == "error"] == [f"model_{kind}"]
    list(m.handle_user_input("library", "もう一度こんにちは"))  # a later reply
    lines = m.world.history("library")
    said = [(e.speaker_kind, e.content) for e in lines]
    first = next(i for i, (k, c) in enumerate(said) if k == "user" and c == "こんにちは")
    kind_, text = said[first + 1]  # right below the message it answers, above the later exchange
    assert kind_ == "system" and text == f"ミナの返事は途中で止まりました ({words})。もう一度話しかけてください。"
    assert say(KILLED) not in text and "アプリ" not in text
    assert said[first + 2] == ("user", "もう一度こんにちは") and said[first + 3][0] == "persona"
    assert lines[first + 1].created_at <= lines[first + 2].created_at


def test_a_cancelled_reply_leaves_no_line_and_other_errors_name_the_model() -> None:
    assert stop_reason(LLMError("quota", kind="quota")).startswith("モデルがエラーを返しました")
    assert stop_reason(RuntimeError("boom")) == "エラー: boom"
    assert set(MODEL_STOPPED) == {k for k, _ in CRASHES}


def test_a_kill_is_told_at_the_next_start_with_the_time_of_its_message(manager: SAIVerseManager) -> None:
    from saiverse.pulse._open import open_in

    hid = manager.world.add_history("library", speaker_kind="user", speaker_id="user", speaker_name="あなた",
                                    content="こんにちは")
    with manager.db.engine.begin() as conn:
        open_in(conn, [OpenPulse("p" * 32, "mina", "library", "user", "local:test")])
    recover_open(manager.db, manager.memory, manager.world, "local:test")
    stamp = next(e for e in manager.world.history("library") if e.id == hid).created_at
    (line,) = [e for e in manager.world.history("library") if e.speaker_kind == "system"]
    assert line.content.startswith(f"{stamp[11:16]} のミナの返事は途中で止まりました ({say(KILLED)})")
