"""One import, start to end: checks, the file staging, the one database transaction, the commit, the summary."""

from __future__ import annotations

import shutil
import sqlite3
import time
import uuid
from pathlib import Path

from database import Database
from database.migrate import migrate
from saiverse.care import check_home, create_private
from saiverse.importer.context import Context
from saiverse.importer.files import FileStager, recover_staged_files, scratch_folder
from saiverse.importer.items import import_items
from saiverse.importer.logs import import_logs
from saiverse.importer.memory import import_memory
from saiverse.importer.playbooks import import_playbooks
from saiverse.importer.progress import Progress
from saiverse.importer.report import ImportReport
from saiverse.importer.schedules import import_events, import_schedules
from saiverse.importer.source import ImportRefused, SourceHome, locate, open_readonly
from saiverse.importer.target import import_engine, raw, read_state, world_summary
from saiverse.importer.v03 import import_tracks_and_notes, note_left_out
from saiverse.importer.voices import import_voices
from saiverse.importer.world import import_buildings, import_cities, import_personas, import_user
from saiverse.settings import Settings
from sea.playbook import builtin_playbooks


def _world_refusal(home: Path, source: SourceHome, world: str) -> ImportRefused:
    return ImportRefused(
        f"{home} already holds a world ({world}); nothing was imported. Import into a new, empty "
        f"home (python main.py import-saiverse {source.home} --home NEW_FOLDER), or add --merge to add this "
        "city beside it (ids that already exist here are kept, never overwritten).")


def _check_places(source: SourceHome, home: Path, db_path: Path | None) -> Path:
    if db_path is None:
        raise ImportRefused("import-saiverse needs a SQLite database in the data home "
                            "(SAIVERSE_DATABASE_URL points at another kind of database).")
    home = home.resolve()
    if home == source.home or home.is_relative_to(source.home):
        raise ImportRefused(
            f"the target home {home} is the upstream home {source.home} or inside it, and the upstream home is "
            f"never written to. Choose another folder: --home {source.home.with_name(source.home.name + '-imported')}")
    if db_path.resolve() == source.db_path:
        raise ImportRefused(f"{db_path} is the database being imported; choose another --home.")
    return home


def _phases(ctx: Context) -> None:
    import_cities(ctx)
    import_buildings(ctx)
    import_personas(ctx)
    import_user(ctx)
    import_items(ctx)
    import_memory(ctx, {p for p in ctx.personas_ok if p not in ctx.state.personas})
    import_tracks_and_notes(ctx)
    note_left_out(ctx)
    import_voices(ctx)
    import_logs(ctx)
    import_playbooks(ctx)
    meta = {r[0] for r in ctx.db.execute("SELECT NAME FROM playbooks")}
    import_schedules(ctx, meta | set(builtin_playbooks()))
    import_events(ctx)


def _checkpoint(db_path: Path) -> None:
    """Fold the import's WAL into the database file now (not at some later app start)."""
    try:
        conn = sqlite3.connect(db_path, timeout=5)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
    except sqlite3.Error:
        pass  # a reader holds the WAL; SQLite checkpoints it later on its own


def import_saiverse(path: Path, settings: Settings, *, merge: bool = False,
                    progress: Progress | None = None) -> ImportReport:
    """Import the upstream home at `path` into `settings.home` (see the package docstring)."""
    started = time.monotonic()
    source = locate(path)
    home = _check_places(source, settings.home, settings.db_path)
    db_path = settings.db_path
    assert db_path is not None
    check_home(home, db_path)  # never a home whose folders link out of it, nor a foreign database
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    create_private(db_path)
    world = world_summary(db_path)
    if world is not None and not merge:
        raise _world_refusal(home, source, world)
    migrate(db_path)
    probe = Database(settings.database_url)
    try:
        recover_staged_files(home, probe)
    finally:
        probe.dispose()
    report = ImportReport(source=str(source.home), target=str(home), merge=merge, lang=settings.lang)
    token = uuid.uuid4().hex
    scratch = scratch_folder(home, token)
    stager = FileStager(home, token)
    engine = import_engine(db_path)
    try:
        with open_readonly(source.db_path, scratch) as src:
            src.text_factory = lambda b: b.decode("utf-8", "replace")
            with engine.begin() as conn:
                state = read_state(raw(conn))
                if state.has_world and not merge:
                    raise _world_refusal(home, source, state.describe())
                ctx = Context(source=source, src=src, db=raw(conn), state=state, report=report, stager=stager,
                              progress=progress or Progress(None), scratch=scratch, connection=conn)
                _phases(ctx)
        stager.commit()
    except BaseException:
        stager.abort()
        raise
    finally:
        engine.dispose()
        shutil.rmtree(scratch, ignore_errors=True)
    _checkpoint(db_path)
    report.seconds = time.monotonic() - started
    return report
