"""`persona voice P [--engine …] [--url …] [--voice …] [--speed …]` and `speak --persona P "text" --out F.wav`:
a persona's voice from the command line, for scripts and checks (saiverse/voice/).

`persona voice` with no option shows her voice; with options it changes only those, checked first (an
unknown engine, a speed out of range, a server that does not answer, a voice the engine does not have:
one line, exit 2, nothing changed). `speak` says a text in her voice into a WAV file — from the audio cache
when the same line was spoken before.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cli._frame import add_json, command, print_json, world

VOICE_OPTIONS = ("engine", "url", "voice", "speed", "pitch", "model")


def add_voice_options(p: argparse.ArgumentParser) -> None:
    """`persona voice`'s options (on the persona subparser; other actions ignore them)."""
    p.add_argument("--engine", help="voice: embedded | openai-compatible | openai | gemini | browser | off")
    p.add_argument("--url", metavar="BASE_URL", help="voice: an OpenAI-compatible server's base URL (…/v1)")
    p.add_argument("--voice", metavar="NAME", help="voice: the engine's voice name (--list-voices shows them)")
    p.add_argument("--speed", metavar="X", help="voice: 0.5 … 2.0 (1.0 is normal)")
    p.add_argument("--pitch", metavar="SEMITONES", help="voice: -12 … 12, where the engine has it (browser)")
    p.add_argument("--model", metavar="NAME", help="voice: the server's TTS model (default: the engine's)")
    p.add_argument("--list-voices", action="store_true", help="voice: list the voices her engine offers")


def find_persona(manager: Any, key: str) -> Any:
    """The persona with id `key`, else the one named `key`; an unknown one is refused, naming it."""
    from saiverse.errors import UserError

    for info in manager.world.personas():
        if key in (info.persona_id, info.name):
            return info
    en = getattr(manager.settings, "lang", "ja") == "en"
    raise UserError(f"no persona {key!r} (python main.py world lists them)" if en else
                    f"ペルソナ {key!r} はいません (python main.py world で一覧が見られます)")


def _check_reachable(manager: Any, voice: Any) -> list[str]:
    """The voices a server engine offers, asked now: an unreachable server refuses the change."""
    if voice.engine in ("openai-compatible", "embedded"):
        return list(manager.voices.list_voices(voice))
    return []


@contextlib.contextmanager
def _language(manager: Any) -> Iterator[None]:
    """A VoiceError raised inside comes out in the settings' language (SAIVERSE_LANG may be in `.env`,
    which the error alone cannot see)."""
    from saiverse.errors import UserError
    from saiverse.voice import VoiceError

    try:
        yield
    except VoiceError as exc:
        raise UserError(exc.text(getattr(manager.settings, "lang", "ja"))) from exc


def voice_command(manager: Any, args: argparse.Namespace, print_json: Any) -> int:
    """`persona voice P [--engine E] [--url U] [--voice V] [--speed X]`: show or change her voice."""
    with _language(manager):
        return _voice(manager, args, print_json)


def _voice(manager: Any, args: argparse.Namespace, print_json: Any) -> int:
    from dataclasses import replace

    from saiverse.voice import VoiceError, VoiceSettings

    info = find_persona(manager, args.id)
    changes = {k: getattr(args, k) for k in VOICE_OPTIONS if getattr(args, k, None) is not None}
    current = manager.voices.voice_for(info.persona_id)
    if changes:
        if changes.get("engine") and changes["engine"] != current.engine and "voice" not in changes:
            changes["voice"] = ""  # another engine's voice name means nothing here: its default
        proposed = VoiceSettings.from_dict({**current.to_dict(), **changes})
        offered = _check_reachable(manager, proposed)
        if proposed.voice and offered and proposed.voice not in offered:
            names = ", ".join(offered)
            raise VoiceError(f"{proposed.engine} に声 {proposed.voice!r} はありません (使えるもの: {names})",
                             f"{proposed.engine} has no voice {proposed.voice!r} (choose one of: {names})",
                             kind="unknown_voice")
        current = manager.voices.set_voice(info.persona_id, **proposed.to_dict())
    voices = manager.voices.list_voices(current) if args.list_voices else None
    if args.json:
        print_json({"persona_id": info.persona_id, "voice": current.to_dict(),
                    **({"voices": voices} if voices is not None else {})})
        return 0
    shown = replace(current, voice=current.voice or "(default)")
    parts = [f"engine={shown.engine}", f"voice={shown.voice}", f"speed={shown.speed:g}"]
    parts += [f"pitch={shown.pitch:g}"] if shown.pitch else []
    parts += [f"url={shown.url}"] if shown.url else []
    parts += [f"model={shown.model}"] if shown.model else []
    print(f"{'voice set' if changes else 'voice'} for {info.name} ({info.persona_id}): {' '.join(parts)}")
    if voices is not None:
        print("voices: " + (", ".join(voices) if voices else "(the browser lists its own)"))
    return 0


