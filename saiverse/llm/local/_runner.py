"""The inference process: llama.cpp runs here, never in the app (docs/ARCHITECTURE.md, "The local model").

Started by `_child.LlamaChild` as `python <this file>`, so that it imports nothing of the app: the standard
library and `llama_cpp` only. A crash of llama.cpp (SIGSEGV, SIGILL on a CPU without an instruction the
build uses, abort, an OOM kill) ends this process, and the app sees a failed request, not its own death.

The protocol is one JSON object per line. Requests come on stdin: `{"id": 1, "op": "load", ...}`; every
answer on the protocol stream names its request's id and is `{"id", "event": "chunk", "data"}` (streamed
parts), then one `{"id", "event": "done", "data"}` or `{"id", "event": "error", "type", "message"}`.
Ops: `load` (path, n_ctx, n_threads, embedding), `tokenize` (text → count; answered at once, also while
a generation runs, as llama.cpp's tokenizer only reads the vocabulary), `complete` and `chat` (the keyword
arguments of `create_completion` / `create_chat_completion`, streamed when `stream` is true), `embed`
(texts → vectors) and `cancel` (id: the generation stops at its next token). Generations run one at a time,
in order. End of stdin (the app exited, even by kill -9) ends this process.

The protocol stream is a duplicate of the original stdout; fd 1 itself is pointed at stderr, so that
anything native code prints can never corrupt it. llama.cpp's log goes to stderr, which the app reads into
its own log at DEBUG and keeps the tail of, to say why this process died.
"""

from __future__ import annotations

import array
import base64
import ctypes
import json
import math
import os
import queue
import signal
import sys
import threading
import time
from typing import Any

if sys.path and os.path.dirname(os.path.abspath(__file__)) == os.path.abspath(sys.path[0] or "."):
    del sys.path[0]  # this folder holds the app's private modules: never import them by accident

_out_lock = threading.Lock()
_proto: Any = None
_cancelled: set[int] = set()
_jobs: queue.Queue[dict[str, Any] | None] = queue.Queue()
_llama: Any = None


def _send(msg: dict[str, Any]) -> None:
    line = json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n"
    with _out_lock:
        _proto.write(line)
        _proto.flush()


def _error(rid: int, exc: BaseException) -> None:
    _send({"id": rid, "event": "error", "type": type(exc).__name__, "message": str(exc)[:2000]})


def _quiet_logs() -> None:
    import llama_cpp

    @llama_cpp.llama_log_callback  # type: ignore[misc]
    def _callback(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
        line = text.decode("utf-8", errors="replace").rstrip()
        if line:
            sys.stderr.write(f"[llama.cpp {level}] {line}\n")

    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
    _quiet_logs.keep = _callback  # type: ignore[attr-defined]  # ctypes must keep the callback alive


def _load(req: dict[str, Any]) -> dict[str, Any]:
    global _llama
    started = time.monotonic()
    import llama_cpp

    _quiet_logs()
    _llama = llama_cpp.Llama(model_path=req["path"], n_ctx=int(req.get("n_ctx") or 2048),
                             n_threads=req.get("n_threads") or None, embedding=bool(req.get("embedding")),
                             verbose=False)
    info = llama_cpp.llama_print_system_info()
    return {"metadata": {k: str(v) for k, v in _llama.metadata.items()}, "seconds": time.monotonic() - started,
            "system_info": info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info),
            "version": getattr(llama_cpp, "__version__", "")}


def _generate(rid: int, op: str, kwargs: dict[str, Any]) -> None:
    call = _llama.create_completion if op == "complete" else _llama.create_chat_completion
    if not kwargs.get("stream"):
        _send({"id": rid, "event": "done", "data": call(**kwargs)})
        return
    stream = call(**kwargs)
    try:
        for part in stream:
            if rid in _cancelled:
                break
            _send({"id": rid, "event": "chunk", "data": part})
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    _send({"id": rid, "event": "done", "data": {"cancelled": rid in _cancelled}})


def _embed(texts: list[str]) -> dict[str, Any]:
    """Unit vectors, float32 little-endian in base64 (a tenth of JSON's size); a model without pooling of
    its own (a chat model) gives a vector per token, averaged here."""
    out = []
    for text in texts:
        vec = _llama.embed(text, normalize=False)
        if vec and isinstance(vec[0], list):
            width = len(vec[0])
            vec = [sum(row[i] for row in vec) / len(vec) for i in range(width)]
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        packed = array.array("f", (v / norm for v in vec))
        if sys.byteorder != "little":
            packed.byteswap()
        out.append(base64.b64encode(packed.tobytes()).decode("ascii"))
    return {"vectors": out}


def _work() -> None:
    """The generations, one at a time, in the order they came."""
    while True:
        req = _jobs.get()
        if req is None:
            return
        rid, op = int(req["id"]), req["op"]
        try:
            if op == "load":
                _send({"id": rid, "event": "done", "data": _load(req)})
            elif _llama is None:
                raise RuntimeError("no model is loaded")
            elif op in ("complete", "chat"):
                _generate(rid, op, dict(req.get("kwargs") or {}))
            elif op == "embed":
                _send({"id": rid, "event": "done", "data": _embed(list(req.get("texts") or []))})
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as exc:  # noqa: BLE001 - every failure is an answer to its request
            _error(rid, exc)
        finally:
            _cancelled.discard(rid)


def _tokenize(req: dict[str, Any]) -> None:
    rid = int(req["id"])
    try:
        if _llama is None:
            raise RuntimeError("no model is loaded")
        tokens = _llama.tokenize(str(req.get("text", "")).encode("utf-8"), add_bos=bool(req.get("add_bos")),
                                 special=bool(req.get("special")))
        _send({"id": rid, "event": "done", "data": {"count": len(tokens)}})
    except Exception as exc:  # noqa: BLE001
        _error(rid, exc)


def main() -> None:
    global _proto
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in the app's console is the app's to handle
    _proto = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)  # native code that prints to stdout writes to stderr instead
    sys.stdout = sys.stderr
    worker = threading.Thread(target=_work, name="llama-runner", daemon=True)
    worker.start()
    _send({"id": 0, "event": "ready", "data": {"pid": os.getpid()}})
    for raw in sys.stdin:
        try:
            req = json.loads(raw)
        except ValueError:
            continue
        op = req.get("op")
        if op == "cancel":
            _cancelled.add(int(req.get("target", 0)))
        elif op == "tokenize":
            _tokenize(req)
        else:
            _jobs.put(req)
    # stdin ended: the app is gone (or closed us). Stop at the next token and leave at once: llama.cpp's
    # own clean-up at exit is not needed by anyone.
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
