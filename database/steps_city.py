"""The SQL of steps 10 to 13 (database/steps.py): what a city shared by several processes needs, and
SAIMemory's message vectors.

Frozen like every step: a schema change is a new step at the end of database/steps.py.
"""

# Step 10: SAIMemory recall of 1-2 character terms on PostgreSQL. SQLite has had its gram index
# since step 3 (FTS5 over 1-3 character grams), so on SQLite this step changes nothing; PostgreSQL's
# own SQL is in database/migrate_pg.py (PG_REPLACEMENTS): an index of every 1- and 2-character gram.
SAIMEMORY_SHORT_TERMS_SQL = ""

# Step 11: each persona's last autonomous turn, kept in the world so that several processes on one
# city (app windows, pulse workers) start one turn per interval between them, and a restart does not
# start every turn again (saiverse/world/_auto_turns.py claims a turn with one conditional upsert).
# LAST_AT_US is Unix time in microseconds, an integer: the arithmetic of the claim is exact and reads
# the same in SQLite and PostgreSQL (their date types do not).
AUTONOMOUS_TURN_SQL = """
CREATE TABLE autonomous_turn (
    PERSONA_ID TEXT PRIMARY KEY,
    LAST_AT_US BIGINT NOT NULL
);
"""

# Step 12: the pulses a process has begun and not yet ended, so a kill -9 in the middle of one is
# accounted for at the next start (saiverse/pulse/_open.py): the user's message it answered, and every
# change its tools made (EFFECTS_JSON, written as each happens) become notes in the persona's memory.
# RUNNER says who recovers it: `local:<host>` rows by the app's start on that host when no other
# process has the home open; `queue` rows by the job's retry on a worker (saiverse/pulse/_queue.py).
PULSE_OPEN_SQL = """
CREATE TABLE pulse_open (
    PULSE_ID TEXT PRIMARY KEY,
    PERSONA_ID TEXT NOT NULL,
    BUILDING_ID TEXT,
    KIND TEXT NOT NULL,
    RUNNER TEXT NOT NULL,
    EFFECTS_JSON TEXT NOT NULL DEFAULT '[]',
    STARTED_AT TEXT NOT NULL
);
"""

# Step 13: dense vectors of SAIMemory messages (issue 33), written by the background indexer
# (saiverse/memory/_indexer.py) and read by recall (saiverse/memory/_dense.py). One row per message
# and embedding model (MODEL: `local:<file stem>`), the vector as DIM little-endian float32 in VEC
# (a zero-length VEC with DIM 0: a message with nothing to embed, so it is not asked again). Plain
# blobs scanned with numpy on both databases: sqlite-vec is an extension SQLite must be allowed to
# load and pgvector is not on every PostgreSQL a user has. A message's vectors go when its row goes
# or its text or persona changes (the triggers here; PostgreSQL's are in database/migrate_pg.py).
SAIMEMORY_VEC_SQL = """
CREATE TABLE saimemory_vec (
    MESSAGE_ID INTEGER NOT NULL,
    PERSONA_ID TEXT NOT NULL,
    MODEL TEXT NOT NULL,
    DIM INTEGER NOT NULL,
    VEC BLOB NOT NULL,
    PRIMARY KEY (MODEL, MESSAGE_ID)
);
CREATE INDEX ix_saimemory_vec_persona ON saimemory_vec (MODEL, PERSONA_ID, MESSAGE_ID);
CREATE TRIGGER saimemory_vec_ad AFTER DELETE ON saimemory BEGIN
    DELETE FROM saimemory_vec WHERE MESSAGE_ID = old.ID;
END;
CREATE TRIGGER saimemory_vec_au AFTER UPDATE OF CONTENT, PERSONA_ID ON saimemory BEGIN
    DELETE FROM saimemory_vec WHERE MESSAGE_ID = old.ID;
END;
"""
