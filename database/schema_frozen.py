"""The schema the migration steps make, kept beside them so a start need not rebuild it.

`database/schema_check.py` compares a database that says it is current with the tables, columns and
triggers the steps create. Building that expectation means running every step's SQL into an empty
in-memory database (~170 statements, 12-28 ms of a start on the project's machine). The steps are
frozen (database/steps.py), so the result is too: `schema_frozen.json` holds it, under the SHA-256
of the steps it was built from. When the steps change and the file was not rebuilt, the digest no
longer matches and the expectation is built from the steps as before — a stale file costs time,
never a wrong answer. tests/test_schema_frozen.py fails until it is rebuilt:

    python -m database.schema_frozen        # rewrite database/schema_frozen.json from the steps
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

FROZEN_PATH = Path(__file__).with_name("schema_frozen.json")

Expected = tuple[dict[str, list[str]], list[str]]
"""({table: its columns in order}, trigger names), as `schema_check.expected_schema` returns it."""


def steps_digest(steps: Sequence[tuple[int, str, str]]) -> str:
    """SHA-256 over every step's version, name and SQL, in order."""
    h = hashlib.sha256()
    for version, name, sql in steps:
        h.update(f"{version}\0{name}\0{sql}\0".encode())
    return h.hexdigest()


def frozen(digest: str) -> Expected | None:
    """The kept expectation when it was built from steps with this digest, else None (build it)."""
    try:
        data = json.loads(FROZEN_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # missing or unreadable: the steps are run in memory instead
    if not isinstance(data, dict) or data.get("steps_sha256") != digest:
        return None
    tables, triggers = data.get("tables"), data.get("triggers")
    if not isinstance(tables, dict) or not isinstance(triggers, list):
        return None
    return {str(t): [str(c) for c in cols] for t, cols in tables.items()}, [str(t) for t in triggers]


def write(digest: str, expected: Expected) -> None:
    """Keep `expected` (built from steps with `digest`) in database/schema_frozen.json."""
    tables, triggers = expected
    # In the steps' order: the refusal names the first table missing, as when built from the steps.
    text = json.dumps({"steps_sha256": digest, "tables": tables, "triggers": triggers}, indent=1,
                      ensure_ascii=False)
    FROZEN_PATH.write_text(text + "\n", encoding="utf-8")


def rebuild(steps: Sequence[tuple[int, str, str]], build: Callable[[Sequence[tuple[int, str, str]]], Expected]) -> str:
    """Rebuild database/schema_frozen.json from `steps` (after a new step is added) with `build`
    (`schema_check.build_expected_schema` over the migration's statement splitter); one line saying so."""
    digest = steps_digest(steps)
    write(digest, build(steps))
    return f"{FROZEN_PATH}: schema of steps 1-{steps[-1][0]} (sha256 {digest[:12]})"


if __name__ == "__main__":  # a program of its own: it may import what imports this module
    if __package__ in (None, ""):
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from database.migrate import STEPS, split_statements
    from database.schema_check import build_expected_schema

    print(rebuild(tuple((s.version, s.name, s.sql) for s in STEPS),
                  lambda steps: build_expected_schema(steps, split_statements)))
    sys.exit(0)
