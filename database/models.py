"""SQLAlchemy 2.0 models of the current schema (docs/ARCHITECTURE.md, "Storage").

Column names in CAPS are contracts shared with SAIVerse databases; the Python attribute names are
ours. The tables are *created* only by `database/migrate.py` (frozen DDL per version), never by
`metadata.create_all`, so an old file and a new one always end up identical.
"""

# No `from __future__ import annotations` here: SQLAlchemy would have to evaluate each of the ~160
# `Mapped[...]` strings back into types as the classes are mapped (~5-15 ms of every start).

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, Text, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of every SAIVerse table."""


class City(Base):
    """The city the buildings belong to."""

    __tablename__ = "city"
    city_id: Mapped[str] = mapped_column("CITYID", String, primary_key=True)
    name: Mapped[str] = mapped_column("CITYNAME", String)
    description: Mapped[str] = mapped_column("DESCRIPTION", Text, default="")
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())


class Building(Base):
    """A place in the city: personas, the user and items are located in buildings."""

    __tablename__ = "building"
    building_id: Mapped[str] = mapped_column("BUILDINGID", String, primary_key=True)
    city_id: Mapped[str] = mapped_column("CITYID", ForeignKey("city.CITYID"))
    name: Mapped[str] = mapped_column("BUILDINGNAME", String)
    capacity: Mapped[int] = mapped_column("CAPACITY", Integer, default=10)
    system_instruction: Mapped[str] = mapped_column("SYSTEM_INSTRUCTION", Text, default="")
    description: Mapped[str] = mapped_column("DESCRIPTION", Text, default="")
    auto_interval_sec: Mapped[int] = mapped_column("AUTO_INTERVAL_SEC", Integer, default=600)
    sort_order: Mapped[int] = mapped_column("SORT_ORDER", Integer, default=0)
    entry_prompt: Mapped[str] = mapped_column("ENTRY_PROMPT", Text, default="")
    auto_prompt: Mapped[str] = mapped_column("AUTO_PROMPT", Text, default="")
    extra_json: Mapped[str] = mapped_column("EXTRA_JSON", Text, default="{}")
    """Upstream columns we keep but do not use (IMAGE_PATH, EXTRA_PROMPT_FILES…), as JSON."""
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())
    map_x: Mapped[float | None] = mapped_column("MAP_X", Float, nullable=True)
    """Upstream v0.3: position on the city map (None: placed automatically)."""
    map_y: Mapped[float | None] = mapped_column("MAP_Y", Float, nullable=True)


class Persona(Base):
    """An AI persona (table `ai`)."""

    __tablename__ = "ai"
    persona_id: Mapped[str] = mapped_column("AIID", String, primary_key=True)
    city_id: Mapped[str] = mapped_column("CITYID", ForeignKey("city.CITYID"))
    name: Mapped[str] = mapped_column("AINAME", String)
    system_prompt: Mapped[str] = mapped_column("SYSTEMPROMPT", Text, default="")
    description: Mapped[str] = mapped_column("DESCRIPTION", Text, default="")
    interaction_mode: Mapped[str] = mapped_column("INTERACTION_MODE", String, default="user")
    default_model: Mapped[str | None] = mapped_column("DEFAULT_MODEL", String, nullable=True)
    lightweight_model: Mapped[str | None] = mapped_column("LIGHTWEIGHT_MODEL", String, nullable=True)
    lightweight_vision_model: Mapped[str | None] = mapped_column(
        "LIGHTWEIGHT_VISION_MODEL", String, nullable=True
    )
    vision_model: Mapped[str | None] = mapped_column("VISION_MODEL", String, nullable=True)
    avatar: Mapped[str] = mapped_column("AVATAR", String, default="🙂")
    building_id: Mapped[str | None] = mapped_column(
        "CURRENT_BUILDINGID", ForeignKey("building.BUILDINGID"), nullable=True
    )
    private_room_id: Mapped[str | None] = mapped_column("PRIVATE_ROOM_ID", String, nullable=True)
    avatar_image: Mapped[str | None] = mapped_column("AVATAR_IMAGE", String, nullable=True)
    """Avatar picture, relative to the data home (`AVATAR` stays the emoji shown without one)."""
    previous_interaction_mode: Mapped[str | None] = mapped_column("PREVIOUS_INTERACTION_MODE", String, nullable=True)
    context_tokens: Mapped[int | None] = mapped_column("CONTEXT_TOKENS", Integer, nullable=True)
    """Token budget of this persona's prompts (None: the setting's default)."""
    chronicle_enabled: Mapped[int] = mapped_column("CHRONICLE_ENABLED", Integer, default=1)
    extra_json: Mapped[str] = mapped_column("EXTRA_JSON", Text, default="{}")
    """Upstream columns we keep but do not use (EMOTION, APPEARANCE_IMAGE_PATH…), as JSON."""
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())
    activity_state: Mapped[str | None] = mapped_column("ACTIVITY_STATE", String, nullable=True)
    """Upstream v0.3's state (Active/Idle/Sleep/Stop) beside the interaction mode (saiverse/world/_activity.py)."""


