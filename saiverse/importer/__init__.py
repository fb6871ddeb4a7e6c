"""Import an upstream SAIVerse (maha0525/SAIVerse) data home: `python main.py import-saiverse PATH --home DIR`.

The target home then holds that city — buildings, personas, items and their files, every SAIMemory
message (searchable at once), building logs, schedules, event logs, Memopedia and Chronicle, and the
user's own playbooks — and no seed world. The source is only read (see `source`). The database part
is one transaction (`target`), files are staged and renamed after the commit (`files`), so a failure
leaves nothing half-imported. A home that already holds a world is refused unless `merge`; then ids
that exist are kept, never overwritten, and rows that carry upstream ids (messages, log lines,
Memopedia, Chronicle) already present are skipped, so importing twice adds nothing.

Modules: `source` (locating, read-only opening), `target` (the transaction), `world`, `items`,
`memory` + `grams` (SAIMemory and its recall index), `longterm` (Memopedia, Chronicle), `logs`,
`schedules`, `playbooks`, `files`, `report`, `progress`, `run` (the sequence).
"""

from __future__ import annotations

from saiverse.importer.progress import Progress
from saiverse.importer.report import ImportReport
from saiverse.importer.run import import_saiverse
from saiverse.importer.source import ImportRefused

__all__ = [
    "ImportRefused",
    "ImportReport",
    "Progress",
    "import_saiverse",
]
