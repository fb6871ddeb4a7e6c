"""SQLAlchemy 2.0 models of the current schema (DESIGN §3).

Column names in CAPS are contracts shared with SAIVerse databases; the Python attribute names are
ours. The tables are *created* only by `database/migrate.py` (frozen DDL per version), never by
`metadata.create_all`, so an old file and a new one always end up identical.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, func
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
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())


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
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())


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
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())


class MemoryMessage(Base):
    """One SAIMemory message of a persona (`saimemory_fts` indexes its 1-3 character grams)."""

    __tablename__ = "saimemory"
    id: Mapped[int] = mapped_column("ID", Integer, primary_key=True, autoincrement=True)
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String)
    role: Mapped[str] = mapped_column("ROLE", String)
    content: Mapped[str] = mapped_column("CONTENT", Text)
    tags: Mapped[str] = mapped_column("TAGS", Text, default="[]")
    pulse_id: Mapped[str | None] = mapped_column("PULSE_ID", String, nullable=True)
    created_at: Mapped[datetime] = mapped_column("CREATED_AT", DateTime, server_default=func.now())


class MemoryTag(Base):
    """One tag of one SAIMemory message, for `required_tags` filtering by index."""

    __tablename__ = "saimemory_tag"
    message_id: Mapped[int] = mapped_column(
        "MESSAGE_ID", ForeignKey("saimemory.ID", ondelete="CASCADE"), primary_key=True
    )
    tag: Mapped[str] = mapped_column("TAG", String, primary_key=True)
    persona_id: Mapped[str] = mapped_column("PERSONA_ID", String)


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
