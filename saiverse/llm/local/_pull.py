"""`model pull`: download a GGUF from the Hugging Face hub into `<home>/models/`, checked and resumable.

Through the `huggingface_hub` library (docs/ARCHITECTURE.md, "Models"): `hf_hub_url` and
`get_hf_file_metadata` ask the hub (or `HF_ENDPOINT`) for the file's commit, size and sha256 (the
LFS ETag); `http_get` streams it with Range requests and retries a cut connection where it stopped.
The bytes go to `<home>/models/.pull/<file>.<sha256>.part`, which outlives a kill: the next pull
of the same file resumes from its length (hf_hub_download itself deletes its partial file on
failure, so it cannot resume after a kill). The finished file is hashed, refused and deleted when
its sha256 is not the one the hub served, and renamed into place with a `<file>.json` record beside
it. Disk space is checked before the first byte, and again as the bytes arrive: a body longer than
the size the hub announced (an endless one without a Content-Length, say), or one that would leave
less than `SPARE_BYTES` free, stops the download at once and the part file is deleted (issue 34: such
a hub grew one to 10.6 GB). A file already pulled is hashed again before it is reused: a file damaged
since is pulled anew. `<home>/models` linking out of the home is refused, as the app's start refuses it
(saiverse/care/_home_safety.py). One pull per file at a time (a lock file).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO

from saiverse.disk import pid_alive, private_folder, sha256_of
from saiverse.errors import UserError
from saiverse.llm.local._catalog import local_name, resolve
from saiverse.settings import Settings, SettingsStore

MODELS_DIR = "models"
PARTS_DIR = ".pull"
SPARE_BYTES = 64 * 1024 * 1024
"""Free space kept beyond the file itself (the database and memory keep writing meanwhile)."""
DISK_CHECK_BYTES = 8 * 1024 * 1024
"""The free space is looked at again after every this many bytes written."""
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class PullRefused(UserError):
    """The pull cannot be done (unknown file, no sha256 served, no space, wrong sha256); the message says why.

    `key` names the refusals the page words in its own language (ui/tabs/models.py: label `md_err_<key>`
    filled with `fields`); the message stays the command line's English line."""

    def __init__(self, message: str, key: str = "", **fields: str) -> None:
        super().__init__(message)
        self.key, self.fields = key, fields


class _Stopped(Exception):
    """Raised from inside the download to stop it (too many bytes, too little disk); the message says why."""


class PullInterrupted(Exception):
    """The download stopped (the network, the hub); what arrived is kept and the next pull resumes."""


@dataclass
class PullProgress:
    """How far a pull is."""

    done: int
    """Bytes on disk (a resumed pull starts at what was already there)."""
    total: int
    """Size the hub serves."""
    bytes_per_s: float
    """Recent download speed."""
    eta_s: float | None
    """Seconds left at that speed (None before there is a speed)."""
    phase: str = "download"
    """`download`, then `verify` (hashing), then `done`."""


