"""Issue 36, step "tests/support/": the helper modules that sat among tests/test_*.py move into the package
tests/support/, and every import and path naming them follows (tests/, benchmarks/, scripts/, the docs).

Idempotent: a helper already moved is left where it is; a name already `tests.support.X` is not touched
again. After merging a branch that added a test importing `tests.browser` (or `tests.conftest`'s
ScriptedModel), run it again from the repository root:

    python scripts/rooms/test_support.py && ruff check --fix --select I tests benchmarks

A new helper module of another branch (a non-test module directly in tests/) is listed by
tests/test_support_layout.py: add its name to HELPERS below and run this again.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HELPERS = ("browser", "compat", "fakes_hub", "fakes_llm", "fakes_ports", "ltm_helpers", "mcp_server", "pg",
           "processes", "threads", "upstream_home", "upstream_rough", "upstream_rough_more", "upstream_small",
           "upstream_v03")
"""tests/<name>.py → tests/support/<name>.py."""
RELIABILITY = ("backends", "home_user", "killat", "pulser", "workload")
"""tests/reliability/<name>.py → tests/support/<name>.py (the campaigns' stores and child-process scripts; the
scripts find the repository as `parents[2]`, the same from either folder)."""
FROM_CONFTEST = ("ScriptedModel", "Scripted", "MakeManager", "only")
"""Names tests used to import from tests/conftest.py, now in tests/support/models.py."""
SCANNED = ("tests", "benchmarks", "scripts", "docs", "README.md")
NAMES = "|".join(sorted(HELPERS, key=len, reverse=True))
DOTTED = re.compile(rf"\btests\.({NAMES})\b")
PATHS = re.compile(rf"(?<![\w/])tests/({NAMES})\.py\b")
JOINED = re.compile(rf'"tests" / "({NAMES})\.py"')
CONFTEST_IMPORT = re.compile(r"from tests\.conftest import ([\w, ]+)")
FROM_TESTS = re.compile(r"from tests import ([\w, ]+)")
BESIDE = re.compile(rf'Path\(__file__\)\.with_name\("({NAMES})\.py"\)')
RNAMES = "|".join(sorted(RELIABILITY, key=len, reverse=True))
R_DOTTED = re.compile(rf"\btests\.reliability\.({RNAMES})\b")
R_PATHS = re.compile(rf"(?<![\w/])tests/reliability/({RNAMES})\.py\b")
R_BESIDE = re.compile(rf'Path\(__file__\)\.with_name\("({RNAMES})\.py"\)')


def move(root: Path) -> None:
    support = root / "tests" / "support"
    support.mkdir(exist_ok=True)
    for name in HELPERS:
        old, new = root / "tests" / f"{name}.py", support / f"{name}.py"
        if old.exists() and not new.exists():
            subprocess.run(["git", "mv", str(old), str(new)], cwd=root, check=True)
    for name in RELIABILITY:
        old, new = root / "tests" / "reliability" / f"{name}.py", support / f"{name}.py"
        if old.exists() and not new.exists():
            subprocess.run(["git", "mv", str(old), str(new)], cwd=root, check=True)
    compat = support / "compat.py"
    if compat.exists():  # it finds the repository from its own place, one folder deeper now
        text = compat.read_text(encoding="utf-8")
        compat.write_text(text.replace("Path(__file__).resolve().parents[1]",
                                       "Path(__file__).resolve().parents[2]"), encoding="utf-8")


def _conftest_names(match: re.Match[str]) -> str:
    names = [n.strip() for n in match.group(1).split(",") if n.strip()]
    if not all(n in FROM_CONFTEST for n in names):
        return match.group(0)
    return f"from tests.support.models import {', '.join(names)}"


def _tests_names(match: re.Match[str]) -> str:
    names = [n.strip() for n in match.group(1).split(",") if n.strip()]
    return f"from tests.support import {match.group(1)}" if all(n in HELPERS for n in names) else match.group(0)


def rewrite(root: Path) -> int:
    changed = 0
    files: list[Path] = []
    for name in SCANNED:
        path = root / name
        files += [path] if path.is_file() else [p for p in path.rglob("*") if p.suffix in (".py", ".md")]
    for path in files:
        if path.resolve() == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        new = DOTTED.sub(r"tests.support.\1", text)
        new = PATHS.sub(r"tests/support/\1.py", new)
        new = JOINED.sub(r'"tests" / "support" / "\1.py"', new)
        new = FROM_TESTS.sub(_tests_names, new)
        if path.parent == root / "tests":  # a test module found a helper beside it
            new = BESIDE.sub(r'Path(__file__).parent / "support" / "\1.py"', new)
        new = R_DOTTED.sub(r"tests.support.\1", new)
        new = R_PATHS.sub(r"tests/support/\1.py", new)
        if path.parent == root / "tests" / "reliability":  # a campaign found its script beside it
            new = R_BESIDE.sub(r'Path(__file__).parents[1] / "support" / "\1.py"', new)
        if path.suffix == ".py" and path.name != "conftest.py":
            new = CONFTEST_IMPORT.sub(_conftest_names, new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def main() -> int:
    root = Path.cwd()
    move(root)
    print(f"tests/support/: {rewrite(root)} files now name it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