class User(Base):
    """The person using this install; where they are decides which building the chat shows."""

    __tablename__ = "user"
    user_id: Mapped[str] = mapped_column("USERID", String, primary_key=True)
    name: Mapped[str] = mapped_column("USERNAME", String)
    building_id: Mapped[str | None] = mapped_column(
        "CURRENT_BUILDINGID", ForeignKey("building.BUILDINGID"), nullable=True
    )


class Item(Base):
    """An object, picture or document."""

    __tablename__ = "item"
    item_id: Mapped[str] = mapped_column("ITEM_ID", String, primary_key=True)
    name: Mapped[str] = mapped_column("NAME", String)
    type: Mapped[str] = mapped_column("TYPE", String, default="object")
    description: Mapped[str] = mapped_column("DESCRIPTION", Text, default="")
    state_json: Mapped[str] = mapped_column("STATE_JSON", Text, default="{}")
    file_path: Mapped[str | None] = mapped_column("FILE_PATH", Text, nullable=True)
    creator_id: Mapped[str | None] = mapped_column("CREATOR_ID", String, nullable=True)
    source_context: Mapped[str | None] = mapped_column("SOURCE_CONTEXT", Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column("UPDATED_AT", DateTime, server_default=func.now())


class ItemLocation(Base):
    """Where an item is: in a building or carried by a persona."""

    __tablename__ = "item_location"
    item_id: Mapped[str] = mapped_column(
        "ITEM_ID", ForeignKey("item.ITEM_ID", ondelete="CASCADE"), primary_key=True
    )
    owner_kind: Mapped[str] = mapped_column("OWNER_KIND", String)
    owner_id: Mapped[str] = mapped_column("OWNER_ID", String)
    updated_at: Mapped[datetime] = mapped_column("UPDATED_AT", DateTime, server_default=func.now())
    slot_number: Mapped[int | None] = mapped_column("SLOT_NUMBER", Integer, nullable=True)
    """Upstream v0.3: the item's numbered slot in its container (unique per container)."""


class BuildingHistory(Base):
    """One line said in a building: what the chat panel shows."""

    __tablename__ = "building_history"
    id: Mapped[int] = mapped_column("ID", Integer, primary_key=True, autoincrement=True)
    building_id: Mapped[str] = mapped_column("BUILDINGID", String, index=True)
    speaker_kind: Mapped[str] = mapped_column("SPEAKER_KIND", String)
    speaker_id: Mapped[str | None] = mapped_column("SPEAKER_ID", String, nullable=True)
    speaker_name: Mapped[str] = mapped_column("SPEAKER_NAME", String, default="")
    content: Mapped[str] = mapped_column("CONTENT", Text)
    pulse_id: Mapped[str | None] = mapped_column("PULSE_ID", String, nullable=True)
    external_id: Mapped[str | None] = mapped_column("EXTERNAL_ID", String, nullable=True)
    """Upstream log `message_id` (`<building>:<seq>`) of an imported line; unique per building."""
    metadata_json: Mapped[str | None] = mapped_column("METADATA", Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())


class Playbook(Base):
    """A stored playbook (builtin or imported)."""

    __tablename__ = "playbooks"
    name: Mapped[str] = mapped_column("NAME", String, primary_key=True)
    display_name: Mapped[str] = mapped_column("DISPLAY_NAME", String, default="")
    description: Mapped[str] = mapped_column("DESCRIPTION", Text, default="")
    scope: Mapped[str] = mapped_column("SCOPE", String, default="public")
    router_callable: Mapped[int] = mapped_column("ROUTER_CALLABLE", Integer, default=0)
    user_selectable: Mapped[int] = mapped_column("USER_SELECTABLE", Integer, default=0)
    playbook_json: Mapped[str] = mapped_column("PLAYBOOK_JSON", Text)
    updated_at: Mapped[datetime] = mapped_column("UPDATED_AT", DateTime, server_default=func.now())


class Schedule(Base):
    """A persona's schedule entry: which meta playbook to run, when, with what args."""

    __tablename__ = "schedule"
    schedule_id: Mapped[str] = mapped_column("SCHEDULE_ID", String, primary_key=True)
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String)
    kind: Mapped[str] = mapped_column("KIND", String)
    days_of_week: Mapped[str | None] = mapped_column("DAYS_OF_WEEK", String, nullable=True)
    time_of_day: Mapped[str | None] = mapped_column("TIME_OF_DAY", String, nullable=True)
    run_at: Mapped[datetime | None] = mapped_column("RUN_AT", DateTime, nullable=True)
    interval_sec: Mapped[int | None] = mapped_column("INTERVAL_SEC", Integer, nullable=True)
    meta_playbook: Mapped[str] = mapped_column("META_PLAYBOOK", String, default="meta_user")
    args_json: Mapped[str] = mapped_column("ARGS_JSON", Text, default="{}")
    enabled: Mapped[int] = mapped_column("ENABLED", Integer, default=1)
    description: Mapped[str] = mapped_column("DESCRIPTION", Text, default="")
    priority: Mapped[int] = mapped_column("PRIORITY", Integer, default=0)
    completed: Mapped[int] = mapped_column("COMPLETED", Integer, default=0)
    last_run_at: Mapped[datetime | None] = mapped_column("LAST_RUN_AT", DateTime, nullable=True)
    next_run_at: Mapped[datetime | None] = mapped_column("NEXT_RUN_AT", DateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())


