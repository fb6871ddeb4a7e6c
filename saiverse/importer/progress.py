"""Progress of an import: a tqdm bar per phase on a terminal, one plain line per phase otherwise."""

from __future__ import annotations

from typing import TextIO

from tqdm import tqdm


class Phase:
    """One phase being counted (messages of a persona, lines of a building…)."""

    def __init__(self, label: str, total: int | None, stream: TextIO | None, bar: bool) -> None:
        self.label, self.total, self.done = label, total, 0
        self._stream = stream
        self._bar = tqdm(total=total, desc=label, file=stream, unit=" 件", leave=False, dynamic_ncols=True,
                         mininterval=0.2) if (bar and stream is not None) else None

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        if self._stream is not None:
            print(f"{self.label}: {self.done:,}", file=self._stream, flush=True)


class Progress:
    """Phases written to `stream` (None: silent); a bar only when the stream is a terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self.bar = bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())

    def phase(self, label: str, total: int | None = None) -> Phase:
        return Phase(label, total, self.stream, self.bar)
