"""How each setting's text becomes its value (saiverse/setting_fields.py OPTIONS): one parser per kind,
each refusing with a message that says what the value must be."""

from __future__ import annotations

from saiverse.errors import UserError


class SettingsError(UserError, ValueError):
    """A configured value the app cannot use; the message names the variable and where it was set."""


def text(value: str) -> str:
    return value


def context_tokens(value: str) -> int:
    tokens = integer(value)
    if tokens < 1000:
        raise ValueError(f"must be at least 1000 (a prompt needs room for the system prompt), got {tokens}")
    return tokens


def backup_keep(value: str) -> int:
    keep = integer(value)
    if keep < 1:
        raise ValueError(f"must be at least 1 (the newest automatic backup is always kept), got {keep}")
    return keep


def pulse_workers(value: str) -> int:
    workers = integer(value)
    if not 1 <= workers <= 256:
        raise ValueError(f"must be between 1 and 256 (pulse workers of this process), got {workers}")
    return workers


def worker_heartbeat(value: str) -> float:
    beat = decimal(value)
    if not 0.2 <= beat <= 600:
        raise ValueError(f"must be between 0.2 and 600 seconds (a worker silent for 3 of them is dead), got {value}")
    return beat


def worker_tick(value: str) -> float:
    tick = decimal(value)
    if not 1 <= tick <= 59:
        raise ValueError(f"must be between 1 and 59 seconds (the tick's cron takes a divisor of a minute), got {value}")
    return tick


def integer(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError("must be an integer") from None


def positive(value: str) -> int:
    number = integer(value)
    if number < 1:
        raise ValueError(f"must be at least 1, got {number}")
    return number


def decimal(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ValueError("must be a number") from None


def seconds(value: str) -> float:
    seconds = decimal(value)
    if not seconds > 0:
        raise ValueError(f"must be a number of seconds above 0, got {value}")
    return seconds


EMBEDDING_PREFIXES = ("local:", "gemini:", "openai:", "ollama:", "lmstudio:", "llamacpp:", "gemini-", "text-embedding-")
"""The forms of SAIVERSE_EMBEDDING_MODEL besides `local` (saiverse/llm/embeddings.py reads them)."""


def embedding_model(value: str) -> str:
    name = value.strip()
    named = name.lower().startswith(EMBEDDING_PREFIXES) and name.split(":", 1)[-1].strip()
    if name and name != "local" and not named:
        raise ValueError("must be empty (off), local or local:<name or path> (a GGUF run here), gemini-embedding-001 "
                         "or gemini:<model> (Gemini), text-embedding-3-small (OpenAI), openai:<model> (an "
                         f"OpenAI-compatible server) or ollama:/lmstudio:/llamacpp:<model>, got {value!r}")
    return name


def keep_alive(value: str) -> float:
    seconds = decimal(value)
    if seconds < 0:
        raise ValueError(f"must be 0 (keep the model loaded) or a number of seconds, got {value}")
    return seconds


def local_context(value: str) -> int:
    tokens = integer(value)
    if not 512 <= tokens <= 131_072:
        raise ValueError(f"must be between 512 and 131072 tokens, got {tokens}")
    return tokens


def threads(value: str) -> int:
    threads = integer(value)
    if threads < 0:
        raise ValueError(f"must be 0 (one per CPU core) or more, got {threads}")
    return threads


LOCAL_PROFILES = ("auto", "base", "instruct", "instruct+json")
"""How the local model is prompted (saiverse/llm/local/_profile.py): `auto` reads the GGUF."""


def local_profile(value: str) -> str:
    low = value.strip().lower()
    if low not in LOCAL_PROFILES:
        raise ValueError(f"must be one of {', '.join(LOCAL_PROFILES)}")
    return low


def switch(value: str) -> bool:
    low = value.strip().lower()
    if low not in ("1", "0", "true", "false", "on", "off", "yes", "no"):
        raise ValueError("must be on or off (1/0, true/false)")
    return low in ("1", "true", "on", "yes")


def lang(value: str) -> str:
    return "en" if value.lower().startswith("en") else "ja"


def host_names(value: str) -> tuple[str, ...]:
    names = tuple(n.strip().lower() for n in value.replace(" ", ",").split(",") if n.strip())
    bad = next((n for n in names if not all(c.isalnum() or c in ".-_:[]" for c in n)), None)
    if bad is not None:
        raise ValueError("must be host names separated by commas (e.g. mypc.local,192.168.1.5)")
    return names


def sqlite_url(value: str) -> str:
    if value.startswith("postgresql+psycopg://") and len(value) > len("postgresql+psycopg://"):
        return value  # PostgreSQL through psycopg 3 (database/engine.py)
    if not value.startswith("sqlite:///") or value == "sqlite:///":
        raise ValueError("must be a sqlite:///PATH URL or a postgresql+psycopg://USER@HOST:PORT/DB URL")
    return value


STT_ENGINES = ("", "off", "openai-compatible", "openai", "gemini")
"""Who listens (saiverse/listen); '' lets stt_url decide."""


def stt_engine(value: str) -> str:
    engine = value.strip().lower()
    if engine not in STT_ENGINES:
        raise ValueError(f"must be one of {', '.join(e for e in STT_ENGINES if e)}")
    return engine


def http_url(value: str) -> str:
    url = value.strip().rstrip("/")
    if not url.startswith(("http://", "https://")) or any(c.isspace() for c in url):
        raise ValueError("must be an http:// or https:// URL")
    return url
