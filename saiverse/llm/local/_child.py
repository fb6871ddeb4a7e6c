"""The supervised inference process: the app's side of saiverse/llm/local/_runner.py.

llama.cpp is native code: a build that uses an instruction this CPU refuses, a bad GGUF, a memory
shortage or a plain bug kills whatever process holds it. It is held by a child process, one per model
(as Ollama keeps a runner per model), so such a death is a failed request: the reply in progress ends
with a Japanese line saying which model, what happened and what to do, and the next request starts a
new process. What this module guarantees:

- a death is noticed at once (the protocol stream ends) and named from the exit status (SIGSEGV, SIGILL,
  SIGKILL …, or a Windows exception code) and the last line llama.cpp wrote;
- a hang is a death too: no answer for `stall_seconds` (no token while streaming), and the process is
  killed;
- a process that dies while loading is started once more at once; a second death running makes the
  model broken (`ModelBroken`), which the caller records (saiverse/llm/local/_health.py);
- stopping a stream (the stop button closes the generator) cancels the generation in the child, which
  stops at its next token; the next request waits for nothing;
- the child never outlives the app: it leaves when its stdin ends (the app exited, even by kill -9).
"""

from __future__ import annotations

import collections
import contextlib
import io
import itertools
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chat import LLMError
from words import say

log = logging.getLogger(__name__)
llama_log = logging.getLogger("llama.cpp")

RUNNER = Path(__file__).with_name("_runner.py")
"""The child's program (run by path, so it imports nothing of the app)."""
READY_SECONDS = 60.0
"""How long the child may take to start Python and say it is ready."""
_DIED = object()

_WINDOWS_CODES = {0xC0000005: "win_access", 0xC000001D: "win_illegal", 0xC00000FD: "win_stack",
                  0xC0000409: "win_overrun"}
"""Windows reports a crash as the exception code in the exit status (its words: words.py)."""
_SIGNAL_WORDS = {"SIGSEGV", "SIGILL", "SIGBUS", "SIGABRT", "SIGKILL", "SIGFPE", "SIGTERM"}
"""The signals words.py words (`sig_<NAME>`); any other reads as a plain stop by a signal."""


def death_words(returncode: int | None) -> str:
    """How a child's exit status reads to a person: `SIGSEGV: メモリ保護違反`, `終了コード 1`."""
    if returncode is None:
        return say("death_hung")
    code = returncode & 0xFFFFFFFF
    if code in _WINDOWS_CODES:
        return f"0x{code:08X}: {say(_WINDOWS_CODES[code])}"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"{name}: {say('sig_' + name) if name in _SIGNAL_WORDS else say('death_signal')}"
    return say("death_code", code=returncode)


class ChildDied(LLMError):
    """The inference process died or hung during a request."""

    def __init__(self, message: str, *, while_loading: bool, kind: str = "local_crashed") -> None:
        super().__init__(message, kind=kind)
        self.while_loading = while_loading


class ModelBroken(LLMError):
    """The model's process died twice running while loading it: it is not tried again by itself."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message, kind="local_broken")
        self.reason = reason


class RunnerError(Exception):
    """The child answered a request with an error (a Python exception there: `type` names its class)."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name


