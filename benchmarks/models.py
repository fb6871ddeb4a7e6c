"""Model benchmark: the default local model (llama.cpp, packaged Gemma 3 270M) on a typical pulse, and
the deterministic model's `meta_user` pulse (which must stay what benchmarks/pulse.py measures).

    python benchmarks/models.py [--pulses 20] [--offline-pulses 300] [--home DIR]

Local: time to assemble the packaged model into the home (first use only) and to load it, first token
and tokens per second of a streamed reply, and whole `meta_user` pulses on it. Offline: pulse p50/p95.
Prints a table; the last line is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chat import ChatRequest  # noqa: E402
from saiverse.llm.local_files import ensure_file, model_path  # noqa: E402
from saiverse.llm.registry import clear_model_cache, resolve_model  # noqa: E402
from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402

TEXTS = ["こんにちは", "おすすめの本は？", "今日はいい天気ですね", "猫の話をしよう", "ありがとう"]
MINA = ("あなたはミナです。\nあなたは図書館の司書ミナです。本と物語を愛し、落ち着いた丁寧な口調で話します。\n"
        "一人称: わたし\n語尾: 〜ですね\n\n現在地: 図書館。")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def pulses(manager: SAIVerseManager, n: int) -> list[float]:
    """Milliseconds of `n` meta_user pulses (after one warm-up per text)."""
    for t in TEXTS:
        list(manager.handle_user_input("library", t, persona_id="mina"))
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        events = list(manager.handle_user_input("library", TEXTS[i % len(TEXTS)], persona_id="mina"))
        out.append((time.perf_counter() - t0) * 1000)
        assert events[-1]["status"] == "ok", events
    return out


def local_figures(home: Path, n: int) -> dict[str, float]:
    settings = load_settings(home, default_model="local")
    t0 = time.perf_counter()
    ensure_file(model_path(settings, ""))
    assemble_s = time.perf_counter() - t0
    clear_model_cache()
    model, notice = resolve_model("local", settings)
    assert notice is None, notice
    t0 = time.perf_counter()
    model.count_tokens("ロード")  # type: ignore[attr-defined]
    load_s = time.perf_counter() - t0
    firsts, rates = [], []
    for text in TEXTS * 2:
        request = ChatRequest(messages=[{"role": "user", "content": text}], system=MINA, persona_name="ミナ")
        t0 = time.perf_counter()
        first = None
        reply = ""
        for chunk in model.stream(request):
            first = first if first is not None else time.perf_counter() - t0
            reply += chunk
        total = time.perf_counter() - t0
        firsts.append((first or total) * 1000)
        rates.append(model.count_tokens(reply) / total if total else 0.0)  # type: ignore[attr-defined]
    manager = SAIVerseManager(settings)
    ms = pulses(manager, n)
    manager.close()
    return {"assemble_s": round(assemble_s, 2), "load_s": round(load_s, 2),
            "first_token_p50_ms": round(statistics.median(firsts), 1),
            "tokens_per_s_p50": round(statistics.median(rates), 1),
            "local_pulse_p50_ms": round(statistics.median(ms), 1), "local_pulse_p95_ms": round(pct(ms, 0.95), 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pulses", type=int, default=20, help="meta_user pulses on the local model")
    ap.add_argument("--offline-pulses", type=int, default=300, help="meta_user pulses on the offline model")
    ap.add_argument("--home", help="data home to use (default: a temp dir)")
    args = ap.parse_args()
    home = Path(args.home or tempfile.mkdtemp(prefix="saiverse-models-"))
    figures = local_figures(home, args.pulses)
    offline = SAIVerseManager(load_settings(home, default_model="offline"))
    ms = pulses(offline, args.offline_pulses)
    offline.close()
    figures |= {"offline_pulse_p50_ms": round(statistics.median(ms), 3),
                "offline_pulse_p95_ms": round(pct(ms, 0.95), 3)}
    print(f"local (packaged Gemma 3 270M): assemble {figures['assemble_s']} s (first use), load {figures['load_s']} s")
    print(f"  streamed reply: first token p50 {figures['first_token_p50_ms']} ms, "
          f"{figures['tokens_per_s_p50']} tokens/s")
    print(f"  meta_user pulse: p50 {figures['local_pulse_p50_ms']} ms, "
          f"p95 {figures['local_pulse_p95_ms']} ms")
    print(f"offline meta_user pulse: p50 {figures['offline_pulse_p50_ms']} ms, "
          f"p95 {figures['offline_pulse_p95_ms']} ms")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
