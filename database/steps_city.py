"""The SQL of steps 10 and 11 (database/steps.py): what a city shared by several processes needs.

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
