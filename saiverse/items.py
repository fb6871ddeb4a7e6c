"""Items: objects, pictures and documents, their locations, and their files on disk (docs/ARCHITECTURE.md, "Storage").

A picture or document is a DB row plus a file (and a `.summary.txt` sidecar) under the data home.
The file is written first (atomically), then the row in one transaction; if the row fails the
files are removed, so a failure leaves neither.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from database.engine import Database
from database.models import Item, ItemLocation
from saiverse.media import (
    CheckedImage,
    atomic_write,
    commit_staged,
    new_file_name,
    relative_to_home,
    remove_quietly,
    resolve_in_home,
    stage_write,
    summary_path,
)

ITEM_TYPES = ("object", "picture", "document")
SUMMARY_LIMIT = 300

DocumentSummarizer = Callable[[str, str | None], str]
"""(text, model name or None for the default chain) → summary."""
PictureSummarizer = Callable[[Path, str | None], str]
"""(image path, model name or None for the default chain) → summary."""


class ItemNotFoundError(LookupError):
    """No item with that id."""


@dataclass
class ItemInfo:
    """An item as the rest of the app sees it."""

    item_id: str
    name: str
    type: str
    description: str
    file_path: str | None
    state: dict[str, Any]
    owner_kind: str | None
    owner_id: str | None
    created_at: str
    updated_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _iso(dt: datetime | None) -> str:
    return dt.isoformat(timespec="seconds") if dt else ""


def _info(item: Item, loc: ItemLocation | None) -> ItemInfo:
    try:
        state = json.loads(item.state_json or "{}")
    except json.JSONDecodeError:
        state = {}
    return ItemInfo(
        item_id=item.item_id,
        name=item.name,
        type=item.type,
        description=item.description or "",
        file_path=item.file_path,
        state=state if isinstance(state, dict) else {},
        owner_kind=loc.owner_kind if loc else None,
        owner_id=loc.owner_id if loc else None,
        created_at=_iso(item.created_at),
        updated_at=_iso(item.updated_at),
    )


def clip_summary(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """Summaries are at most 300 characters (docs/ARCHITECTURE.md, "Storage")."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ItemStore:
    """Reads and writes items; summaries come from the summarizers it is given."""

    def __init__(
        self,
        db: Database,
        home: Path,
        *,
        summarize_document: DocumentSummarizer,
        summarize_picture: PictureSummarizer,
    ) -> None:
        self.db = db
        self.home = home
        self.summarize_document = summarize_document
        self.summarize_picture = summarize_picture

    # ---- reading -------------------------------------------------------------------------
    def get(self, item_id: str) -> ItemInfo:
        with self.db.session() as s:
            item = s.get(Item, item_id)
            if item is None:
                raise ItemNotFoundError(f"アイテム {item_id!r} は存在しません。")
            return _info(item, s.get(ItemLocation, item_id))

    def list_owned(self, owner_kind: str, owner_id: str) -> list[ItemInfo]:
        with self.db.session() as s:
            rows = s.execute(
                select(Item, ItemLocation)
                .join(ItemLocation, ItemLocation.item_id == Item.item_id)
                .where(ItemLocation.owner_kind == owner_kind, ItemLocation.owner_id == owner_id)
                .order_by(Item.created_at, Item.name)
            ).all()
            return [_info(item, loc) for item, loc in rows]

    def file_of(self, info: ItemInfo) -> Path:
        """The item's file, resolved inside the data home (refused otherwise)."""
        if not info.file_path:
            raise ValueError(f"アイテム「{info.name}」にはファイルがありません。")
        return resolve_in_home(self.home, info.file_path)

    def read_document(self, item_id: str) -> str:
        info = self.get(item_id)
        if info.type != "document":
            raise ValueError(f"アイテム「{info.name}」は文書ではありません ({info.type})。")
        return self.file_of(info).read_text(encoding="utf-8")

    # ---- creating ------------------------------------------------------------------------
    def _insert(
        self, *, name: str, type_: str, description: str, file_path: str | None,
        state: dict[str, Any], owner_kind: str, owner_id: str, item_id: str | None = None,
    ) -> ItemInfo:
        if type_ not in ITEM_TYPES:
            raise ValueError(f"unknown item type {type_!r} (object, picture, document)")
        if not name.strip():
            raise ValueError("アイテム名が空です。")
        now = datetime.now()
        with self.db.session() as s:
            item = Item(
                item_id=item_id or str(uuid.uuid4()), name=name.strip(), type=type_,
                description=description, state_json=json.dumps(state, ensure_ascii=False),
                file_path=file_path, created_at=now, updated_at=now,
            )
            loc = ItemLocation(item_id=item.item_id, owner_kind=owner_kind, owner_id=owner_id, updated_at=now)
            s.add(item)
            s.flush()
            s.add(loc)
            s.flush()
            return _info(item, loc)

    def create_object(
        self, name: str, description: str, *, owner_kind: str, owner_id: str,
        state: dict[str, Any] | None = None, item_id: str | None = None,
    ) -> ItemInfo:
        return self._insert(
            name=name, type_="object", description=description, file_path=None,
            state=state or {}, owner_kind=owner_kind, owner_id=owner_id, item_id=item_id,
        )

    def _create_with_file(
        self, path: Path, data: bytes | str, summarize: Callable[[], str], *, name: str, type_: str,
        state: dict[str, Any], owner_kind: str, owner_id: str,
    ) -> ItemInfo:
        """File, then `.summary.txt`, then the rows; on any failure the files go too."""
        sidecar = summary_path(path)
        try:
            atomic_write(path, data)
            summary = clip_summary(summarize() or name)
            atomic_write(sidecar, summary)
            return self._insert(name=name, type_=type_, description=summary,
                                file_path=relative_to_home(self.home, path), state=state,
                                owner_kind=owner_kind, owner_id=owner_id)
        except BaseException:
            remove_quietly(path, sidecar)
            raise

    def create_document(
        self, name: str, content: str, *, owner_kind: str, owner_id: str,
        description: str | None = None, state: dict[str, Any] | None = None, summary_model: str | None = None,
    ) -> ItemInfo:
        """In this order: file, summary sidecar, item row, location row (the FILE_PATH rule, docs/ARCHITECTURE.md)."""
        return self._create_with_file(
            self.home / "documents" / new_file_name("txt"), content,
            lambda: self.summarize_document(content, summary_model) or description or "",
            name=name, type_="document", state={"created_by": "user", **(state or {}), "version": 1},
            owner_kind=owner_kind, owner_id=owner_id)

    def create_picture(
        self, image: CheckedImage, name: str, *, owner_kind: str, owner_id: str,
        state: dict[str, Any] | None = None, summary_model: str | None = None,
    ) -> ItemInfo:
        """A picture item from checked image bytes: file, summary sidecar, rows."""
        path = self.home / "image" / new_file_name(image.ext)
        return self._create_with_file(
            path, image.data, lambda: self.summarize_picture(path, summary_model),
            name=name, type_="picture",
            state={"mime_type": image.mime, "width": image.width, "height": image.height, **(state or {})},
            owner_kind=owner_kind, owner_id=owner_id)

    # ---- changing ------------------------------------------------------------------------
    def save_document(self, item_id: str, content: str, *, summary_model: str | None = None) -> ItemInfo:
        """Replace a document's text, regenerate its summary, bump its version — all or nothing.

        The new text and summary are written to temp files first; the row is updated in a
        transaction; only when that commits are the temp files renamed over the old ones.
        """
        info = self.get(item_id)
        if info.type != "document":
            raise ValueError(f"アイテム「{info.name}」は文書ではないので内容を編集できません ({info.type})。")
        path = self.file_of(info)
        summary = clip_summary(self.summarize_document(content, summary_model) or info.name)
        staged = [stage_write(path, content), stage_write(summary_path(path), summary)]
        try:
            with self.db.session() as s:
                item = s.get(Item, item_id)
                if item is None:
                    raise ItemNotFoundError(f"アイテム {item_id!r} は存在しません。")
                state = dict(info.state)
                state["version"] = int(state.get("version", 1)) + 1
                item.description = summary
                item.state_json = json.dumps(state, ensure_ascii=False)
                item.updated_at = datetime.now()
                s.flush()
                result = _info(item, s.get(ItemLocation, item_id))
        except BaseException:
            remove_quietly(*(tmp for tmp, _ in staged))
            raise
        for tmp, final in staged:
            commit_staged(tmp, final)
        return result

    def update_description(self, item_id: str, description: str) -> ItemInfo:
        """Set an item's DESCRIPTION (any type); for files the sidecar follows."""
        description = description.strip()
        if not description:
            raise ValueError("説明が空です。")
        info = self.get(item_id)
        text = clip_summary(description)
        with self.db.session() as s:
            item = s.get(Item, item_id)
            if item is None:
                raise ItemNotFoundError(f"アイテム {item_id!r} は存在しません。")
            item.description = text
            item.updated_at = datetime.now()
            s.flush()
            result = _info(item, s.get(ItemLocation, item_id))
        if info.file_path:
            atomic_write(summary_path(self.file_of(info)), text)
        return result

    def move(self, item_id: str, owner_kind: str, owner_id: str) -> ItemInfo:
        """Put an item in a building or in a persona's hands."""
        if owner_kind not in ("building", "persona"):
            raise ValueError(f"owner_kind must be building or persona, got {owner_kind!r}")
        with self.db.session() as s:
            item = s.get(Item, item_id)
            if item is None:
                raise ItemNotFoundError(f"アイテム {item_id!r} は存在しません。")
            loc = s.get(ItemLocation, item_id)
            if loc is None:
                loc = ItemLocation(item_id=item_id, owner_kind=owner_kind, owner_id=owner_id)
                s.add(loc)
            loc.owner_kind, loc.owner_id, loc.updated_at = owner_kind, owner_id, datetime.now()
            s.flush()
            return _info(item, loc)
