"""The voice in real Chromium (issue 37): a reply is spoken sentence by sentence and its audio plays to its
end; ▶ says a past line again; the microphone (Chromium's fake device playing a sox WAV) records a question,
the loopback Whisper server hears it as multipart, and its words land in the message box, unsent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saiverse.voice import sentences, speakable
from tests.support.browser import MEDIA_ARGS, act, chromium, new_page, open_tab, pick, served, settle, shot
from tests.support.fakes_listen import TranscriptionServer, sox_wav
from tests.support.fakes_speech import SpeechServer
from ui.i18n import Labels

QUESTION = "明日の天気はどうですか"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("voice")
    wav = sox_wav(base / "question.wav", speech=1.2, silence=2.4)
    with SpeechServer() as speech, TranscriptionServer(text=QUESTION) as stt, served(base / "home") as app:
        for persona in app.manager.personas():
            app.manager.voices.set_voice(persona.persona_id, engine="openai-compatible", url=f"{speech.url}/v1")
        app.manager.settings_store.save({"stt_url": stt.url})  # as the 設定 tab's listener section saves it
        with chromium(*MEDIA_ARGS, f"--use-file-for-fake-audio-capture={wav}") as browser:
            yield {"app": app, "browser": browser, "speech": speech, "stt": stt}


def test_a_reply_is_spoken_sentence_by_sentence_and_plays_to_its_end(world: dict[str, Any]) -> None:
    with new_page(world["browser"], world["app"].url) as page:
        page.evaluate("""() => { window.__ended = 0;
            document.querySelector('#sv-voice-player').addEventListener('ended', () => { window.__ended += 1; }); }""")
        page.click("#sv-speaker")
        assert page.get_attribute("#sv-speaker", "aria-pressed") == "true"
        box = page.locator("#chat-input textarea")
        box.fill("こんにちは")
        box.press("Enter")
        page.wait_for_function("() => window.__ended >= 2", timeout=60_000)
        page.wait_for_function("() => !window.svVoice.busy && window.svVoice.queue.length === 0", timeout=60_000)
        said = [seen.body["input"] for seen in world["speech"].speech()]
        # One request per sentence of the reply, made in order and played in that order.
        assert len(said) >= 3 and page.evaluate("() => window.svVoice.spoken") == said
        reply = page.locator("#chat .message.bot").last.inner_text().replace("\n", "")
        assert "".join(said) in reply, (said, reply)
        ended = page.evaluate("() => window.__ended")

        # The page cuts a line as the server's SentenceSplitter does: a long first sentence's first clause
        # alone (first audio sooner), never the chat's own ✂/⏹ mark under a cut reply.
        cut_mark = Labels("ja")("reply_cut_length")
        for text in ("こんにちは、ミナです。今日は、いい天気。", "はい、そうです。", "はい、そうですね、きっと。次です。",
                     "<user_only>秘密です</user_only>はい、そう。", f"ここまで、言えました。\n\n{cut_mark}",
                     f"途中で\n\n{Labels('ja')('cancelled')}"):
            parts = page.evaluate("(t) => window.svVoice.cut(t)", text)
            assert [speakable(x).replace("\n", " ") for x in parts if speakable(x)] == list(sentences([text])), text
        assert ended == len(said) == page.evaluate("() => window.svVoice.played")

        # ▶ on the finished line says it again, from the audio cache (no new request to the server).
        before = len(world["speech"].speech())
        play = page.locator("#chat .message.bot .sv-say-line").last
        play.click()
        page.wait_for_function("(n) => window.__ended > n", arg=ended, timeout=60_000)
        assert len(world["speech"].speech()) == before

        # ■ 停止 stops the speech too: what plays is cut, the rest of the line is never said.
        page.wait_for_function("() => !window.svVoice.busy && window.svVoice.queue.length === 0", timeout=60_000)
        spoken = page.evaluate("() => window.svVoice.spoken.length")
        play.click()
        page.wait_for_function("(n) => window.svVoice.spoken.length > n", arg=spoken, timeout=60_000)
        page.click("#chat-stop")
        page.wait_for_function("() => !window.svVoice.busy && window.svVoice.queue.length === 0", timeout=60_000)
        assert page.evaluate("() => window.svVoice.spoken.length") == spoken + 1
        assert page.evaluate("() => document.querySelector('#sv-voice-player').paused")


def test_a_question_from_the_microphone_lands_in_the_box_unsent(world: dict[str, Any]) -> None:
    with new_page(world["browser"], world["app"].url) as page:
        page.click("#sv-mic")
        page.wait_for_function(
            "(q) => (document.querySelector('#chat-input textarea') || {}).value === q", arg=QUESTION, timeout=60_000)
        (heard,) = world["stt"].heard
        assert heard.form["file"].filename == "speech.webm"
        assert heard.form["file"].content_type == "audio/webm"
        assert len(heard.form["file"].data) > 2000  # a second or more of Opus
        assert heard.form["model"].text == "whisper-1"
        assert page.locator("#chat").get_by_text(QUESTION).count() == 0  # checked by the person before sending


def _open_voice_panel(page: Any, persona_id: str) -> None:
    """The ペルソナ tab on `persona_id`, its voice panel unfolded."""
    open_tab(page, "ペルソナ")
    pick(page, "persona-pick", f"({persona_id})")
    page.locator("#persona-voice-panel button").first.click()


def test_a_persona_voice_is_tried_before_saving_and_then_saved(world: dict[str, Any]) -> None:
    manager = world["app"].manager
    sora = next(p for p in manager.personas() if p.name == "ソラ")
    with new_page(world["browser"], world["app"].url) as page:
        _open_voice_panel(page, sora.persona_id)
        page.wait_for_function(
            "() => (document.querySelector('#persona-voice-engine input') || {}).value === 'OpenAI 互換サーバー'")
        pick(page, "persona-voice-name", "jm_kumo", loads=False)
        before = len(world["speech"].speech())
        act(page, page.locator("#persona-voice-try"))
        audio = page.locator("#persona-voice-audio")
        audio.wait_for(state="attached")
        page.wait_for_function("() => { const a = document.querySelector('#persona-voice-audio'); return a && a.ended; }",
                               timeout=60_000)
        tried = world["speech"].speech()[before:]
        assert [t.body["voice"] for t in tried] == ["jm_kumo"] and "ソラ" in tried[0].body["input"]
        assert manager.voices.voice_for(sora.persona_id).voice == "", "trying does not save"
        act(page, page.locator("#persona-voice-save"))
        page.locator("#persona-voice-status", has_text="ソラ の声を保存しました").wait_for()
        assert manager.voices.voice_for(sora.persona_id).voice == "jm_kumo"
        settle(page)


def test_the_browser_engine_offers_the_pages_own_voices(world: dict[str, Any]) -> None:
    """With `browser` the voice list is what this page's speechSynthesis has: headless Chromium here has none,
    and the panel says so; the list the page sends is what the dropdown offers, the window's language first."""
    from ui.tabs.persona_voice import browser_choices

    manager = world["app"].manager
    mina = next(p for p in manager.personas() if p.name == "ミナ")
    with new_page(world["browser"], world["app"].url) as page:
        _open_voice_panel(page, mina.persona_id)
        sent = page.evaluate("() => window.svVoice.browserVoices()")
        assert sent == json.dumps([{"name": v["name"], "lang": v["lang"]} for v in page.evaluate(
            "() => speechSynthesis.getVoices().map((v) => ({name: v.name, lang: v.lang}))")], separators=(",", ":"))
        pick(page, "persona-voice-engine", "ブラウザの声")
        hint = page.locator("#persona-voice-hint")
        offered = browser_choices(sent, "ja")
        expected = Labels("ja")("pv_browser_listed", n=len(offered)) if offered else Labels("ja")("pv_browser_none")
        hint.get_by_text(expected, exact=False).wait_for()
        assert page.locator("#persona-voice-pitch").is_visible() and not page.locator("#persona-voice-url").is_visible()
        shot(page, "voice_browser_engine")
    listed = json.dumps([{"name": "Google US English", "lang": "en-US"}, {"name": "Kyoko", "lang": "ja-JP"},
                         {"name": "Google 日本語", "lang": "ja-JP"}, {"name": "Kyoko", "lang": "ja-JP"}, {"lang": "x"}])
    assert browser_choices(listed, "ja") == [("Google 日本語 (ja-JP)", "Google 日本語"), ("Kyoko (ja-JP)", "Kyoko"),
                                             ("Google US English (en-US)", "Google US English")]
    assert browser_choices(listed, "en")[0] == ("Google US English (en-US)", "Google US English")
    assert browser_choices("not json", "ja") == []

