"""Recall's embeddings through a cloud provider's API (issue 33): the real SDKs (google-genai, openai)
against a loopback server speaking Gemini's `batchEmbedContents` and OpenAI's `/v1/embeddings`.

The fake answers each text with the concept vector of tests/support/embedder.py (`embed`), padded to
the width asked for, so what is asserted is the wire format, the indexer and the fusion.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from chat import LLMError
from database.engine import Database
from database.migrate import migrate
from saiverse.memory import ChronicleStore, MemopediaStore, SAIMemory, open_memory_index, recall
from saiverse.settings import load_settings
from tests.support.embedder import LINES, embed

KEY = "sk-test-embedding-key-123"
ROOT = Path(__file__).resolve().parents[1]


class FakeEmbeddings:
    """Gemini's and OpenAI's embedding endpoints on 127.0.0.1, recording every request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        self.fail_next = 0
        """Answer this many requests with a 503 first."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                fake.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status, out = fake.answer(self.path, body)
                payload = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status == 503:
                    self.send_header("Retry-After", "0")  # the client's retries come at once
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.fail_next:
            self.fail_next -= 1
            return 503, {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}
        if path.endswith(":batchEmbedContents"):  # Gemini
            texts = [" ".join(p["text"] for p in r["content"]["parts"]) for r in body["requests"]]
            width = body["requests"][0].get("outputDimensionality") or 16
            return 200, {"embeddings": [{"values": _padded(v, width, scale=3.0)} for v in embed(texts)]}
        if path.endswith("/embeddings"):  # OpenAI and compatible servers
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            width = body.get("dimensions") or 16
            data = [{"object": "embedding", "index": i, "embedding": _padded(v, width)}
                    for i, v in reversed(list(enumerate(embed(texts))))]  # out of order: the index says which
            return 200, {"object": "list", "data": data, "model": body["model"],
                         "usage": {"prompt_tokens": 1, "total_tokens": 1}}
        return 404, {"error": {"message": f"no such path {path}"}}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _padded(vec: list[float], width: int, scale: float = 1.0) -> list[float]:
    """The concept vector at `width` values (not unit length when `scale` is not 1: the client normalises)."""
    return [v * scale for v in vec] + [0.0] * (width - len(vec))


@pytest.fixture
def fake() -> Iterator[FakeEmbeddings]:
    server = FakeEmbeddings()
    yield server
    server.close()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    migrate(tmp_path / "cloud.db", backup=False)
    database = Database(f"sqlite:///{tmp_path / 'cloud.db'}")
    with database.engine.begin() as conn:
        conn.execute(text("INSERT INTO city (CITYID, CITYNAME) VALUES ('c', 'c')"))
        conn.execute(text("INSERT INTO ai (AIID, CITYID, AINAME) VALUES ('mina', 'c', 'mina')"))
    memory = SAIMemory(database)
    for line in LINES:
        memory.add("mina", "user", line, tags=["conversation"])
    yield database
    database.dispose()


def _finds_the_volvo(db: Database, index: Any) -> None:
    index.dense.wait = 30.0
    args = (SAIMemory(db), ChronicleStore(db), MemopediaStore(db), "mina")
    question = "When did my vehicle stop working?"
    assert not any("Volvo" in h["content"] for h in recall(*args, question, limit=5))
    fused = recall(*args, question, limit=5, dense=index.dense)
    volvo = [h for h in fused[:3] if "Volvo" in h["content"]]  # brought by the dense list alone
    assert volvo and volvo[0]["dense"] > 0.5 and not volvo[0]["terms"]


def test_gemini_embeddings_index_every_message_and_recall_fuses_them(fake: FakeEmbeddings, db: Database,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_EMBEDDING_MODEL", "gemini-embedding-001")
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("SAIVERSE_GEMINI_BASE_URL", fake.url)
    index = open_memory_index(load_settings(), db, start=False)
    assert index is not None and index.key == "gemini-embedding-001@512"
    assert index.drain() == {"mina": (7, 7)}
    _finds_the_volvo(db, index)
    index.stop()
    paths = {p for p, _, _ in fake.requests}
    assert paths == {"/v1beta/models/gemini-embedding-001:batchEmbedContents"}
    tasks = [r["taskType"] for _, _, body in fake.requests for r in body["requests"]]
    assert set(tasks) == {"RETRIEVAL_DOCUMENT", "RETRIEVAL_QUERY"} and tasks.count("RETRIEVAL_QUERY") == 1
    assert all(h.get("x-goog-api-key") == KEY for _, h, _ in fake.requests)
    with db.engine.connect() as conn:  # five lines with text, two blank ones with nothing to embed
        assert sorted(r[0] for r in conn.execute(text("SELECT DIM FROM saimemory_vec"))) == [0, 0] + [512] * 5


def test_openai_embeddings_ask_for_512_dimensions_and_a_failed_batch_is_retried(
        fake: FakeEmbeddings, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_EMBEDDING_MODEL", "text-embedding-3-small")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
    index = open_memory_index(load_settings(), db, start=False)
    assert index is not None and index.key == "text-embedding-3-small@512"
    fake.fail_next = 50  # the provider is down: the batch fails, nothing is written, nothing else breaks
    with pytest.raises(LLMError) as failed:
        index.step()
    assert KEY not in str(failed.value) and sum(p == "/v1/embeddings" for p, _, _ in fake.requests) == 4  # retried
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM saimemory_vec")).scalar() == 0
    fake.fail_next = 0
    assert index.drain() == {"mina": (7, 7)}
    _finds_the_volvo(db, index)
    index.stop()
    asked = [body for p, _, body in fake.requests if p == "/v1/embeddings"]
    assert asked and all(b["dimensions"] == 512 and b["model"] == "text-embedding-3-small" for b in asked)
    assert all(h["authorization"] == f"Bearer {KEY}" for _, h, _ in fake.requests)


def test_a_compatible_server_is_asked_without_dimensions(fake: FakeEmbeddings, db: Database,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAIVERSE_EMBEDDING_MODEL", "openai:nomic-embed-text")
    monkeypatch.setenv("SAIVERSE_OPENAI_BASE_URL", f"{fake.url}/v1")
    index = open_memory_index(load_settings(), db, start=False)
    assert index is not None and index.key == "openai:nomic-embed-text"
    assert index.drain() == {"mina": (7, 7)}
    _finds_the_volvo(db, index)
    index.stop()
    assert all("dimensions" not in body and body["model"] == "nomic-embed-text" for _, _, body in fake.requests)


def test_a_cloud_model_without_its_key_leaves_recall_lexical(db: Database, monkeypatch: pytest.MonkeyPatch,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("SAIVERSE_EMBEDDING_MODEL", "gemini-embedding-001")
    assert open_memory_index(load_settings(), db, start=False) is None
    assert "GEMINI_API_KEY" in caplog.text
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "memory-index", "--wait"], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "SAIVERSE_RAISE_ERRORS": "0"})
    assert done.returncode == 2 and "GEMINI_API_KEY が必要です" in done.stderr.splitlines()[-1]  # said, not "not set"
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "memory-index"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "SAIVERSE_RAISE_ERRORS": "0", "SAIVERSE_LANG": "en"})
    assert done.returncode == 2 and "gemini-embedding-001 needs GEMINI_API_KEY" in done.stderr.splitlines()[-1]
