"""The playbook catalog: builtin playbooks from `playbooks/` plus those imported into the DB.

Every playbook is validated against the catalog and the tool registry when it is loaded or
imported, so nothing invalid ever reaches the runtime. An import never silently replaces a builtin:
`store(..., replace=True)` overrides one (and is refused if another playbook would stop validating),
and `restore(name)` brings the builtin back. Imported playbooks survive restarts in the `playbooks`
table, stored exactly as written (upstream fields included).
"""

from __future__ import annotations

import json
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from database import Database
from database.models import Playbook as PlaybookRow
from sea.compat import playbook_listing
from sea.playbook import Playbook, PlaybookError, builtin_playbooks, load_playbook_file, parse_playbook
from sea.validate import ValidationReport, validate_playbook
from tools import TOOL_REGISTRY


def available_tools() -> dict[str, set[str]]:
    """Tools that can run here (a tool registered as unavailable is left out), with their arguments."""
    out: dict[str, set[str]] = {}
    for name, tool_def in TOOL_REGISTRY.items():
        if getattr(tool_def, "unavailable", None):
            continue
        out[name] = set(tool_def.arg_names)  # the schema's properties, without building it (tools/registry.py)
    return out


class PlaybookCatalog:
    """Named, validated playbooks; thread-safe."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._builtin = builtin_playbooks()
        self._all: dict[str, Playbook] = dict(self._builtin)
        self.broken: dict[str, str] = {}
        """Stored playbooks that no longer load or validate, by name, with the reason (never run)."""
        self._seen: tuple[tuple[str, str], ...] | None = None
        self._version = 0
        """Bumped after every change of the catalogue: what the routers see is made once per version."""
        self._router: tuple[int, tuple[Playbook, ...], list[dict[str, Any]], str] | None = None
        self.reload()

    def _stamp(self) -> tuple[tuple[str, str], ...]:
        with self.db.session() as s:
            return tuple((n, str(u)) for n, u in s.query(PlaybookRow.name, PlaybookRow.updated_at).order_by(
                PlaybookRow.name))

    def reload(self) -> bool:
        """Read the stored playbooks again when the table changed (an import by the CLI or another
        window); True when it did. The UI's lists call this, so they show what is stored now."""
        stamp = self._stamp()
        if stamp == self._seen:
            return False
        self._load()
        self._seen = stamp
        return True

    def _load(self) -> None:
        """Builtins plus the stored rows, validated; built aside and swapped in, so a reader never
        sees a half-loaded catalog."""
        catalog: dict[str, Playbook] = dict(self._builtin)
        broken: dict[str, str] = {}
        with self.db.session() as s:
            rows = s.query(PlaybookRow).all()
            for row in rows:
                try:
                    catalog[row.name] = parse_playbook(row.playbook_json, source=row.name)
                except PlaybookError as exc:
                    broken[row.name] = str(exc)  # a stored playbook broken by a format change
        for name, pb in list(catalog.items()):
            try:
                self.validate(pb, among=catalog)
            except PlaybookError as exc:
                if pb is self._builtin.get(name):
                    raise  # a builtin that does not validate is a bug in this checkout
                broken[name] = str(exc)
                if name in self._builtin:
                    catalog[name] = self._builtin[name]
                else:
                    del catalog[name]
        with self._lock:
            self._all, self.broken = catalog, broken
            self._version += 1

    def get(self, name: str) -> Playbook | None:
        return self._all.get(name)

    def all(self) -> list[Playbook]:
        return sorted(self._all.values(), key=lambda p: p.name)

    def _router_view(self) -> tuple[int, tuple[Playbook, ...], list[dict[str, Any]], str]:
        """(version, router-callable playbooks, their listing, the listing as JSON), made once per
        catalogue version: every pulse's router asks for them twice (list_available_playbooks and the
        router's schema), and sorting, listing and serialising the same playbooks cost ~20 µs a pulse."""
        version = self._version  # read first: a change made meanwhile is seen and stored under an old version
        memo = self._router
        if memo is None or memo[0] != version:
            chosen = tuple(pb for pb in self.all()
                           if pb.router_callable and not pb.dev_only and not pb.required_credentials)
            listing = playbook_listing(chosen)
            memo = self._router = (version, chosen, listing, json.dumps(listing, ensure_ascii=False))
        return memo

    def router_callable(self) -> list[Playbook]:
        """Playbooks a router may choose: `router_callable`, and neither upstream `dev_only` (there is no
        developer mode here) nor needing `required_credentials` (no accounts are configured here)."""
        return list(self._router_view()[1])

    def router_listing(self) -> list[dict[str, Any]]:
        """The router-callable playbooks as `list_available_playbooks` shows them (a copy to keep)."""
        return [{**entry, "keywords": list(entry["keywords"])} for entry in self._router_view()[2]]

    def router_listing_json(self) -> str:
        """`router_listing` as `list_available_playbooks` returns it (JSON text, made once per version)."""
        return self._router_view()[3]

    def user_selectable(self) -> list[Playbook]:
        return [pb for pb in self.all() if pb.user_selectable]

    def is_builtin(self, name: str) -> bool:
        return name in self._builtin and self._all.get(name) is self._builtin[name]

    def is_overridden(self, name: str) -> bool:
        """A builtin replaced by an imported playbook of the same name."""
        return name in self._builtin and self._all.get(name) is not self._builtin[name]

    def validate(self, pb: Playbook, *, among: dict[str, Playbook] | None = None,
                 extra_tools: dict[str, set[str]] | None = None) -> ValidationReport:
        """Full validation against this catalog (plus `pb` itself, for self-reference). `extra_tools`: tools
        some persona has besides the builtin ones (her MCP tools), with their arguments."""
        tools = {**available_tools(), **(extra_tools or {})}
        return validate_playbook(pb, playbooks={**(among or self._all), pb.name: pb}, tools=tools.keys(),
                                 tool_args=tools)

    def check_file(self, path: str | Path, *, extra_tools: dict[str, set[str]] | None = None) -> Playbook:
        """Load and fully validate a playbook file without storing it."""
        pb = load_playbook_file(path)
        self.validate(pb, extra_tools=extra_tools)
        return pb

    def resolve(self, name_or_path: str) -> Playbook:
        """A playbook by name, or a JSON file's (validated, not stored) when the argument is one.

        Raises UsageError naming an unknown playbook; PlaybookError for a file that does not validate."""
        target = Path(name_or_path)
        if target.suffix == ".json" or target.exists():
            return self.check_file(target)
        pb = self.get(name_or_path)
        if pb is None:
            from saiverse.errors import UsageError

            raise UsageError(f"playbook {name_or_path!r} does not exist (see `main.py playbooks`)")
        return pb

    def check_text(self, text: str, *, source: str = "") -> Playbook:
        pb = parse_playbook(text, source=source)
        self.validate(pb)
        return pb

    def graph_mermaid(self, name: str) -> str:
        """A Mermaid drawing of the playbook's compiled LangGraph graph (the UI's graph view)."""
        from sea.runtime import drawing  # LangGraph compile: only when a graph is asked for

        pb = self.get(name)
        if pb is None:
            raise LookupError(f"playbook {name!r} does not exist")
        return drawing(pb).get_graph().draw_mermaid()

    def _check_dependents(self, catalog: dict[str, Playbook], changed: str) -> None:
        """Every other playbook must still validate once `changed` is replaced or restored."""
        for other in catalog.values():
            if other.name == changed:
                continue
            try:
                self.validate(other, among=catalog)
            except PlaybookError as exc:
                raise PlaybookError(f"would break playbook {other.name!r}, which uses it: {exc}",
                                    playbook=changed) from exc

    def store(self, pb: Playbook, *, replace: bool = False) -> Playbook:
        """Validate and save (insert or update) a playbook. A builtin's name is refused unless
        `replace` (CLI `--replace`): then the import overrides the builtin until `restore`."""
        self.validate(pb)
        if pb.name in self._builtin and not replace:
            raise PlaybookError(
                "is a builtin playbook; importing this file would replace it. Import with --replace to "
                f"override the builtin (`import-playbook --restore {pb.name}` brings it back)", playbook=pb.name)
        if pb.name in self._builtin:
            self._check_dependents({**self._all, pb.name: pb}, pb.name)
        with self._lock, self.db.session() as s:
            row = s.get(PlaybookRow, pb.name)
            data = pb.source_json()
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
            self.broken.pop(pb.name, None)
            self._version += 1
        return pb

    def restore(self, name: str) -> Playbook:
        """Remove the imported playbook that overrides builtin `name`; the builtin is used again."""
        if name not in self._builtin:
            raise PlaybookError("is not a builtin playbook, so there is nothing to restore", playbook=name)
        if not self.is_overridden(name) and name not in self.broken:
            raise PlaybookError("is not overridden; the builtin is already in use", playbook=name)
        self._check_dependents({**self._all, name: self._builtin[name]}, name)
        with self._lock, self.db.session() as s:
            row = s.get(PlaybookRow, name)
            if row is not None:
                s.delete(row)
            self._all[name] = self._builtin[name]
            self.broken.pop(name, None)
            self._version += 1
        return self._builtin[name]
