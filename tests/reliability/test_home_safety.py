"""Never touch what is not ours: links out of the home, files not ours, homes that cannot be ours.

Every folder outside the home is a decoy under the test's temp directory; each test checks the
decoy's files — names and bytes — are exactly as they were, whatever the app was asked to do.
Refusals go through `main.main` as a user runs them: exit 2, one line naming the thing, nothing
created.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import zipfile
from pathlib import Path

import pytest

import main as cli_main
from saiverse.care._home_safety import HomeRefused
from saiverse.errors import USER_ERROR_EXIT
from saiverse.manager import SAIVerseManager
from saiverse.settings import load_settings

OURS = "20250101_000000_0123456789abcdef0123456789abcdef.png"


def _tree(root: Path) -> dict[str, str]:
    """Every entry under `root` (links not followed) → sha256 of a file, `dir`, or `link:<target>`."""
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = f"link:{os.readlink(path)}"
            elif path.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _decoy(tmp_path: Path) -> Path:
    """A folder outside the home holding files with our names and others, and a subfolder."""
    decoy = tmp_path / "decoy"
    (decoy / "sub").mkdir(parents=True)
    (decoy / OURS).write_bytes(b"\x89PNG not really")
    (decoy / "holiday.jpg").write_bytes(b"someone's picture")
    (decoy / "20250101_000000_abc.txt").write_text("a name like ours", encoding="utf-8")
    (decoy / "sub" / "notes.txt").write_text("keep me", encoding="utf-8")
    return decoy


def _world(home: Path) -> None:
    SAIVerseManager(load_settings(home)).close()


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    assert cli_main.main(argv) == USER_ERROR_EXIT
    err = capsys.readouterr().err.strip()
    assert err.startswith("エラー: ") and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


@pytest.mark.parametrize("folder", ["image", "documents"])
def test_media_folder_linked_out_of_the_home_is_refused(saiverse_home: Path, tmp_path: Path, folder: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    _world(saiverse_home)
    decoy = _decoy(tmp_path)
    for path in (saiverse_home / folder).iterdir():  # the user moved their files to "another disk"
        path.rename(decoy / path.name)
    (saiverse_home / folder).rmdir()
    (saiverse_home / folder).symlink_to(decoy, target_is_directory=True)
    before = _tree(decoy)
    _refused(["world", "--home", str(saiverse_home)], capsys, str(saiverse_home / folder), "link")
    _refused(["backup", "--home", str(saiverse_home)], capsys, str(saiverse_home / folder))
    with pytest.raises(HomeRefused):
        SAIVerseManager(load_settings(saiverse_home))
    assert _tree(decoy) == before
    assert not (saiverse_home / "orphans").exists()


def test_orphans_folder_linked_out_is_refused(saiverse_home: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _world(saiverse_home)
    decoy = _decoy(tmp_path)
    (saiverse_home / "image" / OURS).write_bytes(b"an orphan of ours")  # would be moved into orphans/
    (saiverse_home / "orphans").symlink_to(decoy, target_is_directory=True)
    before = _tree(decoy)
    _refused(["world", "--home", str(saiverse_home)], capsys, "orphans", "link")
    assert _tree(decoy) == before
    assert (saiverse_home / "image" / OURS).read_bytes() == b"an orphan of ours"


def test_links_inside_media_folders_are_never_followed(saiverse_home: Path, tmp_path: Path) -> None:
    _world(saiverse_home)
    decoy = _decoy(tmp_path)
    docs = saiverse_home / "documents"
    (docs / "elsewhere").symlink_to(decoy, target_is_directory=True)
    (docs / OURS).symlink_to(decoy / OURS)  # a link with one of our names, pointing out
    (docs / ".x.txt.abcd1234.tmp").symlink_to(decoy / "holiday.jpg")  # a link named like our temp files
    before = _tree(decoy)
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert not m.repair_report.orphans and not m.repair_report.removed
    finally:
        m.close()
    assert _tree(decoy) == before
    assert (docs / "elsewhere").is_symlink() and (docs / OURS).is_symlink()
    assert (docs / ".x.txt.abcd1234.tmp").is_symlink()


def test_orphans_of_ours_are_moved_within_the_home_and_named(saiverse_home: Path, caplog: pytest.LogCaptureFixture
                                                             ) -> None:
    _world(saiverse_home)
    image = saiverse_home / "image"
    (image / OURS).write_bytes(b"a creation killed before its row")
    (image / "holiday.jpg").write_bytes(b"a file the user put here")
    with caplog.at_level("WARNING"):
        m = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert m.repair_report.orphans == [f"orphans/image/{OURS}"]
        assert m.repair_report.left == ["image/holiday.jpg"]
    finally:
        m.close()
    assert (saiverse_home / "orphans" / "image" / OURS).read_bytes() == b"a creation killed before its row"
    assert (image / "holiday.jpg").read_bytes() == b"a file the user put here"
    assert any(f"orphans/image/{OURS}" in r.getMessage() for r in caplog.records)  # the report names it


def _upstream_home(root: Path) -> Path:
    db = root / "user_data" / "database" / "saiverse.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE building_occupancy_log (ID INTEGER PRIMARY KEY, CITYID INTEGER)")
    conn.commit()
    conn.close()
    return root


@pytest.mark.parametrize("inside", ["user_data", "user_data/database", "user_data/new"])
def test_a_home_inside_an_upstream_home_is_refused_and_nothing_created(
        tmp_path: Path, inside: str, capsys: pytest.CaptureFixture[str]) -> None:
    upstream = _upstream_home(tmp_path / "upstream")
    before = _tree(upstream)
    _refused(["world", "--home", str(upstream / inside)], capsys, "import-saiverse", str(upstream))
    assert _tree(upstream) == before


def test_an_empty_database_beside_item_files_is_refused(saiverse_home: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    _world(saiverse_home)
    (saiverse_home / "saiverse.db").write_bytes(b"")
    for side in ("-wal", "-shm"):
        (saiverse_home / f"saiverse.db{side}").unlink(missing_ok=True)
    before = _tree(saiverse_home)
    _refused(["world", "--home", str(saiverse_home)], capsys, "0 bytes", "backup")
    assert _tree(saiverse_home) == before
    assert not (saiverse_home / "orphans").exists()


def test_an_empty_database_in_an_empty_home_starts_a_new_world(saiverse_home: Path) -> None:
    saiverse_home.mkdir()
    (saiverse_home / "saiverse.db").write_bytes(b"")  # a first start killed right after creating the file
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert m.buildings()
    finally:
        m.close()


def _foreign_db(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (id INTEGER PRIMARY KEY, title TEXT)")
    conn.execute("INSERT INTO recipes (title) VALUES ('miso soup')")
    conn.commit()
    conn.close()
    return path


def test_a_foreign_sqlite_file_is_never_written(saiverse_home: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    saiverse_home.mkdir()
    db = _foreign_db(saiverse_home / "saiverse.db")
    before = _tree(saiverse_home)
    _refused(["world", "--home", str(saiverse_home)], capsys, "another program", "recipes")
    assert _tree(saiverse_home) == before
    other = _foreign_db(tmp_path / "recipes.db")
    digest = hashlib.sha256(other.read_bytes()).hexdigest()
    _refused(["migrate", "--db", str(other)], capsys, "another program")
    assert hashlib.sha256(other.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.glob("recipes.db*")) == ["recipes.db"]
    assert db.is_file()


def _archive(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    _world(home)
    out = tmp_path / "good.zip"
    assert cli_main.main(["backup", "--home", str(home), "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def _rewrite(archive: Path, out: Path, *, db: bytes | None = None, manifest_change=None) -> Path:
    with zipfile.ZipFile(archive) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(entries.pop("manifest.json"))
    if db is not None:
        entries["saiverse.db"] = db
        for f in manifest["files"]:
            if f["name"] == "saiverse.db":  # correct checksums: only the content is foreign
                f["size"], f["sha256"] = len(db), hashlib.sha256(db).hexdigest()
    if manifest_change is not None:
        manifest_change(manifest)
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        zf.writestr("manifest.json", json.dumps(manifest))
    return out


def test_restore_refuses_foreign_and_upstream_databases_and_odd_manifests(
        saiverse_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _archive(saiverse_home, tmp_path, capsys)
    foreign = _foreign_db(tmp_path / "foreign.db").read_bytes()
    upstream = (_upstream_home(tmp_path / "up") / "user_data" / "database" / "saiverse.db").read_bytes()
    cases = {
        "foreign": (_rewrite(good, tmp_path / "foreign.zip", db=foreign), ("not the SAIVerse database",)),
        "upstream": (_rewrite(good, tmp_path / "upstream.zip", db=upstream), ("upstream", "import-saiverse")),
        "bool_version": (_rewrite(good, tmp_path / "bool.zip",
                                  manifest_change=lambda m: m.update(schema_version=True)), ("schema_version",)),
        "twice": (_rewrite(good, tmp_path / "twice.zip",
                           manifest_change=lambda m: m["files"].append(m["files"][0])), ("twice",)),
    }
    for name, (archive, needles) in cases.items():
        target = tmp_path / f"restored-{name}"
        err = _refused(["restore", str(archive), "--home", str(target)], capsys, *needles)
        assert ".restore-" not in err, err  # never points at the staging folder it removed
        assert not target.exists()
        assert not list(tmp_path.glob(f".restored-{name}*")), name


def test_backup_refuses_to_write_inside_the_media_folders_or_an_unwritable_place(
        saiverse_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _world(saiverse_home)
    before = _tree(saiverse_home / "image")
    _refused(["backup", "--home", str(saiverse_home), "--out", str(saiverse_home / "image" / "b.zip")], capsys,
             "image", "backups")
    assert _tree(saiverse_home / "image") == before
    _refused(["backup", "--home", str(saiverse_home), "--out", "/dev/full/x.zip"], capsys, "/dev/full")


@pytest.mark.parametrize("home", ["/proc/self", "/dev/null"])
def test_kernel_paths_are_not_homes(home: str, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(["world", "--home", home], capsys, "/" + home.split("/")[1])


def test_a_new_home_is_private(saiverse_home: Path) -> None:
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        list(m.handle_user_input("library", "こんにちは"))  # a write: the -wal exists now
        assert stat.S_IMODE(saiverse_home.stat().st_mode) == 0o700
        for name in ("saiverse.db", "saiverse.db-wal", "saiverse.db-shm"):
            path = saiverse_home / name
            if path.exists():
                assert stat.S_IMODE(path.stat().st_mode) == 0o600, name
        assert not m.notices
    finally:
        m.close()


def test_an_existing_open_home_is_made_private_with_a_notice(saiverse_home: Path) -> None:
    _world(saiverse_home)
    os.chmod(saiverse_home, 0o755)
    os.chmod(saiverse_home / "saiverse.db", 0o644)
    m = SAIVerseManager(load_settings(saiverse_home))
    try:
        assert stat.S_IMODE(saiverse_home.stat().st_mode) == 0o700
        assert stat.S_IMODE((saiverse_home / "saiverse.db").stat().st_mode) == 0o600
        assert len(m.notices) == 2 and all("private" in n and "\n" not in n for n in m.notices)
    finally:
        m.close()
