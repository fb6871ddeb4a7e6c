"""Settings: every value the app reads from outside, resolved in one place with one precedence.

For each setting the first of these that gives a non-empty value wins (docs/ARCHITECTURE.md,
"Configuration"):

1. a command-line flag (`--home`, `--host`, `--port`), passed to `load_settings` as an argument;
2. the process environment;
3. `.env` in the data home;
4. `.env` in the working directory;
5. `settings.json` in the data home (what the 設定 tab saves: model names, base URL, keys);
6. the default on the `Settings` field.

The data home itself cannot come from its own `.env`: it is `--home`, else `SAIVERSE_HOME` from the
environment or the working directory's `.env`, else `~/.saiverse`. A persona's model columns win over
all of this for that persona (`saiverse.llm.registry.model_for`). Nothing else reads `os.environ`
for configuration; `Settings.sources` records where each value came from (`python main.py config`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

from dotenv import dotenv_values

from saiverse import setting_values
from saiverse.setting_values import SettingsError

DEFAULT_HOME = Path("~/.saiverse")
DEFAULT_LIGHTWEIGHT_VISION_MODEL = "gemini-2.0-flash"
DEFAULT_LIGHTWEIGHT_MODEL = "gemini-2.5-flash-lite"
DEFAULT_VISION_MODEL = "gemini-2.0-flash-thinking"
ENV_FILE = ".env"
SAVED_SETTINGS_FILE = "settings.json"
"""Settings saved from the UI's 設定 tab, under the data home (mode 600: it may hold API keys)."""

SourceKind = Literal["flag", "env", ".env", "settings.json", "default"]
"""The layers of the precedence, strongest first."""


@dataclass(frozen=True)
class Source:
    """Where one setting's value came from."""

    kind: SourceKind
    """Which layer gave the value."""
    where: str = ""
    """The flag or variable name, or the file path; empty for a default."""

    def __str__(self) -> str:
        return f"{self.kind} {self.where}" if self.where else self.kind


DEFAULT_SOURCE = Source("default")


@dataclass(frozen=True)
class Option:
    """One setting that can come from outside: its field, variable and how to read it."""

    field: str
    """The `Settings` attribute."""
    env: str
    """The environment (and `.env`) variable."""
    parse: Callable[[str], Any] = setting_values.text
    """Text → value; raising ValueError makes a SettingsError naming the variable."""
    saved: bool = False
    """Whether the 設定 tab may save it in settings.json."""
    secret: bool = False
    """An API key: masked whenever it is shown."""


