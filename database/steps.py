"""The migration steps: frozen, ordered SQL, one transaction each (database/migrate.py runs them).

A step is never edited once released; a schema change is a new step at the end (docs/ARCHITECTURE.md,
"Storage"). `database/schema_check.py` builds the expected schema from these same steps.
"""

from __future__ import annotations

from dataclasses import dataclass

from database.steps_city import AUTONOMOUS_TURN_SQL, PULSE_OPEN_SQL, SAIMEMORY_SHORT_TERMS_SQL
from database.steps_pins import MEMORY_PIN_SQL
from database.steps_usage import USAGE_SQL
from database.steps_v03 import UPSTREAM_V03_SQL
from database.steps_vec import SAIMEMORY_VEC_SQL


@dataclass(frozen=True)
class Step:
    """One frozen schema change."""

    version: int
    name: str
    sql: str


BASELINE_SQL = """
CREATE TABLE city (
    CITYID TEXT PRIMARY KEY,
    CITYNAME TEXT NOT NULL,
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE building (
    BUILDINGID TEXT PRIMARY KEY,
    CITYID TEXT NOT NULL REFERENCES city(CITYID),
    BUILDINGNAME TEXT NOT NULL,
    CAPACITY INTEGER NOT NULL DEFAULT 10,
    SYSTEM_INSTRUCTION TEXT NOT NULL DEFAULT '',
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    AUTO_INTERVAL_SEC INTEGER NOT NULL DEFAULT 600,
    SORT_ORDER INTEGER NOT NULL DEFAULT 0,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE ai (
    AIID TEXT PRIMARY KEY,
    CITYID TEXT NOT NULL REFERENCES city(CITYID),
    AINAME TEXT NOT NULL,
    SYSTEMPROMPT TEXT NOT NULL DEFAULT '',
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    INTERACTION_MODE TEXT NOT NULL DEFAULT 'user',
    DEFAULT_MODEL TEXT,
    LIGHTWEIGHT_MODEL TEXT,
    AVATAR TEXT NOT NULL DEFAULT '🙂',
    CURRENT_BUILDINGID TEXT REFERENCES building(BUILDINGID),
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE user (
    USERID TEXT PRIMARY KEY,
    USERNAME TEXT NOT NULL,
    CURRENT_BUILDINGID TEXT REFERENCES building(BUILDINGID)
);
CREATE TABLE item (
    ITEM_ID TEXT PRIMARY KEY,
    NAME TEXT NOT NULL,
    TYPE TEXT NOT NULL DEFAULT 'object',
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    STATE_JSON TEXT NOT NULL DEFAULT '{}',
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE item_location (
    ITEM_ID TEXT PRIMARY KEY REFERENCES item(ITEM_ID) ON DELETE CASCADE,
    OWNER_KIND TEXT NOT NULL,
    OWNER_ID TEXT NOT NULL,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX ix_item_location_owner ON item_location (OWNER_KIND, OWNER_ID);
CREATE TABLE building_history (
    ID INTEGER PRIMARY KEY AUTOINCREMENT,
    BUILDINGID TEXT NOT NULL,
    SPEAKER_KIND TEXT NOT NULL,
    SPEAKER_ID TEXT,
    SPEAKER_NAME TEXT NOT NULL DEFAULT '',
    CONTENT TEXT NOT NULL,
    PULSE_ID TEXT,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX ix_building_history_building ON building_history (BUILDINGID, ID);
CREATE TABLE saimemory (
    ID INTEGER PRIMARY KEY AUTOINCREMENT,
    PERSONA_ID TEXT NOT NULL,
    ROLE TEXT NOT NULL,
    CONTENT TEXT NOT NULL,
    TAGS TEXT NOT NULL DEFAULT '[]',
    PULSE_ID TEXT,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX ix_saimemory_persona ON saimemory (PERSONA_ID, ID);
CREATE INDEX ix_saimemory_pulse ON saimemory (PULSE_ID);
CREATE TABLE saimemory_tag (
    MESSAGE_ID INTEGER NOT NULL REFERENCES saimemory(ID) ON DELETE CASCADE,
    TAG TEXT NOT NULL,
    PERSONA_ID TEXT NOT NULL,
    PRIMARY KEY (MESSAGE_ID, TAG)
);
CREATE INDEX ix_saimemory_tag_lookup ON saimemory_tag (PERSONA_ID, TAG, MESSAGE_ID);
CREATE VIRTUAL TABLE saimemory_fts USING fts5(
    CONTENT, content='saimemory', content_rowid='ID', tokenize='trigram'
);
CREATE TRIGGER saimemory_ai AFTER INSERT ON saimemory BEGIN
    INSERT INTO saimemory_fts(rowid, CONTENT) VALUES (new.ID, new.CONTENT);
END;
CREATE TRIGGER saimemory_ad AFTER DELETE ON saimemory BEGIN
    INSERT INTO saimemory_fts(saimemory_fts, rowid, CONTENT) VALUES ('delete', old.ID, old.CONTENT);
END;
CREATE TRIGGER saimemory_au AFTER UPDATE OF CONTENT ON saimemory BEGIN
    INSERT INTO saimemory_fts(saimemory_fts, rowid, CONTENT) VALUES ('delete', old.ID, old.CONTENT);
    INSERT INTO saimemory_fts(rowid, CONTENT) VALUES (new.ID, new.CONTENT);
END;
CREATE TABLE playbooks (
    NAME TEXT PRIMARY KEY,
    DISPLAY_NAME TEXT NOT NULL DEFAULT '',
    DESCRIPTION TEXT NOT NULL DEFAULT '',
    SCOPE TEXT NOT NULL DEFAULT 'public',
    ROUTER_CALLABLE INTEGER NOT NULL DEFAULT 0,
    USER_SELECTABLE INTEGER NOT NULL DEFAULT 0,
    PLAYBOOK_JSON TEXT NOT NULL,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE schedule (
    SCHEDULE_ID TEXT PRIMARY KEY,
    PERSONA_ID TEXT NOT NULL,
    KIND TEXT NOT NULL,
    DAYS_OF_WEEK TEXT,
    TIME_OF_DAY TEXT,
    RUN_AT DATETIME,
    INTERVAL_SEC INTEGER,
    META_PLAYBOOK TEXT NOT NULL DEFAULT 'meta_user',
    ARGS_JSON TEXT NOT NULL DEFAULT '{}',
    ENABLED INTEGER NOT NULL DEFAULT 1,
    LAST_RUN_AT DATETIME,
    NEXT_RUN_AT DATETIME,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
"""

