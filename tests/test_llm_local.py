"""The `local` provider: profiles, file rules, the auto default (fast), and the real packaged Gemma 3
270M through llama.cpp (marked `local_model`: loading takes a second or two)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat import ChatRequest, ContextWindow, LLMError, TokenCounter
from saiverse.llm import registry
from saiverse.llm.local import LocalModelMissing, model_path
from saiverse.llm.local._profile import PACKAGED_NAME, profile_for
from saiverse.llm.offline import OFFLINE_NOTE
from saiverse.llm.registry import clear_model_cache, describe_default, provider_status, resolve_model
from saiverse.settings import load_settings

MINA = ("あなたはミナです。\nあなたは図書館の司書ミナです。本と物語を愛し、落ち着いた丁寧な口調で話します。\n"
        "一人称: わたし\n語尾: 〜ですね\n\n現在地: 図書館。静かな図書館。")
ROUTE = {"type": "object", "properties": {"playbook": {"type": "string", "enum": ["basic_chat", "image_generate"],
                                                       "x-keywords": {"image_generate": ["絵を描"]}}},
         "required": ["playbook"]}


# -- without the model -------------------------------------------------------------------------------

def test_profiles_from_gguf_metadata() -> None:
    base = profile_for({"general.name": "Gemma 3 270m", "general.size_label": "270M"})
    assert not base.chat_template and not base.decides
    small = profile_for({"tokenizer.chat_template": "{{x}}", "general.size_label": "500M", "general.name": "Qwen it"})
    assert small.chat_template and not small.decides
    big = profile_for({"tokenizer.chat_template": "{{x}}", "general.size_label": "8B"})
    assert big.chat_template and big.decides
    assert not profile_for({"tokenizer.chat_template": "{{x}}", "general.name": "Llama 3 8B base",
                            "general.size_label": "8B"}).chat_template
    assert profile_for({}, "instruct+json").decides
    assert not profile_for({"tokenizer.chat_template": "{{x}}", "general.size_label": "8B"}, "base").chat_template


def test_model_files_stay_in_the_home_unless_the_user_names_them(saiverse_home: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings()
    assert model_path(settings, "") == settings.home / "models" / PACKAGED_NAME
    assert model_path(settings, "qwen") == settings.home / "models" / "qwen.gguf"
    outside = tmp_path / "elsewhere" / "m.gguf"
    with pytest.raises(LocalModelMissing, match="データフォルダの外"):
        model_path(settings, str(outside))  # a persona column cannot point outside the home
    monkeypatch.setenv("SAIVERSE_LOCAL_MODEL", str(outside))
    assert model_path(load_settings(), str(outside)) == outside.resolve()  # the user's own setting may


def test_auto_default_without_llama_cpp_is_offline_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")
    clear_model_cache()
    monkeypatch.setattr(registry, "runtime_available", lambda: "llama-cpp-python がインストールされていません")
    settings = load_settings()
    name, why = describe_default(settings)
    assert name == "offline" and "llama-cpp-python" in why
    model, notice = resolve_model("auto", settings)
    assert model.provider == "offline" and notice is None  # said once at start and in the UI, not per call
    model, notice = resolve_model("local", settings)
    assert model.provider == "offline" and notice and "llama-cpp-python" in notice
    assert not next(s for s in provider_status(settings) if s.provider == "local").ready


def test_auto_prefers_a_cloud_key_then_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")
    assert describe_default(load_settings())[0] == "local"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    assert describe_default(load_settings())[0].startswith("claude-")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    name, why = describe_default(load_settings())
    assert name.startswith("gpt-") and "OPENAI_API_KEY" in why


def test_start_up_never_imports_llama_cpp_or_the_sdks(tmp_path: Path) -> None:
    code = ("import sys; from saiverse.settings import load_settings; from saiverse.manager import SAIVerseManager;"
            "m = SAIVerseManager(load_settings()); m.model_notice(); m.close();"
            "print(sorted(n for n in ('llama_cpp', 'openai', 'anthropic') if n in sys.modules))")
    env = {"SAIVERSE_HOME": str(tmp_path / "h"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]"
    assert not (tmp_path / "h" / "models").exists()  # nothing assembled or loaded at start


# -- the real model ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    home = tmp_path_factory.mktemp("local-home")
    settings = load_settings(home, environ={"SAIVERSE_DEFAULT_MODEL": "local"})
    clear_model_cache()
    model, notice = resolve_model("local", settings)
    assert notice is None and model.provider == "local"
    yield model
    clear_model_cache()


def ask(text: str, **kw: object) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], system=MINA, persona_name="ミナ",
                       **kw)  # type: ignore[arg-type]


@pytest.mark.local_model
def test_packaged_model_is_assembled_checked_and_answers_in_japanese(local: object) -> None:
    chunks = list(local.stream(ask("こんにちは、おすすめの本はありますか？")))  # type: ignore[attr-defined]
    text = "".join(chunks)
    assert text and OFFLINE_NOTE not in text and "こんにちは、おすすめの本はありますか" not in text
    assert local.load_seconds is not None and local.load_seconds < 30  # type: ignore[attr-defined]
    path = next(Path(p) for p in [local._path()])  # type: ignore[attr-defined]
    assert path.name == PACKAGED_NAME and path.stat().st_size > 200_000_000
    assert isinstance(local, TokenCounter) and isinstance(local, ContextWindow)
    assert 0 < local.count_tokens("図書館の一番古い本は？") < 12  # the model's own tokenizer
    assert local.prompt_budget() < 2048


@pytest.mark.local_model
def test_decisions_stay_with_the_deterministic_logic(local: object) -> None:
    routed = local.generate(ask("海の絵を描いて", response_schema=ROUTE))  # type: ignore[attr-defined]
    assert routed.data == {"playbook": "image_generate"} and routed.model == "local"
    plain = local.generate(ask("こんにちは", response_schema=ROUTE))  # type: ignore[attr-defined]
    assert plain.data == {"playbook": "basic_chat"}  # not the grammar's first choice by habit
    tools = [{"name": "memory_recall", "description": "記憶", "parameters": {
        "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}]
    called = local.generate(ask("memory_recall で 猫 を探して", tools=tools))  # type: ignore[attr-defined]
    assert called.tool_calls and called.tool_calls[0]["name"] == "memory_recall"


@pytest.mark.local_model
def test_one_generation_at_a_time_and_a_closed_stream_frees_the_context(local: object) -> None:
    stream = local.stream(ask("今日は雨で疲れたよ"))  # type: ignore[attr-defined]
    next(stream)
    stream.close()  # the stop button: the consumer stops reading
    answers: list[str] = []
    threads = [threading.Thread(target=lambda: answers.append(local.generate(ask("猫が好き？")).text))  # type: ignore[attr-defined]
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(answers) == 2 and all(answers)


@pytest.mark.local_model
def test_long_history_is_fitted_to_the_window(local: object) -> None:
    history = []
    for i in range(200):
        history += [{"role": "user", "content": f"{i}番目の本について教えてください。とても長い話になります。" * 3},
                    {"role": "assistant", "content": "その本は古い物語の本です。" * 3}]
    request = ChatRequest(messages=[*history, {"role": "user", "content": "最後の質問です"}], system=MINA,
                          persona_name="ミナ")
    assert local.generate(request).text  # type: ignore[attr-defined]


@pytest.mark.local_model
def test_a_pulse_on_the_local_model_names_it(make_manager: object, local: object) -> None:
    manager = make_manager(local)  # type: ignore[operator]
    events = list(manager.handle_user_input("library", "こんにちは", persona_id="mina"))
    speak = next(e for e in events if e["type"] == "speak")
    end = next(e for e in events if e["type"] == "pulse_end")
    assert speak["model"] == "local" and end["model"] == "local" and end["status"] == "ok"
    assert speak["text"] and OFFLINE_NOTE not in speak["text"]


# -- the inference process: a crash is a failed reply, never a dead app --------------------------------

def test_death_words_name_what_happened() -> None:
    from saiverse.llm.local._child import death_words

    assert death_words(-11).startswith("SIGSEGV") and "メモリ" in death_words(-11)
    assert "CPU" in death_words(-4) and "メモリ不足" in death_words(-9)
    assert "illegal instruction" in death_words(0xC000001D) and "access violation" in death_words(-1073741819)
    assert death_words(1) == "終了コード 1" and death_words(None) == "応答が止まりました"


@pytest.fixture
def on_local(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every persona on the packaged model, streamed through its chat template (so a reply arrives in
    chunks the test can interrupt); the model's processes end with the test."""
    monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "local")
    monkeypatch.setenv("SAIVERSE_LOCAL_PROFILE", "instruct")
    clear_model_cache()
    yield
    clear_model_cache()


