"""`python main.py building create` / `persona create`: a city made from the command line.

Through the admin service's rules (saiverse/care/_admin.py): a refused spec prints one line, exits 2 and
writes nothing — not even a first-run world when the refusal needs no world to decide.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import main as cli_main
from saiverse.errors import USER_ERROR_EXIT
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings


def _call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_make_a_city_from_the_command_line(saiverse_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _call(capsys, "building", "create", "--name", "Harbor", "--capacity", "3",
                         "--auto-interval", "120", "--description", "by the sea", "--json")
    assert code == 0
    building = json.loads(out)
    assert building["building_id"] == "harbor" and building["capacity"] == 3
    code, out, _ = _call(capsys, "persona", "create", "kai", "--name", "カイ", "--building", "harbor",
                         "--mode", "auto", "--avatar", "⚓", "--json")
    assert code == 0
    persona = json.loads(out)
    assert persona["persona_id"] == "kai" and persona["building_id"] == "harbor"
    code, out, _ = _call(capsys, "persona", "create", "--name", "Umi")  # where the user is: the library
    assert code == 0 and out.startswith("ペルソナ Umi (umi) を作りました")
    m = SAIVerseManager(load_settings())
    try:
        kai = m.world.persona("kai")
        assert (kai.interaction_mode, kai.avatar, kai.building_id) == ("auto", "⚓", "harbor")
        assert m.world.building("harbor").auto_interval_sec == 120
        assert m.world.persona("umi").building_id == "library"
        assert [p.persona_id for p, _ in m.world.autonomous_personas()] == ["kai"]
    finally:
        m.close()


@pytest.mark.parametrize(("argv", "needle"), [
    (["persona", "create"], "needs --name"),
    (["persona", "create", "--name", "  "], "needs --name"),
    (["building", "create", "x", "--name", "X"], "give no ID"),
    (["persona", "delete"], "needs the persona id"),
])
def test_refused_before_the_home_is_opened(saiverse_home: Path, capsys: pytest.CaptureFixture[str],
                                           argv: list[str], needle: str) -> None:
    code, out, err = _call(capsys, *argv)
    assert code == USER_ERROR_EXIT and needle in err and len(err.strip().splitlines()) == 1
    assert not saiverse_home.exists()  # nothing written, not even a first-run world


def test_refused_by_the_admin_rules_writes_nothing(saiverse_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    SAIVerseManager(load_settings()).close()
    for argv, needle in [
        (["persona", "create", "--name", "X", "--building", "nowhere"], "存在しません"),
        (["persona", "create", "mina", "--name", "X"], "もうあります"),
        (["persona", "create", "Bad Id", "--name", "X"], "a-z、0-9"),
        (["building", "create", "--name", "Y", "--capacity", "0"], "capacity"),
        (["building", "create", "--name", "Y", "--auto-interval", "5"], "auto_interval_sec"),
    ]:
        code, _, err = _call(capsys, *argv)
        assert code == USER_ERROR_EXIT and needle in err, (argv, err)
    m = SAIVerseManager(load_settings())
    try:
        assert {p.persona_id for p in m.world.personas()} == {"mina", "sora"}
        assert "y" not in {b.building_id for b in m.world.buildings()}
    finally:
        m.close()
