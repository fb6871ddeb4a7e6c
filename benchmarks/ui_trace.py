"""Where the first streamed token's time goes, from Enter to the reply on screen (real Chromium).

    python benchmarks/ui_trace.py [--sends 10] [--history 200]

The same set-up as benchmarks/ui.py (the app in this process on the offline model, `--history` lines
in the chat), with marks on one clock (milliseconds since the epoch, page and server alike):

    page    keydown          the Enter keydown on the chat input
            join_sent        the page's `queue/join` POST leaves (Gradio's client)
            join_answered    its answer (the event id) is back
            data_opened      the `queue/data` SSE stream is asked for (when the page had none open)
            msg:<kind>       an SSE message of the send's event arrives (process_starts, process_generating, ...)
            live_dom         the persona's first chunk is in the live strip's DOM
            painted          the next animation frame after that
            longtask_*       the first long task (≥ 50 ms) Chromium reports after the keydown
    server  srv_join         Gradio's queue takes the event
            srv_process      the queue starts the job
            srv_handler      the send handler (ui/send.py `send`) is entered
            srv_<step>       the handler's steps (move_user, handle_user_input, catch_up, avatars_of, ...),
                             and srv_<step>_done as each returns
            srv_put:<type>   the pulse's worker hands an event over (saiverse/pulse/_controller.py)
            srv_event:<type> the send's pump reads it
            srv_yield        the handler yields its first update
            srv_msg:<kind>   the queue hands a message of the send's event to the SSE stream

Printed: the median of each mark relative to the keydown, over `--sends` sends (after a warm-up),
then one JSON object.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scratch import scratch  # noqa: E402
from benchmarks.ui import fill_history, wait_idle  # noqa: E402
from tests.support.browser import chromium, new_context, settle, start_app  # noqa: E402

SERVER: list[tuple[float, str]] = []
SEND_FN = "on_submit"
"""The send event's handler name in ui/app.py."""

PAGE_JS = r"""
(() => {
  const now = () => performance.timeOrigin + performance.now();
  const marks = window.__svMarks = [];
  const mark = (what) => marks.push([now(), what]);
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && ev.target.closest && ev.target.closest('#chat-input')) mark('keydown');
  }, {capture: true});
  const sendIds = new Set();
  // Long tasks (> 50 ms... Chromium reports >= 50 ms) and every task's gaps show a busy main thread.
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        marks.push([performance.timeOrigin + e.startTime, 'longtask_start']);
        marks.push([performance.timeOrigin + e.startTime + e.duration, 'longtask_end']);
      }
    }).observe({type: 'longtask', buffered: false});
  } catch (e) {}
  const original = window.fetch.bind(window);
  const read = async (body) => {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      let chunk;
      try { chunk = await reader.read(); } catch (e) { return; }
      if (chunk.done) return;
      const t = now();
      buffer += decoder.decode(chunk.value, {stream: true});
      const lines = buffer.split('\n');
      buffer = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('data:')) continue;
        try {
          const msg = JSON.parse(line.slice(5));
          if (sendIds.has(msg.event_id)) marks.push([t, 'msg:' + msg.msg]);
        } catch (e) {}
      }
    }
  };
  window.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : (input && input.url) || String(input);
    if (url.includes('/queue/join')) {
      let isSend = false;
      try {
        const fn = JSON.parse(init.body).fn_index;
        const dep = (window.gradio_config.dependencies || []).find((d) => d.id === fn);
        isSend = !!dep && dep.targets.some((t) => t[1] === 'submit');
      } catch (e) {}
      if (isSend) mark('join_sent');
      const response = await original(input, init);
      if (isSend) {
        mark('join_answered');
        try { sendIds.add((await response.clone().json()).event_id); } catch (e) {}
      }
      return response;
    }
    if (url.includes('/queue/data')) {
      mark('data_opened');
      const response = await original(input, init);
      if (response.body) {
        const [mine, theirs] = response.body.tee();
        read(mine);
        const {status, statusText, headers} = response;
        return new Response(theirs, {status, statusText, headers});
      }
      return response;
    }
    return original(input, init);
  };
  window.__svWatch = (name) => {
    const live = document.querySelector('#chat-live');
    const obs = new MutationObserver(() => {
      const rows = live.querySelectorAll('.sv-live-bot');
      const last = rows[rows.length - 1];
      if (last && last.innerText.replace(name, '').replace(/[\s…📚]/g, '').length > 0) {
        obs.disconnect();
        mark('live_dom');
        requestAnimationFrame(() => mark('painted'));
      }
    });
    obs.observe(live, {subtree: true, childList: true, characterData: true});
  };
})();
"""


