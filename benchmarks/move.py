"""Moving a city between SQLite and PostgreSQL: how long each way takes for a city of N messages.

    python benchmarks/move.py [--messages 100000]

Makes a SQLite home (the seeded world plus N SAIMemory messages and N/2 history lines of Japanese
text), starts a throwaway PostgreSQL cluster (tests/support/pg.py, Debian's `initdb` + `pg_ctl`), then times:
`move --to URL` (SQLite → PostgreSQL), a backup of the PostgreSQL city (one snapshot → the archive),
`move --to sqlite` (PostgreSQL → SQLite, SQLite's recall index rebuilt as the rows go in) and a
restore of that archive into a second, empty PostgreSQL database. Prints rows per second of each and
the archive's size, and checks that a recall on the moved-back home finds what the original found.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scratch import scratch  # noqa: E402
from saiverse.care import create_backup, move_back, move_home, restore_backup  # noqa: E402
from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402
from tests.support.pg import running_cluster  # noqa: E402

WORDS = ["星", "猫", "海", "図書館", "夕焼け", "約束", "手紙", "旅", "雨", "絵本"]


def _fill(db: Path, n: int) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.executemany("INSERT INTO saimemory (PERSONA_ID, ROLE, CONTENT) VALUES (?, ?, ?)",
                         ((("mina", "sora")[i % 2], ("user", "assistant")[i % 2],
                           f"{WORDS[i % 10]}の話 その{i}。{WORDS[(i * 7) % 10]}と{WORDS[(i * 3) % 10]}のこと。")
                          for i in range(n)))
        conn.executemany("INSERT INTO building_history (BUILDINGID, SPEAKER_KIND, SPEAKER_NAME, CONTENT) "
                         "VALUES ('library', 'user', 'あなた', ?)", ((f"行 {i}",) for i in range(n // 2)))
        conn.commit()
    finally:
        conn.close()


def _timed(label: str, rows: int, fn: object) -> object:
    start = time.perf_counter()
    result = fn()  # type: ignore[operator]
    took = time.perf_counter() - start
    print(f"{label:<34} {took:8.2f} s   {rows / took:10,.0f} rows/s")
    return result


def _recall(home: Path) -> list[int]:
    m = SAIVerseManager(load_settings(home))
    try:
        return [r["id"] for r in m.memory.search("mina", "夕焼け")][:20]
    finally:
        m.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    args = parser.parse_args()
    os.environ.update({"SAIVERSE_DEFAULT_MODEL": "offline", "SAIVERSE_DETECT_SERVERS": "0"})
    os.environ.pop("SAIVERSE_DATABASE_URL", None)
    work = scratch("saiverse-move-")
    try:
        home = work / "home"
        SAIVerseManager(load_settings(home)).close()
        _fill(home / "saiverse.db", args.messages)
        before = _recall(home)
        with sqlite3.connect(home / "saiverse.db") as conn:
            rows = sum(conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for (t,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
                "AND name NOT LIKE 'saimemory_fts%' AND name != 'saimemory_gram_pos'").fetchall())
        print(f"a city of {args.messages:,} messages, {rows:,} rows in all")
        with running_cluster() as cluster:
            first, second = ("b_" + uuid.uuid4().hex[:10] for _ in range(2))
            cluster.admin(f"CREATE DATABASE {first}")
            cluster.admin(f"CREATE DATABASE {second}")
            url = cluster.url(first)
            _timed("move --to postgresql", rows, lambda: move_home(load_settings(home), url))
            for name in ("saiverse.db", "checkpoints.db"):
                if (home / name).exists():
                    shutil.move(str(home / name), str(work / name))
            os.environ["SAIVERSE_DATABASE_URL"] = url
            archive = work / "city.zip"
            _timed("backup of the PostgreSQL city", rows,
                   lambda: create_backup(home, home / "saiverse.db", archive, database_url=url))
            print(f"{'archive':<34} {archive.stat().st_size / 1e6:8.1f} MB")
            _timed("move --to sqlite", rows, lambda: move_back(load_settings(home)))
            _timed("restore into PostgreSQL", rows,
                   lambda: restore_backup(archive, work / "restored", database_url=cluster.url(second)))
            os.environ.pop("SAIVERSE_DATABASE_URL")
        after = _recall(home)
        print(f"recall on the moved-back home: {'same' if after == before else 'DIFFERENT'} "
              f"({len(after)} of the first 20 hits)")
        return 0 if after == before else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
