"""Finding the model servers the user already runs (Ollama, LM Studio, llama-server) against loopback
fakes speaking their real wire formats, and `auto` answering through one with the real `openai` SDK."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chat import ChatRequest
from saiverse.llm.registry import auto_choice, clear_model_cache, describe_default, provider_status, resolve_model
from saiverse.llm.servers import forget_servers, found_servers, probe
from saiverse.settings import load_settings
from tests.support.fakes_hub import FakeModelServer
from tests.support.fakes_llm import openai_stream, openai_text
from tests.support.model_servers import closed_port, point_at


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")  # `auto`, as a new user has it
    monkeypatch.setenv("SAIVERSE_DETECT_SERVERS", "1")
    forget_servers()
    clear_model_cache()
    yield
    forget_servers()
    clear_model_cache()


class Silent:
    """A server that accepts and reads a request, then holds its answer until released."""

    def __init__(self) -> None:
        self.got = threading.Event()
        self.release = threading.Event()
        silent = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                silent.got.set()
                silent.release.wait(30)
                try:
                    self.send_response(503)
                    self.end_headers()
                except OSError:
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def test_ollama_is_found_and_auto_talks_to_it_through_the_openai_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer("ollama", ["nomic-embed-text:latest", "qwen2.5:3b"]) as ollama:
        point_at(monkeypatch, ollama.url, closed_port(), closed_port())
        settings = load_settings()
        assert auto_choice(settings)[0] in ("local", "offline")  # nothing looked for yet: never probes here
        found = probe(settings)
        assert [s.kind for s in found] == ["ollama"] and found[0].models == ("nomic-embed-text:latest", "qwen2.5:3b")
        name, why = auto_choice(settings)
        assert name == "ollama:qwen2.5:3b" and "Ollama" in why  # the embedding model is passed over
        assert describe_default(settings)[0] == "ollama:qwen2.5:3b"
        assert any(r.provider == "ollama" and r.ready for r in provider_status(settings))

        ollama.queue(openai_text("こんにちは、ミナです。"), openai_stream(["本を", "どうぞ"]))
        model, notice = resolve_model("auto", settings)
        assert notice is None and model.provider == "openai-compatible"
        request = ChatRequest(messages=[{"role": "user", "content": "こんにちは"}], system="あなたはミナです。")
        assert model.generate(request).text == "こんにちは、ミナです。"
        assert "".join(model.stream(request)) == "本をどうぞ"
        posted = [r for r in ollama.requests if r.method == "POST"]
        assert [r.path for r in posted] == ["/v1/chat/completions"] * 2
        assert posted[0].body["model"] == "qwen2.5:3b" and posted[1].body["stream"] is True


def test_lm_studio_and_llama_server_are_found_too(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer("lmstudio", ["qwen2.5-7b-instruct", "text-embedding-nomic-embed-text-v1.5"]) as lms, \
            FakeModelServer("llamacpp", ["gemma-3-4b-it-Q4_K_M.gguf"]) as llama:
        point_at(monkeypatch, closed_port(), lms.url, llama.url)
        settings = load_settings()
        found = {s.kind: s for s in probe(settings)}
        assert set(found) == {"lmstudio", "llamacpp"}
        assert found["llamacpp"].chat_model() == "gemma-3-4b-it-Q4_K_M.gguf"
        assert auto_choice(settings)[0] == "lmstudio:qwen2.5-7b-instruct"
        lms.queue(openai_text("はい"))
        model, _notice = resolve_model("llamacpp:gemma-3-4b-it-Q4_K_M.gguf", settings)  # named directly
        llama.queue(openai_text("どうぞ"))
        assert model.generate(ChatRequest(messages=[{"role": "user", "content": "やあ"}])).text == "どうぞ"


def test_a_cloud_key_still_wins_and_the_look_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer("ollama", ["llama3.2"]) as ollama:
        point_at(monkeypatch, ollama.url, closed_port(), closed_port())
        probe(load_settings())
        monkeypatch.setenv("GEMINI_API_KEY", "test-key-1234")
        assert auto_choice(load_settings())[0] == "gemini-2.5-flash"
        monkeypatch.delenv("GEMINI_API_KEY")
        monkeypatch.setenv("SAIVERSE_DETECT_SERVERS", "0")
        assert found_servers(load_settings()) == [] and auto_choice(load_settings())[0] != "ollama:llama3.2"


def test_a_silent_or_closed_port_never_holds_up_start(monkeypatch: pytest.MonkeyPatch) -> None:
    from saiverse.manager import SAIVerseManager

    silent = Silent()
    try:
        point_at(monkeypatch, silent.url, closed_port(), closed_port())
        monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "offline")  # the deterministic model answers meanwhile
        manager = SAIVerseManager(load_settings())
        try:
            # The manager is open while the silent server still holds the probe's request unanswered.
            assert silent.got.wait(10) and not silent.release.is_set()
            assert manager.server_scan is not None and manager.server_scan.daemon
            events = list(manager.handle_user_input("library", "こんにちは", persona_id="mina"))
            assert events[-1]["status"] == "ok"  # a chat is answered meanwhile
            manager.server_scan.join(10)  # the probe gives up after its short timeout, unanswered
            assert not manager.server_scan.is_alive() and found_servers(manager.settings) == []
        finally:
            manager.close()
    finally:
        silent.close()


def test_model_servers_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys
    from pathlib import Path

    with FakeModelServer("ollama", ["qwen2.5:1.5b"]) as ollama:
        point_at(monkeypatch, ollama.url, closed_port(), closed_port())
        root = Path(__file__).resolve().parents[1]
        done = subprocess.run([sys.executable, str(root / "main.py"), "model", "servers", "--json"],
                              capture_output=True, text=True, cwd=root, timeout=60)
        assert done.returncode == 0, done.stderr
        rows = json.loads(done.stdout)
        assert rows == [{"kind": "ollama", "label": "Ollama", "url": ollama.url, "models": ["qwen2.5:1.5b"],
                         "chat_model": "qwen2.5:1.5b"}]


def test_a_cli_chat_with_auto_answers_through_a_found_ollama(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys
    from pathlib import Path

    with FakeModelServer("ollama", ["qwen2.5:3b"], say="こんにちは、ミナです。") as ollama:
        point_at(monkeypatch, ollama.url, closed_port(), closed_port())
        root = Path(__file__).resolve().parents[1]
        done = subprocess.run([sys.executable, str(root / "main.py"), "chat", "--persona", "mina", "こんにちは"],
                              capture_output=True, text=True, cwd=root, timeout=120)
        assert done.returncode == 0, [ln for ln in done.stdout.splitlines() if '"error"' in ln]
        events = [json.loads(line) for line in done.stdout.splitlines()]
        speak = [e for e in events if e["type"] == "speak"]
        assert speak and speak[-1]["model"] == "ollama:qwen2.5:3b" and "ミナです" in speak[-1]["text"], events
        assert any(r.path == "/v1/chat/completions" and r.body["model"] == "qwen2.5:3b" for r in ollama.requests)