def _the_local_model() -> object:
    model, notice = resolve_model("local", load_settings())
    assert notice is None and model.provider == "local"
    return model


@pytest.mark.local_model
def test_the_app_never_loads_llama_cpp(on_local: None) -> None:
    model = _the_local_model()
    assert model.generate(ask("こんにちは")).text  # type: ignore[attr-defined]
    assert "llama_cpp" not in sys.modules
    maps = Path("/proc/self/maps")
    if maps.exists():
        assert "libllama" not in maps.read_text() and "libggml" not in maps.read_text()
    pid = model.pid  # type: ignore[attr-defined]
    assert pid and pid != os.getpid()
    if Path(f"/proc/{pid}/maps").exists():
        assert "libllama" in Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.local_model
def test_sigsegv_in_the_middle_of_a_reply_ends_it_and_the_next_message_is_answered(
        make_manager: object, on_local: None) -> None:
    manager = make_manager()  # type: ignore[operator]
    model = _the_local_model()
    events, first_pid = [], None
    for ev in manager.handle_user_input("library", "こんにちは、今日のおすすめは？", persona_id="mina"):
        events.append(ev)
        if ev["type"] == "speak_chunk" and first_pid is None:
            first_pid = model.pid  # type: ignore[attr-defined]
            os.kill(first_pid, signal.SIGSEGV)
    assert first_pid, "the reply was not streamed"
    error = next(e for e in events if e["type"] == "error")
    assert error["kind"] == "model_local_crashed"
    assert "ローカルモデル「local」" in error["message"] and "SIGSEGV" in error["message"]
    assert "もう一度話しかけてください" in error["message"]
    end = next(e for e in events if e["type"] == "pulse_end")
    assert end["status"] == "error" and not any(e["type"] == "speak" for e in events)
    lines = manager.world.history("library")
    assert [h.speaker_kind for h in lines] == ["user", "system"]  # nothing half-written; the building says why
    assert lines[-1].content == "ミナの返事は途中で止まりました (ローカルモデルのプロセスが異常終了しました)。もう一度話しかけてください。"

    again = list(manager.handle_user_input("library", "もう一度お願いします", persona_id="mina"))
    speak = next(e for e in again if e["type"] == "speak")
    assert speak["text"] and speak["model"] == "local"
    assert next(e for e in again if e["type"] == "pulse_end")["status"] == "ok"
    assert model.pid not in (None, first_pid)  # type: ignore[attr-defined]  # a new process answered


