"""One way to export (docs/ARCHITECTURE.md, "Layers"): a package's `__init__` imports its public names eagerly
and lists them once in `__all__` (ruff's F401/F822 keep the two equal); here every listed name resolves, no
public name is left out of the list, and `python main.py --help` still imports none of the domain."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("saiverse", "sea", "tools", "database", "chat", "cli", "ui")
FACES = ["saiverse.port", *sorted(
    ".".join(p.parent.relative_to(ROOT).parts) for top in SCANNED for p in (ROOT / top).rglob("__init__.py"))]
"""Every package of the project, and saiverse/port.py (the UI's face of the domain). A first-party class or
function found in a face but not in its `__all__` is a forgotten export (stdlib and typing names are not)."""


@pytest.mark.parametrize("name", FACES)
def test_every_exported_name_resolves(name: str) -> None:
    face = importlib.import_module(name)
    exported = getattr(face, "__all__", [])
    missing = [n for n in exported if not hasattr(face, n)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"
    assert len(set(exported)) == len(exported), f"{name}.__all__ names something twice"
    if not exported:
        return
    ours = {*SCANNED, "portable"}
    unlisted = sorted(n for n, v in vars(face).items() if not n.startswith("_") and n not in exported
                      and not isinstance(v, types.ModuleType)
                      and str(getattr(v, "__module__", "")).split(".")[0] in ours)
    assert not unlisted, f"{name} defines public names its __all__ does not list: {unlisted}"


def test_help_imports_none_of_the_domain() -> None:
    """The faces are eager, so a command's parser must not import them: `--help` stays as quick as Python."""
    code = ("import runpy, sys\nsys.argv = ['main.py', '--help']\ntry:\n    runpy.run_path('main.py', run_name='__main__')\n"
            "except SystemExit:\n    pass\nimport json\nprint(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    heavy = [m for m in loaded if m.split(".")[:2] != ["saiverse", "errors"] and m.count(".") >= 1
             and m.split(".")[1] in ("world", "memory", "pulse", "care", "llm", "importer", "manager")]
    assert not heavy, f"`python main.py --help` imports the domain: {heavy}"