@dataclass
class PulledModel:
    """What a pull left in `<home>/models/` (also the `<file>.json` record beside the GGUF)."""

    name: str
    """`local:NAME` names it."""
    repo: str
    filename: str
    path: str
    size: int
    sha256: str
    commit: str
    pulled_at: float
    resumed_from: int = 0
    """Bytes that were already on disk from an earlier, interrupted pull."""
    default: bool = False
    """Whether it was made the default model."""

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-able data."""
        return asdict(self)


ProgressFn = Callable[[PullProgress], None]


def models_dir(settings: Settings) -> Path:
    """`<home>/models/`."""
    return settings.home / MODELS_DIR


def record_of(path: Path) -> dict[str, Any] | None:
    """The `<file>.json` record of a pulled GGUF (None for a file not pulled, e.g. the packaged one)."""
    try:
        data = json.loads(path.with_name(path.name + ".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class _Counting:
    """The part file as `http_get` sees it, telling progress as bytes are written."""

    def __init__(self, fh: BinaryIO, start: int, total: int, report: ProgressFn | None, folder: Path) -> None:
        self._fh = fh
        self.done = start
        self._total = total
        self._report = report
        self._mark = (time.monotonic(), start)
        self._speed = 0.0
        self._folder = folder
        self._disk_checked = start

    def write(self, data: bytes) -> int:
        if self.done + len(data) > self._total:  # http_get checks the size only once the body has ended
            raise _Stopped(f"the hub sent more than the {_gb(self._total)} it announced")
        if self.done + len(data) - self._disk_checked >= DISK_CHECK_BYTES:
            self._disk_checked = self.done
            free = shutil.disk_usage(self._folder).free
            if free - len(data) < SPARE_BYTES:
                raise _Stopped(f"the disk would have less than {_gb(SPARE_BYTES)} free ({_gb(free)} left)")
        written = self._fh.write(data)
        self.done += len(data)
        now = time.monotonic()
        last_t, last_n = self._mark
        if now - last_t >= 0.5:
            self._speed = (self.done - last_n) / (now - last_t)
            self._mark = (now, self.done)
        if self._report:
            eta = (self._total - self.done) / self._speed if self._speed > 0 else None
            self._report(PullProgress(self.done, self._total, self._speed, eta))
        return written

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._fh.seek(offset, whence)

    def tell(self) -> int:
        return self._fh.tell()

    def truncate(self, size: int | None = None) -> int:
        result = self._fh.truncate(size)
        self.done = self._fh.tell()  # the server ignored the Range: the download starts over
        return result

    def flush(self) -> None:
        self._fh.flush()




def _metadata(repo: str, filename: str, endpoint: str | None, timeout: float) -> Any:
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError, RepositoryNotFoundError

    url = hf_hub_url(repo, filename, endpoint=endpoint)
    try:
        return get_hf_file_metadata(url, timeout=timeout, endpoint=endpoint, token=False)
    except RepositoryNotFoundError as exc:
        raise PullRefused(f"no repository {repo!r} on the hub (or it needs a login)", "no_repo", repo=repo) from exc
    except EntryNotFoundError as exc:
        raise PullRefused(f"{repo!r} has no file {filename!r}", "no_file", repo=repo, file=filename) from exc
    except HfHubHTTPError as exc:
        raise PullRefused(f"the hub refused {repo}/{filename}: {exc}".splitlines()[0]) from exc
    except OSError as exc:  # httpx's connection errors are OSErrors underneath
        raise _unreachable(endpoint, exc) from exc
    except Exception as exc:  # httpx.HTTPError is not an OSError
        if type(exc).__module__.startswith("httpx"):
            raise _unreachable(endpoint, exc) from exc
        raise


def _unreachable(endpoint: str | None, exc: BaseException) -> PullRefused:
    """The hub cannot be reached: the English line with the system's reason, the page's key with the host."""
    host = endpoint or "huggingface.co"
    return PullRefused(f"cannot reach the hub ({host}): {exc}", "hub_unreachable", host=host)


def _write_record(target: Path, pulled: PulledModel) -> None:
    record = target.with_name(target.name + ".json")
    tmp = record.with_name(record.name + ".tmp")
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as fh:
        fh.write(json.dumps(pulled.to_dict(), ensure_ascii=False, indent=2))
    os.replace(tmp, record)


def pull(settings: Settings, name: str, *, progress: ProgressFn | None = None, set_default: bool = False,
         store: SettingsStore | None = None) -> PulledModel:
    """Download `name` (a catalogue name or `owner/repo/file.gguf`) into `<home>/models/`.

    Resumes an interrupted pull of the same file; returns at once when the file is already there with
    the sha256 the hub serves. `set_default` saves `default_model = local:NAME` in settings.json
    (through `store` when given, so a running app sees it). Raises PullRefused saying why.
    """
    from huggingface_hub.file_download import http_get
    from huggingface_hub.utils import build_hf_headers

    from saiverse.disk import link_out_of_home

    repo, filename, _entry = resolve(name)
    folder = models_dir(settings)
    parts = folder / PARTS_DIR
    problem = link_out_of_home(settings.home) if settings.home.is_dir() else None
    if problem:
        raise PullRefused(problem.replace("did not open this home", "pulled nothing"))
    meta = _metadata(repo, filename, settings.hf_endpoint, min(settings.request_timeout, 30.0))
    sha = (meta.etag or "").lower()
    if not _SHA256.match(sha):
        raise PullRefused(f"the hub serves no sha256 for {repo}/{filename} (not an LFS file), so it cannot be checked")
    size = int(meta.size or 0)
    if size <= 0:
        raise PullRefused(f"the hub does not say how large {repo}/{filename} is")
    target = folder / filename
    record = record_of(target)
    if target.is_file() and record and record.get("sha256") == sha:
        if progress:
            progress(PullProgress(size, size, 0.0, None, "verify"))
        if target.stat().st_size == size and sha256_of(target) == sha:  # not damaged since it was pulled
            done = PulledModel(**{k: record[k] for k in PulledModel.__dataclass_fields__ if k in record})
            return _finish(done, settings, set_default, store)
        target.with_name(target.name + ".json").unlink(missing_ok=True)  # damaged: pulled again below
        target.unlink()
        record = None
    if target.is_file() and record is None and target.stat().st_size == size and sha256_of(target) == sha:
        # Renamed into place, then killed before its record was written: the file is whole.
        done = PulledModel(local_name(filename), repo, filename, str(target), size, sha, meta.commit_hash or "",
                           time.time())
        _write_record(target, done)
        return _finish(done, settings, set_default, store)
    part = parts / f"{filename}.{sha}.part"
    lock = parts / f"{filename}.lock"
    have = part.stat().st_size if part.is_file() else 0
    where = parts
    while not where.exists() and where != where.parent:  # a first pull into a home not made yet
        where = where.parent
    free = shutil.disk_usage(where).free
    if free < size - min(have, size) + SPARE_BYTES:
        raise PullRefused(f"not enough disk space for {filename}: it needs {_gb(size - min(have, size))} more "
                          f"(and {_gb(SPARE_BYTES)} to spare), {where} has {_gb(free)} free")
    private_folder(parts)  # only now: a refused pull writes nothing; models/ and .pull/ are 0700 like the home
    try:
        lock_fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        if _lock_alive(lock):
            raise PullRefused(f"{filename} is already being pulled (by process {lock.read_text().strip()})") from None
        lock.unlink(missing_ok=True)  # left by a killed pull
        lock_fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    try:
        os.write(lock_fd, str(os.getpid()).encode())
        os.close(lock_fd)
        have = part.stat().st_size if part.is_file() else 0
        if have > size:
            part.unlink()
            have = 0
        url = meta.location or ""
        if progress:
            progress(PullProgress(have, size, 0.0, None))  # the size is known before the first byte
        with os.fdopen(os.open(part, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab") as fh:
            counting = _Counting(fh, have, size, progress, parts)
            if have < size:
                try:
                    http_get(url, counting, resume_size=have, expected_size=size,  # type: ignore[arg-type]
                             displayed_filename=filename,
                             headers=build_hf_headers(token=False, headers={"Accept-Encoding": "identity"}))
                except _Stopped as exc:
                    fh.close()
                    part.unlink(missing_ok=True)
                    raise PullRefused(f"the download of {filename} was stopped: {exc}; the partial file was "
                                      "deleted") from None
                except Exception as exc:
                    if not isinstance(exc, OSError) and not type(exc).__module__.startswith(("httpx", "huggingface")):
                        raise
                    fh.flush()
                    raise PullInterrupted(f"the download of {filename} stopped at {_gb(counting.done)} of "
                                          f"{_gb(size)} ({exc}); pull it again to resume".replace("\n", " ")) from exc
            fh.flush()
            os.fsync(fh.fileno())
        if progress:
            progress(PullProgress(size, size, 0.0, 0.0, "verify"))
        got = sha256_of(part)
        if got != sha:
            part.unlink(missing_ok=True)
            raise PullRefused(f"{filename} does not match the sha256 the hub serves ({sha[:12]}…, the download is "
                              f"{got[:12]}…): it was deleted; pull again")
        os.replace(part, target)
        commit = meta.commit_hash or ""
        pulled = PulledModel(local_name(filename), repo, filename, str(target), size, sha, commit, time.time(),
                             resumed_from=have)
        _write_record(target, pulled)
    finally:
        lock.unlink(missing_ok=True)
    if progress:
        progress(PullProgress(size, size, 0.0, 0.0, "done"))
    return _finish(pulled, settings, set_default, store)


def _lock_alive(lock: Path) -> bool:
    try:
        pid = int(lock.read_text().strip() or "0")
    except (OSError, ValueError):
        return False
    if pid == os.getpid():
        return True  # this process: another thread pulls it
    return pid_alive(pid)


def _finish(pulled: PulledModel, settings: Settings, set_default: bool, store: SettingsStore | None) -> PulledModel:
    if set_default:
        make_default(settings, pulled.name, store)
        pulled.default = True
    return pulled


def make_default(settings: Settings, name: str, store: SettingsStore | None = None) -> Settings:
    """Save `default_model = local:NAME` in settings.json (the persona-less default), returning the new
    Settings; for an embedding model (it cannot talk) `embedding_model = local:NAME`, recall's vectors."""
    from saiverse.llm.local._gguf_meta import model_kind

    path = settings.home / MODELS_DIR / f"{name}.gguf"
    field = "embedding_model" if path.is_file() and model_kind(path) == "embedding" else "default_model"
    return (store or SettingsStore(settings)).save({field: f"local:{name}"})


def _gb(size: int) -> str:
    from saiverse.disk import human_size

    return human_size(size)