OPTIONS: tuple[Option, ...] = (
    Option("database_url", "SAIVERSE_DATABASE_URL", setting_values.sqlite_url),
    Option("host", "SAIVERSE_HOST"),
    Option("port", "SAIVERSE_PORT", setting_values.integer),
    Option("allowed_hosts", "SAIVERSE_ALLOWED_HOSTS", setting_values.host_names),
    Option("lang", "SAIVERSE_LANG", setting_values.lang),
    Option("default_model", "SAIVERSE_DEFAULT_MODEL", saved=True),
    Option("default_lightweight_model", "SAIVERSE_DEFAULT_LIGHTWEIGHT_MODEL", saved=True),
    Option("lightweight_vision_model", "SAIVERSE_LIGHTWEIGHT_VISION_MODEL", saved=True),
    Option("vision_model", "SAIVERSE_VISION_MODEL", saved=True),
    Option("gemini_api_key", "GEMINI_API_KEY", saved=True, secret=True),
    Option("gemini_base_url", "SAIVERSE_GEMINI_BASE_URL"),
    Option("openai_base_url", "SAIVERSE_OPENAI_BASE_URL", saved=True),
    Option("openai_api_key", "SAIVERSE_OPENAI_API_KEY", saved=True, secret=True),
    Option("openai_official_api_key", "OPENAI_API_KEY", saved=True, secret=True),
    Option("openai_official_base_url", "OPENAI_BASE_URL"),
    Option("anthropic_api_key", "ANTHROPIC_API_KEY", saved=True, secret=True),
    Option("anthropic_base_url", "ANTHROPIC_BASE_URL"),
    Option("local_model", "SAIVERSE_LOCAL_MODEL", saved=True),
    Option("local_context", "SAIVERSE_LOCAL_CONTEXT", setting_values.local_context),
    Option("local_threads", "SAIVERSE_LOCAL_THREADS", setting_values.threads),
    Option("local_profile", "SAIVERSE_LOCAL_PROFILE", setting_values.local_profile),
    Option("local_stall_seconds", "SAIVERSE_LOCAL_STALL_SECONDS", setting_values.seconds),
    Option("local_keep_alive", "SAIVERSE_LOCAL_KEEP_ALIVE", setting_values.keep_alive),
    Option("embedding_model", "SAIVERSE_EMBEDDING_MODEL", setting_values.embedding_model, saved=True),
    Option("hf_endpoint", "HF_ENDPOINT"),
    Option("ollama_url", "SAIVERSE_OLLAMA_URL"),
    Option("lmstudio_url", "SAIVERSE_LMSTUDIO_URL"),
    Option("llamacpp_url", "SAIVERSE_LLAMACPP_URL"),
    Option("detect_servers", "SAIVERSE_DETECT_SERVERS", setting_values.switch),
    Option("request_timeout", "SAIVERSE_REQUEST_TIMEOUT", setting_values.decimal),
    Option("max_upload_bytes", "SAIVERSE_MAX_UPLOAD_BYTES", setting_values.integer),
    Option("max_upload_pixels", "SAIVERSE_MAX_UPLOAD_PIXELS", setting_values.integer),
    Option("context_tokens", "SAIVERSE_CONTEXT_TOKENS", setting_values.context_tokens),
    Option("max_message_chars", "SAIVERSE_MAX_MESSAGE_CHARS", setting_values.positive),
    Option("backup_keep", "SAIVERSE_BACKUP_KEEP", setting_values.backup_keep),
    Option("pulse_workers", "SAIVERSE_PULSE_WORKERS", setting_values.pulse_workers),
    Option("pulse_workers_remote", "SAIVERSE_PULSE_WORKERS_REMOTE", setting_values.switch),
    Option("worker_heartbeat", "SAIVERSE_WORKER_HEARTBEAT", setting_values.worker_heartbeat),
    Option("worker_tick", "SAIVERSE_WORKER_TICK", setting_values.worker_tick),
    Option("mcp_timeout", "SAIVERSE_MCP_TIMEOUT", setting_values.seconds),
    Option("stt_engine", "SAIVERSE_STT_ENGINE", setting_values.stt_engine, saved=True),
    Option("stt_url", "SAIVERSE_STT_URL", setting_values.http_url, saved=True),
    Option("stt_model", "SAIVERSE_STT_MODEL", saved=True),
    Option("stt_api_key", "SAIVERSE_STT_API_KEY", saved=True, secret=True),
    Option("voice_cache_mb", "SAIVERSE_VOICE_CACHE_MB", setting_values.integer, saved=True),
    Option("voice_stall_seconds", "SAIVERSE_VOICE_STALL_SECONDS", setting_values.seconds),
    Option("voice_in_backups", "SAIVERSE_VOICE_IN_BACKUPS", setting_values.switch, saved=True),
)
"""Every setting read from flags, the environment, `.env` files or settings.json (besides the home)."""
HOME_ENV = "SAIVERSE_HOME"
SAVED_KEYS: tuple[str, ...] = tuple(o.field for o in OPTIONS if o.saved)
"""The fields settings.json may hold."""
SECRET_KEYS: tuple[str, ...] = tuple(o.field for o in OPTIONS if o.secret)


