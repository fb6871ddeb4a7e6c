"""Serving the window: open the world, launch Gradio on the configured address, and close it all cleanly.

`launch` is what `python main.py` runs (cli/_system.py); the Blocks themselves are built by
ui/app.py `build_app`, with the launch arguments of ui/app.py `launch_kwargs`.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from saiverse.port import CityPort
from ui.app import build_app, launch_kwargs


def announce_servers(manager: CityPort) -> None:
    """When the background look (saiverse/llm/servers.py) finds a model server, print the model line again."""
    scan = getattr(manager, "server_scan", None)
    if scan is None:
        return

    def wait() -> None:
        from saiverse.port import found_servers

        scan.join(10)
        if found_servers(manager.settings):
            print(manager.startup_notice(), flush=True)

    threading.Thread(target=wait, name="announce-servers", daemon=True).start()


def launch(settings: Any) -> int:
    """Open the world under `settings.home` and serve the UI until interrupted; returns an exit code."""
    from saiverse.port import SAIVerseManager, ServerLock, read_login, settle, tls_files
    from ui.guard import addresses_to_open, is_loopback, password_command, require_login_for

    login = read_login(settings.home)
    # A UserError: main.py prints its one line, exit 2.
    require_login_for(settings.host, login, password_command(settings))
    tls = tls_files(settings)  # a certificate the server would refuse stops the start here, in one line
    scheme = "https" if tls is not None else "http"
    # Before the world is opened: a second server on this home must not repair, back up or tick.
    server_lock = ServerLock(settings.home, host=settings.host, port=settings.port,
                             database_url=settings.database_url)
    try:
        manager = SAIVerseManager(settings)
    except Exception as exc:  # noqa: BLE001 - main.py prints this and exits non-zero
        server_lock.release()
        print(f"SAIVerse could not open {settings.home}: {exc}", file=sys.stderr)
        return 1
    ticker = manager.ticker()
    if settings.word_neighbours:
        manager.word_neighbours.start_later()  # recall's word neighbours: built once, in the background
    wide = not is_loopback(settings.host)
    try:
        app = build_app(manager)
        app.launch(**launch_kwargs(settings, login_required=wide, tls=tls), prevent_thread_lock=True)
        ticker.start()  # schedules and autonomous turns run while the window is served
        # Printed once the port is really bound, so the line is never a lie.
        shown = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
        print(f"SAIVerse: {scheme}://{shown}:{settings.port}/  (Ctrl+C to stop)", flush=True)
        if wide and login is not None:
            urls = "  ".join(addresses_to_open(settings.host, settings.port, scheme))
            print(f"From your phone or another device on this network open: {urls}  (log in with the password)",
                  flush=True)
            if tls is None:  # a phone's browser gives plain http no microphone (README, "From a phone")
                print("For 🎤 and call mode from a phone the page needs https: `python main.py tls make`", flush=True)
        print(manager.startup_notice(), flush=True)
        settle()  # start-up's objects out of the collector's full passes (saiverse/heap.py)
        announce_servers(manager)  # a server found after this line changes what `auto` answers with: say so
        app.block_thread()
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"SAIVerse could not serve on {settings.host}:{settings.port}: {exc}", file=sys.stderr)
        return 1
    finally:
        ticker.stop()
        manager.close()
        server_lock.release()
    return 0