# The picture/document extension (docs/ARCHITECTURE.md, "Storage").
ITEM_EXTENSION_SQL = """
ALTER TABLE item ADD COLUMN FILE_PATH TEXT;
ALTER TABLE ai ADD COLUMN LIGHTWEIGHT_VISION_MODEL TEXT;
ALTER TABLE ai ADD COLUMN VISION_MODEL TEXT;
"""

# SAIMemory recall index (saiverse/memory/_store.py explains the design). The step-1 trigram index found
# nothing for 1-2 character terms, which Japanese queries are full of. It is replaced by one
# contentless FTS5 table of every 1-, 2- and 3-character gram of CONTENT plus a persona token,
# fed by triggers in plain SQL (so any writer keeps it current) with positions from a fixed
# number table: messages are indexed on their first 131,072 characters. detail=none keeps it
# smaller than the trigram index it replaces; search re-checks candidates against CONTENT.
_GRAMS = (
    "'p:' || hex({r}.PERSONA_ID) || ' ' || coalesce((SELECT group_concat("
    "substr({r}.CONTENT, I, 1) || ' ' || substr({r}.CONTENT, I, 2) || ' ' || substr({r}.CONTENT, I, 3), ' ')"
    " FROM saimemory_gram_pos WHERE I <= length({r}.CONTENT)), '')"
)
MEMORY_GRAM_INDEX_SQL = f"""
DROP TRIGGER IF EXISTS saimemory_ai;
DROP TRIGGER IF EXISTS saimemory_ad;
DROP TRIGGER IF EXISTS saimemory_au;
DROP TABLE IF EXISTS saimemory_fts;
CREATE TABLE saimemory_gram_pos (I INTEGER PRIMARY KEY);
INSERT INTO saimemory_gram_pos (I)
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 131072) SELECT i FROM n;
CREATE VIRTUAL TABLE saimemory_fts USING fts5(
    GRAMS, content='', detail=none, columnsize=0,
    tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co Cf Cn Cs M* P* S*'"
);
INSERT INTO saimemory_fts (rowid, GRAMS) SELECT m.ID, {_GRAMS.format(r="m")} FROM saimemory m;
CREATE TRIGGER saimemory_gram_ai AFTER INSERT ON saimemory BEGIN
    INSERT INTO saimemory_fts (rowid, GRAMS) VALUES (new.ID, {_GRAMS.format(r="new")});
END;
CREATE TRIGGER saimemory_gram_ad AFTER DELETE ON saimemory BEGIN
    INSERT INTO saimemory_fts (saimemory_fts, rowid, GRAMS)
        VALUES ('delete', old.ID, {_GRAMS.format(r="old")});
END;
CREATE TRIGGER saimemory_gram_au AFTER UPDATE OF CONTENT, PERSONA_ID ON saimemory BEGIN
    INSERT INTO saimemory_fts (saimemory_fts, rowid, GRAMS)
        VALUES ('delete', old.ID, {_GRAMS.format(r="old")});
    INSERT INTO saimemory_fts (rowid, GRAMS) VALUES (new.ID, {_GRAMS.format(r="new")});
END;
"""

