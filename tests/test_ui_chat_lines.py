"""The chat's per-line actions on the port (ui/chat_actions.py), with a fake city: which stored line a
click means, and what the confirmation and the toast say."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from ui.chat import history_messages, system_message
from ui.chat_actions import chosen_line, confirmation_html, deleted_message
from ui.i18n import Labels
from ui.stream import ChatView

LABELS = Labels("ja")


def _line(n: int, kind: str, text: str) -> SimpleNamespace:
    sid, name = ("user", "あなた") if kind == "user" else ("mina", "ミナ")
    return SimpleNamespace(id=n, building_id="library", speaker_kind=kind, speaker_id=sid, speaker_name=name,
                           content=text, pulse_id=None, created_at=f"2026-11-25 10:0{n}:00")


@dataclass
class FakeCity:
    """A building's stored lines and its personas: what `chosen_line` reads."""

    lines: list[Any] = field(default_factory=list)

    def history(self, building_id: str, *, limit: int = 200, before_id: int | None = None) -> list[Any]:
        return self.lines[-limit:]

    def personas(self) -> list[Any]:
        return [SimpleNamespace(persona_id="mina", avatar="📚")]


def test_a_click_means_the_stored_line_at_that_place_even_for_the_same_words_twice() -> None:
    city = FakeCity([_line(1, "user", "おはよう"), _line(2, "persona", "おはようございます"),
                     _line(3, "user", "おはよう"), _line(4, "persona", "今日も元気ですね")])
    view = ChatView(building_id="library", messages=history_messages(city.lines, {"mina": "📚"}, LABELS))
    assert chosen_line(city, view, 0, LABELS).id == 1  # type: ignore[arg-type]
    assert chosen_line(city, view, 2, LABELS).id == 3  # type: ignore[arg-type]
    assert chosen_line(city, view, 3, LABELS).id == 4  # type: ignore[arg-type]
    # A line rendered from an event at another moment (another time label) is still found.
    view.messages[3] = {"role": "assistant", "content": "📚 **ミナ**\n\n今日も元気ですね"}
    assert chosen_line(city, view, 3, LABELS).id == 4  # type: ignore[arg-type]


def test_a_notice_from_an_event_or_a_place_outside_the_chat_is_no_line() -> None:
    city = FakeCity([_line(1, "user", "こんにちは")])
    view = ChatView(building_id="library", messages=[*history_messages(city.lines, {}, LABELS),
                                                     system_message("⚠ エラー: つながりません")])
    assert chosen_line(city, view, 1, LABELS) is None  # type: ignore[arg-type]
    assert chosen_line(city, view, 5, LABELS) is None  # type: ignore[arg-type]
    assert chosen_line(city, ChatView(), 0, LABELS) is None  # type: ignore[arg-type]


def test_the_confirmation_says_where_the_line_goes_from_and_escapes_it() -> None:
    entry = _line(1, "user", "<b>猫</b>の話")
    both = confirmation_html(LABELS, entry, ["ミナ", "ソラ"])
    assert "会話の履歴とミナ、ソラの記憶から消します。" in both and "&lt;b&gt;猫" in both and "<b>猫" not in both
    assert "(10:01)" in both or "10:01" in both
    only = confirmation_html(LABELS, _line(2, "user", "x" * 100), [])
    assert "会話の履歴から消します (誰の記憶にもありません)。" in only and "x" * 60 + "…" in only
    assert deleted_message(LABELS, ["ミナ"]) == "削除しました (会話の履歴とミナの記憶から)。"
    assert deleted_message(Labels("en"), []) == "Deleted (from the chat history)."


def test_the_swipe_line_says_which_answer_is_shown() -> None:
    from ui.chat_actions import swipe_html

    assert swipe_html(LABELS, None) == ""
    assert swipe_html(LABELS, SimpleNamespace(answers=[{}], chosen=0)) == ""
    assert "返事 2/3" in swipe_html(LABELS, SimpleNamespace(answers=[{}, {}, {}], chosen=1))


def test_search_results_say_when_and_who_and_escape() -> None:
    from ui.chat_actions import found_html

    html = found_html(LABELS, "猫", [_line(3, "user", "<i>猫</i>"), _line(2, "persona", "猫です")])
    assert "2 行 (新しい順)" in html and "&lt;i&gt;猫" in html and "<b>あなた</b>" in html and "<b>ミナ</b>" in html
    assert "10:03" in html or "11/25 10:03" in html
    assert found_html(LABELS, " ", []) == ""
    assert "「犬」を含む行はありません。" in found_html(LABELS, "犬", [])


def test_a_deleted_personas_lines_show_its_initial() -> None:
    lines = [_line(1, "persona", "さようなら")]
    lines[0].speaker_id, lines[0].speaker_name = "gone", "ハナ"
    content = history_messages(lines, {"mina": "📚"}, LABELS)[0]["content"]
    assert '<span class="sv-avatar-gone" title="ハナ">ハ</span> **ハナ**' in content and "👤" not in content
