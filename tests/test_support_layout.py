"""Tests and benchmarks share helpers through tests/support/ only (tests/support/__init__.py lists them):
no helper module sits among the test modules (tests/ and tests/reliability/), no benchmark imports a test
module, and no test module imports another."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_helper_sits_among_the_tests() -> None:
    loose = sorted(p.name for p in (ROOT / "tests").glob("*.py")
                   if not p.name.startswith("test_") and p.name not in ("__init__.py", "conftest.py"))
    assert not loose, f"helpers among the test modules (move them to tests/support/): {loose}"


def _imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
            found += [f"{node.module}.{a.name}" for a in node.names]  # `from tests import test_x` names a module
    return found


def test_benchmarks_import_tests_only_through_support() -> None:
    bad = [f"{p.relative_to(ROOT)} imports {m}" for p in sorted((ROOT / "benchmarks").rglob("*.py"))
           for m in _imports(p) if m.split(".")[0] == "tests" and not m.startswith("tests.support")]
    assert not bad, "benchmarks reach into the tests (use tests/support/):\n" + "\n".join(bad)


def test_tests_import_no_fixture_module_but_conftest() -> None:
    """A test takes the shared pieces from tests/support/, never from tests/conftest.py."""
    bad = [f"{p.relative_to(ROOT)} imports {m}" for p in sorted((ROOT / "tests").rglob("*.py"))
           for m in _imports(p) if m == "tests.conftest"]
    assert not bad, "\n".join(bad)


def test_no_test_module_imports_another() -> None:
    """What two test modules share lives in tests/support/: importing a test module runs its module-level
    skips and registers its fixtures a second time in the importer (pytest then collects them twice)."""
    bad = [f"{p.relative_to(ROOT)} imports {m}" for p in sorted((ROOT / "tests").rglob("*.py"))
           for m in _imports(p) if m.split(".")[0] == "tests" and m.split(".")[-1].startswith("test_")]
    assert not bad, "test modules importing test modules (move the shared piece to tests/support/):\n" + "\n".join(bad)


def test_no_helper_sits_among_the_reliability_tests() -> None:
    loose = sorted(p.name for p in (ROOT / "tests" / "reliability").glob("*.py")
                   if not p.name.startswith("test_") and p.name not in ("__init__.py", "conftest.py"))
    assert not loose, f"helpers among the reliability tests (move them to tests/support/): {loose}"