# Production workflow runs (docs/ARCHITECTURE.md, "Production"); the graph state itself lives in checkpoints.db.
PRODUCTION_RUN_SQL = """
CREATE TABLE production_run (
    RUN_ID TEXT PRIMARY KEY,
    PERSONA_ID TEXT NOT NULL,
    BUILDING_ID TEXT NOT NULL,
    REQUEST TEXT NOT NULL,
    STATUS TEXT NOT NULL DEFAULT 'running',
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX ix_production_run_status ON production_run (STATUS, BUILDING_ID);
"""

# Room for a whole upstream SAIVerse world (saiverse/importer/) and for long-term memory
# (Chronicle and Memopedia, saiverse/memory*): where a message came from (thread, building, the
# upstream id that makes a re-import a no-op), the persona and building columns upstream has, and
# upstream's Memopedia and Chronicle (arasuji) tables kept per persona in the main database.
UPSTREAM_AND_LONG_TERM_MEMORY_SQL = """
ALTER TABLE saimemory ADD COLUMN THREAD_ID TEXT;
ALTER TABLE saimemory ADD COLUMN BUILDING_ID TEXT;
ALTER TABLE saimemory ADD COLUMN EXTERNAL_ID TEXT;
CREATE UNIQUE INDEX ux_saimemory_external ON saimemory (PERSONA_ID, EXTERNAL_ID) WHERE EXTERNAL_ID IS NOT NULL;
ALTER TABLE building_history ADD COLUMN EXTERNAL_ID TEXT;
ALTER TABLE building_history ADD COLUMN METADATA TEXT;
CREATE UNIQUE INDEX ux_building_history_external ON building_history (BUILDINGID, EXTERNAL_ID)
    WHERE EXTERNAL_ID IS NOT NULL;
ALTER TABLE ai ADD COLUMN PRIVATE_ROOM_ID TEXT;
ALTER TABLE ai ADD COLUMN AVATAR_IMAGE TEXT;
ALTER TABLE ai ADD COLUMN PREVIOUS_INTERACTION_MODE TEXT;
ALTER TABLE ai ADD COLUMN CONTEXT_TOKENS INTEGER;
ALTER TABLE ai ADD COLUMN CHRONICLE_ENABLED INTEGER NOT NULL DEFAULT 1;
ALTER TABLE ai ADD COLUMN EXTRA_JSON TEXT NOT NULL DEFAULT '{}';
ALTER TABLE building ADD COLUMN ENTRY_PROMPT TEXT NOT NULL DEFAULT '';
ALTER TABLE building ADD COLUMN AUTO_PROMPT TEXT NOT NULL DEFAULT '';
ALTER TABLE building ADD COLUMN EXTRA_JSON TEXT NOT NULL DEFAULT '{}';
ALTER TABLE item ADD COLUMN CREATOR_ID TEXT;
ALTER TABLE item ADD COLUMN SOURCE_CONTEXT TEXT;
ALTER TABLE schedule ADD COLUMN DESCRIPTION TEXT NOT NULL DEFAULT '';
ALTER TABLE schedule ADD COLUMN PRIORITY INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedule ADD COLUMN COMPLETED INTEGER NOT NULL DEFAULT 0;
CREATE TABLE persona_event_log (
    EVENT_ID TEXT PRIMARY KEY,
    PERSONA_ID TEXT NOT NULL,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    CONTENT TEXT NOT NULL DEFAULT '',
    STATUS TEXT NOT NULL DEFAULT 'pending',
    EVENT_TYPE TEXT,
    PAYLOAD TEXT
);
CREATE INDEX ix_persona_event_log_persona ON persona_event_log (PERSONA_ID, CREATED_AT);
CREATE TABLE memopedia_page (
    PERSONA_ID TEXT NOT NULL,
    PAGE_ID TEXT NOT NULL,
    PARENT_ID TEXT,
    TITLE TEXT NOT NULL,
    SUMMARY TEXT NOT NULL DEFAULT '',
    CONTENT TEXT NOT NULL DEFAULT '',
    CATEGORY TEXT NOT NULL,
    KEYWORDS TEXT NOT NULL DEFAULT '[]',
    VIVIDNESS TEXT NOT NULL DEFAULT 'rough',
    IS_TRUNK INTEGER NOT NULL DEFAULT 0,
    IS_IMPORTANT INTEGER NOT NULL DEFAULT 0,
    IS_DELETED INTEGER NOT NULL DEFAULT 0,
    LAST_REFERENCED_AT DATETIME,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (PERSONA_ID, PAGE_ID)
);
CREATE INDEX ix_memopedia_page_parent ON memopedia_page (PERSONA_ID, PARENT_ID);
CREATE TABLE memopedia_edit (
    EDIT_ID TEXT PRIMARY KEY,
    PERSONA_ID TEXT NOT NULL,
    PAGE_ID TEXT NOT NULL,
    EDITED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    DIFF_TEXT TEXT NOT NULL DEFAULT '',
    REF_START_MESSAGE_ID TEXT,
    REF_END_MESSAGE_ID TEXT,
    EDIT_TYPE TEXT NOT NULL,
    EDIT_SOURCE TEXT
);
CREATE INDEX ix_memopedia_edit_page ON memopedia_edit (PERSONA_ID, PAGE_ID, EDITED_AT);
CREATE TABLE memopedia_page_state (
    PERSONA_ID TEXT NOT NULL,
    THREAD_ID TEXT NOT NULL,
    PAGE_ID TEXT NOT NULL,
    IS_OPEN INTEGER NOT NULL DEFAULT 0,
    OPENED_AT DATETIME,
    PRIMARY KEY (PERSONA_ID, THREAD_ID, PAGE_ID)
);
CREATE TABLE chronicle_entry (
    PERSONA_ID TEXT NOT NULL,
    ENTRY_ID TEXT NOT NULL,
    LEVEL INTEGER NOT NULL,
    CONTENT TEXT NOT NULL,
    SOURCE_IDS TEXT NOT NULL DEFAULT '[]',
    START_TIME DATETIME,
    END_TIME DATETIME,
    SOURCE_COUNT INTEGER NOT NULL DEFAULT 0,
    MESSAGE_COUNT INTEGER NOT NULL DEFAULT 0,
    PARENT_ID TEXT,
    IS_CONSOLIDATED INTEGER NOT NULL DEFAULT 0,
    CREATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (PERSONA_ID, ENTRY_ID)
);
CREATE INDEX ix_chronicle_entry_level ON chronicle_entry (PERSONA_ID, LEVEL, END_TIME);
CREATE TABLE chronicle_progress (
    PERSONA_ID TEXT PRIMARY KEY,
    LAST_MESSAGE_ID TEXT,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
"""

