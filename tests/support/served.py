"""The real app served on a free loopback port with ui/app.py's own launch arguments, for the HTTP-level
exposure tests (tests/reliability/test_exposure.py, test_other_sites.py); `PASSWORD` is their login's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.browser import free_port

PASSWORD = "correct horse battery"


@contextmanager
def served(home: Path, *, allowed_hosts: tuple[str, ...] = (), login_required: bool = False
           ) -> Iterator[tuple[str, Any]]:
    """The real app on a free loopback port, launched with ui/app.py's own launch arguments."""
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import Settings
    from ui.app import build_app, launch_kwargs

    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    settings = Settings(home=home, database_url=f"sqlite:///{home / 'saiverse.db'}", port=port,
                        default_model="offline", allowed_hosts=allowed_hosts)
    manager = SAIVerseManager(settings)
    app = build_app(manager)
    try:
        app.launch(**launch_kwargs(settings, login_required=login_required), prevent_thread_lock=True)
        yield f"http://127.0.0.1:{port}", manager
    finally:
        app.close()
        manager.close()
