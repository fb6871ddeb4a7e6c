"""Import benchmark: `import-saiverse` of a generated upstream home, time and peak memory.

    python benchmarks/import.py [--messages 100000] [--lines 20000] [--personas 10] [--also 20000:4000]

Writes an upstream SAIVerse home in a temp dir with tests/support/upstream_home.py (upstream's table and
file formats): `--personas` personas sharing `--messages` SAIMemory messages (~100 Japanese
characters each, conversation / internal / pulse tags, a building thread), `--lines` building log
lines over 5 buildings (with host note-boxes), 40 picture and document items with summaries.
Then runs `python main.py import-saiverse` on it in a child process, as a user would, and reports
the wall time, the import's own time, and the child's peak resident memory. `--also M:L` first
runs a smaller home too, so the two peaks show whether memory stays flat as the source grows.
The last line is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from portable import peak_rss_mib  # noqa: E402
from tests.support.upstream_home import (  # noqa: E402
    T0,
    UpstreamHome,
    host_notice,
    persona_line,
    png_bytes,
    user_line,
)

WORDS = ("図書館 美術館 猫 犬 本 絵 夢 記憶 日記 手紙 写真 映画 音楽 物語 コーヒー 紅茶 散歩 旅行 天気 季節 桜 "
         "海 山 星空 月 鍵 地図 時計 ピアノ 絵本 小説 詩 料理 庭 窓 部屋 机 ランプ ノート 会話 約束").split()
TAILS = ("を見ました。", "について話しました。", "が好きです。", "を探しています。", "を思い出しました！",
         "はどうかな？")


def sentence(rng: random.Random) -> str:
    parts = []
    while sum(len(p) for p in parts) < 90:
        parts.append(f"{rng.choice(WORDS)}と{rng.choice(WORDS)}{rng.choice(TAILS)}")
    return "".join(parts)


def messages(rng: random.Random, n: int, building: str) -> Iterator[tuple[str, str, str, int, dict[str, Any]]]:
    pulse = ""
    for i in range(n):
        if i % 4 == 0:
            pulse = f"{rng.getrandbits(64):016x}-pulse"
            yield ("__persona__", "user", sentence(rng), T0 + i * 30, {"with": ["user"], "tags": ["conversation"]})
        elif i % 4 == 3:
            yield ("__persona__", "assistant", sentence(rng), T0 + i * 30, {"tags": ["internal", f"pulse:{pulse}"]})
        else:
            thread = building if i % 10 == 1 else "__persona__"
            yield (thread, "assistant", sentence(rng), T0 + i * 30,
                   {"tags": ["conversation", f"pulse:{pulse}"], "with": ["user"]})


def generate(root: Path, n_messages: int, n_lines: int, n_personas: int) -> None:
    rng = random.Random(20261123)
    home = UpstreamHome(root)
    buildings = [f"b{i}_city_a" for i in range(5)]
    for i, bid in enumerate(buildings):
        home.building(bid, f"建物{i}", capacity=20)
    personas = [f"p{i}_city_a" for i in range(n_personas)]
    for i, pid in enumerate(personas):
        home.persona(pid, f"ペルソナ{i}", buildings[i % len(buildings)], mode="user")
    for i in range(40):
        kind = "picture" if i % 2 else "document"
        home.item(f"品{i}", kind, "building", buildings[i % len(buildings)], summary=f"要約{i}",
                  data=png_bytes((i * 5 % 255, 80, 160)) if kind == "picture" else sentence(rng) * 20,
                  ext="png" if kind == "picture" else "txt")
    per = n_messages // len(personas)
    for i, pid in enumerate(personas):
        home.messages(pid, messages(rng, per + (n_messages % len(personas) if i == 0 else 0),
                                    buildings[i % len(buildings)]))
    per_building = n_lines // len(buildings)
    for b, bid in enumerate(buildings):
        count = per_building + (n_lines % len(buildings) if b == 0 else 0)

        def entries(bid: str = bid, count: int = count) -> Iterator[dict[str, Any]]:
            for j in range(count):
                when = f"2026-11-{1 + j * 28 // max(count, 1):02d}T{j % 24:02d}:{j % 60:02d}:00"
                if j % 50 == 49:
                    yield host_notice(f"ペルソナ{j % n_personas}が入室しました")
                elif j % 2:
                    yield persona_line(bid, j, personas[j % n_personas], sentence(rng), when, "pulse")
                else:
                    yield user_line(bid, j, sentence(rng), when)
        home.log(bid, entries(), legacy_copy=False)
    home.close()


def run_import(root: Path, target: Path) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "import-saiverse", str(root), "--home", str(target),
                           "--json"], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"import failed:\n{done.stderr}")
    report = json.loads(done.stdout)
    peak = peak_rss_mib(children=True)  # the largest child so far (None on Windows: not kept there)
    return {"wall_s": round(wall, 2), "import_s": report["seconds"],
            "peak_rss_mib": None if peak is None else round(peak, 1),
            "messages": report["imported"]["memory_messages"], "lines": report["imported"]["building_log_lines"],
            "db_mib": round((target / "saiverse.db").stat().st_size / 2**20, 1)}


def _mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--personas", type=int, default=10)
    parser.add_argument("--also", default="", help="a smaller home first, as MESSAGES:LINES (e.g. 20000:4000)")
    parser.add_argument("--dir", help="work folder (default: a temp dir, removed after)")
    args = parser.parse_args()
    sizes = [tuple(int(x) for x in args.also.split(":"))] if args.also else []
    sizes.append((args.messages, args.lines))
    results = []
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for n_messages, n_lines in sizes:
            root = Path(tmp) / f"upstream-{n_messages}"
            t = time.perf_counter()
            generate(root, n_messages, n_lines, args.personas)
            gen = time.perf_counter() - t
            figures = run_import(root, Path(tmp) / f"target-{n_messages}")
            figures["generate_s"] = round(gen, 1)
            results.append(figures)
            print(f"{n_messages:>8,} messages + {n_lines:>6,} log lines: import {figures['import_s']:.1f} s "
                  f"(wall {figures['wall_s']:.1f} s), peak RSS {_mib(figures['peak_rss_mib'])}, "
                  f"database {figures['db_mib']:.0f} MiB  [generated in {gen:.0f} s]", flush=True)
    print(json.dumps({"cpus": os.cpu_count(), "python": sys.version.split()[0], "runs": results}))


if __name__ == "__main__":
    main()
