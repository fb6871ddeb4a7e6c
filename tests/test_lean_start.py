"""What `python main.py` refuses of Gradio's import (ui/_gradio_compat.py): IPython and the editor stubs Gradio
rewrites as each component class is defined. The refusals hold in a fresh interpreter, leave a
process that imported Gradio already alone, and the real `python main.py` window still works in
real Chromium: the chat answers and a side tab opens with its contents."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.browser import chromium, free_port, new_page, open_tab, require_chromium, send_for_reply, shot
from tests.support.processes import stop_all, wait_serving

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(ROOT),
                          timeout=180, check=False)


def test_fresh_process_skips_stub_writing_and_ipython() -> None:
    done = _python("""
import importlib.util, sys
from ui._gradio_compat import lean_gradio, _no_stub
lean_gradio()
import gradio as gr
import gradio.component_meta as meta
assert meta.create_or_modify_pyi is _no_stub, meta.create_or_modify_pyi
try:
    import IPython
except ImportError:
    pass
else:
    raise AssertionError("IPython was imported")
# The finder left once it had done its work; Gradio's components are whole.
assert not any(type(f).__name__ == "_StubsFinder" for f in sys.meta_path)
with gr.Blocks() as demo:
    chat = gr.Chatbot([{"role": "user", "content": "やあ"}])
    box = gr.Textbox("x")
    box.submit(lambda t: t, box, box)
config = demo.get_config_file()
assert {c["type"] for c in config["components"]} >= {"chatbot", "textbox"}, config["components"]
print("ok")
""")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_gradio_already_imported_is_left_as_it_is() -> None:
    done = _python("""
import sys
import gradio
import gradio.component_meta as meta
before = meta.create_or_modify_pyi, list(sys.meta_path)
from ui._gradio_compat import lean_gradio
lean_gradio()
assert (meta.create_or_modify_pyi, list(sys.meta_path)) == before
print("ok")
""")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


@pytest.mark.browser
@pytest.mark.filterwarnings("ignore:::gradio.queueing")
def test_main_py_window_answers_and_opens_a_tab(saiverse_home: Path) -> None:
    require_chromium()
    port = free_port()
    env = {**os.environ, "SAIVERSE_HOME": str(saiverse_home), "SAIVERSE_DEFAULT_MODEL": "offline"}
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=str(saiverse_home.parent))
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_serving(proc, url, timeout=180, output=lambda: proc.stderr.read())  # type: ignore[union-attr]
        with chromium() as browser, new_page(browser, url) as page:
            page.wait_for_selector("#chat-header :text('図書館')")
            reply = send_for_reply(page, "こんにちは、今日は何を読みますか？")
            assert "ミナ" in reply.inner_text()
            shot(page, "lean_main_chat")
            open_tab(page, "ペルソナ")
            page.locator("#persona-table", has_text="ミナ").wait_for()
            shot(page, "lean_main_personas")
    finally:
        stop_all([proc])
