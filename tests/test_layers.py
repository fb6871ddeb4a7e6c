"""Imports point one way: ui → saiverse → sea → tools → chat, database (docs/ARCHITECTURE.md).

Read from the source with `ast`, so a back-edge fails here before it confuses anyone. An entry-point
block (`if __name__ == "__main__":`) is a program of its own and may import anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = {"cli", "ui", "saiverse", "sea", "tools", "chat", "database", "main"}
ALLOWED: dict[str, set[str]] = {
    "chat": {"chat"},
    "database": {"database"},
    "tools": {"tools", "database", "chat"},
    "sea": {"sea", "tools", "database", "chat"},
    "saiverse": {"saiverse", "sea", "tools", "database", "chat"},
    "ui": {"ui", "saiverse"},
    "cli": {"cli", "ui", "saiverse", "sea", "database"},
}
"""Layer → the first-party packages its modules may import."""


def _is_main_guard(node: ast.stmt) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = [n for n in tree.body if not _is_main_guard(n)]
    out: list[tuple[int, str]] = []
    for top in body:
        for node in ast.walk(top):
            if isinstance(node, ast.Import):
                out += [(node.lineno, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                out.append((node.lineno, node.module))
    return out


def _modules(layer: str) -> list[Path]:
    return sorted((ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_point_down(layer: str) -> None:
    bad = []
    for path in _modules(layer):
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top in FIRST_PARTY and top not in ALLOWED[layer]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def _imports_manager(path: Path) -> list[int]:
    lines = [line for line, module in _imports(path) if module == "saiverse.manager"]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines += [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "saiverse"
              and any(a.name == "manager" for a in n.names)]
    return lines


def test_only_entry_points_import_the_manager() -> None:
    """Services below the manager get the parts they use; only ui/, main.py and tests hold a manager."""
    bad = []
    for layer in ("saiverse", "sea", "tools", "chat", "database"):
        for path in _modules(layer):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "saiverse/manager.py":
                continue
            bad += [f"{rel}:{line} imports saiverse.manager" for line in _imports_manager(path)]
    assert not bad, "modules below the manager import it (hand them their parts instead):\n" + "\n".join(bad)


PACKAGES_WITH_PRIVATE_PARTS = ("saiverse/world", "saiverse/memory", "saiverse/pulse", "saiverse/care",
                               "saiverse/llm/offline", "saiverse/llm/local", "cli")
"""Packages whose `_private` modules only they (and tests) import; others use the package's names."""
MAX_MODULE_LINES = 450
"""A module past this is several ideas; split it (docs/ARCHITECTURE.md, "Layers")."""
OVERSIZED = {"ui/app.py": 472}
"""Modules past the limit when this check came: they may shrink, never grow, and are split next."""


def test_nothing_imports_main() -> None:
    """main.py is the entry point only: nothing imports it (a circle back up the layers)."""
    bad = []
    for layer in sorted(ALLOWED):
        for path in _modules(layer):
            bad += [f"{path.relative_to(ROOT)}:{line}" for line, module in _imports(path)
                    if module.split(".")[0] == "main"]
    assert not bad, "modules import main:\n" + "\n".join(bad)


def test_private_parts_stay_inside_their_package() -> None:
    """`from saiverse.world._items import …` outside saiverse/world/ bypasses the package's public face."""
    bad = []
    for layer in sorted(ALLOWED):
        for path in _modules(layer):
            rel = path.relative_to(ROOT).as_posix()
            for line, module in _imports(path):
                parts = module.split(".")
                for i, part in enumerate(parts):
                    if part.startswith("_") and not part.startswith("__"):
                        owner = "/".join(parts[:i])
                        if owner in PACKAGES_WITH_PRIVATE_PARTS and not rel.startswith(owner + "/"):
                            bad.append(f"{rel}:{line} imports {module}")
                        break
    assert not bad, "private modules imported from outside their package:\n" + "\n".join(bad)


def test_modules_stay_small() -> None:
    big = []
    for layer in sorted(ALLOWED):
        for path in _modules(layer):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > OVERSIZED.get(path.relative_to(ROOT).as_posix(), MAX_MODULE_LINES):
                big.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not big, f"modules over {MAX_MODULE_LINES} lines:\n" + "\n".join(big)


def test_ui_reaches_the_domain_only_through_its_port() -> None:
    """ui/ imports from saiverse only saiverse.port (the typed port the manager implements)."""
    bad = []
    for path in _modules("ui"):
        bad += [f"{path.relative_to(ROOT)}:{line} imports {module}" for line, module in _imports(path)
                if module.split(".")[0] == "saiverse" and module != "saiverse.port"]
    assert not bad, "ui/ reaches past its port (add what it needs to saiverse/port.py):\n" + "\n".join(bad)
