"""The SQL of step 14 (database/steps.py): SAIMemory's message vectors (issue 33).

Frozen like every step: a schema change is a new step at the end of database/steps.py.
"""

# Step 14: dense vectors of SAIMemory messages, written by the background indexer
# (saiverse/memory/_indexer.py) and read by recall (saiverse/memory/_dense.py). One row per message
# and embedding model (MODEL: `local:<file stem>`, `gemini-embedding-001@512`, ...), the vector as DIM
# little-endian float32 in VEC (a zero-length VEC with DIM 0: a message with nothing to embed, so it is
# not asked again). Plain blobs scanned with numpy on both stores (saiverse/memory/_vectors.py says why,
# and why not sqlite-vec or pgvector); PostgreSQL's VEC is bytea (database/migrate_pg.py). A message's
# vectors go when its row goes or its text or persona changes (the triggers here; PostgreSQL's are in
# database/migrate_pg.py).
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
