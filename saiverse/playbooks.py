"""The playbook catalog: builtin playbooks from `playbooks/` plus those imported into the DB.

Every playbook is validated against the catalog and the tool registry when it is loaded or
imported, so nothing invalid ever reaches the runtime. Imported playbooks may replace builtins of
the same name (the user's version wins), and survive restarts in the `playbooks` table.
"""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path

from database.engine import Database
from database.models import Playbook as PlaybookRow
from sea.playbook import Playbook, PlaybookError, builtin_playbooks, load_playbook_file, parse_playbook
from sea.validate import validate_playbook
from tools import TOOL_REGISTRY


class PlaybookCatalog:
    """Named, validated playbooks; thread-safe."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._builtin = builtin_playbooks()
        self._all: dict[str, Playbook] = dict(self._builtin)
        with db.session() as s:
            rows = s.query(PlaybookRow).all()
            for row in rows:
                try:
                    self._all[row.name] = parse_playbook(row.playbook_json, source=row.name)
                except PlaybookError:
                    continue  # a stored playbook broken by a format change stays listed as invalid
        for pb in list(self._all.values()):
            self.validate(pb)

    def get(self, name: str) -> Playbook | None:
        return self._all.get(name)

    def all(self) -> list[Playbook]:
        return sorted(self._all.values(), key=lambda p: p.name)

    def router_callable(self) -> list[Playbook]:
        return [pb for pb in self.all() if pb.router_callable]

    def user_selectable(self) -> list[Playbook]:
        return [pb for pb in self.all() if pb.user_selectable]

    def is_builtin(self, name: str) -> bool:
        return name in self._builtin and self._all.get(name) is self._builtin[name]

    def validate(self, pb: Playbook) -> None:
        """Full validation against this catalog (plus `pb` itself, for self-reference)."""
        validate_playbook(pb, playbooks={**self._all, pb.name: pb}, tools=TOOL_REGISTRY.keys())

    def check_file(self, path: str | Path) -> Playbook:
        """Load and fully validate a playbook file without storing it."""
        pb = load_playbook_file(path)
        self.validate(pb)
        return pb

    def check_text(self, text: str, *, source: str = "") -> Playbook:
        pb = parse_playbook(text, source=source)
        self.validate(pb)
        return pb

    def graph_mermaid(self, name: str) -> str:
        """A Mermaid drawing of the playbook's compiled LangGraph graph (the UI's graph view)."""
        from sea.runtime import compile_playbook  # LangGraph compile: only when a graph is asked for

        pb = self.get(name)
        if pb is None:
            raise LookupError(f"playbook {name!r} does not exist")
        return compile_playbook(pb).get_graph().draw_mermaid()

    def store(self, pb: Playbook) -> Playbook:
        """Validate and save (insert or replace) a playbook."""
        self.validate(pb)
        with self._lock, self.db.session() as s:
            row = s.get(PlaybookRow, pb.name)
            data = pb.model_dump_json(exclude_none=True)
            if row is None:
                row = PlaybookRow(name=pb.name, playbook_json=data)
                s.add(row)
            row.display_name = pb.display_name
            row.description = pb.description
            row.scope = pb.scope
            row.router_callable = int(pb.router_callable)
            row.user_selectable = int(pb.user_selectable)
            row.playbook_json = data
            row.updated_at = datetime.now()
            self._all[pb.name] = pb
        return pb