@dataclass(frozen=True)
class Settings:
    """Resolved configuration of one SAIVerse process."""

    home: Path
    """Data home: the database, images, documents and checkpoints live under it."""
    database_url: str
    """SQLAlchemy URL of the main database: a SQLite file (`<home>/saiverse.db` unless overridden)."""
    host: str = "127.0.0.1"
    """Interface the UI binds to; loopback unless the user asks otherwise."""
    port: int = 7860
    """Port of the UI."""
    allowed_hosts: tuple[str, ...] = ()
    """Extra host names the UI answers to besides localhost and the addresses (ui/guard.py checks the
    Host header of every request against them, against DNS rebinding); SAIVERSE_ALLOWED_HOSTS, comma-separated."""
    lang: str = "ja"
    """UI language: `ja` (default) or `en`."""
    default_model: str = "auto"
    """Model used when a persona names none (saiverse/llm/names.py lists the name forms); `auto`: a
    cloud model whose key is set, else the embedded local model, else the deterministic `offline`."""
    default_lightweight_model: str = DEFAULT_LIGHTWEIGHT_MODEL
    """Lightweight model for document summaries and routing (SAIVERSE_DEFAULT_LIGHTWEIGHT_MODEL)."""
    lightweight_vision_model: str = DEFAULT_LIGHTWEIGHT_VISION_MODEL
    """Vision model for picture summaries (SAIVERSE_LIGHTWEIGHT_VISION_MODEL)."""
    vision_model: str = DEFAULT_VISION_MODEL
    """Vision model for full vision tasks (SAIVERSE_VISION_MODEL)."""
    gemini_api_key: str | None = field(default=None, repr=False)
    """Key for Gemini; never printed (repr=False)."""
    gemini_base_url: str | None = None
    """Override of the Gemini endpoint (tests point it at a loopback fake)."""
    openai_base_url: str | None = None
    """Base URL of an OpenAI-compatible server (Ollama, LM Studio, llama.cpp)."""
    openai_api_key: str | None = field(default=None, repr=False)
    """Key for the OpenAI-compatible server, if it wants one."""
    openai_official_api_key: str | None = field(default=None, repr=False)
    """Key for OpenAI itself (`gpt-…`, `o…` models; OPENAI_API_KEY, as the SDK reads it)."""
    openai_official_base_url: str | None = None
    """Override of OpenAI's endpoint (OPENAI_BASE_URL, as the SDK reads it)."""
    anthropic_api_key: str | None = field(default=None, repr=False)
    """Key for Anthropic (`claude-…` models; ANTHROPIC_API_KEY)."""
    anthropic_base_url: str | None = None
    """Override of Anthropic's endpoint (ANTHROPIC_BASE_URL, as the SDK reads it)."""
    local_model: str | None = None
    """The GGUF the `local` model loads: a path or a name under `<home>/models/`; empty: the packaged
    Gemma 3 270M, assembled once into `<home>/models/`."""
    local_context: int = 2048
    """Context window (n_ctx) of the local model, in tokens; prompts are fitted to it."""
    local_threads: int = 0
    """CPU threads of the local model; 0: one per core."""
    local_profile: str = "auto"
    """How the local model is prompted and whether it may decide (LOCAL_PROFILES)."""
    local_stall_seconds: float = 180.0
    """How long the local model's process may go without a word (no token while streaming, no answer
    while reading a prompt) before it is taken for hung, killed and the reply ended."""
    local_keep_alive: float = 300.0
    """Seconds a local model's process stays loaded after its last request (as Ollama's keep_alive):
    then it ends and its memory is the system's again; the next request loads it anew. 0: never unload."""
    embedding_model: str = ""
    """The model whose vectors recall fuses with its lexical ranking (issue 33): `local` (the local model's
    GGUF), `local:<name or path>` (a GGUF, e.g. a pulled embedding model); empty: recall is lexical only.
    A background indexer embeds every message (saiverse/memory/_indexer.py)."""
    hf_endpoint: str | None = None
    """The Hugging Face hub `model pull` downloads from (HF_ENDPOINT, as huggingface_hub reads it; None:
    huggingface.co)."""
    ollama_url: str = "http://127.0.0.1:11434"
    """Where Ollama is looked for (saiverse/llm/servers.py)."""
    lmstudio_url: str = "http://127.0.0.1:1234"
    """Where LM Studio's server is looked for."""
    llamacpp_url: str = "http://127.0.0.1:8080"
    """Where llama.cpp's server (llama-server) is looked for."""
    detect_servers: bool = True
    """Whether the app looks for those servers at start and `auto` may answer with one."""
    request_timeout: float = 60.0
    """Seconds before a model request is abandoned."""
    max_upload_bytes: int = 20 * 1024 * 1024
    """Largest accepted upload."""
    max_upload_pixels: int = 40_000_000
    """Largest accepted image area (decompression-bomb guard)."""
    context_tokens: int = 8_000
    """Token budget of a prompt for personas without their own (`ai.CONTEXT_TOKENS`)."""
    max_message_chars: int = 20_000
    """Longest chat message a user may send (longer ones are refused before anything is written)."""
    backup_keep: int = 7
    """Automatic backups kept under `<home>/backups/`, per kind (daily, before a migration, before a delete)."""
    pulse_workers: int = 8
    """Threads that run pulses in this process (saiverse/pulse/_pool.py); the database pool is sized to them."""
    pulse_workers_remote: bool = False
    """Hand every pulse to the pulse workers' queue instead of running it here (PostgreSQL only,
    saiverse/pulse/_remote.py); a worker itself always runs what it takes."""
    worker_heartbeat: float = 10.0
    """Seconds between a pulse worker's heartbeats; a worker silent for 3 of them is taken for dead."""
    worker_tick: float = 15.0
    """Seconds between a pulse worker's city ticks (the in-process ticker's interval, saiverse/ticker.py)."""
    mcp_timeout: float = 20.0
    """Seconds one exchange with an MCP server (start, handshake, the call) may take (saiverse/mcp_tools.py)."""
    stt_engine: str = ""
    """Who listens (saiverse/listen): `openai-compatible`, `openai`, `gemini`, `off` ('': stt_url's server, if any);
    stt_url: that server's base URL (`…/v1`), stt_model: the model ('': the engine's), stt_api_key: its key."""
    stt_url: str | None = None
    stt_model: str = ""
    stt_api_key: str | None = field(default=None, repr=False)
    voice_cache_mb: int = 200
    """Largest size of the spoken audio kept in `<home>/audio/` (MB); the oldest used files go first
    (saiverse/voice/_cache.py). 0 keeps only the last line."""
    voice_stall_seconds: float = 60.0
    """Seconds the embedded voice's process may take for one line before it is called hung and restarted."""
    voice_in_backups: bool = False
    """Whether backups hold the spoken audio cache too (off: it can be made again)."""
    sources: Mapping[str, Source] = field(default_factory=dict, repr=False, compare=False)
    """Field → where its value came from; a field not listed is a default (or was set in code)."""

    @property
    def db_path(self) -> Path:
        """Filesystem path of the SQLite database (`<home>/saiverse.db`, absent, for a PostgreSQL city)."""
        if not self.database_url.startswith("sqlite:///"):
            return self.home / "saiverse.db"
        return Path(self.database_url[len("sqlite:///"):])

    @property
    def image_dir(self) -> Path:
        """Where picture files live (`FILE_PATH`s under it are `image/...`)."""
        return self.home / "image"

    @property
    def documents_dir(self) -> Path:
        """Where document files (and production bundles) live."""
        return self.home / "documents"

    @property
    def checkpoints_path(self) -> Path:
        """The LangGraph checkpoint database of production runs."""
        return self.home / "checkpoints.db"

    @property
    def backups_dir(self) -> Path:
        """Where automatic (and default manual) backups are written."""
        return self.home / "backups"

    @property
    def settings_path(self) -> Path:
        """The file the 設定 tab saves to."""
        return self.home / SAVED_SETTINGS_FILE

    def source(self, name: str) -> Source:
        """Where `name`'s value came from."""
        return self.sources.get(name, DEFAULT_SOURCE)

    def with_values(self, values: Mapping[str, Any], source: Source) -> Settings:
        """A copy with some fields set, recording `source` for each."""
        return replace(self, **values, sources={**self.sources, **dict.fromkeys(values, source)})


