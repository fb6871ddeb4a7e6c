"""The hot writes on SQLite's own cursor (database/direct.py): the same rows as through SQLAlchemy, in
the caller's transaction (a rollback takes them back), SQLAlchemy's errors for a locked database, and
SQLAlchemy's own path wherever the direct one does not apply. Real SQLite files (and PostgreSQL for
the fallback, tests/support/pg.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from database.direct import fetch_one, read_all, run_many
from database.engine import Database
from database.migrate import migrate
from database.migrate_pg import migrate_pg
from saiverse.memory._store import SAIMemory
from saiverse.world import World

_COUNT = "SELECT count(*) FROM saimemory_tag WHERE TAG = 'direct'"
_TAG = text("INSERT INTO saimemory_tag (MESSAGE_ID, TAG, PERSONA_ID) VALUES (:m, :t, :p)")


@pytest.fixture
def sqlite_db(saiverse_home: Path) -> Iterator[Database]:
    path = saiverse_home / "saiverse.db"
    migrate(path)
    database = Database(f"sqlite:///{path}")
    yield database
    database.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, saiverse_home: Path) -> Iterator[Database]:
    if request.param == "postgresql":
        database = Database(request.getfixturevalue("pg_url"), workers=1)
        migrate_pg(database.engine)
        yield database
        database.dispose()
    else:
        yield request.getfixturevalue("sqlite_db")


def _seed_building(db: Database) -> None:
    with db.engine.begin() as conn:
        conn.execute(text("INSERT INTO city (CITYID, CITYNAME) VALUES (1, 'c') ON CONFLICT DO NOTHING"))
        conn.execute(text("INSERT INTO building (BUILDINGID, BUILDINGNAME, CITYID) VALUES ('lib', '図書館', 1) "
                          "ON CONFLICT DO NOTHING"))


def test_a_message_and_a_line_written_in_a_transaction_match_the_orm_path(db: Database) -> None:
    memory, world = SAIMemory(db), World(db)
    _seed_building(db)
    with db.engine.begin() as conn:  # the turn's Core transaction: the direct path on SQLite
        fast = memory.add("mina", "user", "猫の話をしよう", tags=["conversation"], pulse_id="p1", session=conn)
        fast_line = world.add_history("lib", speaker_kind="user", speaker_id="user", speaker_name="あなた",
                                      content="猫の話をしよう", session=conn)
    with db.session() as s:  # an ORM session: SQLAlchemy as before
        slow = memory.add("mina", "user", "猫の話をしよう", tags=["conversation"], pulse_id="p2", session=s)
    slow_line = world.add_history("lib", speaker_kind="user", speaker_id="user", speaker_name="あなた",
                                  content="猫の話をしよう")
    rows = {r["id"]: r for r in memory.list_messages("mina")}
    a, b = rows[fast["id"]], rows[slow["id"]]
    assert a["tags"] == ["conversation", "pulse:p1"] and b["tags"] == ["conversation", "pulse:p2"]
    assert memory.list_messages("mina", tag="conversation")[0]["id"] in (fast["id"], slow["id"])
    assert [r["content"] for r in memory.search("mina", "猫")] == ["猫の話をしよう"] * 2  # both indexed
    lines = {h.id: h for h in world.history("lib")}
    assert lines[fast_line].content == lines[slow_line].content == "猫の話をしよう"
    # The stored time has the form SQLAlchemy's DateTime writes (microseconds, a space).
    with db.engine.connect() as conn:
        stamps = [str(r[0]) for r in conn.execute(text("SELECT CREATED_AT FROM building_history ORDER BY ID"))]
    assert len({len(s) for s in stamps}) == 1 and all(" " in s and "." in s for s in stamps)


def test_a_rollback_takes_the_direct_writes_back(sqlite_db: Database) -> None:
    memory = SAIMemory(sqlite_db)
    with pytest.raises(RuntimeError), sqlite_db.engine.begin() as conn:
        memory.add("mina", "user", "消える言葉", tags=["direct"], session=conn)
        raise RuntimeError("the pulse failed")
    assert memory.list_messages("mina") == [] and memory.search("mina", "消える") == []
    with sqlite_db.engine.connect() as conn:
        assert conn.execute(text(_COUNT)).scalar() == 0


def test_a_connection_without_a_transaction_writes_through_sqlalchemy(sqlite_db: Database) -> None:
    message = SAIMemory(sqlite_db).add("mina", "user", "やあ")["id"]
    with sqlite_db.engine.connect() as conn:
        assert not conn.in_transaction()
        run_many(conn, _TAG, [{"m": message, "t": "direct", "p": "mina"}])  # SQLAlchemy begins it itself
        conn.commit()
    with sqlite_db.engine.connect() as conn:
        assert conn.execute(text(_COUNT)).scalar() == 1


def test_a_locked_database_raises_sqlalchemys_error_without_the_parameters(sqlite_db: Database) -> None:
    ids = [SAIMemory(sqlite_db).add("mina", "user", t)["id"] for t in ("一", "二")]
    path = sqlite_db.url.removeprefix("sqlite:///")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        with pytest.raises(OperationalError) as caught, sqlite_db.engine.begin() as conn:
            conn.exec_driver_sql("PRAGMA busy_timeout=50")
            fetch_one(conn, text("INSERT INTO saimemory_tag (MESSAGE_ID, TAG, PERSONA_ID) VALUES (:m, :t, :p) "
                                 "RETURNING MESSAGE_ID"), {"m": ids[0], "t": "秘密の言葉", "p": "mina"})
        assert "locked" in str(caught.value) and "秘密の言葉" not in str(caught.value)
        assert isinstance(caught.value.orig, sqlite3.OperationalError)
    finally:
        other.execute("ROLLBACK")
        other.close()
    with sqlite_db.engine.begin() as conn:  # the pooled connection is usable again
        conn.exec_driver_sql(f"PRAGMA busy_timeout={5000}")
        run_many(conn, _TAG, [{"m": ids[0], "t": "direct", "p": "mina"}, {"m": ids[1], "t": "direct", "p": "mina"}])
    with sqlite_db.engine.connect() as conn:
        assert conn.execute(text(_COUNT)).scalar() == 2


def test_the_turns_reads_give_what_sqlalchemy_gives(db: Database) -> None:
    world = World(db)
    _seed_building(db)
    building, nobody = world.building_and_persona("lib", "ghost")
    assert building == world.building("lib") and building.name == "図書館" and building.capacity == 10
    assert nobody is None  # the caller says so (SAIVerseManager.handle_user_input raises UnknownIdError)
    assert world.building_and_persona("lib", None) == (building, None)
    with pytest.raises(LookupError, match="nowhere"):
        world.building_and_persona("nowhere", "ghost")
    with db.engine.connect() as conn:
        rows = read_all(conn, text("SELECT BUILDINGID, BUILDINGNAME FROM building WHERE BUILDINGID = :b"), {"b": "lib"})
    assert [tuple(r) for r in rows] == [("lib", "図書館")]
