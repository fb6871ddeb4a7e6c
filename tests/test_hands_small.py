"""Issue 21's smaller points: the seed guide tells the truth about models, `database/migrate.py`
names itself, the 設定 tab shows no Gemini names it does not use (and saving it does not pin them),
the plan panel says when each step ran, and llama.cpp's own log stays out of the console."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from saiverse.manager import SAIVerseManager
from saiverse.seed import GUIDE_TEXT
from saiverse.settings import load_settings
from ui.i18n import Labels
from ui.side_panel import plan_html
from ui.tabs.settings import FIELDS, model_box_values, model_changes

ROOT = Path(__file__).resolve().parents[1]


def test_the_guide_says_what_answers_by_default(manager: SAIVerseManager) -> None:
    assert "内蔵のオフラインモデル" not in GUIDE_TEXT and "ローカルモデル (llama.cpp" in GUIDE_TEXT
    assert "自律" in GUIDE_TEXT
    guide = next(i for i in manager.items.list_owned("building", "library") if i.type == "document")
    assert "組み込みのローカルモデル" in manager.items.read_document(guide.item_id)


def test_migrate_script_help_and_errors_name_the_script(tmp_path: Path) -> None:
    script = [sys.executable, str(ROOT / "database" / "migrate.py")]
    shown = subprocess.run([*script, "--help"], capture_output=True, text=True, check=False)
    assert shown.returncode == 0 and shown.stdout.startswith("usage: database/migrate.py")
    assert "main.py migrate" not in shown.stdout.splitlines()[0] and "--home" in shown.stdout
    bad = subprocess.run([*script, "--bogus"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "database/migrate.py: error: unrecognized arguments: --bogus" in bad.stderr
    db = tmp_path / "one.db"
    done = subprocess.run([*script, "--db", str(db), "--json"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and '"version_after"' in done.stdout


def test_settings_tab_shows_no_gemini_model_it_does_not_use(manager: SAIVerseManager,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    view = manager.admin.settings_view()
    shown = dict(zip([k for k, _ in FIELDS], model_box_values(manager.settings, view), strict=True))
    assert shown["default_lightweight_model"] == shown["vision_model"] == ""
    assert shown["lightweight_vision_model"] == "" and shown["default_model"] == "offline"
    # Saving the form as shown keeps the defaults (not pinned into settings.json): the following goes on.
    form = {k: shown[k] for k, _ in FIELDS}
    manager.admin.save_settings(model_changes(manager.settings, form))
    assert manager.settings.source("default_lightweight_model").kind == "default"
    # A name the user types is saved and shown.
    manager.admin.save_settings(model_changes(manager.settings, {**form, "vision_model": "gpt-4.1-mini"}))
    view = manager.admin.settings_view()
    assert model_box_values(manager.settings, view)[[k for k, _ in FIELDS].index("vision_model")] == "gpt-4.1-mini"
    monkeypatch.setenv("GEMINI_API_KEY", "g-1234567890")  # with a key the Gemini defaults are in force
    with_key = load_settings()
    assert model_box_values(with_key, manager.admin.settings_view())[1] == with_key.default_lightweight_model


def test_plan_steps_say_when_they_ran(manager: SAIVerseManager) -> None:
    manager.world.move_persona("sora", "atelier")
    updates: list[dict] = []
    manager.production.start("sora", "atelier", "絵本を作って: 猫の冒険",
                             lambda ev: updates.append(ev) if ev.get("type") == "data-plan_update" else None)
    running = next(u for u in updates if any(s["status"] == "in_progress" for s in u["plan"]))
    html = plan_html(running, Labels("ja"))
    assert "から作業中…" in html and 'data-step-status="in_progress"' in html
    final = plan_html(updates[-1], Labels("ja"))
    assert final.count("開始・") == 5 and "秒" in final
    starts = [s["started_at"] for s in updates[-1]["plan"]]
    assert starts == sorted(starts)  # one after another, as they happened


@pytest.mark.local_model
def test_llama_cpp_lines_stay_out_of_the_console(saiverse_home: Path) -> None:
    code = ("from saiverse.settings import load_settings\n"
            "from saiverse.llm.registry import resolve_model\n"
            "m, _ = resolve_model('local', load_settings())\n"
            "print(m.generate(__import__('chat').ChatRequest(messages=[{'role': 'user', 'content': 'こんにちは'}],"
            " system='あなたはミナ')).text[:1])\n")
    env = {**os.environ, "SAIVERSE_HOME": str(saiverse_home)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "llama_" not in done.stderr and "ggml" not in done.stderr, done.stderr
