"""What the network can reach (issue 20, "Exposure"; issue 21, "Reach it from a phone, safely").

Real Gradio on 127.0.0.1 answers real HTTP requests (httpx) whose Host header is spoofed as a DNS
rebinding page's would be; the login is Gradio's own login route over the stored scrypt hash; two
real `python main.py` servers contend for one home.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from saiverse.errors import USER_ERROR_EXIT
from saiverse.manager import SAIVerseManager
from tests.support.browser import free_port
from tests.support.served import PASSWORD, served

ROOT = Path(__file__).resolve().parents[2]
def _picture(manager: SAIVerseManager) -> Path:
    item = next(i for i in manager.items.list_owned("building", "museum") if i.type == "picture")
    return Path(manager.item_view(item.item_id)["image_path"])


BAD_HOSTS = ["evil.example", "evil.example:7860", "localhost.evil.example", "127.0.0.1.nip.io", "attacker",
             "192.168.1.20"]


def test_every_route_refuses_a_foreign_host_and_answers_ours(saiverse_home: Path) -> None:
    with served(saiverse_home, allowed_hosts=("mypc.lan",)) as (url, manager):
        picture = _picture(manager)
        routes = ["/", "/config", "/gradio_api/info", f"/gradio_api/file={picture}", "/manifest.json",
                  "/gradio_api/queue/status"]
        with httpx.Client(base_url=url, timeout=30) as client:
            for host in BAD_HOSTS:
                for route in routes:
                    r = client.get(route, headers={"Host": host})
                    assert r.status_code == 403, (host, route, r.status_code)
                    assert "SAIVERSE_ALLOWED_HOSTS" in r.text and str(saiverse_home) not in r.text
                r = client.post("/gradio_api/upload", headers={"Host": host}, files={"files": ("a.txt", b"x")})
                assert r.status_code == 403, (host, r.status_code)
            port = url.rsplit(":", 1)[1]
            for host in [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "mypc.lan", f"MyPC.lan:{port}"]:
                assert client.get("/config", headers={"Host": host}).status_code == 200, host
                assert client.get(f"/gradio_api/file={picture}", headers={"Host": host}).status_code == 200, host


def test_backups_are_not_served_by_their_path(saiverse_home: Path) -> None:
    with served(saiverse_home) as (url, manager):
        made = manager.backups.create("manual")
        with httpx.Client(base_url=url, timeout=30) as client:
            r = client.get(f"/gradio_api/file={made.path}")
            assert r.status_code == 403, r.status_code
            assert client.get(f"/gradio_api/file={made.path.parent}/../backups/{made.path.name}").status_code in \
                (403, 404)


def test_the_login_guards_every_route(saiverse_home: Path) -> None:
    from saiverse.care import clear_login, set_login

    set_login(saiverse_home, PASSWORD, "mika")
    with served(saiverse_home, login_required=True) as (url, manager):
        picture = _picture(manager)
        with httpx.Client(base_url=url, timeout=30) as client:
            assert client.get("/config").status_code == 401
            assert client.get(f"/gradio_api/file={picture}").status_code == 401
            # The voice's routes too (ui/voice_routes.py): no speaking, listening or audio before the login.
            assert client.post("/voice/say", json={"name": "ミナ", "text": "こんにちは"}).status_code == 401
            assert client.post("/voice/listen", content=b"RIFF").status_code == 401
            assert client.get("/voice/listen").status_code == 401
            assert client.get("/voice/audio/anything").status_code == 401
            for user, password in [("mika", "wrong password"), ("mika", PASSWORD + " "), ("mika", "")]:
                r = client.post("/login", data={"username": user, "password": password})
                assert r.status_code >= 400 and not client.cookies, (user, r.status_code)
            # The password alone opens it: the login page asks nothing else (ui/login_page.py).
            r = client.post("/login", data={"username": "saiverse", "password": PASSWORD})
            assert r.status_code == 200 and r.json() == {"success": True}
            assert client.get("/config").status_code == 200
            assert client.get(f"/gradio_api/file={picture}").status_code == 200
            assert client.get("/voice/listen").json()["ready"] is False  # logged in: answered (nobody listens here)
            # The login does not open the door to a foreign Host.
            assert client.get("/config", headers={"Host": "evil.example"}).status_code == 403
        set_login(saiverse_home, "a new password 2", "mika")  # changed (the 設定 tab) while serving
        with httpx.Client(base_url=url, timeout=30) as client:
            assert client.post("/login", data={"username": "mika", "password": PASSWORD}).status_code >= 400
            assert client.post("/login", data={"username": "mika", "password": "a new password 2"}).status_code \
                == 200
        clear_login(saiverse_home)  # removed while open to the network: nobody gets in
        with httpx.Client(base_url=url, timeout=30) as client:
            assert client.post("/login", data={"username": "mika", "password": "a new password 2"}).status_code \
                >= 400
            assert client.get("/config").status_code == 401


def test_repeated_wrong_passwords_lock_the_login_for_a_while() -> None:
    from saiverse.care._login import LOCKOUT_SECONDS, MAX_FAILURES, Gate, Login, _hash

    now = [1000.0]
    login = Login("mika", b"salt" * 4, _hash(PASSWORD, b"salt" * 4))
    gate = Gate(login, clock=lambda: now[0])
    assert gate("mika", PASSWORD)
    for _ in range(MAX_FAILURES):
        assert not gate("mika", "guess")
    assert not gate("mika", PASSWORD)  # locked, even with the right password
    now[0] += LOCKOUT_SECONDS + 1
    assert gate("mika", PASSWORD)


# ---- the command line: password, --host, one server per home -------------------------------------------

def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "SAIVERSE_HOME": str(home), "SAIVERSE_DEFAULT_MODEL": "offline", "SAIVERSE_RAISE_ERRORS": "1"}


def _main(home: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], capture_output=True, text=True,
                          env=_env(home), input=stdin, timeout=120, check=False, cwd=str(home.parent))


@pytest.mark.usefixtures("in_english")
def test_password_is_stored_hashed_and_never_backed_up(saiverse_home: Path) -> None:
    short = _main(saiverse_home, "password", "set", stdin="short\n")
    assert short.returncode == USER_ERROR_EXIT and "too short" in short.stderr, short.stderr
    assert not (saiverse_home / "login.json").exists()
    done = _main(saiverse_home, "password", "set", "--user", "mika", stdin=PASSWORD + "\n")
    assert done.returncode == 0, done.stderr
    stored = saiverse_home / "login.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    text = stored.read_text(encoding="utf-8")
    assert PASSWORD not in text and "horse" not in text
    data = json.loads(text)
    assert data["algorithm"] == "scrypt" and len(bytes.fromhex(data["salt"])) == 16 and data["user"] == "mika"
    status = _main(saiverse_home, "password", "status", "--json")
    assert json.loads(status.stdout) == {"set": True, "user": "mika"}
    assert _main(saiverse_home, "world").returncode == 0  # a world to back up
    backup = _main(saiverse_home, "backup", "--json")
    assert backup.returncode == 0, backup.stderr
    archive = Path(json.loads(backup.stdout.strip().splitlines()[-1])["path"])
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        assert not any("login" in n for n in names), names
        assert all(PASSWORD.encode() not in zf.read(n) and data["hash"].encode() not in zf.read(n) for n in names)
    cleared = _main(saiverse_home, "password", "clear")
    assert cleared.returncode == 0 and not stored.exists()


def test_a_wide_host_without_a_password_is_refused_and_binds_nothing(saiverse_home: Path) -> None:
    port = free_port()
    proc = _main(saiverse_home, "--host", "0.0.0.0", "--port", str(port))
    assert proc.returncode == USER_ERROR_EXIT, proc.stderr[-2000:]
    err = proc.stderr.strip()
    assert err.startswith("エラー: ") and len(err.splitlines()) == 1 and "password set" in err, err
    assert f"python main.py --home {saiverse_home} password set" in err, err  # the command for this home
    assert not (saiverse_home / "saiverse.db").exists()  # refused before the world was opened
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/", timeout=5)


class _Server:
    """A real `python main.py` server process; its stdout is read line by line."""

    def __init__(self, home: Path, *argv: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-u", str(ROOT / "main.py"), *argv], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=_env(home), cwd=str(home.parent))
        self.lines: list[str] = []

    def wait_for(self, needle: str, timeout: float = 180) -> str:
        deadline = time.monotonic() + timeout
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"the server ended: {self.proc.wait()} {self.proc.stderr.read()[-2000:]}")  # type: ignore[union-attr]
            self.lines.append(line)
            if needle in line:
                return line
        raise AssertionError(f"no {needle!r} within {timeout} s: {self.lines}")

    def stop(self, sig: int = signal.SIGINT) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def test_a_second_server_on_one_home_is_refused_naming_the_first(saiverse_home: Path) -> None:
    first_port, second_port = free_port(), free_port()
    first = _Server(saiverse_home, "--port", str(first_port))
    try:
        first.wait_for("SAIVerse: http")
        second = _main(saiverse_home, "--port", str(second_port))
        assert second.returncode == USER_ERROR_EXIT, second.stderr[-2000:]
        err = second.stderr.strip()
        assert err.startswith("エラー: ") and len(err.splitlines()) == 1, err
        assert f":{first_port}/" in err and str(first.proc.pid) in err and str(saiverse_home) in err, err
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{second_port}/", timeout=5)
        assert httpx.get(f"http://127.0.0.1:{first_port}/config", timeout=30).status_code == 200
        backups = sorted(p.name for p in (saiverse_home / "backups").glob("*.zip"))
        first.stop(signal.SIGKILL)  # the kernel drops the lock with the process: no stale claim
        again = _Server(saiverse_home, "--port", str(second_port))
        try:
            again.wait_for("SAIVerse: http")
            assert httpx.get(f"http://127.0.0.1:{second_port}/config", timeout=30).status_code == 200
        finally:
            again.stop()
        assert again.proc.returncode == 0
        # The refused start took no daily backup of its own.
        assert sorted(p.name for p in (saiverse_home / "backups").glob("*.zip")) == backups
    finally:
        first.stop(signal.SIGKILL)


def test_a_wide_host_with_a_password_says_where_to_open_and_asks_to_log_in(saiverse_home: Path) -> None:
    from ui.guard import lan_addresses

    addresses = lan_addresses()
    if not addresses:
        pytest.skip("this machine has no address other than loopback to bind")
    address = addresses[0]
    assert _main(saiverse_home, "password", "set", stdin=PASSWORD + "\n").returncode == 0
    port = free_port()
    server = _Server(saiverse_home, "--host", address, "--port", str(port))
    try:
        line = server.wait_for("From your phone")
        assert f"http://{address}:{port}/" in line and "password" in line
        with httpx.Client(base_url=f"http://{address}:{port}", timeout=30) as client:
            assert client.get("/config").status_code == 401
            assert client.get("/config", headers={"Host": "evil.example"}).status_code == 403
            assert client.post("/login", data={"username": "saiverse", "password": PASSWORD}).status_code == 200
            assert client.get("/config").status_code == 200
            assert client.get("/manifest.json").json()["name"] == "SAIVerse"  # installable (PWA)
    finally:
        server.stop()


def test_allowed_hosts_come_from_the_setting_and_a_bad_one_is_named(saiverse_home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from saiverse.settings import SettingsError, load_settings
    from ui.guard import allowed_names, host_name_of

    monkeypatch.setenv("SAIVERSE_ALLOWED_HOSTS", "MyPC.lan, 192.168.1.5")
    settings = load_settings(saiverse_home)
    assert settings.allowed_hosts == ("mypc.lan", "192.168.1.5")
    names, any_address = allowed_names("127.0.0.1", settings.allowed_hosts)
    assert {"mypc.lan", "192.168.1.5", "localhost", "127.0.0.1", "::1"} <= names and not any_address
    assert allowed_names("0.0.0.0")[1] and "0.0.0.0" not in allowed_names("0.0.0.0")[0]
    assert [host_name_of(h) for h in ("[::1]:7860", "LocalHost.:80", "a.b", "[fe80::1]")] == \
        ["::1", "localhost", "a.b", "fe80::1"]
    monkeypatch.setenv("SAIVERSE_ALLOWED_HOSTS", "evil.example/path")
    with pytest.raises(SettingsError, match="SAIVERSE_ALLOWED_HOSTS"):
        load_settings(saiverse_home)