# What an upstream SAIMemory message carries beyond role, content, tags and `with` (which become
# TAGS), kept as JSON so an import loses nothing; and upstream's thread records (overview, Stelis
# sub-thread settings and summary) per persona.
UPSTREAM_MESSAGE_METADATA_SQL = """
ALTER TABLE saimemory ADD COLUMN METADATA TEXT;
CREATE TABLE saimemory_thread (
    PERSONA_ID TEXT NOT NULL,
    THREAD_ID TEXT NOT NULL,
    RESOURCE_ID TEXT,
    OVERVIEW TEXT,
    OVERVIEW_UPDATED_AT DATETIME,
    EXTRA_JSON TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (PERSONA_ID, THREAD_ID)
);
"""

# Settings that belong to the world, not to the install (settings.json): they travel with a backup
# and survive a restart, like the 自律 switch of the chat view (`autonomous`, "1" or "0").
WORLD_SETTING_SQL = """
CREATE TABLE world_setting (
    KEY TEXT PRIMARY KEY,
    VALUE TEXT NOT NULL,
    UPDATED_AT DATETIME DEFAULT CURRENT_TIMESTAMP
);
"""

# SAIMemory grams in linear time. Step 3's `substr(CONTENT, I, n)` walks the text from its start for
# every position I (SQLite counts characters in UTF-8 that way), so adding a message cost time
# quadratic in its length: tens of seconds at 131,072 characters. These triggers walk the message
# once as a BLOB instead, carrying the byte offsets of the next three characters (a UTF-8 lead byte
# gives its character's length) and cutting each 1-, 2- and 3-gram by bytes, O(1) each. The GRAMS
# text is the one `saiverse/importer/grams.py::grams` makes: the first 131,072 characters up to any
# NUL, windows cut at that cap. Step 3's windows ran up to two characters past the cap, so the few
# messages longer than the cap are re-indexed here. FTS5 keeps a running token total that a delete
# subtracts from, so each old entry is deleted with step 3's exact GRAMS text (the same grams up to
# two characters before the cap, then its last two positions' uncut windows); every other message's
# entry is already identical. The re-index runs as a trigger of a no-op UPDATE because inside a
# trigger `old.CONTENT` is read once, where `m.CONTENT` in a SELECT is re-read from the row at every
# use (quadratic once more).
GRAM_CAP = 131_072
_LEAD_LEN = (  # the first hex digit of the lead byte: C/D start 2 bytes, E 3, F 4, anything else 1
    "CASE substr(hex(substr(CAST({r}.CONTENT AS BLOB), w.b3, 1)), 1, 1)"
    " WHEN 'C' THEN 2 WHEN 'D' THEN 2 WHEN 'E' THEN 3 WHEN 'F' THEN 4 ELSE 1 END"
)