def test_call_mode_sends_what_it_heard_speaks_the_reply_and_listens_again(world: dict[str, Any]) -> None:
    stt, speech = world["stt"], world["speech"]
    heard_before, said_before = len(stt.heard), len(speech.speech())
    with new_page(world["browser"], world["app"].url) as page:
        page.click("#sv-call")
        page.wait_for_function("() => document.querySelector('#sv-call').getAttribute('aria-pressed') === 'true'")
        page.locator("#chat .message.user", has_text=QUESTION).first.wait_for(timeout=60_000)
        page.wait_for_function("(n) => window.svVoice.played > n", arg=0, timeout=60_000)
        # The reply was spoken; then it listened again: a second recording reached the server.
        page.wait_for_function("() => window.svVoice.phase === 'listening' || window.svVoice.phase === 'transcribing'",
                               timeout=60_000)
        assert len(speech.speech()) > said_before
        page.click("#sv-call")
        page.wait_for_function("() => !window.svVoice.call && window.svVoice.phase === 'idle'")
    assert len(stt.heard) > heard_before


def test_the_voice_routes_serve_only_what_they_handed_out(world: dict[str, Any]) -> None:
    import httpx

    from saiverse.listen import MAX_AUDIO_BYTES

    base = world["app"].url
    mina = next(p for p in world["app"].manager.personas() if p.name == "ミナ")
    with httpx.Client(base_url=base, timeout=30) as client:
        said = client.post("voice/say", json={"persona": mina.persona_id, "text": "静かな図書館です。"}).json()
        assert said["engine"] == "openai-compatible" and said["url"].startswith("voice/audio/")
        audio = client.get(said["url"])
        assert audio.status_code == 200 and audio.headers["content-type"] == "audio/wav"
        assert audio.content[:4] == b"RIFF"
        for path in ("voice/audio/nothing", "voice/audio/..%2F..%2Fsaiverse.db", "voice/audio/%2Fetc%2Fpasswd"):
            assert client.get(path).status_code == 404, path
        # Another site's page cannot make the app speak or listen (ui/web_guard.py).
        foreign = {"Origin": "https://evil.example"}
        assert client.post("voice/say", json={"persona": mina.persona_id, "text": "x"}, headers=foreign).status_code == 403
        assert client.post("voice/listen", content=b"RIFF", headers=foreign).status_code == 403
        refused = client.post("voice/listen", content="これは音声ではありません".encode(), headers={"Content-Type": "text/plain"})
        assert refused.status_code == 422 and "音声ファイルではありません" in refused.json()["error"]
        huge = client.post("voice/listen", content=b"RIFF" + b"\0" * MAX_AUDIO_BYTES)
        assert huge.status_code == 413 and "大きすぎます" in huge.json()["error"]
        assert client.post("voice/say", content=b"[1, 2]").status_code == 400
        assert client.get("voice/listen").json()["ready"] is True
        # Turning the speaker on warms the embedded engine; these personas speak through a server: nothing starts.
        assert client.post("voice/warm", json={}).json() == {"warming": False}
        assert client.post("voice/warm", json={}, headers=foreign).status_code == 403
        # The browser's own voices: the page is handed the speakable words and the settings, no audio.
        sora = next(p for p in world["app"].manager.personas() if p.name == "ソラ")
        world["app"].manager.voices.set_voice(sora.persona_id, engine="browser", voice="", speed=1.5, pitch=2)
        try:
            here = client.post("voice/say", json={"name": "ソラ", "text": "見て https://example.com 😀 きれい。"}).json()
        finally:
            world["app"].manager.voices.set_voice(sora.persona_id, engine="openai-compatible",
                                                  url=f"{world['speech'].url}/v1")
        assert here.pop("text").replace(" ", "") == "見てきれい。"  # no URL, no emoji (saiverse/voice speakable)
        assert here == {"engine": "browser", "voice": "", "speed": 1.5, "pitch": 2.0}



