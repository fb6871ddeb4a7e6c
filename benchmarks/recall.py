"""Recall benchmark: SAIMemory.search latency and database size on N synthetic Japanese messages.

    python benchmarks/recall.py [--messages 1000000] [--dir PATH] [--queries 100] [--rebuild]

Builds (or reuses, when one with the same parameters is complete) a database through the real
schema (`database.migrate.migrate`), inserting with executemany in large transactions; the
`saimemory_fts` gram index is filled by the app's own triggers, so it is exactly the index the
app maintains. Messages are ~100 characters from a deterministic generator (Zipf-distributed
vocabulary of ~6,000 words, a few personas, pulses with conversation / internal / sub-playbook
result tags). Then it times `SAIMemory.search` for three query kinds — a 3+ character term, a
1-2 character term, a two-term query — over `--queries` queries each, prints a table and, as the
last line, one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from database.engine import Database  # noqa: E402
from database.migrate import migrate  # noqa: E402
from saiverse.memory import SAIMemory  # noqa: E402

GENERATOR_VERSION = 1
"""Bump when the generator changes, so an old bench database is not reused."""
PERSONAS = (("mina", 0.4), ("sora", 0.3), ("yuu", 0.2), ("haru", 0.1))
KANJI = (
    "日本語学校先生友達時間今年毎朝夜空海山川森林花鳥風月雨雪雲星光音楽絵本図書館美術博物駅電車道"
    "町村市都京東西南北春夏秋冬食事料理茶菓子酒肉魚野菜果物米麦水火土金木石紙布服靴帽家族父母兄弟"
    "姉妹子供犬猫馬牛羊豚猿虎龍亀蛇魔法剣盾城王姫騎士旅冒険地図宝箱鍵扉窓壁屋根庭畑公園病院銀行会社"
    "仕事休暇週末旅行写真映画小説詩歌物語記憶思考夢希望愛情心体頭手足目耳口声言葉文字数計算科学技術"
    "研究実験発見問題答質試験勉強練習運動試合勝負始終開閉入出上下左右前後内外高低長短新古大小多少強弱"
)
BASE_WORDS = (
    "図書館 美術館 博物館 アトリエ エントランス 猫 犬 本 絵 夢 記憶 日記 手紙 写真 映画 音楽 物語 "
    "コーヒー 紅茶 ケーキ パン 散歩 旅行 天気 季節 桜 紅葉 雪 海 山 星空 月 太陽 鍵 地図 宝石 時計 "
    "ピアノ ギター 絵本 小説 詩 歌 料理 お菓子 花束 庭 窓 部屋 机 椅子 ランプ ノート ペン 会話 約束"
).split()
NAMES = "ミナ ソラ ユウ ハル アオイ レン".split()
ADJ = "静かな 明るい 古い 新しい 小さな 大きな 不思議な 懐かしい 綺麗な 優しい 寒い 暖かい 楽しい".split()
VERBS = (
    "見ました 読みました 書きました 話しました 思い出しました 探しました 見つけました 作りました "
    "描きました 聞きました 歩きました 考えました 忘れていました 置きました 持ってきました"
).split()
PARTICLES = "は が を に で と も から まで".split()
ENDINGS = ("。", "ね。", "よ。", "！", "…。", "か？")
TEMPLATES = (
    "{n1}{p}{a}{n2}を{v}{e}",
    "今日は{n1}で{n2}を{v}{e}",
    "{name}と一緒に{a}{n1}の{n2}を{v}{e}",
    "昨日の{n1}{p}とても{a}{n2}でした{e}",
    "{n1}について{name}は{a}{n2}だと言っていました{e}",
    "{n1}の近くで{n2}と{n3}を{v}{e}",
)


def vocabulary(rng: random.Random, size: int = 6000) -> tuple[list[str], list[float]]:
    """Real words plus generated kanji compounds, with Zipf-like cumulative weights."""
    words = list(BASE_WORDS)
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(KANJI) for _ in range(rng.choice((2, 2, 2, 3))))
        if word not in seen:
            seen.add(word)
            words.append(word)
    cum, total = [], 0.0
    for i in range(len(words)):
        total += 1.0 / (i + 1) ** 0.9
        cum.append(total)
    return words, cum


def texts(rng: random.Random, words: list[str], cum: list[float], length: int = 100) -> Iterator[str]:
    """An endless deterministic stream of ~`length`-character Japanese messages."""
    while True:
        parts: list[str] = []
        size = 0
        target = length - 10 + rng.randrange(21)
        while size < target:
            n1, n2, n3 = rng.choices(words, cum_weights=cum, k=3)
            s = rng.choice(TEMPLATES).format(
                n1=n1, n2=n2, n3=n3, p=rng.choice(PARTICLES), a=rng.choice(ADJ),
                v=rng.choice(VERBS), e=rng.choice(ENDINGS), name=rng.choice(NAMES),
            )
            parts.append(s)
            size += len(s)
        yield "".join(parts)[:target]


def rows(n: int, seed: int) -> Iterator[tuple[tuple, list[tuple]]]:
    """(saimemory row, saimemory_tag rows) in the app's storage format (see SAIMemory.add)."""
    rng = random.Random(seed)
    words, cum = vocabulary(rng)
    stream = texts(rng, words, cum)
    names, weights = zip(*PERSONAS, strict=True)
    when = datetime(2023, 1, 1)
    i = 0
    while i < n:
        persona = rng.choices(names, weights=weights)[0]
        pulse = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        kinds = [("user", ["conversation"])]
        if rng.random() < 0.3:
            kinds.append(("assistant", ["internal"]))
        if rng.random() < 0.15:
            kinds.append(("user", ["memory_research", "sub_save_results"]))
        kinds.append(("assistant", ["conversation"]))
        for role, tags in kinds[: n - i]:
            i += 1
            when += timedelta(seconds=rng.randrange(5, 120))
            content = next(stream)
            if tags[0] == "memory_research":
                content = f"<system>\n{content}\n</system>"
            all_tags = [*tags, f"pulse:{pulse}"]
            stamp = when.isoformat(sep=" ", timespec="microseconds")
            yield ((i, persona, role, content, json.dumps(all_tags, ensure_ascii=False), pulse, stamp),
                   [(i, t, persona) for t in tags])