def patch_server() -> None:
    """Marks in Gradio's queue and around the send handler (ui/app.py looks `send` up at each call)."""
    from gradio import queueing

    import ui.app

    def mark(what: str) -> None:
        SERVER.append((time.time() * 1000, what))

    def is_send(event: Any) -> bool:
        return getattr(getattr(event, "fn", None), "name", "") == SEND_FN

    push = queueing.Queue.push

    @functools.wraps(push)
    async def traced_push(self: Any, *a: Any, **kw: Any) -> Any:
        body = kw.get("body", a[0] if a else None)
        fn = getattr(body, "fn_index", None)
        fns = self.blocks.fns if hasattr(self.blocks, "fns") else {}
        if fns and getattr(fns.get(fn), "name", "") == SEND_FN:
            mark("srv_join")
        return await push(self, *a, **kw)

    process = queueing.Queue.process_events

    @functools.wraps(process)
    async def traced_process(self: Any, events: list[Any], *a: Any, **kw: Any) -> Any:
        if events and is_send(events[0]):
            mark("srv_process")
        return await process(self, events, *a, **kw)

    send_message = queueing.Queue.send_message

    def traced_send_message(self: Any, event: Any, message: Any) -> None:
        if is_send(event):
            mark(f"srv_msg:{getattr(message, 'msg', type(message).__name__)}")
        send_message(self, event, message)

    queueing.Queue.push = traced_push
    queueing.Queue.process_events = traced_process
    queueing.Queue.send_message = traced_send_message

    handler = ui.app.send

    def traced_send(*a: Any, **kw: Any) -> Iterator[Any]:
        mark("srv_handler")
        first = True
        for out in handler(*a, **kw):
            if first:
                mark("srv_yield")
                first = False
            yield out

    ui.app.send = traced_send

    import ui.send

    def timed(owner: Any, name: str, *, source: bool = False) -> None:
        inner = getattr(owner, name)

        def wrapper(*a: Any, **kw: Any) -> Any:
            mark(f"srv_{name}")
            out = inner(*a, **kw)
            mark(f"srv_{name}_done")
            return watch(out) if source else out

        setattr(owner, name, wrapper)

    def watch(events: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for ev in events:
            mark(f"srv_event:{ev.get('type')}")
            yield ev

    for name in ("catch_up", "avatars_of", "stream_events", "wait_for_send", "read_attachments", "refusal"):
        timed(ui.send, name)
    timed(ui.app._Views, "muted_notices")
    timed(ui.app, "begin_send")
    MANAGER_TIMED.extend(["move_user", "handle_user_input"])

    from saiverse.pulse import _controller  # the pulse's worker handing its events over

    put = _controller.PulseHandle._put

    def traced_put(self: Any, ev: Any) -> None:
        mark(f"srv_put:{ev.get('type') if ev else 'end'}")
        put(self, ev)

    _controller.PulseHandle._put = traced_put


MANAGER_TIMED: list[str] = []


def time_manager(manager: Any) -> None:
    """Marks around the manager's calls the send makes (its event source watched)."""
    for name in MANAGER_TIMED:
        inner = getattr(manager, name)

        def wrapper(*a: Any, _inner: Any = inner, _name: str = name, **kw: Any) -> Any:
            SERVER.append((time.time() * 1000, f"srv_{_name}"))
            out = _inner(*a, **kw)
            SERVER.append((time.time() * 1000, f"srv_{_name}_done"))
            if _name == "handle_user_input":
                return _watch(out)
            return out

        setattr(manager, name, wrapper)


def _watch(events: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for ev in events:
        SERVER.append((time.time() * 1000, f"srv_event:{ev.get('type')}"))
        yield ev


def one_send(page: Any, manager: Any, i: int) -> dict[str, float]:
    """Marks of one send, in ms after its keydown (the first of each kind)."""
    SERVER.clear()
    page.evaluate("() => { window.__svMarks.length = 0; }")
    box = page.locator("#chat-input textarea")
    box.fill(f"こんにちは、今日のおすすめは？ ({i})")
    page.evaluate("(n) => window.__svWatch(n)", "ミナ")
    box.press("Enter")
    page.wait_for_function("() => window.__svMarks.some((m) => m[1] === 'painted')")
    wait_idle(page, manager)
    marks = [tuple(m) for m in page.evaluate("() => window.__svMarks")] + list(SERVER)
    t0 = next(t for t, what in marks if what == "keydown")
    out: dict[str, float] = {}
    for t, what in sorted(marks):
        out.setdefault(str(what), float(t) - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sends", type=int, default=10)
    ap.add_argument("--history", type=int, default=200)
    args = ap.parse_args()
    patch_server()
    home = scratch("saiverse-bench-ui-trace-") / "home"
    app = start_app(home)
    time_manager(app.manager)
    runs: list[dict[str, float]] = []
    try:
        fill_history(app.manager, "library", args.history)
        app.manager.move_user("library")
        with chromium() as browser:
            context = new_context(browser)
            context.add_init_script(PAGE_JS)
            page = context.new_page()
            page.goto(app.url)
            page.wait_for_selector("#chat-header :text('図書館')")
            settle(page)
            one_send(page, app.manager, 0)  # warm-up
            runs = [one_send(page, app.manager, i + 1) for i in range(args.sends)]
            context.close()
    finally:
        app.close()
    kinds = sorted({k for r in runs for k in r}, key=lambda k: statistics.median(r[k] for r in runs if k in r))
    medians = {k: round(statistics.median(r[k] for r in runs if k in r), 1) for k in kinds}
    for k in kinds:
        seen = sum(1 for r in runs if k in r)
        print(f"{k:28s} {medians[k]:8.1f} ms" + (f"   (in {seen} of {len(runs)} sends)" if seen < len(runs) else ""))
    print(json.dumps({"sends": len(runs), "chat_history_lines": args.history, "median_ms_after_keydown": medians}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
