"""Recall's word neighbours: for a question's English word, the words that stand for it (vehicle → car,
truck; surgery → surgical, hospital), so that a memory worded otherwise is found (issue 33's reworded
questions).

The table comes from the packaged model's token embeddings (saiverse/memory/_neighbours_build.py): built
once per home, in a process of its own and in the background, into `<home>/models/word-neighbours.sqlite`.
Until it is there (or when the packaged model is not installed, or `SAIVERSE_WORD_NEIGHBOURS=0`) recall is
exactly as without it. A broken or half-written table is never read: the build writes beside it and
renames, and a table that fails to open is set aside and built again.

The lexical side asks through `saiverse/memory/_lexical.py`'s `use_neighbours`: one provider per process,
since the table is the same for every home (it depends only on the packaged model's file).
"""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from saiverse.disk import private_folder
from saiverse.memory import _lexical

log = logging.getLogger(__name__)

TABLE = "models/word-neighbours.sqlite"
"""Where the table is kept in the home."""
BUILDER = Path(__file__).with_name("_neighbours_build.py")
START_DELAY = 20.0
"""Seconds the app waits after its start before building: the window opens and a first reply comes first."""
BUILD_SECONDS = 1800.0
"""How long a build may take before it is taken for hung (about a minute or two on two free cores)."""


class WordNeighbours:
    """The home's neighbour table: read when it is there, built in the background when it is not."""

    def __init__(self, home: Path, model: Callable[[], Path]) -> None:
        self.path = Path(home) / TABLE
        self._model = model
        """The packaged model's GGUF, assembled into the home when it is not yet (saiverse/llm/local)."""
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopped = threading.Event()
        self.near = lru_cache(maxsize=8192)(self._near)
        """A word's neighbours, nearest first: ((word, cosine), ...); () for a word the table lacks."""

    @classmethod
    def packaged(cls, home: Path, settings: Callable[[], Any]) -> WordNeighbours:
        """The table built from the packaged model, assembled into the home first when it is not yet."""
        def model() -> Path:
            from saiverse.llm.local import ensure_file, model_path

            return ensure_file(model_path(settings(), ""))
        return cls(home, model)

    @property
    def ready(self) -> bool:
        """Whether the table is open (recall uses it)."""
        return self._db is not None

    def start(self, *, build: bool = True, delay: float = 0.0) -> None:
        """Open the table, or build it in the background after `delay` seconds (`build=False`: only read)."""
        if self._open():
            return
        if build and self._thread is None:
            self._thread = threading.Thread(target=self._build, args=(delay,), name="word-neighbours", daemon=True)
            self._thread.start()

    def start_later(self) -> None:
        """What the app's server does: open the table, or build it `START_DELAY` seconds after the start."""
        self.start(delay=START_DELAY)

    def _open(self) -> bool:
        if not self.path.is_file():
            return False
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            (count,) = db.execute("SELECT words FROM source").fetchone()
            if not count:
                raise sqlite3.DatabaseError("the table holds no words")
        except (sqlite3.Error, TypeError) as exc:
            log.warning("word neighbours: %s cannot be read (%s); it is set aside and built again", self.path, exc)
            self.path.replace(self.path.with_name(self.path.name + ".broken"))
            return False
        with self._lock:
            self._db = db
        self.near.cache_clear()
        _lexical.use_neighbours(self.near)
        log.info("word neighbours: %s words from %s", count, self.path.name)
        return True

    def _near(self, word: str) -> tuple[tuple[str, float], ...]:
        with self._lock:
            db = self._db
            if db is None:
                return ()
            try:
                row = db.execute("SELECT near FROM neighbours WHERE word = ?", (word,)).fetchone()
            except sqlite3.Error:
                return ()
        if row is None or not row[0]:
            return ()
        out = []
        for pair in str(row[0]).split():
            name, _, score = pair.rpartition(":")
            out.append((name, float(score)))
        return tuple(out)

    def _build(self, delay: float) -> None:
        if self._stopped.wait(delay):
            return
        private_folder(self.path.parent)
        for stale in self.path.parent.glob(f".{self.path.name}.*.tmp"):  # a build killed before its rename
            stale.unlink(missing_ok=True)
        try:
            model = self._model()
        except Exception as exc:  # noqa: BLE001 - no packaged model: recall goes on without neighbours
            log.info("word neighbours: no packaged model to build them from (%s)", exc)
            return
        if self._stopped.is_set():
            return
        proc = self._proc = subprocess.Popen([sys.executable, str(BUILDER), str(model), str(self.path)],
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            out, err = proc.communicate(timeout=BUILD_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            log.warning("word neighbours: the build took over %.0f s and was stopped", BUILD_SECONDS)
            return
        finally:
            self._proc = None
        if proc.returncode != 0:
            if not self._stopped.is_set():
                tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
                log.warning("word neighbours: the build failed (%s); recall goes on without them", tail[0][:300])
            return
        if not self._stopped.is_set():
            self._open()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a build in flight (tests, `memory-index --wait`); whether the table is open."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.ready

    def stop(self) -> None:
        """Stop a build in flight (its half table is never renamed into place) and close the table."""
        self._stopped.set()
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        with self._lock:
            db, self._db = self._db, None
        if db is not None:
            _lexical.forget_neighbours(self.near)
            db.close()
