"""Upstream v0.3's track_* and note_* tools, with upstream's argument names (the rules:
saiverse/memory/_track_book.py).

A track is a unit of the persona's ongoing activity (at most one running); a note a lasting bundle of
interest (a person, a project, a vocation) opened on tracks. Each tool returns the track or note as
it now is, as JSON.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field

from tools.context import ToolContext
from tools.registry import tool

NoteType = Literal["person", "project", "vocation"]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@tool("track_list")
def track_list(ctx: ToolContext, statuses: list[str] | None = None, include_forgotten: bool = False) -> str:
    """List your tracks (units of ongoing activity), optionally only those in the given statuses
    (running, alert, pending, waiting, unstarted, completed, aborted); forgotten ones are left out by default."""
    return _json(ctx.track_book().list(statuses, include_forgotten))


@tool("track_create")
def track_create(ctx: ToolContext, track_type: Annotated[str, Field(description="e.g. autonomous, social, waiting")],
                 title: str | None = None, intent: str | None = None, output_target: str = "none",
                 is_persistent: bool = False, metadata: Annotated[str | None, Field(
                     description="a JSON object, as text")] = None,
                 activate: bool = False, entry_line_role: Literal["main_line", "sub_line"] | None = None) -> str:
    """Create a track (it starts unstarted; `activate` makes it the running one at once)."""
    return _json(ctx.track_book().create(track_type, title, intent, output_target, is_persistent, metadata, activate))


@tool("track_activate")
def track_activate(ctx: ToolContext, track_id: str) -> str:
    """Make a track the running one; the track running before goes to pending."""
    return _json(ctx.track_book().activate(track_id.strip()))


@tool("track_pause")
def track_pause(ctx: ToolContext, track_id: str) -> str:
    """Send the running track back to pending."""
    return _json(ctx.track_book().pause(track_id.strip()))


@tool("track_complete")
def track_complete(ctx: ToolContext, track_id: str) -> str:
    """Mark a track completed (not allowed for a persistent track)."""
    return _json(ctx.track_book().finish(track_id.strip(), "completed"))


@tool("track_abort")
def track_abort(ctx: ToolContext, track_id: str) -> str:
    """Abandon a track (not allowed for a persistent track)."""
    return _json(ctx.track_book().finish(track_id.strip(), "aborted"))


@tool("track_parameter_set")
def track_parameter_set(ctx: ToolContext, track_id: str, parameter_name: str, value: float) -> str:
    """Set a numeric parameter of a track (kept under its metadata's `parameters`)."""
    return _json(ctx.track_book().set_parameter(track_id.strip(), parameter_name, value))


@tool("note_create")
def note_create(ctx: ToolContext, title: str, note_type: NoteType, description: str | None = None,
                metadata: Annotated[str | None, Field(description="a JSON object, as text")] = None) -> str:
    """Create a note: a lasting bundle of interest about a person, a project or a vocation."""
    return _json(ctx.track_book().note_create(title, note_type, description, metadata))


@tool("note_open")
def note_open(ctx: ToolContext, note_id: str, track_id: str | None = None) -> str:
    """Open a note on a track (the running track unless one is named)."""
    return _json(ctx.track_book().note_open(note_id.strip(), track_id))


@tool("note_close")
def note_close(ctx: ToolContext, note_id: str, track_id: str | None = None) -> str:
    """Close a note on a track (the running track unless one is named); the note itself stays."""
    return _json(ctx.track_book().note_close(note_id.strip(), track_id))


@tool("note_search")
def note_search(ctx: ToolContext, query: str | None = None, note_type: NoteType | None = None,
                include_inactive: bool = False) -> str:
    """Find your notes by type and by a part of the title; closed (inactive) notes are left out by default."""
    return _json(ctx.track_book().note_search(query, note_type, include_inactive))


TRACK_TOOLS = (track_list, track_create, track_activate, track_pause, track_complete, track_abort,
               track_parameter_set, note_create, note_open, note_close, note_search)
"""Every tool of this module, for `tools/defs/__init__.py`."""
