"""Opening each tab beside チャット for the first time in a window, in real Chromium: the app's tabs
built on first opening (ui/lazy_tab.py) against the same tabs built at start, interleaved.

    python benchmarks/tab_open.py [--windows 3]

Two apps run in this process on the offline model, each over its own temp data home (seeded alike):
one built as `python main.py` builds it, one with `build_app(..., lazy_tabs=False)`. Each round opens
a fresh window on each app in turn and clicks through the six tabs, timing in the page
(`performance.now()`) from each click to the tab's own content laid out. Prints the median per tab
for each and the difference. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scratch import scratch  # noqa: E402
from tests.support.browser import RunningApp, chromium, free_port, new_page, settle  # noqa: E402

TABS = {
    "ペルソナ": "#persona-save",
    "メモリ": "#memory-table .sv-empty, #memory-table table",
    "プレイブック": "#playbook-graph svg",
    "スケジュール": "#schedule-add",
    "ワールド": "#world-save",
    "設定": "#settings-save",
}
"""Tab label → what shows the tab's content is there (the playbook graph: its drawn Mermaid)."""


def serve(home: Path, *, lazy: bool) -> RunningApp:
    """The app over `home` on a free loopback port, its side tabs built lazily or at start."""
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import Settings
    from ui.app import build_app, launch_kwargs

    home.mkdir(parents=True)
    port = free_port()
    settings = Settings(home=home, database_url=f"sqlite:///{home / 'saiverse.db'}", port=port,
                        default_model="offline")
    manager = SAIVerseManager(settings)
    app = build_app(manager, lazy_tabs=lazy)
    app.launch(**launch_kwargs(settings, port=port), prevent_thread_lock=True)
    return RunningApp(f"http://127.0.0.1:{port}/", manager, app, home)


# Clicks the tab in the page and resolves with the milliseconds until an element matching the
# selector is laid out (offsetParent: shown), watched on every DOM change.
OPEN_JS = """
([label, selector]) => new Promise((resolve) => {
  const shown = () => [...document.querySelectorAll(selector)].some((e) => e.offsetParent !== null);
  const button = [...document.querySelectorAll('#sv-tabs button[role="tab"]')]
    .find((b) => b.textContent.includes(label));
  const t0 = performance.now();
  const obs = new MutationObserver(() => {
    if (shown()) { obs.disconnect(); resolve(performance.now() - t0); }
  });
  obs.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  button.click();
  if (shown()) { obs.disconnect(); resolve(performance.now() - t0); }
})
"""


def open_all(browser: Any, url: str) -> dict[str, float]:
    """Milliseconds from each tab's click to its content shown, in one fresh window (timed in the page)."""
    times = {}
    with new_page(browser, url) as page:
        for label, selector in TABS.items():
            times[label] = float(page.evaluate(OPEN_JS, [label, selector]))
            settle(page)  # the tab's refresh has landed before the next click
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--windows", type=int, default=3, help="fresh windows per app")
    args = ap.parse_args()
    root = scratch("saiverse-tabs-")
    lazy, eager = serve(root / "lazy", lazy=True), serve(root / "eager", lazy=False)
    runs: dict[str, dict[str, list[float]]] = {"lazy": {t: [] for t in TABS}, "eager": {t: [] for t in TABS}}
    try:
        with chromium() as browser:
            for _ in range(args.windows):
                for name, app in (("eager", eager), ("lazy", lazy)):
                    for label, ms in open_all(browser, app.url).items():
                        runs[name][label].append(ms)
    finally:
        lazy.close()
        eager.close()
    med = statistics.median
    figures: dict[str, Any] = {"windows": args.windows}
    print(f"{'tab':<10} {'built at start':>16} {'built on opening':>18} {'difference':>12}")
    for label in TABS:
        e, z = med(runs["eager"][label]), med(runs["lazy"][label])
        print(f"{label:<10} {e:>13.0f} ms {z:>15.0f} ms {z - e:>+9.0f} ms")
        figures[label] = {"start_ms": round(e), "opening_ms": round(z)}
    print(json.dumps(figures, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