def test_the_keep_routes_refuse_in_one_line_and_keep_nothing(world: dict[str, Any]) -> None:
    import httpx

    app = world["app"]
    sora = next(p for p in app.manager.personas() if p.name == "ソラ")
    before = len(app.manager.items.list_owned("building", "library"))
    with httpx.Client(base_url=app.url, timeout=30) as client:
        app.manager.voices.set_voice(sora.persona_id, engine="browser")
        try:
            browser = client.post("voice/keep", json={"name": "ソラ", "text": "きれい。", "building": "library"}).json()
        finally:
            app.manager.voices.set_voice(sora.persona_id, engine="openai-compatible", url=f"{world['speech'].url}/v1")
        assert browser == {"error": Labels("ja")("voice_keep_browser")}
        code = client.post("voice/keep", json={"name": "ソラ", "text": "```x = 1```", "building": "library"}).json()
        assert code == {"error": Labels("ja")("voice_keep_nothing")}
        nowhere = client.post("voice/keep", json={"name": "ソラ", "text": "はい。", "building": "nowhere"}).json()
        assert "nowhere" in nowhere["error"]
        not_audio = client.post("voice/keep-recording?building=library&text=x", content=b"just text").json()
        assert "音声ファイルではありません" in not_audio["error"]
        assert client.post("voice/keep", content=b"[1]").status_code == 400
        foreign = {"Origin": "https://evil.example"}
        assert client.post("voice/keep-recording?building=library", content=b"RIFF", headers=foreign).status_code == 403
    assert len(app.manager.items.list_owned("building", "library")) == before

