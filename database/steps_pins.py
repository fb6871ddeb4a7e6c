"""The SQL of step 13 (database/steps.py): pinned lines of a persona's memory.

Frozen like every step: a schema change is a new step at the end of database/steps.py.
"""

# Step 13: a SAIMemory message a persona always keeps in her prompt (saiverse/memory/_pins.py). One row
# per pin; the message's own row holds the text. Deleting the message (a chat line deleted, `forget`)
# deletes its pin (ON DELETE CASCADE; readers join saimemory too, so a writer without foreign keys
# leaves no pin behind that matters). PINNED_AT is naive UTC text, as SAIMemory keeps its times.
MEMORY_PIN_SQL = """
CREATE TABLE memory_pin (
    PERSONA_ID TEXT NOT NULL,
    MESSAGE_ID INTEGER NOT NULL REFERENCES saimemory(ID) ON DELETE CASCADE,
    PINNED_AT TEXT NOT NULL,
    PRIMARY KEY (PERSONA_ID, MESSAGE_ID)
);
CREATE INDEX ix_memory_pin_message ON memory_pin (MESSAGE_ID);
"""
