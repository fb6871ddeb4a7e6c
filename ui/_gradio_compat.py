"""Every reliance on Gradio's internals, in one place, for the Gradio that requirements.txt pins.

SAIVerse uses five things Gradio does not document. Each is a feature of its own, written for the
pinned version (`GRADIO_PIN`); with any other Gradio installed each is off — the app is then as plain
Gradio makes it, slower but whole — and the start logs one line per feature saying so (`check_version`):

- `lean_start` (`python main.py` only, `cli/_system.py::serve`; docs/ARCHITECTURE.md, "What `python main.py`
  does before its first HTTP 200"): as each of its ~40 component classes is defined, Gradio re-derives the
  class's `.pyi` stub for editors — it reads the component's source, parses the whole file with `ast`,
  renders a Jinja template and compares it with the stub shipped in its install. ~1 s of CPU per start on
  the 2-core machine, for files only a type checker reads: skipped by replacing
  `gradio.component_meta.create_or_modify_pyi` with a function that does nothing, as that module is
  loaded (a meta-path finder), before the first component class exists. Gradio's IPython import
  (notebook magics, a Colab check at every config) is refused too, whatever the version: that relies
  only on Gradio running without IPython, which it documents.
- `quiet_queue` (every window, `ui/app.py::build_app`): for every queued event Gradio 6 sends the page
  an `estimation` (its place in the queue) and a `process_starts`, each of which makes the page's
  client re-read the props of every component that was ever an event's output (the Chatbot with its
  200 messages among them): ~45 ms of the ~140 ms from Enter to the reply on screen (benchmarks/ui_trace.py,
  docs/ARCHITECTURE.md "First token"). An event wired with `show_progress="hidden"` shows neither, so
  both are dropped for such events (`gradio.queueing.Queue.send_message`, `gradio.server_messages`);
  every update, the end, progress, logs, toasts and errors go out as before, and streaming (WebRTC)
  events, which open their stream on `process_starts`, are left alone.
- `lazy_tabs` (ui/lazy_tab.py): a side tab's contents are a `gr.render` block built on its first opening.
  The builder needs the Blocks being rendered (`gradio.context.LocalContext`: its root block, to run the
  tab's first refresh on load) and says which rendered components take input, as Gradio's page decides
  for the ones built at start (`Block._id`, `rendered_in`, `interactive`). Off: the side tabs are built
  at start.
- `known_calls` (ui/web_guard.py): a call naming an `fn_index` the app does not have gets 422 and one log
  line instead of Gradio's 500 with a traceback; the functions are looked up as Gradio's `get_fn` does
  (`Blocks.fns`, a session's `state_holder[...].blocks_config.fns`). Off: such a call reaches Gradio.

- `page_words` (ui/page.py): the served page's `<html lang>` and head written into Gradio's template, and
  Gradio's untranslated words (toast titles, the lost-connection toast, aria-labels) rewritten in its
  markup (`.toast-wrap`). Off: Gradio's page as it serves it, its words by the browser's language.

One more read of Gradio's internals belongs to the guard of an app open to the network (ui/web_guard.py)
and cannot be switched off, so it fails closed under any Gradio: `login_tokens` (Gradio's login cookie,
`App.tokens` / `App.cookie_id`: not found → not logged in).

This module imports nothing of Gradio at its top: `lean_start` must run before Gradio's first import
(and benchmarks/startup.py loads this file alone for its `--bare-lean` app).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import logging
import sys
from collections.abc import Sequence
from functools import lru_cache
from importlib import metadata
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)

GRADIO_PIN = "6.31.0"
"""The Gradio these features are written for: requirements.txt's pin (tests/test_gradio_compat.py holds them equal)."""
FEATURES: dict[str, str] = {
    "lean_start": "its editor stubs are rewritten at every start again (~1 s of CPU)",
    "quiet_queue": "queue-place and start messages of hidden-progress events are sent again (a slower first token)",
    "lazy_tabs": "the side tabs are built at start (a slower start)",
    "known_calls": "a call of a function the app does not have reaches Gradio (a 500 with a traceback)",
    "page_words": "the page keeps Gradio's <html lang> and head, and Gradio's own words follow the browser",
}
"""Feature → what the app does without it."""
_told: set[str] = set()


@lru_cache(maxsize=1)
def installed() -> str | None:
    """The installed Gradio's version, read from its metadata (Gradio is not imported); None without one."""
    try:
        return metadata.version("gradio")
    except metadata.PackageNotFoundError:
        return None


def feature(name: str) -> bool:
    """Whether feature `name` may rely on Gradio's internals here: only under the pinned Gradio. The
    first refusal of each feature in a process is logged, with what the app does instead."""
    if installed() == GRADIO_PIN:
        return True
    if name not in _told:
        _told.add(name)
        log.warning("Gradio %s is installed, SAIVerse is written for %s: %s is off — %s", installed(), GRADIO_PIN,
                    name, FEATURES[name])
    return False


def check_version() -> list[str]:
    """At start: the features that are off under the installed Gradio (each logged once); [] when pinned."""
    return [name for name in FEATURES if not feature(name)]