def speak(args: argparse.Namespace) -> int:
    """say a text in a persona's voice into a WAV file: speak --persona P "text" --out F.wav [--keep-in BUILDING]"""
    from saiverse.voice import VoiceError

    if not args.out and not args.keep_in:
        raise VoiceError("--out F.wav か --keep-in BUILDING (またはその両方) を指定してください",
                         "give --out F.wav or --keep-in BUILDING (or both)")
    out = Path(args.out).expanduser() if args.out else None
    if out is not None and out.is_dir():
        raise VoiceError(f"--out {out} はフォルダです。{out / 'line.wav'} のようにファイル名を",
                         f"--out {out} is a folder; give a file name such as {out / 'line.wav'}")
    with world(args) as manager, _language(manager):
        return _speak(manager, args, out)


def _speak(manager: Any, args: argparse.Namespace, out: Path | None) -> int:
    from saiverse.disk import atomic_write
    from saiverse.voice import VoiceError

    info = find_persona(manager, args.persona)
    voice = manager.voices.voice_for(info.persona_id)
    if voice.engine in ("browser", "off"):
        raise VoiceError(f"{info.name} の声は {voice.engine} です: サーバーでは音声を作りません "
                         "(persona voice で embedded などに変えてください)",
                         f"{info.name}'s voice is {voice.engine}: the server makes no audio "
                         "(set another engine with persona voice)")
    nothing = VoiceError("話す言葉がありません (コード・URL・絵文字だけです)",
                         "nothing in the text is speech (only code, URLs or emoji)")
    result: dict[str, Any] = {"persona_id": info.persona_id, "voice": voice.to_dict()}
    if out is not None:
        made = manager.voices.synthesize(voice, args.text)
        if made is None:
            raise nothing
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(out, made.read_bytes())
        shutil.copymode(made, out)
        result |= {"out": str(out), "bytes": out.stat().st_size}
    if args.keep_in:  # as the page's 💾: sentence by sentence from the cache, one WAV, an audio item
        from saiverse.voice import speakable
        from ui.i18n import Labels
        from ui.voice_routes import line_item_name

        data = manager.voices.line_wav(voice, args.text)
        if data is None:
            raise nothing
        said = speakable(args.text)
        name = line_item_name(Labels(manager.settings.lang), info.name, said)
        kept = manager.uploads.keep_audio(args.keep_in, data, name, description=said,
                                          state={"created_by": "voice", "persona_id": info.persona_id})
        result["item"] = kept.to_dict()
    if args.json:
        print_json(result)
    else:
        where = [str(out)] if out is not None else []
        where += [f"item:{result['item']['slot_number']} {result['item']['name']}"] if args.keep_in else []
        print(f"{', '.join(where)} ({info.name}, {voice.engine}{' ' + voice.voice if voice.voice else ''})")
    return 0


def register(sub: Any) -> None:
    """This module's commands on the main parser (`persona voice` lives on `persona`, cli/_admin.py)."""
    p = command(sub, speak)
    p.add_argument("--persona", required=True, metavar="P", help="the persona (id or name) whose voice speaks")
    p.add_argument("text", help="what to say")
    p.add_argument("--out", metavar="F.wav", help="the WAV file to write")
    p.add_argument("--keep-in", metavar="BUILDING", help="also keep the voice as an audio item in this building")
    add_json(p, "print what was written as one JSON object")
