"""What the production workflow needs from the world, as a Protocol the manager implements.

Workers make real things — documents and pictures become items in the building — and every item a
step creates carries `{"production_run": run_id, "step": id, "key": ...}` in its state, so a step
re-run after a crash finds its item instead of making a second one.
"""

from __future__ import annotations

from typing import Any, Protocol

from chat import ChatModel


class ProductionPorts(Protocol):
    """The world as one production run sees it."""

    run_id: str
    """The run (also the LangGraph thread id)."""

    def model(self, kind: str = "normal") -> ChatModel:
        """The persona's model (`normal` or `lightweight`)."""
        ...

    def system_prompt(self) -> str:
        """The persona's system prompt in its building."""
        ...

    def draft_note(self, model: ChatModel) -> str:
        """The closing line of a rule-based draft, written because `model` does not follow instructions:
        which model the run used, as people call it (the world knows the providers; sea names none)."""
        ...

    def emit(self, event: dict[str, Any]) -> None:
        """Hand a `data-*` event to the pulse's stream (pulse and persona ids are added)."""
        ...

    def find_item(self, step_id: int, key: str) -> dict[str, Any] | None:
        """The item this run's step already made under `key`, if any (idempotent re-runs)."""
        ...

    def create_document(self, step_id: int, key: str, name: str, content: str) -> dict[str, Any]:
        """A document item in the building, tagged with run / step / key."""
        ...

    def create_picture(self, step_id: int, key: str, name: str, prompt: str) -> dict[str, Any]:
        """Draw `prompt` with the persona's image model → a picture item."""
        ...

    def package(self, step_id: int, key: str, name: str, item_ids: list[str], manifest: str) -> dict[str, Any]:
        """A zip of these items' files plus a manifest, stored as a document item (the manifest)."""
        ...

    def search_memory(self, query: str, limit: int) -> list[dict[str, Any]]:
        """The persona's SAIMemory recall."""
        ...

    def search_items(self, query: str, limit: int) -> list[dict[str, Any]]:
        """Documents and pictures anywhere in the city whose name or description matches."""
        ...

    def take_instructions(self) -> list[str]:
        """Instructions the user added during the run (each returned once)."""
        ...
