"""Everything the app makes inside the home is private (issue 34): `checkpoints.db`, `.locks/`, `models/`,
a pull's `.part`, `settings.json` were 0644/0755, and a brand-new home was reported "readable by others
(0755)" because its `.locks/` made it first. Real processes: the app served, CLI commands, a pull from
a loopback hub (tests/support/fakes_hub.py)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.support.fakes_hub import FakeHub
from tests.support.model_pull import FILE, REPO

ROOT = Path(__file__).resolve().parents[2]


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _open_to_others(home: Path) -> list[str]:
    """Everything under `home` (links not followed) that anyone but the owner may read or enter."""
    found = [f"{home} {_mode(home):04o}"] if _mode(home) & 0o077 else []
    for folder, dirs, files in os.walk(home):
        for name in dirs + files:
            path = Path(folder) / name
            if not path.is_symlink() and _mode(path) & 0o077:
                found.append(f"{path.relative_to(home)} {_mode(path):04o}")
    return found


def _main(home: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], capture_output=True, text=True,
                          timeout=180, cwd=ROOT, env={**os.environ, "SAIVERSE_HOME": str(home), **(env or {})})


def test_a_new_home_served_is_private_and_says_nothing_about_it(tmp_path: Path) -> None:
    from tests.support.browser import free_port
    from tests.support.processes import stop_all, wait_serving

    home = tmp_path / "fresh" / "home"  # neither exists yet
    port = free_port()
    log = tmp_path / "app.log"
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "--port", str(port)], cwd=tmp_path,
                            stdout=log.open("w"), stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "SAIVERSE_HOME": str(home)})
    try:
        wait_serving(proc, f"http://127.0.0.1:{port}/", timeout=180, output=log.read_text)
    finally:
        stop_all([proc])
    said = log.read_text()
    assert "readable by others" not in said, said[-3000:]
    assert (home / "checkpoints.db").is_file() and (home / ".locks").is_dir()
    assert _open_to_others(home) == []


def test_cli_commands_and_a_pull_leave_only_private_files(tmp_path: Path, gguf: Path) -> None:
    import time

    home = tmp_path / "new" / "home"
    with FakeHub() as hub:
        hub.add(REPO, FILE, gguf)
        hub.bytes_per_s = 20_000_000  # slow enough to look at the .part while it grows
        env = {**os.environ, "SAIVERSE_HOME": str(home), "HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf")}
        proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "model", "pull", f"{REPO}/{FILE}",
                                 "--set-default"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)  # the very first command on this home
        parts = home / "models" / ".pull"
        deadline = time.monotonic() + 120
        while not (parts.is_dir() and list(parts.glob("*.part"))):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        part = next(parts.glob("*.part"))
        assert (_mode(part), _mode(parts), _mode(home / "models"), _mode(home)) == (0o600, 0o700, 0o700, 0o700)
        hub.bytes_per_s = None
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0 and "readable by others" not in err, err
    world = _main(home, "world", "--json")
    assert world.returncode == 0 and "readable by others" not in world.stderr, world.stderr
    assert (home / "settings.json").is_file() and (home / "models" / FILE).is_file()
    assert _open_to_others(home) == []


def test_an_older_home_is_made_private_at_start(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert _main(home, "world").returncode == 0
    (home / "settings.json").write_text("{}", encoding="utf-8")
    (home / "models").mkdir()
    (home / "models" / "old.gguf").write_bytes(b"GGUF")
    for path, mode in ((home / "settings.json", 0o644), (home / "checkpoints.db", 0o644), (home / ".locks", 0o755),
                       (home / "models", 0o755), (home / "models" / "old.gguf", 0o644)):
        os.chmod(path, mode)
    again = _main(home, "world")
    assert again.returncode == 0, again.stderr
    assert _open_to_others(home) == []
    for name in ("settings.json", "checkpoints.db", ".locks", "models"):
        assert f"{home / name} was readable by others" in again.stderr, again.stderr


def test_a_restored_home_is_private_throughout(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert _main(home, "world").returncode == 0
    archive = tmp_path / "city.zip"
    made = _main(home, "backup", "--out", str(archive))
    assert made.returncode == 0, made.stderr
    restored = tmp_path / "restored" / "home"
    done = _main(home, "restore", str(archive), "--home", str(restored))
    assert done.returncode == 0, done.stderr
    assert list((restored / "image").iterdir()) and _open_to_others(restored) == []