def raise_errors(environ: Mapping[str, str] | None = None) -> bool:
    """$SAIVERSE_RAISE_ERRORS (RAISE_ERRORS_ENV): a bug's traceback is shown instead of one line. Read apart
    from `load_settings` because it must work when loading the settings is what failed."""
    from saiverse.errors import RAISE_ERRORS_ENV

    return bool((os.environ if environ is None else environ).get(RAISE_ERRORS_ENV, "").strip())


def mask_key(key: str | None) -> str:
    """`****abcd` (the last four characters) for a key, '' for none: keys are never shown whole."""
    return "" if not key else "****" + key[-4:] if len(key) > 8 else "****"


def read_saved_settings(home: Path) -> dict[str, str]:
    """The UI-saved settings under `home` (empty when there are none or the file is unreadable).

    Only known keys with non-empty string values are returned; a damaged file must not stop the app.
    """
    return {k: v for k, v in _raw_saved(home).items() if k in SAVED_KEYS and isinstance(v, str) and v.strip()}


def _raw_saved(home: Path) -> dict[str, Any]:
    """settings.json as a whole (empty when missing or unreadable)."""
    try:
        raw = json.loads((home / SAVED_SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def _env_file(path: Path) -> dict[str, str]:
    """Non-empty values of a `.env` file (read, never exported into the process environment)."""
    if not path.is_file():
        return {}
    return {k: v.strip() for k, v in dotenv_values(path).items() if v and v.strip()}


def load_settings(home: str | Path | None = None, *, environ: Mapping[str, str] | None = None,
                  cwd: Path | None = None, **flags: Any) -> Settings:
    """The Settings of this process: flags → env → home `.env` → cwd `.env` → settings.json → default.

    `home` is the `--home` flag; other flags (`host`, `port`) are keyword arguments, None meaning
    "not given". `environ` and `cwd` default to the process's own. A value that cannot be read raises
    SettingsError naming the variable and where it was set.
    """
    env = {k: v.strip() for k, v in (os.environ if environ is None else environ).items() if v and v.strip()}
    cwd_file = (cwd or Path.cwd()) / ENV_FILE
    cwd_env = _env_file(cwd_file)
    if home:
        home_path, home_source = Path(home), Source("flag", "--home")
    elif HOME_ENV in env:
        home_path, home_source = Path(env[HOME_ENV]), Source("env", HOME_ENV)
    elif HOME_ENV in cwd_env:
        home_path, home_source = Path(cwd_env[HOME_ENV]), Source(".env", str(cwd_file))
    else:
        home_path, home_source = DEFAULT_HOME, DEFAULT_SOURCE
    resolved = home_path.expanduser().resolve()
    home_file = resolved / ENV_FILE
    home_env = _env_file(home_file)
    saved = read_saved_settings(resolved)
    saved_source = Source("settings.json", str(resolved / SAVED_SETTINGS_FILE))

    def candidates(option: Option) -> Iterator[tuple[Any, Source]]:
        yield flags.get(option.field), Source("flag", "--" + option.field.replace("_", "-"))
        yield env.get(option.env), Source("env", option.env)
        yield home_env.get(option.env), Source(".env", str(home_file))
        yield cwd_env.get(option.env), Source(".env", str(cwd_file))
        if option.saved:
            yield saved.get(option.field), saved_source

    settings = Settings(home=resolved, database_url=f"sqlite:///{resolved / 'saiverse.db'}",
                        sources={"home": home_source})
    for option in OPTIONS:
        for raw, source in candidates(option):
            if raw is None or raw == "":
                continue
            value = _parse(option, raw, source) if isinstance(raw, str) else raw
            settings = settings.with_values({option.field: value}, source)
            break
    return settings


def _parse(option: Option, raw: str, source: Source) -> Any:
    try:
        return option.parse(raw)
    except ValueError as exc:
        shown = "****" if option.secret or "@" in raw else repr(raw)
        raise SettingsError(f"{option.env} {exc}, got {shown} (from {source})") from exc


def _write_private_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically with mode 600 from the start (atomic_write's temp file is mkstemp's: a key is never
    world-readable, even briefly)."""
    from saiverse.disk import atomic_write, private_folder

    private_folder(path.parent)
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=2))


class SettingsStore:
    """The settings in force, and the one way to change them at run time (`save`)."""

    def __init__(self, settings: Settings) -> None:
        self._current = settings

    @property
    def current(self) -> Settings:
        """The Settings in force now."""
        return self._current

    def save(self, changes: Mapping[str, str | None]) -> Settings:
        """Write `changes` into settings.json (mode 600; None or '' removes a key) and return the new Settings.

        The precedence still holds: a field set by a flag, the environment or a `.env` file keeps that
        value (`Settings.source` tells the UI so); the others take the saved value, or their default
        when it is removed.
        """
        unknown = sorted(set(changes) - set(SAVED_KEYS))
        if unknown:
            raise SettingsError(f"settings.json cannot hold {', '.join(unknown)} (only {', '.join(SAVED_KEYS)})")
        from saiverse.locks import item_lock

        current = self._current
        with item_lock(current.home, SAVED_SETTINGS_FILE):  # also taken by saiverse/mcp_tools.py's writes
            stored = read_saved_settings(current.home)
            for key, value in changes.items():
                if value:
                    stored[key] = value
                else:
                    stored.pop(key, None)
            # Other sections of the file (the per-persona `mcp_servers`, saiverse/mcp_tools.py) are kept.
            others = {k: v for k, v in _raw_saved(current.home).items() if k not in SAVED_KEYS}
            _write_private_json(current.settings_path,
                                {**others, **{k: stored[k] for k in SAVED_KEYS if k in stored}})
        defaults = {f.name: f.default for f in fields(Settings)}
        saved_source = Source("settings.json", str(current.settings_path))
        new = current
        for key in changes:
            if current.source(key).kind not in ("settings.json", "default"):
                continue  # a stronger layer still decides
            if key in stored:
                new = new.with_values({key: stored[key]}, saved_source)
            else:
                new = replace(new, **{key: defaults[key]},
                              sources={k: v for k, v in new.sources.items() if k != key})
        self._current = new
        return new


def describe(settings: Settings) -> list[dict[str, Any]]:
    """Every setting with its value (keys masked), variable and source: what `main.py config` prints."""
    rows: list[dict[str, Any]] = [{"name": "home", "env": HOME_ENV, "value": str(settings.home),
                                   **_source_fields(settings.source("home"))}]
    for option in OPTIONS:
        value = getattr(settings, option.field)
        shown = mask_key(value) if option.secret else value
        if option.field == "database_url":
            shown = re.sub(r"(://[^:/@]*:)[^@]*@", r"\1****@", str(value))  # a PostgreSQL password is a key too
        rows.append({"name": option.field, "env": option.env, "value": shown,
                     **_source_fields(settings.source(option.field))})
    return rows


def _source_fields(source: Source) -> dict[str, str]:
    return {"source": source.kind, "where": source.where}