def build(path: Path, n: int, seed: int) -> float:
    """Create the bench database at `path`; returns the build time in seconds."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    start = time.perf_counter()
    migrate(path, backup=False)
    conn = sqlite3.connect(path, isolation_level=None)
    # Bulk-load settings only; the meta row written last marks a complete build.
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size=-262144")
    batch: list[tuple] = []
    tag_batch: list[tuple] = []

    def flush() -> None:
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO saimemory (ID, PERSONA_ID, ROLE, CONTENT, TAGS, PULSE_ID, CREATED_AT) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
        conn.executemany("INSERT INTO saimemory_tag (MESSAGE_ID, TAG, PERSONA_ID) VALUES (?, ?, ?)", tag_batch)
        conn.execute("COMMIT")
        batch.clear()
        tag_batch.clear()

    for row, tag_rows in rows(n, seed):
        batch.append(row)
        tag_batch.extend(tag_rows)
        if len(batch) >= 50_000:
            flush()
            print(f"  {row[0]:,} / {n:,} messages, {time.perf_counter() - start:.0f}s", file=sys.stderr)
    if batch:
        flush()
    # No FTS 'optimize': the index is left as incremental writes leave it (automerged segments),
    # which is the state a long-running app has, so the timings are not a best case.
    conn.execute("PRAGMA journal_mode=WAL")
    seconds = time.perf_counter() - start
    conn.execute("CREATE TABLE bench_meta (PARAMS TEXT, BUILD_SECONDS REAL)")
    conn.execute("INSERT INTO bench_meta VALUES (?, ?)", (json.dumps(_params(n, seed)), seconds))
    conn.close()
    return seconds


def _params(n: int, seed: int) -> dict:
    return {"messages": n, "seed": seed, "generator": GENERATOR_VERSION}


def existing_build(path: Path, n: int, seed: int) -> float | None:
    """Build time of a complete database with the same parameters, else None."""
    if not path.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT PARAMS, BUILD_SECONDS FROM bench_meta").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None
    if row and json.loads(row[0]) == _params(n, seed):
        return float(row[1])
    return None


def queries(count: int, seed: int) -> dict[str, list[tuple[str, str]]]:
    """Deterministic (persona, query) lists per kind, drawn from the generator's vocabulary."""
    rng = random.Random(seed + 1)
    words, _ = vocabulary(random.Random(seed))
    long_terms = [w for w in words if len(w) >= 3] + ["図書館で", "美術館の", "思い出しました", "一緒に"]
    short_terms = [w for w in words[:800] if len(w) <= 2] + list(KANJI[:120]) + ["猫", "犬", "図書", "本"]
    personas = [p for p, _ in PERSONAS]
    out: dict[str, list[tuple[str, str]]] = {"3+ chars": [], "1-2 chars": [], "two terms": []}
    for _ in range(count):
        out["3+ chars"].append((rng.choice(personas), rng.choice(long_terms)))
        out["1-2 chars"].append((rng.choice(personas), rng.choice(short_terms)))
        out["two terms"].append((rng.choice(personas), f"{rng.choice(short_terms)} {rng.choice(long_terms)}"))
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=ROOT / "bench-data")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rebuild", action="store_true", help="build even if a matching DB exists")
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    path = args.dir / f"recall-{args.messages}-s{args.seed}-g{GENERATOR_VERSION}.db"
    build_seconds = None if args.rebuild else existing_build(path, args.messages, args.seed)
    reused = build_seconds is not None
    if build_seconds is None:
        print(f"building {path} ({args.messages:,} messages)…", file=sys.stderr)
        build_seconds = build(path, args.messages, args.seed)
    size = sum(os.path.getsize(p) for p in (path, Path(f"{path}-wal")) if p.exists())
    db = Database(f"sqlite:///{path}")
    memory = SAIMemory(db)
    results: dict[str, dict[str, float]] = {}
    for kind, qs in queries(args.queries, args.seed).items():
        for persona, q in qs[:5]:  # warm the page cache and the connection pool
            memory.search(persona, q)
        times, hits = [], []
        for persona, q in qs:
            t0 = time.perf_counter()
            found = memory.search(persona, q)
            times.append((time.perf_counter() - t0) * 1000)
            hits.append(len(found))
            lowered = [t.lower() for t in q.split()]
            assert all(all(t in r["content"].lower() for t in lowered) for r in found), q
        results[kind] = {
            "p50_ms": round(percentile(times, 0.5), 2), "p95_ms": round(percentile(times, 0.95), 2),
            "max_ms": round(max(times), 2), "mean_hits": round(statistics.mean(hits), 1),
            "queries": len(qs),
        }
    db.dispose()
    print(f"\nSAIMemory.search — {args.messages:,} messages, {size / 1e9:.3f} GB on disk, "
          f"built in {build_seconds:.0f}s{' (reused)' if reused else ''}, {os.cpu_count()} CPUs")
    print(f"{'query kind':<12} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'hits':>6}")
    for kind, r in results.items():
        print(f"{kind:<12} {r['p50_ms']:>8} {r['p95_ms']:>8} {r['max_ms']:>8} {r['mean_hits']:>6}")
    print(json.dumps({
        "messages": args.messages, "db_bytes": size, "build_seconds": round(build_seconds, 1),
        "reused": reused, "cpus": os.cpu_count(), "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version, "search": results,
    }, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
