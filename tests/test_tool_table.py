"""README's tool table is exactly what scripts/tool_table.py makes from the tools' schemas."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tools import TOOL_REGISTRY

ROOT = Path(__file__).resolve().parents[1]


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("tool_table", ROOT / "scripts" / "tool_table.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_table_equals_the_scripts_output() -> None:
    script = _script()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert script.readme_table(readme) == script.table(), "run python scripts/tool_table.py and paste its output"


def test_the_table_names_every_tool_and_every_argument() -> None:
    table = _script().table()
    rows = {line.split("|")[1].strip().strip("`"): line for line in table.splitlines()[2:]}
    assert set(rows) == set(TOOL_REGISTRY)
    for name, tool in TOOL_REGISTRY.items():
        for arg in tool.parameters.get("properties", {}):
            assert f"`{arg}`" in rows[name], (name, arg)
        for arg in tool.parameters.get("required", []):
            assert f"`{arg}` (" in rows[name] and "required" in rows[name], (name, arg)
