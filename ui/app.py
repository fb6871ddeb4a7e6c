"""The SAIVerse window (DESIGN §11): building list | chat | building panel, plus the item modal.

`build_app(manager)` assembles the Gradio Blocks and wires every event to the manager — the only
backend the UI talks to. `launch(settings)` opens the world and serves it (blocking), which is
what `python main.py` runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

# Before gradio is imported: a local app never phones home.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

from ui.chat import EventRenderer, Message, history_messages, system_message  # noqa: E402
from ui.i18n import Labels  # noqa: E402
from ui.modal import build_modal, wire_modal  # noqa: E402
from ui.side_panel import (  # noqa: E402
    ITEM_LIST_JS,
    building_choices,
    building_panel_html,
    header_html,
    item_list_html,
)

CSS_PATH = Path(__file__).with_name("style.css")

# Escape or a click on the dimmed backdrop closes the item modal, like a desktop dialog.
GLOBAL_JS = """
() => {
  const closeModal = () => {
    const btn = document.querySelector('#item-modal-close');
    if (btn && btn.offsetParent !== null) btn.click();
  };
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') closeModal(); });
  document.addEventListener('click', (ev) => { if (ev.target && ev.target.id === 'item-modal') closeModal(); });
}
"""


def app_css() -> str:
    """The stylesheet passed to `launch(css=...)` (Gradio 6 takes CSS at launch, not in Blocks)."""
    return CSS_PATH.read_text(encoding="utf-8")


def app_theme() -> gr.themes.Base:
    """A calm theme with local fonts only: nothing is fetched from the network."""
    return gr.themes.Soft(
        primary_hue="indigo", neutral_hue="slate", radius_size="md",
        font=["Noto Sans CJK JP", "Hiragino Sans", "Yu Gothic UI", "system-ui", "sans-serif"],
        font_mono=["Noto Sans Mono CJK JP", "ui-monospace", "monospace"],
    )


def launch_kwargs(settings: Any, *, port: int | None = None) -> dict[str, Any]:
    """Keyword arguments for `Blocks.launch`: loopback by default, no sharing, errors shown."""
    return {
        "server_name": settings.host,
        "server_port": port if port is not None else settings.port,
        "share": False,
        "show_error": True,
        "quiet": True,
        "footer_links": [],
        "css": app_css(),
        "js": GLOBAL_JS,
        "theme": app_theme(),
        # Pictures live under the data home, which may sit outside cwd and the temp dir.
        "allowed_paths": [str(Path(settings.home) / "image")],
    }


class _Views:
    """Everything the window shows about one building, computed from the manager."""

    def __init__(self, manager: Any, labels: Labels) -> None:
        self.manager, self.labels = manager, labels

    def avatars(self) -> dict[str, str]:
        return {p.persona_id: p.avatar for p in self.manager.personas()}

    def messages(self, building_id: str) -> list[Message]:
        return history_messages(self.manager.history(building_id), self.avatars(), self.labels)

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
        return f'<div class="sv-notice">ℹ️ {escape(text)}</div>' if text else ""

    def image_path(self, item_id: str) -> str | None:
        try:
            return self.manager.item_view(item_id).get("image_path")
        except (LookupError, ValueError):
            return None


def build_app(manager: Any) -> gr.Blocks:
    """The whole window, wired to `manager` (a SAIVerseManager)."""
    labels = Labels(getattr(manager.settings, "lang", "ja"))
    views = _Views(manager, labels)
    start = manager.user_building()
    header0, panel0, items0 = views.panels(start)

    with gr.Blocks(title="SAIVerse", analytics_enabled=False, fill_width=True) as demo:
        with gr.Row(elem_id="sv-window", equal_height=False):
            with gr.Column(scale=0, min_width=210, elem_id="sv-left"):
                gr.HTML(
                    f'<div class="sv-brand"><div class="sv-logo">SAIVerse</div>'
                    f'<div class="sv-muted">{escape(labels("app_subtitle"))}</div></div>'
                )
                building = gr.Radio(
                    building_choices(manager.buildings()), value=start, label=labels("buildings"),
                    elem_id="building-select", container=True,
                )
            with gr.Column(scale=3, min_width=420, elem_id="sv-center"):
                with gr.Row(elem_id="sv-chat-head", equal_height=True):
                    header = gr.HTML(header0, elem_id="chat-header")
                    stop = gr.Button(labels("stop"), elem_id="chat-stop", size="sm", scale=0, min_width=80)
                chatbot = gr.Chatbot(
                    views.messages(start), elem_id="chat", show_label=False, height="calc(100vh - 250px)",
                    min_height=320, placeholder=labels("chat_placeholder"), feedback_options=None,
                    buttons=["copy"], group_consecutive_messages=False,
                )
                notice = gr.HTML(views.notice(), elem_id="model-notice")
                chat_input = gr.MultimodalTextbox(
                    elem_id="chat-input", show_label=False, placeholder=labels("input_placeholder"),
                    file_types=["image"], file_count="multiple", sources=["upload"], autofocus=True,
                )
            with gr.Column(scale=1, min_width=270, elem_id="sv-right"):
                panel = gr.HTML(panel0, elem_id="building-panel")
                item_list = gr.HTML(items0, elem_id="item-list", js_on_load=ITEM_LIST_JS)
        modal = build_modal(labels)
        wire_modal(modal, manager, labels, item_list)

        view_outputs = [header, panel, item_list, chatbot]

        def show(building_id: str) -> list[Any]:
            return [*views.panels(building_id), views.messages(building_id)]

        def on_load() -> list[Any]:
            bid = manager.user_building()
            radio = gr.Radio(choices=building_choices(manager.buildings()), value=bid)
            return [radio, *show(bid), views.notice()]

        def on_move(building_id: str) -> list[Any]:
            try:
                manager.move_user(building_id)
            except (LookupError, ValueError) as exc:
                gr.Warning(str(exc))
                return [gr.Radio(value=manager.user_building()), *[gr.skip()] * len(view_outputs)]
            return [gr.skip(), *show(building_id)]

        def on_submit(message: dict[str, Any] | None, building_id: str | None) -> Iterator[list[Any]]:
            yield from _stream_reply(manager, labels, views, message, building_id)

        def on_stop() -> None:
            n = manager.cancel_pulses()
            gr.Info(labels("stopped", n=n) if n else labels("nothing_to_stop"))

        demo.load(on_load, None, [building, *view_outputs, notice], show_progress="hidden")
        building.input(on_move, building, [building, *view_outputs], show_progress="minimal")
        sent = chat_input.submit(
            on_submit, [chat_input, building], [chatbot, chat_input, header, panel, item_list],
            show_progress="hidden",
        )
        stop.click(on_stop, None, None, cancels=[sent])
    return demo


def _read_attachments(files: list[Any], labels: Labels) -> list[tuple[str, bytes]]:
    """Uploaded files (paths in Gradio's cache) → (filename, bytes) for the manager."""
    out: list[tuple[str, bytes]] = []
    for f in files:
        path = f if isinstance(f, str) else (f or {}).get("path")
        if not path:
            continue
        try:
            out.append((Path(path).name, Path(path).read_bytes()))
        except OSError:
            gr.Warning(labels("read_failed", name=Path(path).name))
    return out


def _stream_reply(
    manager: Any, labels: Labels, views: _Views, message: dict[str, Any] | None, building_id: str | None,
) -> Iterator[list[Any]]:
    """The send handler: yields [chat, input, header, panel, items] as pulse events arrive."""
    skip = gr.skip
    message = message or {}
    text = str(message.get("text") or "")
    attachments = _read_attachments(list(message.get("files") or []), labels)
    if not text.strip() and not attachments:
        yield [skip(), skip(), skip(), skip(), skip()]
        return
    bid = building_id or manager.user_building()
    messages = views.messages(bid)
    renderer = EventRenderer(messages, labels, image_path_of=views.image_path)
    # Clear the box at once; the user's line appears with the manager's user_message event.
    yield [list(messages), gr.MultimodalTextbox(value=None), skip(), skip(), skip()]
    try:
        for ev in manager.handle_user_input(bid, text, attachments):
            if renderer.apply(ev):
                yield [list(messages), skip(), *views.panels(bid)]
            else:
                yield [list(messages), skip(), skip(), skip(), skip()]
    except Exception as exc:  # noqa: BLE001 - shown in the chat; a traceback is never the UI
        messages.append(system_message(labels("error", message=str(exc) or type(exc).__name__)))
        print(f"saiverse ui: send failed: {exc!r}", file=sys.stderr)
    yield [list(messages), skip(), *views.panels(bid)]


def launch(settings: Any) -> int:
    """Open the world under `settings.home` and serve the UI until interrupted; returns an exit code."""
    from saiverse.manager import SAIVerseManager

    try:
        manager = SAIVerseManager(settings)
    except Exception as exc:  # noqa: BLE001 - main.py prints this and exits non-zero
        print(f"SAIVerse could not open {settings.home}: {exc}", file=sys.stderr)
        return 1
    from saiverse.ticker import Ticker

    ticker = Ticker(manager)
    try:
        app = build_app(manager)
        app.launch(**launch_kwargs(settings), prevent_thread_lock=True)
        ticker.start()  # schedules and autonomous turns run while the window is served
        # Printed once the port is really bound, so the line is never a lie.
        print(f"SAIVerse: http://{settings.host}:{settings.port}/  (Ctrl+C to stop)", flush=True)
        app.block_thread()
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"SAIVerse could not serve on {settings.host}:{settings.port}: {exc}", file=sys.stderr)
        return 1
    finally:
        ticker.stop()
        manager.close()
    return 0
