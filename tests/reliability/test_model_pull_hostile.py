"""`model pull` against a hostile or broken hub and a home that changed under it (issue 34), through the
real huggingface_hub and a loopback fake hub (tests/support/fakes_hub.py, HF_ENDPOINT):

- a body without a Content-Length that never ends stops at the size the hub announced, is refused and
  its part file deleted (it grew to 10.6 GB in 90 s before);
- a download that would leave less than the spare margin free on the disk stops the same way;
- `<home>/models` a link out of the home: the pull refuses and writes nothing there, the app refuses
  to start, as for the other folders of the home (README, "A folder of the home that is a link…");
- a pulled file damaged later is hashed again when pulled again, and pulled anew instead of "done".
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import saiverse.llm.local._pull as pull_module
from saiverse.care._home_safety import HomeRefused
from saiverse.llm.local._pull import SPARE_BYTES, PullRefused, pull
from tests.support.fakes_hub import FakeHub, file_sha256
from tests.support.model_pull import FILE, REPO, cli, settings_for, transfers

pytest.importorskip("huggingface_hub", reason="huggingface_hub is not installed (pip install -r requirements.txt)")


def _parts(home: Path) -> list[Path]:
    return list((home / "models" / ".pull").glob("*.part")) if (home / "models" / ".pull").is_dir() else []


def test_an_endless_body_stops_at_the_announced_size(hub: FakeHub, gguf: Path, saiverse_home: Path) -> None:
    hub.endless = True
    started = time.monotonic()
    done = cli("model", "pull", f"{REPO}/{FILE}", hub=hub)
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if not line.startswith("download:")]  # progress aside
    assert len(errors) == 1 and "sent more than the 241.4 MB it announced" in errors[0], done.stderr
    assert time.monotonic() - started < 60
    assert not _parts(saiverse_home) and not (saiverse_home / "models" / FILE).exists()
    assert hub.sent_endless < 64 * 1024 * 1024  # it hung up at once, not after filling anything


def test_a_download_stops_at_the_free_space_margin(hub: FakeHub, saiverse_home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    real = pull_module.shutil.disk_usage
    calls = {"n": 0}

    def filling(path: object) -> object:
        calls["n"] += 1
        usage = real(path)  # type: ignore[arg-type]
        # Room before the first byte; then something else fills the disk while the bytes arrive.
        return usage._replace(free=10 * 1024 ** 3 if calls["n"] == 1 else SPARE_BYTES + 1000)

    monkeypatch.setattr(pull_module.shutil, "disk_usage", filling)
    monkeypatch.setattr(pull_module, "DISK_CHECK_BYTES", 256 * 1024)
    with pytest.raises(PullRefused, match="less than .* free"):
        pull(settings_for(hub), f"{REPO}/{FILE}")  # type: ignore[arg-type]
    assert calls["n"] >= 2 and not _parts(saiverse_home) and not (saiverse_home / "models" / FILE).exists()


def test_models_linked_out_of_the_home_is_refused(hub: FakeHub, saiverse_home: Path, tmp_path: Path) -> None:
    from saiverse.manager import SAIVerseManager
    from saiverse.settings import load_settings

    SAIVerseManager(load_settings()).close()  # a home in use
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (saiverse_home / "models").symlink_to(elsewhere)
    done = cli("model", "pull", f"{REPO}/{FILE}", hub=hub)
    assert done.returncode == 2 and "is a link to" in done.stderr and "pulled nothing" in done.stderr, done.stderr
    assert list(elsewhere.iterdir()) == [] and "GET" not in transfers(hub)
    with pytest.raises(HomeRefused, match="models is a link to"):
        SAIVerseManager(load_settings())
    assert list(elsewhere.iterdir()) == []


def test_a_damaged_pulled_file_is_pulled_again(hub: FakeHub, gguf: Path, saiverse_home: Path) -> None:
    from saiverse.llm.local import LocalModelMissing, ensure_file

    settings = settings_for(hub)
    hub.add(REPO, "copy.gguf", gguf)  # not the packaged file's name (that one is assembled again by itself)
    first = pull(settings, f"{REPO}/copy.gguf")  # type: ignore[arg-type]
    target = Path(first.path)
    assert ensure_file(target) == target  # whole: the app loads it
    gets = transfers(hub).count("GET")
    with target.open("r+b") as fh:  # one byte flipped on disk, long after the pull
        fh.seek(4096)
        byte = fh.read(1)
        fh.seek(4096)
        fh.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(LocalModelMissing, match="壊れています.*model pull"):
        ensure_file(target)  # the app refuses to load it, saying how to get it whole
    again = pull(settings, f"{REPO}/copy.gguf")  # type: ignore[arg-type]
    assert ensure_file(target) == target
    assert transfers(hub).count("GET") == gets + 1  # fetched again, not reported done
    assert file_sha256(target) == file_sha256(gguf) == again.sha256
    same = pull(settings, f"{REPO}/copy.gguf")  # a whole file: hashed, kept, nothing fetched
    assert transfers(hub).count("GET") == gets + 1 and same.sha256 == again.sha256