class ProductionRun(Base):
    """A production workflow run; its graph state is checkpointed under the same RUN_ID."""

    __tablename__ = "production_run"
    run_id: Mapped[str] = mapped_column("RUN_ID", String, primary_key=True)
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String)
    building_id: Mapped[str] = mapped_column("BUILDING_ID", String)
    request: Mapped[str] = mapped_column("REQUEST", Text)
    status: Mapped[str] = mapped_column("STATUS", String, default="running")
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column("UPDATED_AT", DateTime, server_default=func.now())


class PersonaEvent(Base):
    """An event in a persona's life log (upstream `persona_event_log`)."""

    __tablename__ = "persona_event_log"
    event_id: Mapped[str] = mapped_column("EVENT_ID", String, primary_key=True)
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String)
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())
    content: Mapped[str] = mapped_column("CONTENT", Text, default="")
    status: Mapped[str] = mapped_column("STATUS", String, default="pending")
    event_type: Mapped[str | None] = mapped_column("EVENT_TYPE", String, nullable=True)
    payload: Mapped[str | None] = mapped_column("PAYLOAD", Text, nullable=True)


class MemopediaPage(Base):
    """A page of a persona's Memopedia (its own wiki of people, terms and plans)."""

    __tablename__ = "memopedia_page"
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String, primary_key=True)
    page_id: Mapped[str] = mapped_column("PAGE_ID", String, primary_key=True)
    parent_id: Mapped[str | None] = mapped_column("PARENT_ID", String, nullable=True)
    title: Mapped[str] = mapped_column("TITLE", String)
    summary: Mapped[str] = mapped_column("SUMMARY", Text, default="")
    content: Mapped[str] = mapped_column("CONTENT", Text, default="")
    category: Mapped[str] = mapped_column("CATEGORY", String)
    """`people`, `terms` or `plans` (the three roots `root_people`, `root_terms`, `root_plans`)."""
    keywords: Mapped[str] = mapped_column("KEYWORDS", Text, default="[]")
    vividness: Mapped[str] = mapped_column("VIVIDNESS", String, default="rough")
    is_trunk: Mapped[int] = mapped_column("IS_TRUNK", Integer, default=0)
    is_important: Mapped[int] = mapped_column("IS_IMPORTANT", Integer, default=0)
    is_deleted: Mapped[int] = mapped_column("IS_DELETED", Integer, default=0)
    last_referenced_at: Mapped[datetime | None] = mapped_column("LAST_REFERENCED_AT", DateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column("UPDATED_AT", DateTime, server_default=func.now())


class MemopediaEdit(Base):
    """One edit of a Memopedia page (its history)."""

    __tablename__ = "memopedia_edit"
    edit_id: Mapped[str] = mapped_column("EDIT_ID", String, primary_key=True)
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String)
    page_id: Mapped[str] = mapped_column("PAGE_ID", String)
    edited_at: Mapped[datetime] = mapped_column("EDITED_AT", DateTime, server_default=func.now())
    diff_text: Mapped[str] = mapped_column("DIFF_TEXT", Text, default="")
    ref_start_message_id: Mapped[str | None] = mapped_column("REF_START_MESSAGE_ID", String, nullable=True)
    ref_end_message_id: Mapped[str | None] = mapped_column("REF_END_MESSAGE_ID", String, nullable=True)
    edit_type: Mapped[str] = mapped_column("EDIT_TYPE", String)
    edit_source: Mapped[str | None] = mapped_column("EDIT_SOURCE", String, nullable=True)


