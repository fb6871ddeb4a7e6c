"""import-saiverse on the homes real users have, not only the tidy reference ones: each case takes an
upstream home (the reference homes in ../shared when present, and the homes tests/support/upstream_small.py and
tests/support/upstream_v03.py write, so it also runs on a checkout alone), gives it one rough edge a real home
plausibly has, and imports it with the real CLI. The import ends with exit 0 (and a summary naming what
it skipped and why) or a one-line refusal (exit 2) that left nothing behind; never a traceback; it
never reads a file through a path or link leading out of the upstream home; the source is unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import main as cli_main
from tests.support import upstream_rough, upstream_rough_more
from tests.support.upstream_home import tree_digest
from tests.support.upstream_rough import DECOY, source, target

VARIANTS = {**upstream_rough.VARIANTS, **upstream_rough_more.VARIANTS}


def _world_rows(home: Path) -> int:
    if not (home / "saiverse.db").exists():
        return 0
    return sum(len(target(home, f"SELECT 1 FROM {t}")) for t in ("city", "building", "ai", "item", "saimemory"))


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("kind", ["small", "v03", "ref", "ref03"])
def test_variant_imports_or_refuses_cleanly(kind: str, variant: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    if variant == "v03-tables-missing" and kind in ("small", "ref"):
        pytest.skip("a v0.3 variant: the v0.2 homes have no track or note tables")
    root = tmp_path / "upstream ホーム 🌸"  # a Windows-style user name: spaces, Japanese
    source(kind, root)
    facts: dict[str, Any] = {}
    change, check = VARIANTS[variant]
    change(root, facts)
    before = tree_digest(root)
    home = tmp_path / "imported"
    capsys.readouterr()
    code = cli_main.main(["--home", str(home), "import-saiverse", str(root), "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert tree_digest(root) == before  # the source is never written to
    if code == 2:  # a refusal: one line, and nothing half-imported
        assert err.startswith("エラー: ") and err.strip().count("\n") == 0, err
        assert _world_rows(home) == 0
        return
    assert code == 0, err
    report = json.loads(out)
    for path in home.rglob("*"):  # nothing read through a path or link out of the upstream home
        assert not path.is_symlink(), path
        if path.is_file() and path.stat().st_size == len(DECOY):
            assert path.read_bytes() != DECOY, path
    check(report, home, facts)
