"""Settings: the one typed object read from the environment and `.env`.

Everything the app reads from the outside world is named here, so `.env.example` can list it and
nothing else reaches for `os.environ` on its own.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from dotenv import load_dotenv

DEFAULT_HOME = Path("~/.saiverse")
DEFAULT_LIGHTWEIGHT_VISION_MODEL = "gemini-2.0-flash"
DEFAULT_LIGHTWEIGHT_MODEL = "gemini-2.5-flash-lite"
DEFAULT_VISION_MODEL = "gemini-2.0-flash-thinking"
SAVED_SETTINGS_FILE = "settings.json"
"""Settings saved from the UI's 設定 tab, under the data home (mode 600: it may hold API keys)."""
SAVED_KEYS: dict[str, str] = {
    "default_model": "SAIVERSE_DEFAULT_MODEL",
    "default_lightweight_model": "SAIVERSE_DEFAULT_LIGHTWEIGHT_MODEL",
    "lightweight_vision_model": "SAIVERSE_LIGHTWEIGHT_VISION_MODEL",
    "vision_model": "SAIVERSE_VISION_MODEL",
    "openai_base_url": "SAIVERSE_OPENAI_BASE_URL",
    "gemini_api_key": "GEMINI_API_KEY",
    "openai_api_key": "SAIVERSE_OPENAI_API_KEY",
}
"""Settings field → the environment variable that wins over the saved file."""


def _int(env: dict[str, str], key: str, default: int) -> int:
    raw = env.get(key, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{key} must be an integer, got {raw!r}") from exc


@dataclass(frozen=True)
class Settings:
    """Resolved configuration of one SAIVerse process."""

    home: Path
    """Data home: the database, images, documents and checkpoints live under it."""
    database_url: str
    """SQLAlchemy URL of the main database (SQLite file under `home` unless overridden)."""
    host: str = "127.0.0.1"
    """Interface the UI binds to; loopback unless the user asks otherwise."""
    port: int = 7860
    """Port of the UI."""
    lang: str = "ja"
    """UI language: `ja` (default) or `en`."""
    default_model: str = "offline"
    """Model used when a persona names none: `offline`, a Gemini model or `openai:<model>`."""
    default_lightweight_model: str = DEFAULT_LIGHTWEIGHT_MODEL
    """Lightweight model for summaries and routing (spec: SAIVERSE_DEFAULT_LIGHTWEIGHT_MODEL)."""
    lightweight_vision_model: str = DEFAULT_LIGHTWEIGHT_VISION_MODEL
    """Vision model for picture summaries (spec: SAIVERSE_LIGHTWEIGHT_VISION_MODEL)."""
    vision_model: str = DEFAULT_VISION_MODEL
    """Vision model for full vision tasks (spec: SAIVERSE_VISION_MODEL)."""
    gemini_api_key: str | None = field(default=None, repr=False)
    """Key for Gemini; never printed (repr=False)."""
    gemini_base_url: str | None = None
    """Override of the Gemini endpoint (tests point it at a loopback fake)."""
    openai_base_url: str | None = None
    """Base URL of an OpenAI-compatible server (Ollama, LM Studio, llama.cpp)."""
    openai_api_key: str | None = field(default=None, repr=False)
    """Key for the OpenAI-compatible server, if it wants one."""
    request_timeout: float = 60.0
    """Seconds before a model request is abandoned."""
    max_upload_bytes: int = 20 * 1024 * 1024
    """Largest accepted upload."""
    max_upload_pixels: int = 40_000_000
    """Largest accepted image area (decompression-bomb guard)."""
    context_tokens: int = 8_000
    """Token budget of a prompt for personas without their own (`ai.CONTEXT_TOKENS`)."""

    @property
    def db_path(self) -> Path | None:
        """Filesystem path of the SQLite database, or None for other backends."""
        prefix = "sqlite:///"
        if self.database_url.startswith(prefix):
            return Path(self.database_url[len(prefix):])
        return None

    @property
    def image_dir(self) -> Path:
        return self.home / "image"

    @property
    def documents_dir(self) -> Path:
        return self.home / "documents"

    @property
    def checkpoints_path(self) -> Path:
        return self.home / "checkpoints.db"

    def with_overrides(self, **changes: object) -> Settings:
        """A copy with some fields changed (CLI flags win over the environment)."""
        return replace(self, **changes)  # type: ignore[arg-type]


def read_saved_settings(home: Path) -> dict[str, str]:
    """The UI-saved settings under `home` (empty when there are none or the file is unreadable).

    Only known keys with string values are returned; a damaged file must not stop the app.
    """
    try:
        raw = json.loads((home / SAVED_SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if k in SAVED_KEYS and isinstance(v, str)}


def load_settings(home: str | Path | None = None, *, env_file: str | Path | None = None) -> Settings:
    """Read settings from the environment, after loading `.env` (which never overrides it).

    `home` (the `--home` flag) wins over `SAIVERSE_HOME`.
    """
    load_dotenv(env_file or Path.cwd() / ".env", override=False)
    env = dict(os.environ)
    resolved_home = Path(home or env.get("SAIVERSE_HOME") or DEFAULT_HOME).expanduser().resolve()
    # What the 設定 tab saved fills in whatever the environment leaves unset.
    for key, value in read_saved_settings(resolved_home).items():
        if value and not env.get(SAVED_KEYS[key]):
            env[SAVED_KEYS[key]] = value
    db_url = env.get("SAIVERSE_DATABASE_URL") or f"sqlite:///{resolved_home / 'saiverse.db'}"
    lang = env.get("SAIVERSE_LANG", "ja").strip().lower() or "ja"
    return Settings(
        home=resolved_home,
        database_url=db_url,
        host=env.get("SAIVERSE_HOST", "127.0.0.1"),
        port=_int(env, "SAIVERSE_PORT", 7860),
        lang="en" if lang.startswith("en") else "ja",
        default_model=env.get("SAIVERSE_DEFAULT_MODEL", "offline") or "offline",
        default_lightweight_model=env.get("SAIVERSE_DEFAULT_LIGHTWEIGHT_MODEL")
        or DEFAULT_LIGHTWEIGHT_MODEL,
        lightweight_vision_model=env.get("SAIVERSE_LIGHTWEIGHT_VISION_MODEL")
        or DEFAULT_LIGHTWEIGHT_VISION_MODEL,
        vision_model=env.get("SAIVERSE_VISION_MODEL") or DEFAULT_VISION_MODEL,
        gemini_api_key=env.get("GEMINI_API_KEY") or None,
        gemini_base_url=env.get("SAIVERSE_GEMINI_BASE_URL") or None,
        openai_base_url=env.get("SAIVERSE_OPENAI_BASE_URL") or None,
        openai_api_key=env.get("SAIVERSE_OPENAI_API_KEY") or None,
        request_timeout=float(env.get("SAIVERSE_REQUEST_TIMEOUT", "60") or 60),
        max_upload_bytes=_int(env, "SAIVERSE_MAX_UPLOAD_BYTES", 20 * 1024 * 1024),
        max_upload_pixels=_int(env, "SAIVERSE_MAX_UPLOAD_PIXELS", 40_000_000),
        context_tokens=_context_tokens(env),
    )


def _context_tokens(env: dict[str, str]) -> int:
    value = _int(env, "SAIVERSE_CONTEXT_TOKENS", 8_000)
    if value < 1_000:
        raise ValueError(f"SAIVERSE_CONTEXT_TOKENS must be at least 1000, got {value}")
    return value
