"""llama.cpp's own log lines go to Python logging, not to the console.

llama-cpp-python prints llama.cpp's log to stderr from its C callback, and `verbose=False` only
hides the lines below ERROR; llama.cpp reports harmless notes at that level too (`llama_kv_cache_iswa:
using full-size SWA cache …` on every load of Gemma 3). The console is the user's, so every line goes
to the `llama.cpp` logger at DEBUG, whatever level llama.cpp gave it (a failure to load raises, and
the app says that in words): logging configured for debugging shows them, nothing else does.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from typing import Any

log = logging.getLogger("llama.cpp")
_installed: list[Any] = []
"""The installed callback: ctypes must keep it alive as long as llama.cpp may call it."""
_lock = threading.Lock()


def quiet_llama_logs() -> None:
    """Route llama.cpp's log to the `llama.cpp` logger (once per process; llama_cpp must be importable)."""
    with _lock:
        if _installed:
            return
        import llama_cpp

        @llama_cpp.llama_log_callback  # type: ignore[misc]
        def _callback(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
            line = text.decode("utf-8", errors="replace").rstrip()
            if line:
                log.debug("%s (level %d)", line, level)

        llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
        _installed.append(_callback)
