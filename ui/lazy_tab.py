"""Tabs whose contents are built on their first opening in each window (docs/ARCHITECTURE.md, "UI").

The six tabs beside チャット hold ~200 components. Built at start, Gradio would walk every one of
them in each config pass of Blocks construction and launch, and again for every new window — most
of what `python main.py` spent beyond a bare Gradio app (README, "Benchmarks"). Instead each tab
holds a `gr.render` block: the tab's first selection in a window sets a per-window flag, whose
change renders the tab's builder there once. Later selections run the tab's `TabRefresh`, as before,
so the lists never show a world that changed elsewhere; what was typed in a form stays while the
person looks at another tab (the contents are rendered once, never re-rendered). A builder that
fails (a database another program holds locked, a bug) leaves the tab saying why, with a button that
builds it again — never an empty tab until the page is reloaded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from importlib import import_module

import gradio as gr

from saiverse.port import CityPort, busy_database_message, is_user_error
from ui._gradio_compat import feature, rendering_root, settle_interactivity
from ui.i18n import Labels
from ui.tabs import TabRefresh

log = logging.getLogger(__name__)

TabBuilder = Callable[[CityPort, Labels], TabRefresh]
"""`build_*_tab(manager, labels)` of a module in ui/tabs/."""


def named_builder(where: str | TabBuilder) -> TabBuilder:
    """The builder named `"ui.tabs.module:function"`, its module imported when it is first called —
    or `where` itself. A lazy tab names its builder so that its module, and what only that tab uses,
    is imported on the tab's first opening, not by `python main.py`'s start."""
    if callable(where):
        return where
    module, _, name = where.partition(":")

    def build(manager: CityPort, labels: Labels) -> TabRefresh:
        return getattr(import_module(module), name)(manager, labels)

    return build


def failure_reason(exc: BaseException, labels: Labels) -> str:
    """What the person is told when a tab cannot be built: the locked database or the user error in
    their words; for a bug only its kind (the traceback goes to the log)."""
    if busy_database_message(exc):
        return labels("tab_busy")
    if is_user_error(exc):
        return str(exc)
    return labels("tab_failed_bug", kind=type(exc).__name__)


def lazy_tab(tab: gr.Tab, build: Callable[[], TabRefresh], labels: Labels) -> None:
    """Inside `with gr.Tab(...) as tab:` — `build()` creates the tab's components on its first
    selection in a window and returns what to run on each later selection."""
    # The flag is set in the page (no round trip to the server); kept at a later selection, it
    # changes — and renders — once. "hidden": in the page (so its change fires), never shown. The
    # retry button after a failed build counts it up, which renders again.
    opened = gr.Number(0, visible="hidden", interactive=False, container=False, elem_classes=["sv-lazy-flag"])
    tab.select(None, opened, opened, js="(n) => n || 1", show_progress="hidden")

    @gr.render(inputs=opened, triggers=[opened.change], show_progress="hidden")
    def contents(is_open: float | None) -> None:
        if not is_open:
            return
        with gr.Column() as built:
            try:
                refresh = build()
            except Exception as exc:  # shown in the tab, with a way to try again
                log.warning("the tab %s could not be built", tab.id, exc_info=not is_user_error(exc))
                failed = exc
            else:
                failed = None
        if failed is not None:
            built.visible = False  # whatever the builder made before it failed is not shown
            gr.Markdown(labels("tab_failed", reason=failure_reason(failed, labels)), elem_id=f"{tab.elem_id}-failed")
            with gr.Row():
                retry = gr.Button(labels("tab_retry"), size="sm", scale=0, min_width=180,
                                  elem_id=f"{tab.elem_id}-retry")
            retry.click(None, opened, opened, js="(n) => (n || 1) + 1", show_progress="hidden")
            return
        # As the tab did when it was built at start: its refresh runs as it opens — the first time
        # once its contents are on the page, and then only what the builder did not draw already
        # (`TabRefresh.drawn` / `fill`): a builder that drew its lists is not made to read them twice.
        first = refresh.on_first_opening()
        if first is not None:
            rendering_root().load(first.fn, first.inputs, first.outputs, show_progress="hidden")
        tab.select(refresh.fn, refresh.inputs, refresh.outputs, show_progress="hidden")
        settle_interactivity()  # Gradio's internals: ui/_gradio_compat.py


def side_tabs(tabs: Sequence[tuple[str, str, str | TabBuilder]], manager: CityPort, labels: Labels, *,
              lazy: bool = True) -> None:
    """The tabs beside チャット, inside the current `gr.Tabs`: (label key, tab id, builder or its
    `"module:function"` name, `named_builder`) each.
    With `lazy`, each is built on its first opening in a window; without (or under a Gradio other than the
    pinned one, ui/_gradio_compat.py), here, at start (as before issue 26 — also benchmarks/tab_open.py's
    comparison)."""
    lazy = lazy and feature("lazy_tabs")
    for key, tab_id, where in tabs:
        builder = named_builder(where)
        with gr.Tab(labels(key), id=tab_id, elem_id=f"tab-{tab_id}") as tab:
            if lazy:
                lazy_tab(tab, lambda builder=builder: builder(manager, labels), labels)
                continue
            refresh = builder(manager, labels)
        tab.select(refresh.fn, refresh.inputs, refresh.outputs, show_progress="hidden")
