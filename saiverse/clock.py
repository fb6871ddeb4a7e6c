"""The city's clock: the ticker, due schedules and autonomous turns (the city moving on its own).

A service the manager builds (saiverse/manager.py) with the parts it uses: it starts the pulses nobody's
message asked for. Each is claimed across processes — a schedule's run under a row lock, an autonomous
turn in the database (saiverse/world/_auto_turns.py), the daily backup city-wide (saiverse/claims.py) —
so several apps and workers of one city tick it once.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from saiverse.care import BackupStore
from saiverse.claims import claimed
from saiverse.pulse import PlaybookCatalog, ProductionService, PulseHandle, PulseKinds, QueueFullError
from saiverse.settings import SettingsStore
from saiverse.store import daily_backup
from saiverse.ticker import EventSink, Ticker
from saiverse.world import (
    AUTONOMOUS,
    AutonomousTurns,
    ScheduleInfo,
    ScheduleStore,
    UnknownIdError,
    World,
    WorldSettings,
)
from sea.playbook import Playbook, PlaybookError

log = logging.getLogger(__name__)


class CityClock:
    """The ticker of a world and the pulses it starts: due schedules, then autonomous turns."""

    def __init__(self, *, world: World, world_settings: WorldSettings, schedules: ScheduleStore,
                 auto_turns: AutonomousTurns, playbooks: PlaybookCatalog, pulses: PulseKinds,
                 production: ProductionService, backups: BackupStore, settings: SettingsStore,
                 meta_playbook: Callable[[str | None], Playbook], user_building: Callable[[], str]) -> None:
        self.world = world
        self.world_settings = world_settings
        """Where the 自律 switch is kept."""
        self.schedules = schedules
        self.auto_turns = auto_turns
        """Autonomous turns claimed across processes (saiverse/world/_auto_turns.py)."""
        self.playbooks = playbooks
        self.pulses = pulses
        """Where the pulses this clock starts go (in process, or the queue: saiverse/pulse/_remote.py)."""
        self.production = production
        """Resumes the production runs a killed process left unfinished."""
        self.backups = backups
        self.settings_store = settings
        self.meta_playbook = meta_playbook
        """name (None: the default) → the meta playbook (PlaybookError for an unknown one)."""
        self.user_building = user_building
        """→ where the user is (a persona without a building answers there)."""

    @property
    def autonomous(self) -> bool:
        """Global autonomous-mode switch (off in a new world): `auto` personas take `meta_auto` turns.
        Kept in the world (`world_setting`), so it is as it was left after a restart."""
        return self.world_settings.flag(AUTONOMOUS)  # read each time: another window or process may switch it

    @autonomous.setter
    def autonomous(self, on: bool) -> None:
        self.world_settings.set_flag(AUTONOMOUS, bool(on))

    def ticker(self, *, interval: float = 15.0, on_events: EventSink | None = None) -> Ticker:
        """The background ticker of this world: due schedules, autonomous turns, interrupted runs."""
        settings = self.settings_store.current
        return Ticker(self._tick_round, self.production.resume_interrupted,
                      interval=interval, on_events=on_events,
                      chores=[claimed(settings.home, settings.database_url, "backup:daily", c)
                              for c in daily_backup(settings, self.backups.daily_if_due)])

    def _tick_round(self) -> list[PulseHandle]:
        """Schedules, then autonomous turns: each part's failure is logged and the other still runs."""
        handles: list[PulseHandle] = []
        for part in (self.fire_due_schedules, self.autonomous_tick):
            try:
                handles += part()
            except Exception:  # noqa: BLE001 - the ticker retries next round (saiverse/ticker.py)
                log.exception("ticker: %s failed", part.__name__)
        return handles

    # ---- schedules and autonomy -------------------------------------------------------------
    def add_schedule(self, persona_id: str, spec: dict[str, Any]) -> ScheduleInfo:
        """Validate a schedule against the catalog (meta playbook and args) and store it."""
        from sea.validate import check_args

        self.world.persona(persona_id)
        name = str(spec.get("meta_playbook") or "meta_auto")
        pb = self.playbooks.get(name)
        if pb is None:
            raise ValueError(f"meta_playbook {name!r} does not exist")
        check_args(pb, dict(spec.get("args") or {}), partial=True)
        return self.schedules.add(persona_id, {**spec, "meta_playbook": name})

    def fire_due_schedules(self, now: datetime | None = None, *, pulses: Any = None) -> list[PulseHandle]:
        """Submit a schedule pulse for every due entry (the ticker calls this; a pulse worker's tick gives
        `pulses`, the queue, saiverse/pulse/_queue.py). An entry another process claimed first is skipped."""
        now = now or datetime.now()
        handles = []
        for entry in self.schedules.due(now):
            claim = functools.partial(self.schedules.mark_fired, entry.schedule_id, now)
            try:
                persona = self.world.persona(entry.persona_id)
                pb = self.meta_playbook(entry.meta_playbook)
                handle = (pulses or self.pulses).submit_claimed(  # claimed and submitted together
                    claim, persona, persona.building_id or self.user_building(), pb, args=entry.args)
            except (UnknownIdError, PlaybookError):
                claim()  # the entry stays listed; a deleted persona or playbook just skips a run
                continue
            except QueueFullError:
                continue  # a persona with a full queue skips this run
            handles += [handle] if handle is not None else []
        return handles

    def autonomous_tick(self, now: datetime | None = None, *, pulses: Any = None) -> list[PulseHandle]:
        """While autonomous mode is on, `auto` personas take a `meta_auto` turn per building interval, once."""
        if not self.autonomous:
            return []
        now = now or datetime.now()
        handles = []
        pb = self.meta_playbook("meta_auto")
        city = self.world.autonomous_personas()  # the whole city in one query
        taken = self.auto_turns.claim(((p.persona_id, interval) for p, interval in city), now)
        for persona, _interval in city:
            if persona.persona_id not in taken:
                continue  # not due yet, or another process (a window, a worker) took this turn
            try:
                handles.append((pulses or self.pulses).submit_auto(persona, persona.building_id, pb))
            except QueueFullError:
                continue
        return handles
