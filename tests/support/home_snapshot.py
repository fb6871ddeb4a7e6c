"""What a home holds, to compare before and after a refusal (tests/reliability/test_bad_inputs.py,
test_hostile_inputs.py): every table's rows (count and digest) and every file's size and mtime."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any


def snapshot(home: Path) -> dict[str, Any]:
    """Rows of every table (count and digest) and every file under the home (size, mtime)."""
    conn = sqlite3.connect(f"{(home / 'saiverse.db').as_uri()}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' "
            "AND name NOT LIKE 'saimemory_fts_%' AND name != 'saimemory_gram_pos'")]
        rows: dict[str, tuple[int, str]] = {}
        for table in tables:
            digest = hashlib.sha256()
            count = 0
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1"):
                digest.update(repr(row).encode("utf-8", "backslashreplace"))
                count += 1
            rows[table] = (count, digest.hexdigest())
    finally:
        conn.close()
    files = {str(p.relative_to(home)): (p.stat().st_size, p.stat().st_mtime_ns)
             for p in home.rglob("*") if p.is_file() and not p.name.startswith("saiverse.db")}
    return {"rows": rows, "files": files}
