"""Every line the backend and the command line tell a person, worded once per language (SAIVERSE_LANG).

One place for the backend's words, in tables by subject:
- `_errors`: the command line's frame, argparse's refusals, unknown ids, uploads;
- `_inputs`: what a person hands in (saiverse/inputs.py, passwords, document and item names);
- `_city`: the city's rarer refusals (deleting, redoing a reply, bags, prices and budgets, production);
- `_models`: which model answers and why, what a provider needs, the local model's failures;
- `_playbooks`: what a malformed playbook is told (its JSON, shape, graph, and validation);
- `_cli_out`: what the commands print for a person (world, items, bags, admin, backups, usage);
- `_help`: `python main.py --help`, in Japanese (the English is the parser's own text, as gettext does).

Every layer may import this package (it imports nothing first-party: tests/test_layers.py), so an error
raised in database/, tools/ or saiverse/ is worded where it is raised. `say(key)` words it in the
process's language, which the command line (cli/_app.py) and the manager (saiverse/manager.py) set from
`settings.lang` with `use`; `say(key, lang=settings.lang)` words it in a given one (the model layer, which
holds the settings it answers for). Nothing here reads the environment. Japanese is the default, and a key
English lacks falls back to it. tests/test_words_lang.py holds both tables to the same keys and blanks.
The page's labels live in ui/labels/.
"""

from __future__ import annotations

from typing import Any

from words import _city, _cli_out, _errors, _help, _inputs, _models, _playbooks


def _merged(*tables: dict[str, str]) -> dict[str, str]:
    """The tables as one; a key two tables both define would make one of them silently wrong."""
    out: dict[str, str] = {}
    for table in tables:
        twice = out.keys() & table.keys()
        if twice:
            raise KeyError(f"words defined twice: {sorted(twice)}")
        out.update(table)
    return out


WORDS: dict[str, dict[str, str]] = {
    "ja": _merged(_errors.JA, _inputs.JA, _city.JA, _models.JA, _cli_out.JA, _playbooks.JA),
    "en": _merged(_errors.EN, _inputs.EN, _city.EN, _models.EN, _cli_out.EN, _playbooks.EN),
}
"""Every backend line by language and key."""

_lang = "ja"
"""The language in force for this process (`use`)."""


def _pick(lang: str) -> str:
    return "en" if str(lang).lower().startswith("en") else "ja"


def use(lang: str) -> None:
    """Word every later message in `lang` (`en`; anything else is Japanese)."""
    global _lang
    _lang = _pick(lang)


def current() -> str:
    """The language in force: `ja` or `en`."""
    return _lang


def say(key: str, /, *, lang: str | None = None, **fields: Any) -> str:
    """The line `key` in `lang` (default: the language in force), Japanese for a key English lacks."""
    text = WORDS[_pick(lang) if lang is not None else _lang].get(key) or WORDS["ja"][key]
    return text.format(**fields) if fields else text


def help_text(english: str) -> str:
    """A `--help` text in the language in force: the parser's English as it is, or its Japanese."""
    return english if _lang == "en" else _help.JA.get(english, english)


__all__ = ["WORDS", "current", "help_text", "say", "use"]