def _linear_grams(r: str, last: int = GRAM_CAP) -> str:
    """SQL for the GRAMS text of row `r` (new / old): the grams at positions 1..`last`.

    w: character i (1-based; rows -2..0 prime the window) starts at byte b0; b1, b2, b3 are where
    characters i, i+1, i+2 end; e is one past the last indexed byte (the first NUL or the end).
    """
    blob = f"CAST({r}.CONTENT AS BLOB)"
    return (
        f"'p:' || hex({r}.PERSONA_ID) || ' ' || coalesce((WITH RECURSIVE w(i, b0, b1, b2, b3, e) AS ("
        f"SELECT -2, 1, 1, 1, 1, coalesce(nullif(instr({blob}, x'00'), 0), length({blob}) + 1)"
        " UNION ALL SELECT i + 1, b1, b2, b3,"
        f" CASE WHEN i + 3 <= {GRAM_CAP} AND b3 < e THEN min(b3 + {_LEAD_LEN.format(r=r)}, e) ELSE b3 END, e"
        f" FROM w WHERE i < 1 OR (i < {last} AND b1 < e))"
        f" SELECT group_concat(CAST(substr({blob}, b0, b1 - b0) AS TEXT) || ' ' ||"
        f" CAST(substr({blob}, b0, b2 - b0) AS TEXT) || ' ' || CAST(substr({blob}, b0, b3 - b0) AS TEXT), ' ')"
        " FROM w WHERE i >= 1 AND b0 < e), '')"
    )