def test_a_line_from_elsewhere_is_read_when_it_arrives(world: dict[str, Any]) -> None:
    """Another window (here: the manager itself, as a second device would) talks in this building; the
    refresh brings the reply into this window's chat, and the speaker reads it."""
    manager = world["app"].manager
    with new_page(world["browser"], world["app"].url) as page:
        page.click("#sv-speaker")
        building = page.locator("#chat-header [data-building-id]").first.get_attribute("data-building-id")
        spoken = page.evaluate("() => window.svVoice.spoken.length")
        events = list(manager.handle_user_input(building, "別の窓から、こんばんは", []))
        reply = next(e["text"] for e in events if e.get("type") == "speak")
        page.wait_for_function("(n) => window.svVoice.spoken.length > n && !window.svVoice.busy"
                               " && window.svVoice.queue.length === 0", arg=spoken, timeout=60_000)
        said = page.evaluate("(n) => window.svVoice.spoken.slice(n)", spoken)
        assert "".join(said).replace(" ", "") in reply.replace(" ", "") and said


def test_a_line_and_a_recording_kept_as_audio_items_play_in_the_modal(world: dict[str, Any]) -> None:
    """💾 beside ▶ keeps the line's voice (from the cache: no new request); 💾 録音をアイテムにする keeps the
    last 🎤 recording with its words; each is a 🎵 item of the building whose modal plays it to its end."""
    app, speech = world["app"], world["speech"]
    with new_page(world["browser"], app.url) as page:
        lines = page.locator("#chat .message.bot").count()
        box = page.locator("#chat-input textarea")
        box.fill("おはよう")
        box.press("Enter")
        page.wait_for_function("(n) => document.querySelectorAll('#chat .message.bot .sv-keep-line').length > n",
                               arg=lines, timeout=60_000)  # the reply to this message, with its ▶ and 💾
        page.wait_for_function("() => !document.querySelector('#chat-live .sv-live-row')", timeout=60_000)
        page.locator("#chat .message.bot .sv-say-line").last.click()  # heard once: its sentences are cached
        page.wait_for_function("() => window.svVoice.played > 0 && !window.svVoice.busy", timeout=60_000)
        made = len(speech.speech())
        page.locator("#chat .message.bot .sv-keep-line").last.click()
        page.wait_for_function("() => window.svVoice.kept.length === 1", timeout=60_000)
        assert len(speech.speech()) == made  # kept from what was already spoken
        kept = page.evaluate("() => window.svVoice.kept[0]")
        item = app.manager.items.get(kept["item_id"])
        assert item.type == "audio" and item.owner_id == "library" and item.state["created_by"] == "voice"
        assert page.locator("#sv-toast", has_text=kept["name"]).count() == 1

        page.click("#sv-mic")
        page.locator("#sv-keep-rec").wait_for(state="visible", timeout=60_000)
        shot(page, "audio_keep_recording")
        page.click("#sv-keep-rec")
        page.wait_for_function("() => window.svVoice.kept.length === 2", timeout=60_000)
        assert page.locator("#sv-keep-rec").is_hidden()
        recording = app.manager.items.get(page.evaluate("() => window.svVoice.kept[1].item_id"))
        assert recording.description == QUESTION and recording.state == {"mime_type": "audio/webm",
                                                                          "created_by": "recording"}
        assert recording.file_path is not None and recording.file_path.endswith(".webm")

        for shown in (item, recording):
            page.locator("#item-list [data-item-id]", has_text=shown.name).first.click(timeout=30_000)
            page.locator("#item-modal-title", has_text="音声").wait_for()
            player = page.locator("#item-modal-player")
            player.wait_for()
            assert page.evaluate("""() => new Promise((done) => { const a = document.querySelector('#item-modal-player');
                a.addEventListener('ended', () => done(a.duration), {once: true}); a.play(); })""") > 0.3
            if shown is item:
                shot(page, "audio_item_modal")
            page.click("#item-modal-close")
            page.locator("#item-modal").wait_for(state="hidden")


