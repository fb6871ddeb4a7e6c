"""The SQL of step 15 (database/steps.py): what each persona's model calls cost, day by day.

Frozen like every step: a schema change is a new step at the end of database/steps.py.
"""

# Step 15: tokens a persona's pulses spent, per local day and per model (saiverse/costs.py adds a pulse's
# calls in one upsert when it ends), and each persona's daily budget in US dollars: once the day's
# priced calls reach it, her cloud models give way to the local model (`Costs.over_budget`). A
# persona's rows go with her (saiverse/care/_delete.py).
USAGE_SQL = """
CREATE TABLE usage_day (
    PERSONA_ID TEXT NOT NULL,
    DAY TEXT NOT NULL,
    MODEL TEXT NOT NULL,
    INPUT_TOKENS INTEGER NOT NULL DEFAULT 0,
    OUTPUT_TOKENS INTEGER NOT NULL DEFAULT 0,
    CALLS INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (PERSONA_ID, DAY, MODEL)
);
CREATE INDEX ix_usage_day_day ON usage_day (DAY);
CREATE TABLE persona_budget (
    PERSONA_ID TEXT PRIMARY KEY,
    DAILY_USD REAL NOT NULL
);
"""
