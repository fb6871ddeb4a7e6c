"""Model benchmark: every installed local model (llama.cpp) beside bare llama-cpp-python on the same file and
prompt, and the deterministic model's `meta_user` pulse (which must stay what benchmarks/pulse.py measures).

    python benchmarks/models.py [--home DIR] [--model NAME ...] [--runs 5] [--pulses 5] [--offline-pulses 300]

Per model in `<home>/models/` (the packaged Gemma 3 270M is assembled first when missing; `--model` picks
some): load time, first token, tokens per second and a whole reply through the app's `local` model (its
supervised inference process, saiverse/llm/local/_child.py), the same through bare `llama_cpp.Llama` in
this process on the same file, prompt, sampling settings and seeds, their overhead (app ms per token / bare
ms per token, goal ≤ 1.1; first token app − bare, goal ≤ 20 ms), and whole `meta_user` pulses (a persona's
reply with memory, context and the playbook). Prints a table; the last line is one JSON object with the
figures, and the llama.cpp build's CPU features (`system_info`) so that two builds can be compared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scratch import scratch  # noqa: E402
from chat import ChatRequest, default_max_tokens  # noqa: E402
from saiverse.llm import clear_model_cache, installed_models, resolve_model  # noqa: E402
from saiverse.llm.local import (  # noqa: E402  # noqa: E402
    chat_messages,
    ensure_file,
    model_path,
    stops,
    transcript,
)
from saiverse.llm.offline import read_voice  # noqa: E402
from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.settings import Settings, load_settings  # noqa: E402

TEXTS = ["こんにちは、ミナさん。今日はどんな本がおすすめですか？", "星や宇宙について子どもでも読める本を探しています。",
         "ありがとう。この図書館には他にどんな部屋がありますか？", "猫の話をしよう", "今日はいい天気ですね"]
MINA = ("あなたはミナです。\nあなたは図書館の司書ミナです。本と物語を愛し、落ち着いた丁寧な口調で話します。\n"
        "一人称: わたし\n語尾: 〜ですね\n\n現在地: 図書館。")


SEED = 1234
"""Sampling seed of run i (SEED + i), the same for the app and bare llama.cpp."""


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def pulses(manager: SAIVerseManager, n: int, warm: int = 1) -> list[float]:
    """Milliseconds of `n` meta_user pulses to ミナ (after `warm` warm-up pulses)."""
    for t in TEXTS[:warm]:
        list(manager.handle_user_input("library", t, persona_id="mina"))
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        events = list(manager.handle_user_input("library", TEXTS[i % len(TEXTS)], persona_id="mina"))
        out.append((time.perf_counter() - t0) * 1000)
        assert events[-1]["status"] == "ok", events
    return out


def _request(text: str) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], system=MINA, persona_name="ミナ")


def _timed(pieces: Any, count: Any) -> tuple[float, float, int]:
    """(first piece ms, whole seconds, tokens) of a stream of text pieces."""
    t0 = time.perf_counter()
    first, text = None, ""
    for piece in pieces:
        if first is None:
            first = (time.perf_counter() - t0) * 1000
        text += piece
    total = time.perf_counter() - t0
    return first or total * 1000, total, max(1, len(count(text))) if text else 1


class AppEngine:
    """The app's `local:<name>` model: generation as the app runs it (prompt building, token counting,
    the run lock, the round trips to its inference process), before its line checks."""

    def __init__(self, settings: Settings, name: str) -> None:
        clear_model_cache()
        model, notice = resolve_model(f"local:{name}", settings)
        assert notice is None and model.provider == "local", notice
        self.model: Any = model
        t0 = time.perf_counter()
        model.count_tokens("ロード")  # type: ignore[attr-defined]  # starts the process and loads the model
        self.load_s = time.perf_counter() - t0

    def count(self, text: str) -> list[int]:
        return [0] * self.model.count_tokens(text)

    def run(self, request: ChatRequest, seed: int) -> tuple[float, float, int]:
        self.model.seed = seed  # as the bare run: the same tokens, so the times compare
        return _timed((t for t, _u in self.model._chunks(request)), self.count)


class BareEngine:
    """Bare llama_cpp.Llama in this process on the same file, prompt, sampling settings and seeds."""

    def __init__(self, path: Path, model: Any, settings: Settings) -> None:
        from llama_cpp import Llama

        t0 = time.perf_counter()
        self.llama = Llama(model_path=str(path), n_ctx=settings.local_context,
                           n_threads=settings.local_threads or None, verbose=False)
        self.load_s = time.perf_counter() - t0
        self.chat = model.profile.chat_template
        self.settings = settings

    def count(self, text: str) -> list[int]:
        return self.llama.tokenize(text.encode(), add_bos=False, special=False)

    def run(self, request: ChatRequest, seed: int) -> tuple[float, float, int]:
        llama, settings = self.llama, self.settings
        llama.set_seed(seed)
        if self.chat:
            length = min(default_max_tokens(request), settings.local_context // 2)
            stream = llama.create_chat_completion(messages=chat_messages(request), stream=True, temperature=0.7,
                                                  max_tokens=length)
            pieces = ((p["choices"][0].get("delta") or {}).get("content") or "" for p in stream)
        else:
            voice = read_voice(request.system, request.persona_name)
            prompt = transcript(request, voice, lambda s: len(self.count(s)), settings.local_context - 96 - 8)
            stream = llama.create_completion(prompt, max_tokens=96, stop=stops(voice), stream=True, temperature=0.7,
                                             top_p=0.9, repeat_penalty=1.15)
            pieces = (p["choices"][0].get("text") or "" for p in stream)
        return _timed(pieces, self.count)


def engine_figures(settings: Settings, name: str, path: Path, runs: int) -> tuple[dict[str, Any], Any]:
    """The app and bare llama.cpp, interleaved run by run (so a change of the machine's load hits both)."""
    app = AppEngine(settings, name)
    bare = BareEngine(path, app.model, settings)
    figures: dict[str, dict[str, list[float]]] = {"app": {"first": [], "per_token": [], "rate": []},
                                                  "bare": {"first": [], "per_token": [], "rate": []}}
    for i in range(-1, runs):  # -1: a warm-up of each
        request = _request(TEXTS[i % len(TEXTS)] if i >= 0 else "ウォームアップ")
        order = (("app", app), ("bare", bare)) if i % 2 == 0 else (("bare", bare), ("app", app))
        for label, engine in order:
            first, total, tokens = engine.run(request, SEED + i)
            if i >= 0:
                figures[label]["first"].append(first)
                figures[label]["per_token"].append(total * 1000 / tokens)
                figures[label]["rate"].append(tokens / total)
    bare_load = bare.load_s
    del bare
    replies = []
    app.model.seed = None
    for i in range(runs):  # the whole reply as the chat gets it (held, checked), to messages not just asked
        t0 = time.perf_counter()
        "".join(app.model.stream(_request(f"{TEXTS[(i + 2) % len(TEXTS)]}（{i + 1}）")))
        replies.append((time.perf_counter() - t0) * 1000)
    out: dict[str, Any] = {}
    for label, load_s in (("app", app.load_s), ("bare", bare_load)):
        f = figures[label]
        out[label] = {"load_s": round(load_s, 2), "first_token_ms": round(statistics.median(f["first"]), 1),
                      "tokens_per_s": round(statistics.median(f["rate"]), 1),
                      "ms_per_token": round(statistics.median(f["per_token"]), 2)}
    out["app"]["reply_ms"] = round(statistics.median(replies), 1)
    out["app"]["system_info"] = str(app.model._child.loaded.get("system_info", "")).strip()
    return out, app.model


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", help="data home whose models to measure (default: a temp dir with the packaged model)")
    ap.add_argument("--model", action="append", help="only this installed model (local:NAME); repeatable")
    ap.add_argument("--runs", type=int, default=5, help="replies per model and engine")
    ap.add_argument("--pulses", type=int, default=5, help="whole meta_user pulses per model")
    ap.add_argument("--offline-pulses", type=int, default=300, help="meta_user pulses on the offline model")
    args = ap.parse_args()
    home = Path(args.home or scratch("saiverse-models-"))
    settings = load_settings(home, environ={})
    t0 = time.perf_counter()
    ensure_file(model_path(settings, ""))  # the packaged model, assembled on first use
    assemble_s = round(time.perf_counter() - t0, 2)
    figures: dict[str, Any] = {"assemble_s": assemble_s, "models": {}}
    for m in installed_models(settings):
        if args.model and m.name not in args.model:
            continue
        engines, _model = engine_figures(settings, m.name, Path(m.path), args.runs)
        app, bare = engines["app"], engines["bare"]
        manager = SAIVerseManager(load_settings(home, environ={"SAIVERSE_DEFAULT_MODEL": f"local:{m.name}"}))
        ms = pulses(manager, args.pulses)
        manager.close()
        clear_model_cache()
        figures["models"][m.name] = {
            "size": m.size, "profile": m.profile, "app": app, "bare": bare,
            "overhead": round(app["ms_per_token"] / bare["ms_per_token"], 3),
            "first_token_extra_ms": round(app["first_token_ms"] - bare["first_token_ms"], 1),
            "pulse_p50_ms": round(statistics.median(ms), 1), "pulse_p95_ms": round(pct(ms, 0.95), 1)}
    offline = SAIVerseManager(load_settings(home, environ={"SAIVERSE_DEFAULT_MODEL": "offline"}))
    ms = pulses(offline, args.offline_pulses, warm=len(TEXTS))
    offline.close()
    figures |= {"offline_pulse_p50_ms": round(statistics.median(ms), 3),
                "offline_pulse_p95_ms": round(pct(ms, 0.95), 3)}
    print(f"packaged model assembled in {assemble_s} s (first use only)")
    print(f"{'model':<34} {'engine':<6} {'load s':>7} {'1st tok ms':>11} {'tok/s':>7} {'ms/tok':>7} {'reply ms':>9}")
    for name, f in figures["models"].items():
        for engine in ("app", "bare"):
            r = f[engine]
            print(f"{name:<34} {engine:<6} {r['load_s']:>7} {r['first_token_ms']:>11} {r['tokens_per_s']:>7} "
                  f"{r['ms_per_token']:>7} {r.get('reply_ms', ''):>9}")
        print(f"{'':<34} overhead {f['overhead']}× (goal ≤ 1.1), first token {f['first_token_extra_ms']:+} ms "
              f"(goal ≤ +20); meta_user pulse p50 {f['pulse_p50_ms']} ms, p95 {f['pulse_p95_ms']} ms")
        print(f"{'':<34} build: {f['app']['system_info']}")
    print(f"offline meta_user pulse: p50 {figures['offline_pulse_p50_ms']} ms, "
          f"p95 {figures['offline_pulse_p95_ms']} ms")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
