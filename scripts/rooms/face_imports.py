"""Issue 36: import a package's public names from its face, not from the submodule that defines them.

`from saiverse.llm.registry import resolve_model` outside saiverse/llm/ becomes `from saiverse.llm import
resolve_model` when the face exports that very object (every name of the statement must be; otherwise the
statement is left alone). Re-runnable after a merge; run from the repository root, then let ruff merge
and sort the imports:

    python scripts/rooms/face_imports.py saiverse ui cli && ruff check --fix --select I,F401 saiverse ui cli
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

FACES = ("saiverse.llm", "saiverse.importer", "database", "tools", "sea.production", "chat")
"""Packages whose public submodules have a face that should be used instead (the lazy-free ones)."""


def _face_for(module: str) -> str | None:
    for face in FACES:
        rest = module.removeprefix(face + ".")
        if rest != module and not rest.startswith("_") and "._" not in rest:
            return face
    return None


def rewrite(path: Path, root: Path) -> int:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    here = ".".join(path.relative_to(root).with_suffix("").parts)
    changed = 0
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            continue
        face = _face_for(node.module)
        if face is None or here == face or here.startswith(face + "."):
            continue  # inside its own package a part imports its siblings directly
        package, sub = importlib.import_module(face), importlib.import_module(node.module)
        exported = set(getattr(package, "__all__", ()))
        if not all(a.name in exported and getattr(package, a.name) is getattr(sub, a.name, None) for a in node.names):
            continue
        row = node.lineno - 1
        old = f"from {node.module} import"
        if old in lines[row]:
            lines[row] = lines[row].replace(old, f"from {face} import", 1)
            changed += 1
    if changed:
        path.write_text("".join(lines), encoding="utf-8")
    return changed


def main(folders: list[str]) -> int:
    root = Path.cwd()
    sys.path.insert(0, str(root))
    total = 0
    for folder in folders:
        base = root / folder
        for path in [base] if base.is_file() else sorted(base.rglob("*.py")):
            total += rewrite(path, root)
    print(f"{total} imports now go through a package's face")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["saiverse", "ui", "cli"]))
