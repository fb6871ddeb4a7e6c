"""The SAIVerse window (docs/ARCHITECTURE.md, "UI"): building list | chat | building panel, the item modal, and the
tabs beside the chat (personas, memory, playbooks, schedules, world, settings — `ui/tabs/`).

`build_app(manager)` assembles the Gradio Blocks and wires every event to the manager — the only
backend the UI talks to. `launch(settings)` opens the world and serves it (blocking), which is
what `python main.py` runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

# Before gradio is imported: a local app never phones home.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

from saiverse.port import CityPort
from ui._gradio_compat import check_version, quiet_hidden_progress  # noqa: E402
from ui.attachments import with_guard  # noqa: E402
from ui.autonomy import autonomy_switch, wire_autonomy  # noqa: E402
from ui.chat_actions import build_line_actions, wire_line_actions  # noqa: E402
from ui.city_map import MAP_CSS_PATH, with_city_map  # noqa: E402  (the city map under the building list)
from ui.fit import FIT_JS, PHONE_HEAD, STORED_BUILDING_JS, drawer_button, more_button, with_js  # noqa: E402
from ui.i18n import Labels  # noqa: E402
from ui.lazy_tab import side_tabs  # noqa: E402
from ui.modal import build_modal, wire_modal  # noqa: E402
from ui.model_lines import SETTINGS_LINK_JS, any_fallback, models_notice_html  # noqa: E402
from ui.new_bag import build_new_bag, wire_new_bag  # noqa: E402  (👜 袋を作る under the items)
from ui.send import MANUAL_META, send  # noqa: E402
from ui.session import begin_send, end_send, first_building, sending, session_lock, still_there  # noqa: E402
from ui.side_panel import ITEM_LIST_JS, building_choices, building_panel_html, header_html, item_list_html  # noqa: E402
from ui.stream import ChatView, catch_up, live_html, load_earlier, open_building, show_finished  # noqa: E402
from ui.tabs.models import build_chat_pull  # noqa: E402
from ui.voice import VOICE_CSS_PATH, listen_buttons, speaker_button, voice_js  # noqa: E402  (speech and listening)
from ui.voice_routes import ROUTES as VOICE_ROUTES  # noqa: E402
from ui.voice_routes import attach as attach_voice  # noqa: E402

CSS_PATH = Path(__file__).with_name("style.css")
FIT_CSS_PATH = Path(__file__).with_name("style_fit.css")
"""Phone layout and dark mode, after the base stylesheet (ui/fit.py)."""
DEFAULT_META = "meta_user"
REFRESH_SEC = 5.0
"""How often an open window looks for what background pulses (schedules, autonomy) changed."""
TABS = (
    ("tab_personas", "personas", "ui.tabs.personas:build_personas_tab"),
    ("tab_memory", "memory", "ui.tabs.memory:build_memory_tab"),
    ("tab_playbooks", "playbooks", "ui.tabs.playbooks:build_playbooks_tab"),
    ("tab_schedules", "schedules", "ui.tabs.schedules:build_schedules_tab"),
    ("tab_world", "world", "ui.tabs.world:build_world_tab"),
    ("tab_settings", "settings", "ui.tabs.settings:build_settings_tab"),
)
"""The tabs beside チャット: (label key, tab id, builder's name), each module imported on the tab's
first opening (ui/lazy_tab.py)."""

# Escape or a click on the dimmed backdrop closes the item modal, like a desktop dialog.
GLOBAL_JS = """
() => {
  const closeModal = () => {
    const btn = document.querySelector('#item-modal-close');
    if (btn && btn.offsetParent !== null) btn.click();
  };
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') closeModal(); });
  document.addEventListener('click', (ev) => { if (ev.target && ev.target.id === 'item-modal') closeModal(); });
  // The live strip follows what is being said: each update scrolls it to its newest line.
  const follow = () => {
    const live = document.querySelector('#chat-live');
    if (!live) { setTimeout(follow, 200); return; }
    new MutationObserver(() => { live.scrollTop = live.scrollHeight; })
      .observe(live, {childList: true, subtree: true, characterData: true});
  };
  follow();
}
"""


def app_css() -> str:
    """The stylesheet passed to `launch(css=...)` (Gradio 6 takes CSS at launch, not in Blocks)."""
    return "\n".join(p.read_text(encoding="utf-8") for p in (CSS_PATH, FIT_CSS_PATH, MAP_CSS_PATH, VOICE_CSS_PATH))


def app_theme() -> gr.themes.Base:
    """A calm theme with local fonts only: nothing is fetched from the network."""
    return gr.themes.Soft(primary_hue="indigo", neutral_hue="slate", radius_size="md",
                          font=["Noto Sans CJK JP", "Hiragino Sans", "Yu Gothic UI", "system-ui", "sans-serif"],
                          font_mono=["Noto Sans Mono CJK JP", "ui-monospace", "monospace"])


def launch_kwargs(settings: Any, *, port: int | None = None, login_required: bool = False,
                  tls: Any = None) -> dict[str, Any]:
    """Keyword arguments for `Blocks.launch`: loopback by default, no sharing, errors shown, every
    request's Host checked (ui/guard.py), when `login_required` Gradio's login page over the login
    stored in the home (saiverse/care/_login.py), and with `tls` (checked `TlsFiles`) https."""
    from starlette.middleware import Middleware

    from saiverse.port import Gate, read_login
    from ui.guard import HostGuard, allowed_names, password_command
    from ui.login_page import login_page
    from ui.page import STATIC_DIR, PageDress, gradio_i18n, gradio_words_js
    from ui.web_guard import SiteGuard

    names, any_address = allowed_names(settings.host, getattr(settings, "allowed_hosts", ()))
    home = Path(settings.home)
    # The gate reads the stored login at each attempt: a password changed in the 設定 tab counts at once.
    gate = Gate(lambda: read_login(home)) if login_required else None
    labels = Labels(getattr(settings, "lang", "ja"))
    door = login_page(labels, password_command(settings)) if gate is not None else b""
    return {
        **({"auth": gate} if gate is not None else {}),
        # Middlewares given to the FastAPI app Gradio creates, the first outermost: they run before
        # every route — the Host check, then other sites, the login's door and unknown calls, then the
        # page as SAIVerse's own (manifest, icons, head; ui/page.py).
        "app_kwargs": {"middleware": [Middleware(HostGuard, names=names, any_address=any_address),
                                      Middleware(SiteGuard, gate=gate, login_page=door),
                                      Middleware(PageDress, lang=labels.lang)],
                       "routes": list(VOICE_ROUTES)},  # /voice/… (ui/voice_routes.py), behind the same guards
        "ssr_mode": False,  # Python answers every request itself (no Node front server beside the check)
        "pwa": True,  # installable on a phone's home screen (README, "From a phone")
        "server_name": settings.host,
        "server_port": port if port is not None else settings.port,
        "share": False,
        "show_error": True,
        "quiet": True,
        "footer_links": [],
        "css": app_css(),
        "js": with_guard(with_js(GLOBAL_JS, FIT_JS, gradio_words_js(labels), voice_js(labels)),
                         settings.max_upload_bytes, labels),
        "head": PHONE_HEAD,
        "i18n": gradio_i18n(labels),  # Gradio's own words in the app's language (ui/page.py)
        "favicon_path": str(STATIC_DIR / "icon-192.png"),
        "theme": app_theme(),
        # Pictures live under the data home, which may sit outside cwd and the temp dir. Backups are
        # not listed: the 設定 tab hands the one just made to its own session (ui/tabs/backups.py).
        "allowed_paths": [str(Path(settings.home) / "image"), str(Path(settings.home) / "icons")],
        # Gradio refuses a larger attachment while it streams in, before it is written or read.
        "max_file_size": settings.max_upload_bytes,
        **(tls.launch_kwargs() if tls is not None else {}),
    }


class _Views:
    """Everything the window shows about one building, computed from the manager."""

    def __init__(self, manager: CityPort, labels: Labels) -> None:
        self.manager, self.labels = manager, labels

    def panels(self, building_id: str) -> tuple[str, str, str]:
        """(header, building panel, item list) HTML."""
        view = self.manager.building_view(building_id)
        return (
            header_html(view, self.labels),
            building_panel_html(view, self.labels),
            item_list_html(view["items"], self.labels),
        )

    def notice(self) -> str:
        try:
            text = self.manager.model_notice()
        except Exception as exc:  # noqa: BLE001 - a broken model config must not stop the window
            text = str(exc)
        return models_notice_html(self.manager, self.labels, text)  # each persona's model, and why

    def muted_notices(self) -> frozenset[str]:
        """Notice kinds the chat leaves out because the line under it already says them: when the
        configured model falls back, every pulse's fallback notice would repeat that line."""
        configured = str(getattr(self.manager.settings, "default_model", "") or "").strip().lower()
        try:
            fallback = configured not in ("", "offline") and bool(self.manager.model_notice())
        except Exception:  # noqa: BLE001 - same as notice()
            fallback = False
        fallback = fallback or any_fallback(self.manager)  # the per-persona line says it already
        return frozenset({"model_fallback"}) if fallback else frozenset()

    def image_path(self, item_id: str) -> str | None:
        try:
            return self.manager.item_view(item_id).get("image_path")
        except (LookupError, ValueError):
            return None

    def meta_choices(self) -> list[tuple[str, str]]:
        """User-selectable meta playbooks (`meta_user_manual` among them drives the second chooser)."""
        return [(pb.display_name or pb.name, pb.name) for pb in self.manager.playbooks.user_selectable()]

    def sub_choices(self) -> list[tuple[str, str]]:
        """Router-callable playbooks for `meta_user_manual`; '' lets the router choose."""
        return [(self.labels("sub_auto"), "")] + [
            (f"{pb.display_name or pb.name} ({pb.name})", pb.name) for pb in self.manager.playbooks.router_callable()
        ]


def build_app(manager: CityPort, *, refresh_sec: float = REFRESH_SEC, lazy_tabs: bool = True) -> gr.Blocks:
    """The whole window, wired to `manager` (a SAIVerseManager).

    `refresh_sec` is the period of the timer that picks up what background pulses changed;
    `lazy_tabs=False` builds the side tabs at start (benchmarks/tab_open.py compares the two).
    """
    check_version()  # a Gradio other than the pinned one: which features are off, logged (ui/_gradio_compat.py)
    quiet_hidden_progress()  # no queue-place/start messages for hidden-progress events
    labels = Labels(getattr(manager.settings, "lang", "ja"))
    views = _Views(manager, labels)
    # Nothing of a building is drawn before the page's load event has given this window its own
    # (ui/session.py): a page never names one building while holding another.
    loading = f'<div class="sv-header"><span class="sv-header-title">{escape(labels("loading"))}</span></div>'

    with gr.Blocks(title="SAIVerse", analytics_enabled=False, fill_width=True) as demo:
        view_state = gr.State(ChatView())  # per session; Gradio hands handlers the same object
        with gr.Tabs(elem_id="sv-tabs"):
            with gr.Tab(labels("tab_chat"), id="chat", elem_id="tab-chat") as chat_tab:
                with gr.Row(elem_id="sv-window", equal_height=False):
                    with gr.Column(scale=0, min_width=210, elem_id="sv-left"):
                        gr.HTML(
                            f'<div class="sv-brand"><div class="sv-logo">SAIVerse</div>'
                            f'<div class="sv-muted">{escape(manager.world.city_name() or labels("app_subtitle"))}'
                            '</div></div>'
                        )
                        building, city_map = with_city_map(manager, labels, refresh_sec, gr.Radio(
                            building_choices(manager.buildings()), value=None, label=labels("buildings"),
                            elem_id="building-select", container=True,
                        ))
                    with gr.Column(scale=3, min_width=420, elem_id="sv-center"):
                        with gr.Row(elem_id="sv-chat-head", equal_height=True):
                            gr.HTML(drawer_button("left", labels), elem_id="sv-menu-left", container=False)
                            header = gr.HTML(loading, elem_id="chat-header")
                            # Compact choosers (no label box): the choice names say what they are.
                            meta = gr.Dropdown(
                                views.meta_choices(), value=DEFAULT_META, label=labels("meta_playbook"),
                                show_label=False, container=False, elem_id="meta-select", scale=0, min_width=170,
                            )
                            sub = gr.Dropdown(
                                views.sub_choices(), value="", label=labels("sub_playbook"), show_label=False,
                                container=False, elem_id="sub-select", scale=0, min_width=230, visible=False,
                            )
                            autonomy = autonomy_switch(manager, labels)
                            gr.HTML(speaker_button(labels), elem_id="sv-speaker-box", container=False)
                            stop = gr.Button(labels("stop"), elem_id="chat-stop", size="sm", scale=0, min_width=80)
                            gr.HTML(drawer_button("right", labels), elem_id="sv-menu-right", container=False)
                            gr.HTML(more_button(labels), elem_id="sv-menu-more", container=False)
                        # The building this page shows (updated in the same render as the header):
                        # a message is sent only when it is the session's building (ui/session.py).
                        shown = gr.Textbox("", visible=False, elem_id="sv-shown-building")
                        city_map.follow(shown)  # the map outlines the building this window shows
                        earlier = gr.Button(labels("load_earlier"), elem_id="chat-load-earlier", size="sm",
                                            visible=False)
                        chatbot = gr.Chatbot(
                            [], elem_id="chat", show_label=False, label=labels("chat"), height="calc(100vh - 330px)",
                            min_height=320, placeholder=labels("chat_placeholder"), feedback_options=None,
                            buttons=["copy"], group_consecutive_messages=False, latex_delimiters=[], editable="user",
                        )
                        line_actions = build_line_actions(labels)  # a clicked line: delete (ui/chat_actions.py)
                        live = gr.HTML("", elem_id="chat-live")
                        notice = gr.HTML(views.notice(), elem_id="model-notice", js_on_load=SETTINGS_LINK_JS)
                        build_chat_pull(manager, labels)  # one click to a model that can talk (ui/tabs/models.py)
                        with gr.Row(elem_id="sv-input-row", equal_height=True):
                            chat_input = gr.MultimodalTextbox(
                                elem_id="chat-input", show_label=False, label=labels("input_label"),
                                placeholder=labels("input_placeholder"),
                                # Any file: ui/attachments.py judges it and refuses in Japanese, keeping the message.
                                file_types=None, file_count="multiple", sources=["upload"], scale=1,
                            )
                            gr.HTML(listen_buttons(labels), elem_id="sv-listen", container=False, scale=0,
                                    min_width=100)  # 🎤, 📞 (ui/voice.py)
                    with gr.Column(scale=1, min_width=270, elem_id="sv-right"):
                        panel = gr.HTML("", elem_id="building-panel")
                        item_list = gr.HTML("", elem_id="item-list", js_on_load=ITEM_LIST_JS)
                        new_bag = build_new_bag(labels)
            side_tabs(TABS, manager, labels, lazy=lazy_tabs)  # built on first opening (ui/lazy_tab.py)
        modal = build_modal(labels)
        wire_modal(modal, manager, labels, item_list)
        wire_new_bag(new_bag, manager, labels, shown, item_list)
        timer = gr.Timer(refresh_sec)

        panel_outputs = [header, panel, item_list]

        def show(view: ChatView, building_id: str) -> list[Any]:
            """Everything the window shows of `building_id`, all from one session value: header,
            panel, items, chat, "load earlier", and the hidden `shown` the send checks."""
            open_building(view, manager, labels, building_id)
            view.panels = views.panels(building_id)
            return [*view.panels, list(view.messages), gr.Button(visible=view.has_more), building_id]

        def choosers() -> list[Any]:
            manager.playbooks.reload()  # imported by the CLI or another window meanwhile
            return [gr.Dropdown(choices=views.meta_choices()), gr.Dropdown(choices=views.sub_choices())]

        def radio(view: ChatView, bid: str) -> Any:
            view.buildings = building_choices(manager.buildings())
            return gr.Radio(choices=view.buildings, value=bid)

        def on_load(view: ChatView, stored: str | None) -> list[Any]:
            with session_lock(view):
                bid = first_building(manager, view, stored)
                return [radio(view, bid), *show(view, bid), views.notice(), *choosers()]

        def on_chat_tab(view: ChatView) -> list[Any]:
            """Back from another tab: buildings, personas and playbooks may have changed there (the
            window's own building may even be gone)."""
            with session_lock(view):
                if view.building_id is None:
                    # Gradio selects the first tab as the page opens: the load event gives this
                    # window its building (it may come back to the one this tab showed before).
                    return [gr.skip()] * 10  # building, the 6 of chat_view, notice, meta, sub
                moved = still_there(manager, view)
                bid = moved or str(view.building_id)
                if moved:
                    chat = show(view, bid)
                else:
                    view.panels = views.panels(bid)
                    chat = [*view.panels, gr.skip(), gr.skip(), gr.skip()]
                return [radio(view, bid), *chat, views.notice(), *choosers()]

        def on_move(view: ChatView, building_id: str) -> list[Any]:
            with session_lock(view):
                if view.busy or sending(view):
                    # The reply streaming here belongs to this building; it finishes (or ■ stops it) first.
                    gr.Warning(labels("move_while_busy"))
                    return [gr.Radio(value=view.building_id), *[gr.skip()] * 6]
                try:
                    manager.move_user(building_id)
                except (LookupError, ValueError) as exc:
                    gr.Warning(str(exc))
                    return [gr.Radio(value=view.building_id), *[gr.skip()] * 6]
                # The list is set too: a click made while the page loaded may have been drawn over by the load.
                return [gr.Radio(value=building_id), *show(view, building_id)]

        def resync(view: ChatView, shown_bid: str | None) -> list[Any]:
            """After a load or a move has been drawn: when the page shows another building than the
            session holds (two answers arrived out of order), draw the session's building again."""
            with session_lock(view):
                bid = view.building_id
                if not bid or shown_bid == bid or view.busy or sending(view):
                    return [gr.skip()] * 7
                return [radio(view, bid), *show(view, bid)]

        def on_earlier(view: ChatView) -> list[Any]:
            load_earlier(view, manager, labels)
            return [list(view.messages), gr.Button(visible=view.has_more)]

        def on_meta(name: str | None) -> Any:
            return gr.Dropdown(visible=name == MANUAL_META)

        def on_submit(message: dict[str, Any] | None, shown_bid: str | None, meta_name: str | None,
                      sub_name: str | None, view: ChatView) -> Iterator[list[Any]]:
            with session_lock(view):
                bid = view.building_id
                ok = bool(bid) and shown_bid == bid
                if ok:
                    begin_send(view)  # no move of this window until the send is over
                    try:
                        manager.move_user(str(bid))  # the person is where they speak
                    except (LookupError, ValueError):
                        pass  # the building is gone: handle_user_input says so in the chat
            if not ok:
                # The page still draws another building (or none yet): nothing is sent, the
                # message stays in the box.
                gr.Warning(labels("send_not_shown"))
                yield [gr.skip()] * 5
                return
            try:
                yield from send(manager, labels, views, view, message, bid, meta_name, sub_name)
            finally:
                end_send(view)

        def finish_send(view: ChatView) -> list[Any]:
            """The send is over: the exchange leaves the live strip for the Chatbot, in one update.
            (A send that joined a running one ends at once; the running one finishes both.)"""
            if view.busy:
                return [gr.skip(), gr.skip()]
            view.shown = len(view.messages)
            return [list(view.messages), ""]

        def on_stop(view: ChatView) -> None:
            n = manager.cancel_pulses(view.building_id or None)
            if view.pump is not None:
                view.pump.stop()  # personas still to answer this message are not started
            gr.Info(labels("stopped", n=n) if n else labels("nothing_to_stop"))

        def on_tick(view: ChatView, shown_bid: str | None) -> list[Any]:
            """Background pulses: new history lines and panel changes, sent only when there are any.
            While a long send streams (a production), what it finished moves into the Chatbot, so
            the live strip keeps only what is in progress. Buildings made, renamed or deleted
            elsewhere (another tab, the CLI) reach the building list."""
            skip = gr.skip
            if view.busy and show_finished(view):
                return [list(view.messages), live_html(view), *[skip()] * 3, skip(), skip(), skip()]
            if view.busy or not view.building_id:
                return [skip()] * 8
            with session_lock(view):
                choices = building_choices(manager.buildings())
                moved = still_there(manager, view) or (view.building_id if shown_bid != view.building_id else None)
                if moved:  # this window's building was deleted elsewhere, or the page drew another one
                    header_, panel_, items_, chat, more, bid = show(view, moved)
                    return [chat, skip(), header_, panel_, items_, radio(view, bid), more, bid]
                listing = radio(view, view.building_id) if choices != view.buildings else skip()
                caught = catch_up(view, manager, labels)
                view.shown = len(view.messages)
                chat = list(view.messages) if caught else skip()
                panels = views.panels(view.building_id)
                if panels == view.panels:
                    return [chat, skip(), *[skip()] * 3, listing, skip(), skip()]
                view.panels = panels
                return [chat, skip(), *panels, listing, skip(), skip()]

        chat_view = [*panel_outputs, chatbot, earlier, shown]
        demo.load(on_load, [view_state, shown], [building, *chat_view, notice, meta, sub], show_progress="hidden",
                  js=f"(view, shown) => [view, ({STORED_BUILDING_JS.strip()})(shown)]",
                  ).then(resync, [view_state, shown], [building, *chat_view], show_progress="hidden")
        chat_tab.select(on_chat_tab, view_state, [building, *chat_view, notice, meta, sub], show_progress="hidden")
        building.input(on_move, [view_state, building], [building, *chat_view], show_progress="minimal").then(
            resync, [view_state, shown], [building, *chat_view], show_progress="hidden")
        earlier.click(on_earlier, view_state, [chatbot, earlier], show_progress="hidden")
        meta.change(on_meta, meta, sub, show_progress="hidden")
        # A message sent while a long pulse works (e.g. an instruction for a production's plan) must
        # not wait in Gradio's queue behind it: sends run side by side; the manager orders pulses.
        chat_input.submit(
            on_submit, [chat_input, shown, meta, sub, view_state], [live, chat_input, *panel_outputs],
            show_progress="hidden", concurrency_limit=8, trigger_mode="multiple",
        ).then(finish_send, view_state, [chatbot, live], show_progress="hidden")
        stop.click(on_stop, view_state, None, show_progress="hidden")
        timer.tick(on_tick, [view_state, shown], [chatbot, live, *panel_outputs, building, earlier, shown],
                   show_progress="hidden")
        wire_autonomy(manager, labels, autonomy, demo, chat_tab)
        attach_voice(demo, manager)  # the /voice/… routes of the app serving this window reach this city
        wire_line_actions(manager, labels, line_actions, chatbot, view_state, earlier, [building], demo)
    return demo