def test_audio_items_look_right_on_a_phone_and_in_the_dark(world: dict[str, Any]) -> None:
    app = world["app"]
    wav = app.manager.voices.speak("mina", "見た目の確認です。")  # through the loopback speech server
    assert wav is not None
    item = app.manager.uploads.keep_audio("library", wav.read_bytes(), "ミナの声「見た目」", description="見た目の確認です。")
    for theme, size in (("light", {"width": 390, "height": 844}), ("dark", {"width": 1440, "height": 900}),
                        ("dark", {"width": 390, "height": 844})):
        with new_page(world["browser"], f"{app.url}?__theme={theme}") as page:
            page.locator("#item-list [data-item-id]", has_text=item.name).first.click(timeout=30_000)
            page.locator("#item-modal-player").wait_for()
            page.set_viewport_size(size)  # the modal as it stands on that screen (a phone folds the item list away)
            shot(page, f"audio_item_modal_{theme}_{size['width']}")
            page.click("#item-modal-close")
            page.locator("#item-modal").wait_for(state="hidden")
            if theme == "dark" and size["width"] == 1440:
                continue
            box = page.locator("#chat-input textarea")  # a line with its ▶ and 💾, and a recording to keep
            box.fill("こんばんは")
            box.press("Enter")
            page.locator("#chat .message.bot .sv-keep-line").last.wait_for(timeout=60_000)
            page.click("#sv-mic")
            page.locator("#sv-keep-rec").wait_for(state="visible", timeout=60_000)
            keep = page.locator("#sv-keep-rec").bounding_box()
            assert keep is not None and keep["x"] >= 0 and keep["x"] + keep["width"] <= size["width"]
            shot(page, f"audio_item_line_{theme}_{size['width']}")


def test_a_voice_message_attached_in_the_chat_is_an_audio_item(world: dict[str, Any], tmp_path: Path) -> None:
    """A sound file from the phone's recorder, through 📎: the page lets it by, the send keeps it as a 🎵 item."""
    app = world["app"]
    memo = sox_wav(tmp_path / "ボイスメモ.wav", speech=0.6, silence=0.6)
    with new_page(world["browser"], app.url) as page:
        page.locator("#chat-input input[type='file']").set_input_files(str(memo))
        page.locator("#chat-input .thumbnail-item, #chat-input .file-preview, #chat-input [data-testid='file']").first \
            .wait_for(timeout=30_000)
        assert page.locator("#sv-toast.sv-toast-show").count() == 0  # not refused
        box = page.locator("#chat-input textarea")
        box.fill("録音を置いておきます")
        box.press("Enter")
        page.locator("#chat .message.user", has_text="[音声「ボイスメモ」をアップロードしました]").wait_for(timeout=60_000)
        page.locator("#item-list [data-item-id]", has_text="ボイスメモ").wait_for(timeout=30_000)
    kept = [i for i in app.manager.items.list_owned("building", "library") if i.name == "ボイスメモ"]
    assert [i.type for i in kept] == ["audio"] and kept[0].state["created_by"] == "user_upload"
