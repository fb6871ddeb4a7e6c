"""Shared fixtures: every test gets its own data home (a temp dir), never ~/.saiverse.

`manager` opens a world there — the one `manager` fixture: a module chooses the stores with
`@pytest.mark.backends("sqlite", "postgresql")` and stops the Chronicle worker with `chronicle_by_hand`;
`make_manager(model=...)` opens one whose every model call goes to the given model (through the manager's
`models` hook, not by patching; `tests.support.models.ScriptedModel` is the scripted one). What tests and
benchmarks share lives in tests/support/.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import words
from chat import ChatModel
from saiverse.settings import HOME_ENV, OPTIONS
from tests.support.model_pull import gguf, hub  # noqa: F401 - the fake hub serving the packaged GGUF
from tests.support.models import MakeManager, only
from tests.support.pg import pg_cluster, pg_url  # noqa: F401 - the PostgreSQL fixtures, for every test module

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager

ENV_KEYS = [HOME_ENV, *(option.env for option in OPTIONS)]
"""Every variable the app reads: derived from saiverse/settings.py's `OPTIONS`, so a new setting is cleared too."""


@pytest.fixture(autouse=True)
def saiverse_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point SAIVERSE_HOME at a fresh temp dir and clear every other SAIVerse variable.

    SAIVERSE_RAISE_ERRORS is set, so a bug in a CLI subprocess shows its traceback in the test.
    SAIVERSE_DEFAULT_MODEL=offline keeps the deterministic model answering, so the suite stays fast
    and exact; tests marked `local_model` run the real llama.cpp model.
    """
    for key in ENV_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SAIVERSE_DEFAULT_MODEL", "offline")
    monkeypatch.setenv("SAIVERSE_DETECT_SERVERS", "0")  # no probing of this machine's model servers
    monkeypatch.setenv("SAIVERSE_WORD_NEIGHBOURS", "0")  # no minute-long table build behind every served app
    home = tmp_path / "home"
    monkeypatch.setenv("SAIVERSE_HOME", str(home))
    monkeypatch.setenv("SAIVERSE_RAISE_ERRORS", "1")
    monkeypatch.setattr(words, "_lang", "ja")  # a world opened in English by one test leaves the next in Japanese
    # A developer's .env must not leak into tests.
    monkeypatch.chdir(tmp_path)
    return home


@pytest.fixture
def in_english(monkeypatch: pytest.MonkeyPatch) -> None:
    """The backend's words in English (SAIVERSE_LANG=en, and the process's language): for a test that reads
    what a check says in English; tests/test_words_lang.py holds the Japanese to the same checks."""
    monkeypatch.setenv("SAIVERSE_LANG", "en")
    monkeypatch.setattr(words, "_lang", "en")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`@pytest.mark.backends("sqlite", "postgresql")`: every test of the mark that opens a manager runs once
    per store (the `manager_store` fixture); a test that opens none runs once."""
    marker = metafunc.definition.get_closest_marker("backends")
    if marker is not None and "manager_store" in metafunc.fixturenames:
        metafunc.parametrize("manager_store", marker.args, indirect=True)


@pytest.fixture
def manager_store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The store the test's managers open: SQLite in the home unless `backends` names PostgreSQL too
    (then a fresh database of the test cluster, tests/support/pg.py)."""
    name = getattr(request, "param", "sqlite")
    if name == "postgresql":
        monkeypatch.setenv("SAIVERSE_DATABASE_URL", request.getfixturevalue("pg_url"))
    return name


@pytest.fixture
def make_manager(saiverse_home: Path, manager_store: str,
                 request: pytest.FixtureRequest) -> Iterator[MakeManager]:
    """Open managers on the test's data home and store (closed at the end); `model=` answers every call.
    Under `@pytest.mark.chronicle_by_hand` their Chronicle worker is stopped: the test builds when it says so."""
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import load_settings

    opened: list[SAIVerseManager] = []
    by_hand = request.node.get_closest_marker("chronicle_by_hand") is not None

    def make(model: ChatModel | None = None, **kwargs: Any) -> SAIVerseManager:
        m = SAIVerseManager(load_settings(), models=only(model) if model is not None else None, **kwargs)
        opened.append(m)
        if by_hand:
            m.chronicle_worker.stop()
        return m

    yield make
    for m in opened:
        m.close()


@pytest.fixture
def manager(make_manager: MakeManager) -> SAIVerseManager:
    """A world on the configured (offline) models: the one `manager` fixture (a module chooses the stores
    with `backends` and may arrange the world in an autouse fixture of its own)."""
    return make_manager()


@pytest.fixture(scope="module")
def browser(running: Any) -> Iterator[Any]:
    """One headless Chromium per browser-test module (its `running` fixture serves the app)."""
    from tests.support.browser import chromium

    with chromium() as b:
        yield b


@pytest.fixture
def page(running: Any, browser: Any) -> Iterator[Any]:
    """A fresh page on the served app, the user in the library."""
    from tests.support.browser import new_page

    running.manager.move_user("library")
    with new_page(browser, running.url) as p:
        p.wait_for_selector("#chat-header :text('図書館')")
        yield p
