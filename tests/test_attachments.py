"""The server half of attachment refusals (ui/attachments.py): judged by size and by content, in
Japanese (English with SAIVERSE_LANG=en); a refused send sends nothing and keeps the box."""

from __future__ import annotations

import io
from pathlib import Path

import gradio as gr
import pytest
from PIL import Image

from saiverse.manager import SAIVerseManager
from ui.attachments import refusal
from ui.i18n import Labels
from ui.send import send
from ui.stream import ChatView


def _png(path: Path) -> Path:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (10, 20, 30)).save(buf, format="PNG")
    path.write_bytes(buf.getvalue())
    return path


def test_refusals_name_the_file_and_the_reason(tmp_path: Path) -> None:
    ja, en = Labels("ja"), Labels("en")
    good = _png(tmp_path / "絵.png")
    assert refusal([str(good)], 10_000, ja) is None
    fake = tmp_path / "絵に見える.png"
    fake.write_text("not an image")
    assert refusal([str(fake)], 10_000, ja).startswith("「絵に見える.png」は添付できません")  # type: ignore[union-attr]
    assert "cannot be attached" in (refusal([{"path": str(fake)}], 10_000, en) or "")
    too_big = refusal([str(good)], 10, ja) or ""
    assert "「絵.png」は大きすぎます" in too_big and "メッセージは入力欄に残しました" in too_big
    assert "もう一度添付" in (refusal([str(tmp_path / "gone.png")], 10_000, ja) or "")


class _Views:
    def panels(self, building_id: str) -> tuple[str, str, str]:
        return ("", "", "")

    def image_path(self, item_id: str) -> str | None:
        return None

    def muted_notices(self) -> frozenset[str]:
        return frozenset()


def test_a_refused_send_sends_nothing_and_keeps_the_box(manager: SAIVerseManager, tmp_path: Path) -> None:
    fake = tmp_path / "memo.png"
    fake.write_text("text")
    before = len(manager.history("library"))
    with pytest.warns(UserWarning, match="「memo.png」は添付できません"):  # gr.Warning: a toast in the window
        out = list(send(manager, Labels("ja"), _Views(), ChatView(), {"text": "見て", "files": [str(fake)]},
                        "library", None, None))
    assert out == [[gr.skip()] * 5]  # no output changes: the text and the file stay in the box
    assert len(manager.history("library")) == before


def test_a_voice_message_attached_becomes_an_audio_item(manager: SAIVerseManager, tmp_path: Path) -> None:
    """A sound file from the phone's recorder, attached in the chat: accepted by its content, kept as an audio
    item of the building, and the message says so."""
    from tests.support.fakes_listen import sox_wav

    wav = sox_wav(tmp_path / "ボイスメモ.wav", speech=0.5, silence=0.5)
    assert refusal([str(wav)], 10_000_000, Labels("ja")) is None
    disguised = tmp_path / "memo.png"  # the name does not decide: the content does
    disguised.write_bytes(wav.read_bytes())
    assert refusal([str(disguised)], 10_000_000, Labels("ja")) is None
    list(send(manager, Labels("ja"), _Views(), ChatView(), {"text": "聞いてみて", "files": [str(wav)]},
              "library", None, None))
    kept = [i for i in manager.items.list_owned("building", "library") if i.type == "audio"]
    assert [(i.name, i.state["created_by"], i.state["mime_type"]) for i in kept] == [
        ("ボイスメモ", "user_upload", "audio/wav")]
    said = [h for h in manager.history("library") if h.speaker_kind == "user"][-1]
    assert "聞いてみて" in said.content and "[音声「ボイスメモ」をアップロードしました]" in said.content
