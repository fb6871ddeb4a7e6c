"""The GGUF models in `<home>/models/`: size, where each came from, its profile, who uses it (`model list`).

Nothing is loaded: the profile (base / instruct, and whether it may decide) and the trained context
come from the GGUF header (saiverse/llm/local/_gguf_meta.py) through the same rules the `local` model uses
(saiverse/llm/local/_profile.py). A persona uses a file when its model column, or the default model
it falls back to, names it (`local`, `local:NAME`, or `auto` while `auto` answers locally).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from saiverse.llm.local._files import LocalModelMissing, model_path, packaged_available
from saiverse.llm.local._gguf_meta import NotGguf, context_length, model_kind, read_metadata
from saiverse.llm.local._health import HealthBook
from saiverse.llm.local._profile import PACKAGED_NAME, profile_for
from saiverse.llm.local._pull import MODELS_DIR, record_of
from saiverse.llm.names import parse_name
from saiverse.settings import Settings


@dataclass
class InstalledModel:
    """One GGUF in `<home>/models/`."""

    name: str
    """What `local:NAME` calls it."""
    file: str
    path: str
    size: int
    source: str
    """`packaged` (the built-in Gemma 3 270M), `pulled` (by `model pull`) or `added` (put there by hand)."""
    repo: str = ""
    sha256: str = ""
    profile: str = ""
    """`base`, `instruct` or `instruct+json` (instruct, and trusted with decisions)."""
    profile_reason: str = ""
    context: int | None = None
    """Context length the model was trained for (the app uses SAIVERSE_LOCAL_CONTEXT of it)."""
    runs_context: int | None = None
    """The context it runs at here: SAIVERSE_LOCAL_CONTEXT, or the trained length when that is shorter."""
    params: str = ""
    default: bool = False
    """Whether a persona without its own model answers with it."""
    used_by: list[str] = field(default_factory=list)
    """Names of the personas that answer with it."""
    assembled: bool = True
    """False for the packaged model before its first use (it is assembled then)."""
    runs: str = "untried"
    """`ok` (it generated on this machine with this llama.cpp build), `broken` (its process died twice
    running while loading; `model retry` clears it) or `untried`."""
    runs_detail: str = ""
    """When it last generated, or why it is broken."""
    kind: str = "chat"
    """`chat`, or `embedding` (a model for recall's vectors: SAIVERSE_EMBEDDING_MODEL=local:NAME)."""
    embedding: bool = False
    """Whether SAIVERSE_EMBEDDING_MODEL uses it."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)


def _profile(path: Path, settings: Settings) -> tuple[str, str, int | None, str]:
    try:
        meta = read_metadata(path)
    except (OSError, NotGguf) as exc:
        return "", f"読めません: {exc}", None, ""
    prof = profile_for(meta, settings.local_profile, path.name)
    kind = "base" if not prof.chat_template else ("instruct+json" if prof.decides else "instruct")
    return kind, prof.reason, context_length(meta), meta.get("general.size_label", "")


def _file_of(settings: Settings, name: str, auto: Callable[[], str]) -> Path | None:
    """The GGUF a model name answers with (None when it is not a local model); `auto()` names what `auto`
    answers with now (saiverse/llm/registry.py decides it, above this package)."""
    parsed = parse_name(name)
    if parsed.kind == "auto":
        parsed = parse_name(auto())
    if parsed.kind != "local":
        return None
    try:
        return model_path(settings, parsed.model_id).resolve()
    except LocalModelMissing:
        return None


def models_on_disk(settings: Settings, personas: Iterable[Any] = (), *,
                   auto: Callable[[], str]) -> list[InstalledModel]:
    """Every GGUF under `<home>/models/` (and the packaged model, assembled or not), newest pull last.
    `auto()` names the model `auto` answers with (`saiverse.llm.installed_models` passes the registry's)."""
    folder = settings.home / MODELS_DIR
    files = sorted(folder.glob("*.gguf")) if folder.is_dir() else []
    packaged = folder / PACKAGED_NAME
    default_file = _file_of(settings, settings.default_model, auto)
    embedding_file = _file_of(settings, settings.embedding_model, auto) if settings.embedding_model else None
    users: dict[Path, list[str]] = {}
    for persona in personas:
        own = getattr(persona, "default_model", None) or settings.default_model
        path = _file_of(settings, str(own), auto)
        if path is not None:
            users.setdefault(path, []).append(str(getattr(persona, "name", "")))
    rows: list[InstalledModel] = []
    book = HealthBook(settings.home)
    if packaged not in files and packaged_available():
        files.insert(0, packaged)
    for path in files:
        record = record_of(path)
        present = path.is_file()
        source = "packaged" if path.name == PACKAGED_NAME else ("pulled" if record else "added")
        unbuilt = ("base", "ベースモデル (初回使用時に組み立て)", None, "270M")
        kind, reason, ctx, params = _profile(path, settings) if present else unbuilt
        resolved = path.resolve()
        rows.append(InstalledModel(
            name=path.name[:-5], file=path.name, path=str(path), size=path.stat().st_size if present else 0,
            source=source, repo=str((record or {}).get("repo", "")), sha256=str((record or {}).get("sha256", "")),
            profile=kind, profile_reason=reason, context=ctx, params=params, default=resolved == default_file,
            runs_context=min(settings.local_context, ctx) if ctx else settings.local_context,
            used_by=users.get(resolved, []), assembled=present))
        rows[-1].kind = model_kind(path) if present else "chat"
        rows[-1].embedding = resolved == embedding_file
        health = book.get(path) if present else None
        if health is not None:
            rows[-1].runs = health.state
            rows[-1].runs_detail = health.reason if health.state == "broken" else health.at
    return rows