SHORT_GRAMS = 128
"""Up to this many characters step 3's `substr` form is cheaper than the walk (its quadratic term is
still small, and it has no recursive query to set up): messages this short keep it."""


def _gram_text(r: str) -> str:
    return (f"CASE WHEN length({r}.CONTENT) <= {SHORT_GRAMS} THEN {_GRAMS.format(r=r)} "
            f"ELSE {_linear_grams(r)} END")


_STEP3_LONG = _linear_grams("old", GRAM_CAP - 2) + "".join(
    f" || ' ' || substr(old.CONTENT, {at}, {n})" for at in (GRAM_CAP - 1, GRAM_CAP) for n in (1, 2, 3))
MEMORY_LINEAR_GRAMS_SQL = f"""
DROP TRIGGER IF EXISTS saimemory_gram_ai;
DROP TRIGGER IF EXISTS saimemory_gram_ad;
DROP TRIGGER IF EXISTS saimemory_gram_au;
CREATE TRIGGER saimemory_gram_reindex AFTER UPDATE OF CONTENT ON saimemory BEGIN
    INSERT INTO saimemory_fts (saimemory_fts, rowid, GRAMS)
        VALUES ('delete', old.ID, {_STEP3_LONG});
    INSERT INTO saimemory_fts (rowid, GRAMS) VALUES (new.ID, {_linear_grams("new")});
END;
UPDATE saimemory SET CONTENT = CONTENT WHERE length(CONTENT) > {GRAM_CAP};
DROP TRIGGER saimemory_gram_reindex;
CREATE TRIGGER saimemory_gram_ai AFTER INSERT ON saimemory BEGIN
    INSERT INTO saimemory_fts (rowid, GRAMS) VALUES (new.ID, {_gram_text("new")});
END;
CREATE TRIGGER saimemory_gram_ad AFTER DELETE ON saimemory BEGIN
    INSERT INTO saimemory_fts (saimemory_fts, rowid, GRAMS)
        VALUES ('delete', old.ID, {_gram_text("old")});
END;
CREATE TRIGGER saimemory_gram_au AFTER UPDATE OF CONTENT, PERSONA_ID ON saimemory BEGIN
    INSERT INTO saimemory_fts (saimemory_fts, rowid, GRAMS)
        VALUES ('delete', old.ID, {_gram_text("old")});
    INSERT INTO saimemory_fts (rowid, GRAMS) VALUES (new.ID, {_gram_text("new")});
END;
"""

STEPS: list[Step] = [
    Step(1, "baseline", BASELINE_SQL),
    Step(2, "item_file_path_and_vision_models", ITEM_EXTENSION_SQL),
    Step(3, "saimemory_gram_index", MEMORY_GRAM_INDEX_SQL),
    Step(4, "production_run", PRODUCTION_RUN_SQL),
    Step(5, "upstream_world_and_long_term_memory", UPSTREAM_AND_LONG_TERM_MEMORY_SQL),
    Step(6, "upstream_message_metadata_and_threads", UPSTREAM_MESSAGE_METADATA_SQL),
    Step(7, "upstream_v03_lines_tracks_notes", UPSTREAM_V03_SQL),
    Step(8, "world_setting", WORLD_SETTING_SQL),
    Step(9, "saimemory_linear_grams", MEMORY_LINEAR_GRAMS_SQL),
    Step(10, "saimemory_short_terms", SAIMEMORY_SHORT_TERMS_SQL),
    Step(11, "autonomous_turn", AUTONOMOUS_TURN_SQL),
    Step(12, "pulse_open", PULSE_OPEN_SQL),
    Step(13, "memory_pin", MEMORY_PIN_SQL),
    Step(14, "saimemory_vec", SAIMEMORY_VEC_SQL),
    Step(15, "usage_day_and_budget", USAGE_SQL),
]
LATEST_VERSION = STEPS[-1].version
