"""What an import did: counts per kind, what already existed, what was skipped and why, problems met."""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

KINDS: dict[str, tuple[str, str]] = {
    "cities": ("都市", "cities"),
    "buildings": ("建物", "buildings"),
    "personas": ("ペルソナ", "personas"),
    "items": ("アイテム", "items"),
    "files": ("ファイル (サマリー含む)", "files (with summaries)"),
    "avatars": ("アバター画像", "avatar pictures"),
    "memory_messages": ("SAIMemory メッセージ", "SAIMemory messages"),
    "memory_threads": ("SAIMemory スレッド", "SAIMemory threads"),
    "building_log_lines": ("建物ログの行", "building log lines"),
    "schedules": ("スケジュール", "schedules"),
    "events": ("イベントログ", "event log entries"),
    "memopedia_pages": ("Memopedia ページ", "Memopedia pages"),
    "memopedia_edits": ("Memopedia 編集履歴", "Memopedia edits"),
    "chronicle_entries": ("Chronicle (あらすじ)", "Chronicle entries"),
    "playbooks": ("プレイブック", "playbooks"),
    "memory_notes": ("SAIMemory のメモ", "SAIMemory notes"),
    "action_tracks": ("トラック", "action tracks"),
    "track_logs": ("トラック内ログ", "track log entries"),
    "notes": ("ノート", "notes"),
    "note_pages": ("ノートのページ", "note pages"),
    "note_messages": ("ノートのメッセージ", "note messages"),
    "track_open_notes": ("トラックで開いたノート", "notes open on tracks"),
    "meta_judgments": ("メタ判断ログ", "meta judgments"),
    "voices": ("声の設定 (voice-tts アドオンから)", "voices (from the voice-tts addon)"),
}
"""Every kind the importer counts, with its label in the summary (Japanese, English)."""


@dataclass(frozen=True)
class Text:
    """A message in Japanese and English; the summary shows the one `lang` asks for."""

    ja: str
    en: str

    def __call__(self, lang: str) -> str:
        return self.en if lang == "en" else self.ja


@dataclass
class ImportReport:
    """The outcome of one import, printed as a summary or as JSON."""

    source: str
    target: str
    merge: bool = False
    lang: str = "ja"
    imported: Counter[str] = field(default_factory=Counter)
    """Rows (or files) added, per kind."""
    existing: Counter[str] = field(default_factory=Counter)
    """Rows already in the target (an earlier import), left as they were."""
    per_owner: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    """Per-persona / per-building counts: `memory_messages` → {persona: n}, `building_log_lines` → {building: n}."""
    skipped: list[dict[str, str]] = field(default_factory=list)
    """Things not imported, each with kind, id and reason."""
    problems: list[dict[str, str]] = field(default_factory=list)
    """Damaged or missing parts of the source, each with where and what."""
    notes: list[str] = field(default_factory=list)
    """Things left out by design (not problems), said once each."""
    seconds: float = 0.0

    def note(self, message: Text) -> None:
        self.notes.append(message(self.lang))

    def skip(self, kind: str, ident: str, reason: Text) -> None:
        self.skipped.append({"kind": kind, "id": ident, "reason": reason(self.lang)})

    def problem(self, where: str, message: Text) -> None:
        self.problems.append({"where": where, "message": message(self.lang)})

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "target": self.target, "merge": self.merge,
            "imported": {k: self.imported.get(k, 0) for k in KINDS},
            "already_present": {k: v for k, v in self.existing.items() if v},
            "per_owner": {k: dict(v) for k, v in self.per_owner.items()},
            "skipped": self.skipped, "problems": self.problems, "notes": self.notes,
            "seconds": round(self.seconds, 2),
        }

    def text(self) -> str:
        """The human summary, in the report's language."""
        en = self.lang == "en"
        head = "SAIVerse import" if en else "SAIVerse の取り込み"
        lines = [f"{head}: {self.source} → {self.target} ({self.seconds:.1f} s)"]
        labels = {kind: pair[1 if en else 0] for kind, pair in KINDS.items()}
        width = max(_cells(label) for label in labels.values())
        for kind, label in labels.items():
            line = f"  {label}{' ' * (width - _cells(label))}  {self.imported.get(kind, 0):>8,}"
            if self.existing.get(kind):
                line += f"  ({'already here' if en else '取り込み済み'} {self.existing[kind]:,})"
            lines.append(line)
        if self.skipped:
            lines.append(f"{'Not imported' if en else '取り込まなかったもの'} ({len(self.skipped)}):")
            lines += [f"  - [{s['kind']}] {s['id']}: {s['reason']}" for s in self.skipped]
        if self.problems:
            lines.append(f"{'Problems in the source' if en else '元データの問題'} ({len(self.problems)}):")
            lines += [f"  - {p['where']}: {p['message']}" for p in self.problems]
        lines += [f"  * {n}" for n in self.notes]
        if not self.skipped and not self.problems:
            lines.append("Everything was imported." if en else "すべて取り込みました。")
        return "\n".join(lines)


def _cells(text: str) -> int:
    """Terminal columns of `text`: wide (CJK) characters take two, so the counts line up."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
