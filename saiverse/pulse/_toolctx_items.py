"""Items as one tool call reaches them: those in the persona's building and in its hands.

A service of `saiverse.pulse._toolctx.ManagerToolContext`, handed the call it serves
(saiverse/pulse/_toolcall.py): an item elsewhere is out of reach, and every change is announced
through `notify` so the UI shows it at once.
"""

from __future__ import annotations

from typing import Any

from chat.titles import TITLE_LIMIT, request_title
from saiverse.inputs import InputError
from saiverse.pulse._intent import changes
from saiverse.pulse._toolcall import ToolCall
from saiverse.world import (
    InvalidImageError,
    InvalidPdfError,
    ItemInfo,
    ItemNotFoundError,
    PatchError,
    apply_patch,
    container_of,
    is_bag,
    is_pdf_path,
    parse_short_id,
    pdf_pages,
    rename_item,
)
from sea.events import event
from tools import ToolError


class ItemTools:
    """The items a tool call reaches: in the persona's building and in its hands."""

    def __init__(self, call: ToolCall) -> None:
        self.call = call
        """The call served: its persona, building, pulse and listeners."""
        self.services = call.services

    def _summary_model(self) -> str | None:
        return self.services.world.persona(self.call.persona_id).lightweight_model

    def _reachable(self, item_id: str) -> ItemInfo:
        number = parse_short_id(item_id)
        if number is not None:  # `item:N`: the room's item N, else the one carried as N
            for kind, owner in (("building", self.call.building_id), ("persona", self.call.persona_id)):
                found = [i for i in self.services.items.list_owned(kind, owner) if i.slot_number == number]
                if found:
                    return found[0]
            raise ToolError(f"{item_id.strip()} はここにも手元にもありません。item_list で番号を確かめてください。")
        try:
            info = self.services.items.get(item_id)
        except ItemNotFoundError as exc:
            raise ToolError(f"アイテム {item_id!r} は存在しません。item_list で id を確かめてください。") from exc
        where = (info.owner_kind, info.owner_id)
        if info.owner_kind == "bag":  # in a bag: within reach when the bag is
            with self.services.items.db.session() as s:
                where = container_of(s, info.item_id)
        here = where in (("building", self.call.building_id), ("persona", self.call.persona_id))
        if not here:
            raise ToolError(f"アイテム「{info.name}」はここにはありません。")
        return info

    def _changed(self, kind: str, info: ItemInfo, note: str) -> dict[str, Any]:
        data = info.to_dict()
        self.call.on_effect(f"{note} (item_id: {info.item_id})")
        self.call.notify(event(kind, item=data, building_id=self.call.building_id, persona_id=self.call.persona_id))
        return data

    def items_here(self) -> list[dict[str, Any]]:
        """The building's items and hers, each bag followed by what it holds (its `in_bag` set)."""
        items = self.services.items
        out: list[dict[str, Any]] = []

        def add(found: list[ItemInfo], bag: str | None, depth: int) -> None:
            for info in found:
                out.append({**info.to_dict(), **({"in_bag": bag} if bag else {})})
                if is_bag(info.type, info.state) and depth < 8:
                    add(items.list_owned("bag", info.item_id), info.name, depth + 1)

        add(items.list_owned("building", self.call.building_id) + items.list_owned("persona", self.call.persona_id),
            None, 0)
        return out

    def building_items(self, building_id: str) -> list[dict[str, Any]]:
        return [i.to_dict() for i in self.services.items.list_owned("building", building_id)]

    def carried_items(self) -> list[dict[str, Any]]:
        return [i.to_dict() for i in self.services.items.list_owned("persona", self.call.persona_id)]

    def item(self, item_id: str) -> dict[str, Any]:
        return self._reachable(item_id).to_dict()

    def read_document(self, item_id: str) -> str:
        info = self._reachable(item_id)
        if info.type != "document":
            raise ToolError(f"「{info.name}」は文書ではありません ({info.type})。")
        try:
            return self.services.items.read_document(info.item_id)
        except (OSError, UnicodeDecodeError, InvalidPdfError) as exc:
            raise ToolError(f"文書「{info.name}」のファイルを読めませんでした: {exc}") from exc

    def pdf_pages(self, item_id: str) -> list[str]:
        info = self._reachable(item_id)
        if info.type != "document" or not is_pdf_path(info.file_path):
            raise ToolError(f"「{info.name}」は PDF ではありません。文書なら document_read で読めます。")
        try:
            return pdf_pages(self.services.items.file_of(info))
        except (OSError, InvalidPdfError) as exc:
            raise ToolError(f"PDF「{info.name}」を読めませんでした: {exc}") from exc

    def picture_file(self, item_id: str) -> str:
        return str(self.services.items.file_of(self._reachable(item_id)))

    @changes
    def create_document(self, name: str, description: str, content: str) -> dict[str, Any]:
        try:
            info = self.services.items.create_document(
                name, content, owner_kind="building", owner_id=self.call.building_id, description=description,
                state={"created_by": self.call.persona_id}, summary_model=self._summary_model())
        except ValueError as exc:  # the store's limits (length, NUL, name): one rule for every writer
            raise ToolError(str(exc)) from exc
        return self._changed("item_created", info, f"文書「{info.name}」を作りました。")

    @changes
    def rename_item(self, item_id: str, name: str) -> dict[str, Any]:
        before = self._reachable(item_id)
        try:
            info = rename_item(self.services.items.db, before.item_id, name)
        except InputError as exc:
            raise ToolError(str(exc)) from exc
        return self._changed("item_updated", info, f"「{before.name}」の名前を「{info.name}」に変えました。")

    @changes
    def update_description(self, item_id: str, description: str) -> dict[str, Any]:
        info = self.services.items.update_description(self._reachable(item_id).item_id, description)
        return self._changed("item_updated", info, f"「{info.name}」の説明を書き換えました。")

    @changes
    def patch_document(self, item_id: str, patch: str) -> tuple[dict[str, Any], str]:
        info = self._reachable(item_id)
        if is_pdf_path(info.file_path):
            raise ToolError(
                f"「{info.name}」は PDF なので本文は編集できません (説明は update_description で変えられます)。")

        def change(text: str) -> tuple[str, str]:
            # Runs under the document's lock: the patch applies to the newest text, never a stale copy.
            try:
                return apply_patch(text, patch)
            except PatchError as exc:
                raise ToolError(f"文書「{info.name}」にパッチを当てられませんでした: {exc}") from exc

        try:
            saved, how = self.services.items.edit_document(info.item_id, change, summary_model=self._summary_model())
        except ValueError as exc:
            raise ToolError(str(exc)) from exc
        return self._changed("item_updated", saved, f"文書「{saved.name}」を編集しました。"), how

    @changes
    def generate_picture(self, prompt: str, name: str | None = None, aspect_ratio: str | None = None,
                         state: dict[str, Any] | None = None) -> dict[str, Any]:
        title = " ".join((name or "").split())
        if not title or len(title) > TITLE_LIMIT:  # the model gave no usable title: the rule names it
            title = request_title(prompt) or prompt.strip().splitlines()[0][:TITLE_LIMIT] or "無題"
        try:
            info = self.services.draw_picture(self.call.persona_id, self.call.building_id, prompt, title,
                                              {"created_by": self.call.persona_id, **(state or {})},
                                              aspect_ratio=aspect_ratio)
        except InvalidImageError as exc:
            raise ToolError(f"生成された画像を保存できませんでした: {exc}") from exc
        return self._changed("item_created", info, f"絵「{info.name}」を描きました。")

    @changes
    def move_item(self, item_id: str, to: str) -> dict[str, Any]:
        info = self._reachable(item_id)
        items = self.services.items
        if to == "persona":
            if info.owner_kind == "persona":
                raise ToolError(f"「{info.name}」はもう手に持っています。")
            moved = items.move(info.item_id, "persona", self.call.persona_id)
        elif to == "building":
            if info.owner_kind == "building":
                raise ToolError(f"「{info.name}」は手に持っていません。")
            moved = items.move(info.item_id, "building", self.call.building_id)
        else:
            raise ToolError(f"unknown destination {to!r}")
        done = "手に取りました" if to == "persona" else "ここに置きました"
        return self._changed("item_updated", moved, f"「{info.name}」を{done}。")