# ---- lean_start -----------------------------------------------------------------------------------------
STUBS_MODULE = "gradio.component_meta"
STUBS_FUNCTION = "create_or_modify_pyi"


def _no_stub(*_args: Any, **_kwargs: Any) -> None:
    """Stands in for Gradio's stub writer: a served app never reads its `.pyi` files."""


class _Loader(importlib.abc.Loader):
    """The module's own loader, then the stub writer replaced."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)  # type: ignore[attr-defined]
        if callable(getattr(module, STUBS_FUNCTION, None)):
            setattr(module, STUBS_FUNCTION, _no_stub)


class _StubsFinder(importlib.abc.MetaPathFinder):
    """Finds `gradio.component_meta` as the path finder does, loads it through `_Loader`, and leaves."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if name != STUBS_MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None  # not a plain file (another finder's): imported as Gradio makes it
        spec.loader = _Loader(spec.loader)
        # Once. Only now: the import system walks this very list and stops at the spec returned.
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        return spec


def lean_gradio() -> None:
    """Before Gradio's first import: no IPython, and (`lean_start`) no stub writing. Nothing is done to a
    process that imported Gradio already, and the stubs are left to a later Gradio without the hook."""
    sys.modules.setdefault("IPython", None)  # type: ignore[arg-type]
    if "gradio" in sys.modules or any(isinstance(f, _StubsFinder) for f in sys.meta_path):
        return
    if feature("lean_start"):
        sys.meta_path.insert(0, _StubsFinder())


# ---- quiet_queue ----------------------------------------------------------------------------------------
def unshown(event: Any, message: Any) -> bool:
    """True for a queue-place or start message of an event whose progress is hidden."""
    from gradio.server_messages import EstimationMessage, ProcessStartsMessage

    fn = getattr(event, "fn", None)
    return (isinstance(message, EstimationMessage | ProcessStartsMessage)
            and getattr(fn, "show_progress", "full") == "hidden" and getattr(fn, "connection", "sse") != "stream")


def quiet_hidden_progress() -> None:
    """Install the filter on Gradio's queue (`quiet_queue`; once per process, later calls do nothing)."""
    if not feature("quiet_queue"):
        return
    from gradio import queueing

    send = queueing.Queue.send_message
    if getattr(send, "_saiverse_quiet", False):
        return

    def send_message(self: Any, event: Any, event_message: Any) -> None:
        if unshown(event, event_message):
            return
        send(self, event, event_message)

    send_message._saiverse_quiet = True  # type: ignore[attr-defined]
    queueing.Queue.send_message = send_message  # type: ignore[method-assign]


# ---- lazy_tabs ------------------------------------------------------------------------------------------
def rendering_root() -> Any:
    """The root block of the Blocks a `gr.render` function is rendering into (to add a load event there)."""
    from gradio.context import LocalContext

    return LocalContext.blocks_config.get().root_block


def settle_interactivity() -> None:
    """Say which components of the current render take input, as Gradio's page decides for the ones
    built at start: an event's input is editable, an output only shown. The page cannot decide it for a
    rendered component with a value (it would draw the persona form's 🙂 avatar box disabled), so the
    server says it explicitly; a component given `interactive=` keeps it."""
    from gradio.components import Component
    from gradio.context import LocalContext

    config, renderable = LocalContext.blocks_config.get(None), LocalContext.renderable.get(None)
    if config is None or renderable is None:
        return
    inputs: set[int] = set()
    outputs: set[int] = set()
    for fn in config.fns.values():
        inputs.update(b._id for b in fn.inputs)
        outputs.update(b._id for b in fn.outputs)
    for block in config.blocks.values():
        if isinstance(block, Component) and block.rendered_in is renderable and block.interactive is None:
            if block._id in inputs:
                block.interactive = True
            elif block._id in outputs:
                block.interactive = False


# ---- known_calls, and the network guard's reads ---------------------------------------------------------
def known_functions(app: Any, session_hash: Any) -> dict[Any, Any] | None:
    """The functions a call may name, found as Gradio finds them (gradio/route_utils.py `get_fn`): the
    session's own (a `gr.render` block adds some per window) when the call names a session, else the
    app's; None when they cannot be looked up (`known_calls` off, or not found: Gradio answers itself)."""
    if not feature("known_calls"):
        return None
    try:
        blocks = app.get_blocks()
        if session_hash:
            return dict(blocks.state_holder[str(session_hash)].blocks_config.fns)
        return dict(blocks.fns)
    except Exception:  # noqa: BLE001 - not as this Gradio keeps them: leave the call to Gradio
        return None


def login_tokens(app: Any) -> tuple[Any, Any]:
    """Gradio's login sessions: (`App.tokens`, `App.cookie_id`); (None, None) when absent — no session is
    then taken for logged in (the guard fails closed, whatever Gradio is installed)."""
    return getattr(app, "tokens", None), getattr(app, "cookie_id", None)


def login_cookie_names(cookie_id: str) -> tuple[str, str]:
    """The cookies Gradio's login sets (its secure and plain-HTTP forms)."""
    return f"access-token-{cookie_id}", f"access-token-unsecure-{cookie_id}"
