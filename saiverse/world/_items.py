"""Items: objects, pictures, documents, bags and audio (saiverse/world/_item_audio.py), their locations, and files.

A picture or document is a DB row plus a file (and a `.summary.txt` sidecar) under the data home.
Creating one writes the file first (atomically), then the row in one transaction; if the row fails
the files are removed, so a failure leaves neither.

Changing a document (docs/ARCHITECTURE.md, "Storage") is serialised per item across threads and
processes (`saiverse.locks.item_lock`) and versioned: STATE_JSON holds `version` and the `sha256`
of the text. The new text and summary are staged as `.<file>.v<N>.tmp`, the row commits version N,
then the staged files are renamed in. A kill between the commit and the rename leaves a staged file
whose version the row names: start-up repair (saiverse/care/_repair.py) rolls it forward; a staged file
whose version the row does not name was never committed and is removed.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from database import Database
from database.models import Item, ItemLocation
from saiverse.errors import UserError
from saiverse.inputs import InputError
from saiverse.locks import item_lock
from saiverse.world._doc_versions import finish_committed_save
from saiverse.world._item_bags import check_into_bag
from saiverse.world._item_slots import free_slot, number_unnumbered
from saiverse.world._media import (
    CheckedImage,
    atomic_write,
    commit_staged,
    new_file_name,
    relative_to_home,
    remove_quietly,
    resolve_in_home,
    stage_versioned,
    summary_path,
)
from saiverse.world._pdf import MIME as PDF_MIME
from saiverse.world._pdf import is_pdf_path, pdf_text
from words import say

ITEM_TYPES = ("object", "picture", "document", "bag", "audio")
SUMMARY_LIMIT = 300
MAX_DOCUMENT_CHARS = 200_000
"""Longest document text, for every writer (tools, the item modal, patches)."""
MAX_NAME_CHARS = 200

DocumentSummarizer = Callable[[str, str | None], str]
"""(text, model name or None for the default chain) → summary."""
PictureSummarizer = Callable[[Path, str | None], str]
"""(image path, model name or None for the default chain) → summary."""


class ItemNotFoundError(UserError, LookupError):
    """No item with that id."""


class StaleDocumentError(ValueError):
    """A save based on an older version of a document than the stored one; nothing was written."""


def check_document_text(content: str) -> None:
    """Refuse text no document may hold (too long, NUL characters, lone surrogates)."""
    if not isinstance(content, str):
        raise InputError(say("doc_not_text", kind=type(content).__name__))
    if len(content) > MAX_DOCUMENT_CHARS:
        raise InputError(say("doc_too_long", n=len(content), limit=MAX_DOCUMENT_CHARS))
    if "\x00" in content:
        raise InputError(say("doc_nul"))
    try:
        content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(say("doc_surrogate", where=exc.start)) from exc


def check_item_name(name: str) -> str:
    """A clean item name (stripped, one line, bounded, printable) or InputError (a ValueError) saying why."""
    if not isinstance(name, str) or not name.strip():
        raise InputError(say("item_name_empty"))
    clean = " ".join(name.split())
    if any(ord(ch) < 32 or ch == "\x7f" for ch in clean):
        raise InputError(say("item_name_control"))
    try:
        clean.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(say("item_name_surrogate")) from exc
    if len(clean) > MAX_NAME_CHARS:
        raise InputError(say("item_name_long", n=len(clean), limit=MAX_NAME_CHARS))
    return clean


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def document_version(info: ItemInfo) -> int:
    """The stored version of a document (1 for one never changed)."""
    try:
        return int(info.state.get("version", 1))
    except (TypeError, ValueError):
        return 1


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
    slot_number: int | None = None  # its numbered place in its container (upstream v0.3); None: not numbered

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
        slot_number=loc.slot_number if loc else None,
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
                raise ItemNotFoundError(say("no_item", id=item_id))
            return _info(item, s.get(ItemLocation, item_id))

    def list_owned(self, owner_kind: str, owner_id: str) -> list[ItemInfo]:
        """A container's items, oldest first; items made before slots are numbered on the way."""
        query = (select(Item, ItemLocation).join(ItemLocation, ItemLocation.item_id == Item.item_id)
                 .where(ItemLocation.owner_kind == owner_kind, ItemLocation.owner_id == owner_id)
                 .order_by(Item.created_at, Item.name))
        with self.db.session() as s:
            rows = s.execute(query).all()
            if not any(loc.slot_number is None for _item, loc in rows):
                return [_info(item, loc) for item, loc in rows]
        # Numbered in a session of its own, not a savepoint of the read: on SQLite a savepoint opens a
        # deferred transaction whose read snapshot cannot become a write once another connection has
        # committed ("database is locked" at once, whatever the busy timeout); a fresh session's first
        # write waits for the lock instead.
        try:
            with self.db.session(write=True) as s:
                number_unnumbered(s, owner_kind, owner_id)
        except IntegrityError:  # another process numbered them meanwhile: theirs stand
            pass
        with self.db.session() as s:
            return [_info(item, loc) for item, loc in s.execute(query).all()]

    def file_of(self, info: ItemInfo) -> Path:
        """The item's file, resolved inside the data home (refused otherwise)."""
        if not info.file_path:
            raise ValueError(say("item_no_file", name=info.name))
        return resolve_in_home(self.home, info.file_path)

    def read_document(self, item_id: str) -> str:
        """A document's full text, as of its stored version (never a half-renamed state)."""
        info = self.get(item_id)
        if info.type != "document":
            raise ValueError(say("item_not_document", name=info.name, type=info.type))
        if is_pdf_path(info.file_path):
            return pdf_text(self.file_of(info))
        with item_lock(self.home, item_id):
            info = self.get(item_id)  # the row as of now, under the lock
            path = self.file_of(info)
            finish_committed_save(path, info.state)  # a save committed by a process that died before its rename
            return path.read_text(encoding="utf-8")

    # ---- creating ------------------------------------------------------------------------
    def _insert(
        self, *, name: str, type_: str, description: str, file_path: str | None,
        state: dict[str, Any], owner_kind: str, owner_id: str, item_id: str | None = None,
    ) -> ItemInfo:
        if type_ not in ITEM_TYPES:
            raise ValueError(f"unknown item type {type_!r} (object, picture, document)")
        name = check_item_name(name)
        now = datetime.now()
        with self.db.session(write=True) as s:  # the free slot is read, then taken (database/engine.py)
            item = Item(
                item_id=item_id or str(uuid.uuid4()), name=name.strip(), type=type_,
                description=description, state_json=json.dumps(state, ensure_ascii=False),
                file_path=file_path, created_at=now, updated_at=now,
            )
            number_unnumbered(s, owner_kind, owner_id)  # the older ones first: numbers follow age
            loc = ItemLocation(item_id=item.item_id, owner_kind=owner_kind, owner_id=owner_id, updated_at=now,
                               slot_number=free_slot(s, owner_kind, owner_id))  # its short id, `item:N`
            s.add(item)
            s.flush()
            s.add(loc)
            s.flush()
            return _info(item, loc)

    def create_object(
        self, name: str, description: str, *, owner_kind: str, owner_id: str,
        state: dict[str, Any] | None = None, item_id: str | None = None, kind: str = "object",
    ) -> ItemInfo:
        """An item without a file: an object, or (`kind="bag"`) a bag that holds items."""
        return self._insert(
            name=name, type_=kind, description=description, file_path=None,
            state=state or {}, owner_kind=owner_kind, owner_id=owner_id, item_id=item_id,
        )

    def create_with_file(
        self, path: Path, data: bytes | str, summarize: Callable[[], str], *, name: str, type_: str,
        state: dict[str, Any], owner_kind: str, owner_id: str,
    ) -> ItemInfo:
        """File, then `.summary.txt`, then the rows; on any failure the files go too (also for the kinds made
        beside this store: audio items, saiverse/world/_item_audio.py)."""
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
        check_document_text(content)
        name = check_item_name(name)
        return self.create_with_file(
            self.home / "documents" / new_file_name("txt"), content,
            lambda: self.summarize_document(content, summary_model) or description or "",
            name=name, type_="document",
            state={"created_by": "user", **(state or {}), "version": 1, "sha256": text_sha256(content)},
            owner_kind=owner_kind, owner_id=owner_id)

    def create_pdf(
        self, data: bytes, name: str, *, pages: int, owner_kind: str, owner_id: str,
        state: dict[str, Any] | None = None, summary_model: str | None = None,
    ) -> ItemInfo:
        """A document item holding a PDF (bytes checked by `check_pdf`), summarised from its text."""
        text = pdf_text(data)
        return self.create_with_file(
            self.home / "documents" / new_file_name("pdf"), data,
            lambda: self.summarize_document(text, summary_model) if text else f"PDF「{name}」({pages}ページ、文字なし)",
            name=name, type_="document",
            state={"created_by": "user", **(state or {}), "mime_type": PDF_MIME, "pages": pages},
            owner_kind=owner_kind, owner_id=owner_id)

    def create_picture(
        self, image: CheckedImage, name: str, *, owner_kind: str, owner_id: str,
        state: dict[str, Any] | None = None, summary_model: str | None = None,
    ) -> ItemInfo:
        """A picture item from checked image bytes: file, summary sidecar, rows."""
        path = self.home / "image" / new_file_name(image.ext)
        return self.create_with_file(
            path, image.data, lambda: self.summarize_picture(path, summary_model),
            name=name, type_="picture",
            state={"mime_type": image.mime, "width": image.width, "height": image.height, **(state or {})},
            owner_kind=owner_kind, owner_id=owner_id)

    # ---- changing ------------------------------------------------------------------------
    def save_document(
        self, item_id: str, content: str, *, summary_model: str | None = None, expected_version: int | None = None,
    ) -> ItemInfo:
        """Replace a document's text (the item modal's 保存).

        With `expected_version` (the version the editor loaded), a document changed since then is
        not overwritten: StaleDocumentError says so and nothing is written.
        """
        check_document_text(content)
        with item_lock(self.home, item_id):
            info = self._document(item_id)
            current = document_version(info)
            if expected_version is not None and current != expected_version:
                raise StaleDocumentError(
                    say("doc_stale", name=info.name, expected=expected_version, current=current))
            return self._write_document(info, content, summary_model)

    def edit_document(
        self, item_id: str, change: Callable[[str], tuple[str, Any]], *, summary_model: str | None = None,
    ) -> tuple[ItemInfo, Any]:
        """Read, change and write a document under its lock, so concurrent edits never lose one another.

        `change(text)` returns (new text, anything for the caller); an exception from it writes nothing.
        """
        with item_lock(self.home, item_id):
            info = self._document(item_id)
            new_text, extra = change(self.file_of(info).read_text(encoding="utf-8"))
            check_document_text(new_text)
            return self._write_document(info, new_text, summary_model), extra

    def _document(self, item_id: str) -> ItemInfo:
        info = self.get(item_id)
        if info.type != "document":
            raise ValueError(say("doc_not_editable", name=info.name, type=info.type))
        if is_pdf_path(info.file_path):
            raise ValueError(say("doc_pdf", name=info.name))
        finish_committed_save(self.file_of(info), info.state)  # the caller holds the lock: never build on a stale file
        return info

    def _write_document(self, info: ItemInfo, content: str, summary_model: str | None) -> ItemInfo:
        """Stage text and summary as version N+1, commit the row, rename in (caller holds the lock)."""
        path = self.file_of(info)
        version = document_version(info) + 1
        summary = clip_summary(self.summarize_document(content, summary_model) or info.name)
        staged = [stage_versioned(path, content, version), stage_versioned(summary_path(path), summary, version)]
        try:
            with self.db.session() as s:
                item = s.get(Item, info.item_id)
                if item is None:
                    raise ItemNotFoundError(say("no_item", id=info.item_id))
                state = {**info.state, "version": version, "sha256": text_sha256(content)}
                item.description = summary
                item.state_json = json.dumps(state, ensure_ascii=False)
                item.updated_at = datetime.now()
                s.flush()
                result = _info(item, s.get(ItemLocation, info.item_id))
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
            raise ValueError(say("description_empty"))
        info = self.get(item_id)
        text = clip_summary(description)
        with self.db.session() as s:
            item = s.get(Item, item_id)
            if item is None:
                raise ItemNotFoundError(say("no_item", id=item_id))
            item.description = text
            item.updated_at = datetime.now()
            s.flush()
            result = _info(item, s.get(ItemLocation, item_id))
        if info.file_path:
            with item_lock(self.home, item_id):  # a committed save's staged summary must not overwrite this one
                path = self.file_of(info)
                if info.type == "document" and not is_pdf_path(info.file_path):
                    finish_committed_save(path, self.get(item_id).state)
                atomic_write(summary_path(path), text)
        return result

    def move(self, item_id: str, owner_kind: str, owner_id: str, *, take_slot: bool = False) -> ItemInfo:
        """Put an item in a building, in a persona's hands or into a bag (saiverse/world/_item_bags.py), in the
        smallest free slot there (every item is numbered now; `take_slot` is kept for callers that asked)."""
        if owner_kind not in ("building", "persona", "bag"):
            raise ValueError(f"owner_kind must be building, persona or bag, got {owner_kind!r}")
        with self.db.session(write=True) as s:
            item = s.get(Item, item_id)
            if item is None:
                raise ItemNotFoundError(say("no_item", id=item_id))
            if owner_kind == "bag":
                check_into_bag(s, item_id, owner_id)  # a bag, and not the item itself or a bag inside it
            loc = s.get(ItemLocation, item_id)
            if loc is None:
                loc = ItemLocation(item_id=item_id, owner_kind=owner_kind, owner_id=owner_id)
                s.add(loc)
            moving = (loc.owner_kind, loc.owner_id) != (owner_kind, owner_id)
            if moving or loc.slot_number is None:
                loc.slot_number = free_slot(s, owner_kind, owner_id)  # upstream v0.3 (saiverse/world/_item_slots.py)
            loc.owner_kind, loc.owner_id, loc.updated_at = owner_kind, owner_id, datetime.now()
            s.flush()
            return _info(item, loc)