class LlamaChild:
    """One model in one supervised process; started on first use and again after a death.

    Exported as `SupervisedChild` too: any native engine that may crash runs this way (the embedded
    voice, saiverse/voice/_embedded.py), with its own `runner` speaking this protocol."""

    def __init__(self, label: str, load: dict[str, Any], *, stall_seconds: float = 180.0,
                 load_seconds: float = 600.0, keep_alive: float = 0.0, runner: Path = RUNNER,
                 env: dict[str, str] | None = None) -> None:
        self.label = label
        """How the Japanese lines name the model (`local`, `local:qwen2.5-1.5b-instruct`)."""
        self._load_request = dict(load)
        self.stall_seconds = stall_seconds
        self.load_seconds = load_seconds
        self.loaded: dict[str, Any] | None = None
        """The load's answer (metadata, seconds, system_info) while the process lives."""
        self._proc: subprocess.Popen[bytes] | None = None
        self._boxes: dict[int, dict[int, queue.Queue[Any]]] = {}
        """Per process (by pid): request id → where its answers go. Per process, so that a dead
        process's reader can only ever wake the requests that were sent to it."""
        self._ids = itertools.count(1)
        self._start_lock = threading.RLock()
        self._write_lock = threading.Lock()
        self._tail: collections.deque[str] = collections.deque(maxlen=20)
        self.starts = 0
        """How many processes this model has had (tests, the settings tab)."""
        self.keep_alive = keep_alive
        """Seconds the process stays after its last request (0: as long as the app)."""
        self._busy = 0
        self._idle_timer: threading.Timer | None = None
        self.runner = runner
        """The child's program: this package's `_runner.py`, or another speaking the same protocol (the
        embedded voice's, saiverse/voice/_voice_runner.py)."""
        self._env = dict(env or {})

    @property
    def busy(self) -> int:
        """How many requests are in flight now (tests wait for one before killing the process)."""
        return self._busy

    @property
    def pid(self) -> int | None:
        """The live child's process id (None when there is none)."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    # -- the process --------------------------------------------------------------------------

    def _spawn(self) -> tuple[subprocess.Popen[bytes], queue.Queue[Any]]:
        """A new process, and the box its `ready` line will come to."""
        # GGML_NO_BACKTRACE: on an assertion ggml would fork a debugger to print a backtrace; that child
        # would hold the protocol's pipes open and the death would look like a hang.
        env = {**os.environ, "GGML_NO_BACKTRACE": "1", **self._env}
        proc = subprocess.Popen([sys.executable, str(self.runner)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, bufsize=0, env=env)
        ready: queue.Queue[Any] = queue.Queue()
        boxes = self._boxes[proc.pid] = {0: ready}
        self._proc = proc
        self.starts += 1
        self._tail.clear()
        threading.Thread(target=self._read, args=(proc, boxes), name=f"llama-child-{proc.pid}", daemon=True).start()
        threading.Thread(target=self._drain_stderr, args=(proc,), name=f"llama-log-{proc.pid}", daemon=True).start()
        return proc, ready

    def _read(self, proc: subprocess.Popen[bytes], boxes: dict[int, queue.Queue[Any]]) -> None:
        assert proc.stdout is not None
        # The pipe is unbuffered (bufsize=0, for stdin's sake): a raw stream's readline reads one byte per
        # system call, which on a spoken line's WAV (~150 KB of base64) or a batch of vectors cost ~0.15 s of
        # the app's CPU per answer (benchmarks/RESULTS-voice.md). A buffered reader takes what the pipe holds.
        for raw in io.BufferedReader(proc.stdout, buffer_size=1 << 16):  # type: ignore[arg-type]
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            q = boxes.get(int(msg.get("id", -1)))
            if q is not None:
                q.put(msg)
        proc.wait()
        self._boxes.pop(proc.pid, None)
        for q in list(boxes.values()):
            q.put(_DIED)

    def _drain_stderr(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        for raw in io.BufferedReader(proc.stderr, buffer_size=1 << 14):  # type: ignore[arg-type]
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                self._tail.append(line)
                llama_log.debug("%s", line)

    def _kill(self, proc: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(OSError):  # already gone
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # a zombie the reader thread reaps later
            proc.wait(timeout=10)

    def close(self) -> None:
        """End the process: its stdin closes, it leaves; one that lingers is killed."""
        with self._start_lock:
            proc, self._proc, self.loaded = self._proc, None, None
            if self._idle_timer is not None:
                self._idle_timer.cancel()
                self._idle_timer = None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self._kill(proc)

    def last_words(self) -> str:
        """The last line llama.cpp wrote that says something (for the death message)."""
        for line in reversed(self._tail):
            if line.startswith(("[llama.cpp 0]", "[llama.cpp 1]", "[llama.cpp 2]", "[llama.cpp 5]")):
                continue  # its debug and info notes say nothing about a death
            if line.strip() and "Traceback" not in line:
                return line.strip()[:200]
        return ""

    # -- requests -----------------------------------------------------------------------------

    def _send(self, proc: subprocess.Popen[bytes], msg: dict[str, Any]) -> None:
        data = (json.dumps(msg, ensure_ascii=False) + "\n").encode("utf-8")
        with self._write_lock:
            try:
                assert proc.stdin is not None
                proc.stdin.write(data)
                proc.stdin.flush()
            except (OSError, ValueError):
                pass  # it died: its reader says so to the waiting request

    def _exchange(self, proc: subprocess.Popen[bytes], msg: dict[str, Any], *, timeout: float,
                  loading: bool = False) -> Iterator[dict[str, Any]]:
        """Send one request and yield its answers until `done`; a death or a hang raises ChildDied."""
        rid = next(self._ids)
        box: queue.Queue[Any] = queue.Queue()
        boxes = self._boxes.get(proc.pid)
        if boxes is not None:
            boxes[rid] = box
        finished = False
        try:
            if boxes is None or proc.poll() is not None:
                box.put(_DIED)
            else:
                self._send(proc, {**msg, "id": rid})
            while True:
                try:
                    answer = box.get(timeout=timeout)
                except queue.Empty:
                    self._kill(proc)
                    finished = True
                    raise self._died(proc, None, loading, hung=timeout) from None
                if answer is _DIED:
                    finished = True
                    raise self._died(proc, proc.returncode, loading)
                if answer.get("event") == "error":
                    finished = True
                    raise RunnerError(str(answer.get("type", "")), str(answer.get("message", "")))
                yield answer
                if answer.get("event") == "done":
                    finished = True
                    return
        finally:
            if boxes is not None:
                boxes.pop(rid, None)
            if not finished and proc.poll() is None:
                self._send(proc, {"op": "cancel", "target": rid})  # the consumer stopped reading

    def _died(self, proc: subprocess.Popen[bytes], returncode: int | None, loading: bool, *,
              hung: float = 0) -> ChildDied:
        with self._start_lock:
            if self._proc is proc:
                self._proc, self.loaded = None, None
        if hung:
            what = say("death_silent", seconds=int(hung))
        else:
            what = death_words(returncode)
        words = self.last_words()
        return ChildDied(what + (f" — {words}" if words else ""), while_loading=loading,
                         kind="local_hang" if hung else "local_crashed")

    def ensure(self) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
        """The live, loaded process; started (and the model loaded) when there is none.

        A death while loading is tried once more at once; a second raises `ModelBroken`. An error the
        child reports (a file llama.cpp refuses) raises `RunnerError` and is not a death."""
        with self._start_lock:
            proc = self._proc
            if proc is not None and proc.poll() is None and self.loaded is not None:
                return proc, self.loaded
            first: ChildDied | None = None
            for _attempt in range(2):
                if proc is not None:
                    self._kill(proc)
                proc, ready = self._spawn()
                try:
                    self._wait_ready(proc, ready)
                    answer = list(self._exchange(proc, {"op": "load", **self._load_request},
                                                 timeout=self.load_seconds, loading=True))[-1]
                except ChildDied as exc:
                    log.warning("local model %s: the inference process died while loading (%s)", self.label, exc)
                    if first is not None:
                        self._proc = None
                        twice = str(exc) if str(exc) == str(first) else f"{first}; {exc}"
                        raise ModelBroken(str(exc), twice) from exc
                    first = exc
                    proc = self._proc
                    continue
                except RunnerError:
                    self._kill(proc)
                    self._proc = None
                    raise
                self.loaded = dict(answer.get("data") or {})
                return proc, self.loaded
        raise AssertionError("unreachable")

    def _wait_ready(self, proc: subprocess.Popen[bytes], ready: queue.Queue[Any]) -> None:
        """Wait for the child's `ready` line (id 0)."""
        try:
            answer = ready.get(timeout=READY_SECONDS)
        except queue.Empty:
            self._kill(proc)
            raise self._died(proc, None, True, hung=READY_SECONDS) from None
        if answer is _DIED:
            raise self._died(proc, proc.returncode, True)

    def request(self, op: str, **payload: Any) -> Iterator[dict[str, Any]]:
        """Run `op` on the loaded model; yields each answer (`chunk`s, then `done`)."""
        with self._start_lock:
            self._busy += 1
            if self._idle_timer is not None:
                self._idle_timer.cancel()
                self._idle_timer = None
        try:
            proc, _info = self.ensure()
            yield from self._exchange(proc, {"op": op, **payload}, timeout=self.stall_seconds)
        finally:
            with self._start_lock:
                self._busy -= 1
                if not self._busy and self.keep_alive > 0 and self._proc is not None:
                    self._idle_timer = threading.Timer(self.keep_alive, self._unload_if_idle)
                    self._idle_timer.daemon = True
                    self._idle_timer.start()

    def _unload_if_idle(self) -> None:
        """keep_alive passed with no request: the process leaves and gives its memory back."""
        with self._start_lock:  # held through close(): a request arriving now waits and starts it anew
            if self._busy or self._idle_timer is None:
                return
            self._idle_timer = None
            log.info("local model %s unloaded after %.0f s idle", self.label, self.keep_alive)
            self.close()

    def call(self, op: str, **payload: Any) -> dict[str, Any]:
        """Run `op` and return its `done` data (a request whose answer is not streamed)."""
        answers = list(self.request(op, **payload))
        return dict(answers[-1].get("data") or {})


SupervisedChild = LlamaChild
"""The supervisor under the name other packages use (saiverse/llm/local/__init__.py exports it)."""