class MemopediaPageState(Base):
    """Whether a page is open in a thread's context."""

    __tablename__ = "memopedia_page_state"
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String, primary_key=True)
    thread_id: Mapped[str] = mapped_column("THREAD_ID", String, primary_key=True)
    page_id: Mapped[str] = mapped_column("PAGE_ID", String, primary_key=True)
    is_open: Mapped[int] = mapped_column("IS_OPEN", Integer, default=0)
    opened_at: Mapped[datetime | None] = mapped_column("OPENED_AT", DateTime, nullable=True)


class ChronicleEntry(Base):
    """A Chronicle (arasuji) entry: a summary of messages (level 1) or of entries (level 2+)."""

    __tablename__ = "chronicle_entry"
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String, primary_key=True)
    entry_id: Mapped[str] = mapped_column("ENTRY_ID", String, primary_key=True)
    level: Mapped[int] = mapped_column("LEVEL", Integer)
    content: Mapped[str] = mapped_column("CONTENT", Text)
    source_ids: Mapped[str] = mapped_column("SOURCE_IDS", Text, default="[]")
    """JSON list: message ids (level 1) or entry ids (higher levels)."""
    start_time: Mapped[datetime | None] = mapped_column("START_TIME", DateTime, nullable=True)
    end_time: Mapped[datetime | None] = mapped_column("END_TIME", DateTime, nullable=True)
    source_count: Mapped[int] = mapped_column("SOURCE_COUNT", Integer, default=0)
    message_count: Mapped[int] = mapped_column("MESSAGE_COUNT", Integer, default=0)
    parent_id: Mapped[str | None] = mapped_column("PARENT_ID", String, nullable=True)
    is_consolidated: Mapped[int] = mapped_column("IS_CONSOLIDATED", Integer, default=0)
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())


class ChronicleProgress(Base):
    """How far a persona's Chronicle build has read its messages."""

    __tablename__ = "chronicle_progress"
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String, primary_key=True)
    last_message_id: Mapped[str | None] = mapped_column("LAST_MESSAGE_ID", String, nullable=True)
    updated_at: Mapped[datetime] = mapped_column("UPDATED_AT", DateTime, server_default=func.now())


class MemoryThread(Base):
    """A SAIMemory thread brought over from upstream: its overview and Stelis settings."""

    __tablename__ = "saimemory_thread"
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String, primary_key=True)
    thread_id: Mapped[str] = mapped_column("THREAD_ID", String, primary_key=True)
    """Upstream thread id `<persona>:<suffix>` (`__persona__`, a building id, a name, `stelis_<hex>`)."""
    resource_id: Mapped[str | None] = mapped_column("RESOURCE_ID", String, nullable=True)
    overview: Mapped[str | None] = mapped_column("OVERVIEW", Text, nullable=True)
    overview_updated_at: Mapped[datetime | None] = mapped_column("OVERVIEW_UPDATED_AT", DateTime, nullable=True)
    extra_json: Mapped[str] = mapped_column("EXTRA_JSON", Text, default="{}")
    """Upstream's Stelis record of the thread (parent, depth, status, label, summary…), as JSON."""


class WorldSetting(Base):
    """A setting that belongs to the world (saved with it, kept across restarts): key → text value."""

    __tablename__ = "world_setting"
    key: Mapped[str] = mapped_column("KEY", String, primary_key=True)
    value: Mapped[str] = mapped_column("VALUE", Text)
    updated_at: Mapped[datetime] = mapped_column("UPDATED_AT", DateTime, server_default=func.now())


def _unquoted_names() -> None:
    """Render every CAPS column name unquoted: SQLite ignores case anyway, and PostgreSQL folds the
    unquoted names of its schema (database/migrate_pg.py) to lower case — quoted, "CITYID" would be
    another column there than the raw SQL's CITYID."""
    from sqlalchemy.sql.elements import quoted_name

    for table in Base.metadata.tables.values():
        for column in table.columns:
            column.name = quoted_name(str(column.name), False)


_unquoted_names()
