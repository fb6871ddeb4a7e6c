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

from typing import TYPE_CHECKING

from saiverse._lazy import lazy_getattr

if TYPE_CHECKING:
    from saiverse.pulse._controller import PulseController as PulseController
    from saiverse.pulse._controller import PulseHandle as PulseHandle
    from saiverse.pulse._controller import PulseKinds as PulseKinds
    from saiverse.pulse._controller import QueueFullError as QueueFullError
    from saiverse.pulse._journal import ModelResolver as ModelResolver
    from saiverse.pulse._journal import PulseServices as PulseServices
    from saiverse.pulse._journal import persona_context as persona_context
    from saiverse.pulse._journal import system_prompt_for as system_prompt_for
    from saiverse.pulse._open import recover_open as recover_open
    from saiverse.pulse._playbooks import PlaybookCatalog as PlaybookCatalog
    from saiverse.pulse._pool import user_turn as user_turn
    from saiverse.pulse._production import ProductionService as ProductionService
    from saiverse.pulse._queue import worker_command as worker_command
    from saiverse.pulse._remote import remote_enabled as remote_enabled
    from saiverse.pulse._remote import remote_pulses as remote_pulses
    from saiverse.pulse._sight import ContextView as ContextView
    from saiverse.pulse._sight import PinResult as PinResult
    from saiverse.pulse._sight import Sight as Sight
    from saiverse.pulse._toolcall import ToolServices as ToolServices
    from saiverse.pulse._toolctx import ManagerToolContext as ManagerToolContext

_EXPORTS: dict[str, str] = {
    "remote_enabled": "_remote",
    "remote_pulses": "_remote",
    "worker_command": "_queue",
    "user_turn": "_pool",
    "ManagerToolContext": "_toolctx",
    "ModelResolver": "_journal",
    "PlaybookCatalog": "_playbooks",
    "ProductionService": "_production",
    "PulseController": "_controller",
    "PulseHandle": "_controller",
    "PulseKinds": "_controller",
    "PulseServices": "_journal",
    "QueueFullError": "_controller",
    "Sight": "_sight",
    "ContextView": "_sight",
    "PinResult": "_sight",
    "ToolServices": "_toolcall",
    "persona_context": "_journal",
    "recover_open": "_open",
    "system_prompt_for": "_journal",
}
"""Public name → the private module that defines it (imported on first use)."""

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())
