"""A pulse: one activation of one persona, its journal, context, tools and productions.

Parts (private modules; import from here):
- `_controller`: The pulse controller: queues pulses per persona and runs them one at a time …
- `_journal`: The pulse journal: the runtime's ports for one pulse, with all of the pulse's writes …
- `_open`: Open pulses: what a process killed in the middle of a pulse leaves for the next start to …
- `_playbooks`: The playbook catalog: builtin playbooks from `playbooks/` plus those imported into …
- `_pool`: The bounded pulse executor: a fixed pool of workers for every persona …
- `_production`: Production runs as the domain sees them: the `production_run` table, the ports the …
- `_queue`: Pulse workers: `python main.py worker` takes pulses from a queue in PostgreSQL …
- `_remote`: Pulses taken by pulse workers: enqueue in PostgreSQL, follow the events back …
- `_sight`: See what she sees, and pin what she must keep (issue 33, items 3 and 4).
- `_toolctx`: The domain's implementation of `tools.ToolContext`: the world as one tool call sees it.
- `_toolcall`: One tool call's binding and the parts of the app it may reach: what every tool service is handed.
- `_toolctx_city`: The city as one tool call reaches it: the persona, buildings, history, working memory, …
- `_toolctx_items`: Items as one tool call reaches them: those in the persona's building and in its hands.
- `_toolctx_memory`: Memory as one tool call reaches it: SAIMemory messages, recall, Memopedia and Chronicle.
- `_toolctx_v03`: What upstream v0.3's tools reach: whole-document edits, item_move with slots, …
- `_usergate`: Users first across worker processes: while a user's pulse runs on any pulse worker, …
"""

from __future__ import annotations

from saiverse.pulse._controller import PulseController, PulseHandle, PulseKinds, QueueFullError
from saiverse.pulse._journal import ModelResolver, PulseServices, persona_context, system_prompt_for
from saiverse.pulse._open import recover_open
from saiverse.pulse._playbooks import PlaybookCatalog
from saiverse.pulse._pool import user_turn
from saiverse.pulse._production import ProductionService
from saiverse.pulse._queue import worker_command
from saiverse.pulse._remote import remote_enabled, remote_pulses
from saiverse.pulse._sight import ContextView, PinResult, Sight
from saiverse.pulse._toolcall import ToolServices
from saiverse.pulse._toolctx import ManagerToolContext

__all__ = [
    "ContextView",
    "ManagerToolContext",
    "ModelResolver",
    "PinResult",
    "PlaybookCatalog",
    "ProductionService",
    "PulseController",
    "PulseHandle",
    "PulseKinds",
    "PulseServices",
    "QueueFullError",
    "Sight",
    "ToolServices",
    "persona_context",
    "recover_open",
    "remote_enabled",
    "remote_pulses",
    "system_prompt_for",
    "user_turn",
    "worker_command",
]