@pytest.mark.local_model
def test_a_hung_process_is_stopped_and_started_again(on_local: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_LOCAL_STALL_SECONDS", "8")  # above a first token on a busy 2-core machine
    clear_model_cache()
    model = _the_local_model()
    stream = model._chunks(ask("長い物語を聞かせてください"))  # type: ignore[attr-defined]
    next(stream)
    pid = model.pid  # type: ignore[attr-defined]
    os.kill(pid, signal.SIGSTOP)
    with pytest.raises(LLMError) as err:
        for _part in stream:
            pass
    assert err.value.kind == "local_hang" and "8 秒" in str(err.value) and "応答が止まりました" in str(err.value)
    assert model.generate(ask("こんにちは")).text  # type: ignore[attr-defined]
    assert model.pid != pid  # type: ignore[attr-defined]


@pytest.mark.local_model
def test_killed_twice_while_loading_the_model_is_broken_and_its_personas_fall_back(
        make_manager: object, on_local: None) -> None:
    from saiverse.llm.answering import answering
    from saiverse.llm.local import HealthBook, model_path

    settings = load_settings()
    model = _the_local_model()
    killed: list[int] = []
    stop = threading.Event()

    def kill_each_new_process() -> None:  # an OOM killer that strikes while the model loads
        while not stop.is_set() and len(killed) < 2:
            pid = model.pid  # type: ignore[attr-defined]
            if pid and pid not in killed:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            time.sleep(0.001)

    killer = threading.Thread(target=kill_each_new_process)
    killer.start()
    try:
        with pytest.raises(LLMError) as err:
            model.generate(ask("こんにちは"))  # type: ignore[attr-defined]
    finally:
        stop.set()
        killer.join()
    assert len(killed) == 2 and err.value.kind == "local_broken"
    assert "2 回続けて異常終了" in str(err.value) and "SIGKILL" in str(err.value)
    health = HealthBook(settings.home).get(model_path(settings, ""))
    assert health is not None and health.state == "broken" and "SIGKILL" in health.reason

    clear_model_cache()  # as after a restart: the record outlives the process
    status = next(s for s in provider_status(settings) if s.provider == "local")
    assert not status.ready and "異常終了" in status.detail
    fallback, notice = resolve_model("local", settings)
    assert fallback.provider == "offline" and notice and "異常終了" in notice
    line = answering(settings, {"persona_id": "mina", "name": "ミナ", "default_model": "local"})
    assert line.fallback and line.answers == "offline" and "異常終了" in line.line()
    manager = make_manager()  # type: ignore[operator]
    events = list(manager.handle_user_input("library", "こんにちは", persona_id="mina"))
    assert next(e for e in events if e["type"] == "pulse_end")["status"] == "ok"
    assert next(e for e in events if e["type"] == "speak")["model"] == "offline"

    HealthBook(settings.home).forget(model_path(settings, ""))  # 「もう一度試す」
    clear_model_cache()
    assert _the_local_model().generate(ask("こんにちは")).text  # type: ignore[attr-defined]


@pytest.mark.local_model
def test_the_settings_tab_says_ready_only_after_a_real_generation(on_local: None) -> None:
    settings = load_settings()
    before = next(s for s in provider_status(settings) if s.provider == "local")
    assert not before.ready and "まだ応答していません" in before.detail
    assert _the_local_model().generate(ask("こんにちは")).text  # type: ignore[attr-defined]
    after = next(s for s in provider_status(settings) if s.provider == "local")
    assert after.ready and "応答しました" in after.detail


@pytest.mark.local_model
def test_embeddings_come_from_their_own_process(on_local: None) -> None:
    from array import array

    from saiverse.llm.local import HealthBook, LocalEmbedder, ensure_file, model_path

    settings = load_settings()
    path = ensure_file(model_path(settings, ""))
    embedder = LocalEmbedder("local", path, health=HealthBook(settings.home))
    try:
        texts = [f"{i}番目の本は猫の物語です。" for i in range(40)] + ["The library opens at nine."]
        vectors = embedder.embed(texts)  # two batches
        assert len(vectors) == 41 and all(isinstance(v, array) and len(v) == embedder.dim for v in vectors)
        assert embedder.dim and embedder.dim >= 64
        assert all(abs(sum(x * x for x in v) - 1.0) < 1e-3 for v in vectors)  # unit length
        assert embedder.embed([texts[0]])[0] == vectors[0]  # the same text, the same vector
        assert vectors[0] != vectors[-1]
        assert embedder.pid and embedder.pid != os.getpid() and "llama_cpp" not in sys.modules
        first = embedder.pid
        os.kill(first, signal.SIGSEGV)
        deadline = time.monotonic() + 30
        while embedder.pid is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert embedder.pid is None
        assert len(embedder.embed(["次の索引付け"])[0]) == embedder.dim  # a death while idle: started again
        assert embedder.pid not in (None, first)
    finally:
        embedder.close()


@pytest.mark.local_model
def test_an_idle_model_gives_its_memory_back_and_loads_again(on_local: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_LOCAL_KEEP_ALIVE", "1")
    clear_model_cache()
    model = _the_local_model()
    assert model.generate(ask("こんにちは")).text  # type: ignore[attr-defined]
    first = model.pid  # type: ignore[attr-defined]
    assert first
    deadline = time.monotonic() + 30
    while model.pid is not None and time.monotonic() < deadline:  # type: ignore[attr-defined]
        time.sleep(0.05)
    assert model.pid is None  # type: ignore[attr-defined]  # unloaded after a second idle, as Ollama's keep_alive
    again = model.generate(ask("また来ました"))  # type: ignore[attr-defined]
    assert again.model == "local" and model.count_tokens("また来ました") > 0  # type: ignore[attr-defined]
    assert model.pid not in (None, first)  # type: ignore[attr-defined]  # (the small model may say nothing)
