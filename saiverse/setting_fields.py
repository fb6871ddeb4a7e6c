"""What can be set, and the `Settings` it fills: one `Option` per value read from outside (its variable, parser,
whether the 設定 tab may save it, whether it is a key) and one `Settings` field for each. saiverse/settings.py
resolves them (flags → env → `.env` files → settings.json → these defaults); a new setting is an `Option` here and
a field below (docs/ARCHITECTURE.md, "Configuration")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from saiverse import setting_values

DEFAULT_HOME = Path("~/.saiverse")
DEFAULT_LIGHTWEIGHT_VISION_MODEL = "gemini-2.0-flash"
DEFAULT_LIGHTWEIGHT_MODEL = "gemini-2.5-flash-lite"
DEFAULT_VISION_MODEL = "gemini-2.0-flash-thinking"
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
    Option("tls_cert", "SAIVERSE_TLS_CERT", saved=True),
    Option("tls_key", "SAIVERSE_TLS_KEY", saved=True),
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
    Option("word_neighbours", "SAIVERSE_WORD_NEIGHBOURS", setting_values.switch),
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
    tls_cert: str = ""
    """The certificate (PEM) the UI serves https with, and tls_key its private key (PEM, unencrypted): both or
    neither ('': plain http); a relative path is under the data home (`python main.py tls make` writes
    `tls/cert.pem` and `tls/key.pem` there). Checked before the app starts (saiverse/care/_tls.py)."""
    tls_key: str = ""
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
    word_neighbours: bool = True
    """Whether recall also looks for a question's English words' nearest words (car: vehicle; surgery:
    hospital), from a table built once in the background out of the packaged model's token embeddings
    (saiverse/memory/_neighbours.py). Off: recall is as it was without the table."""
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
