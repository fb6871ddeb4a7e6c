"""Settings: every value the app reads from outside, resolved in one place with one precedence.

For each setting the first of these that gives a non-empty value wins (docs/ARCHITECTURE.md,
"Configuration"):

1. a command-line flag (`--home`, `--host`, `--port`), passed to `load_settings` as an argument;
2. the process environment;
3. `.env` in the data home;
4. `.env` in the working directory;
5. `settings.json` in the data home (what the 設定 tab saves: model names, base URL, keys);
6. the default on the `Settings` field.

What can be set (`OPTIONS`, one `Option` each) and the `Settings` they fill live in saiverse/setting_fields.py;
this module resolves them, saves the 設定 tab's changes (`SettingsStore`) and describes them (`describe`).

The data home itself cannot come from its own `.env`: it is `--home`, else `SAIVERSE_HOME` from the
environment or the working directory's `.env`, else `~/.saiverse`. A persona's model columns win over
all of this for that persona (`saiverse.llm.registry.model_for`). Nothing else reads `os.environ`
for configuration; `Settings.sources` records where each value came from (`python main.py config`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

from saiverse.setting_fields import (
    DEFAULT_HOME,
    DEFAULT_LIGHTWEIGHT_MODEL,
    DEFAULT_LIGHTWEIGHT_VISION_MODEL,
    DEFAULT_SOURCE,
    DEFAULT_VISION_MODEL,
    HOME_ENV,
    OPTIONS,
    SAVED_KEYS,
    SAVED_SETTINGS_FILE,
    SECRET_KEYS,
    Option,
    Settings,
    Source,
    SourceKind,
)
from saiverse.setting_values import SettingsError

__all__ = [
    "DEFAULT_HOME", "DEFAULT_LIGHTWEIGHT_MODEL", "DEFAULT_LIGHTWEIGHT_VISION_MODEL", "DEFAULT_SOURCE",
    "DEFAULT_VISION_MODEL", "ENV_FILE", "HOME_ENV", "OPTIONS", "SAVED_KEYS", "SAVED_SETTINGS_FILE",
    "SECRET_KEYS", "Option", "Settings", "SettingsError", "SettingsStore", "Source", "SourceKind", "describe",
    "load_settings", "mask_key", "raise_errors", "read_saved_settings",
]

ENV_FILE = ".env"


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
