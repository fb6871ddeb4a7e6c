"""Build the held-out conversations (benchmarks/data/heldout_*.json) in LoCoMo's JSON shape.

    python -m benchmarks.data.build_heldout

HELD OUT: these conversations are for measuring recall, never for tuning it. Nobody changing
saiverse/memory/ may read their misses to pick words, weights or rules; a change is judged on the
dev_*.json conversations and then measured here, and the figure at first read is the one reported
(benchmarks/RESULTS-recall.md). Once a held-out conversation's misses have been read to guide a
change it is no longer held out: its docstring says so (heldout_en_priya and heldout_ja_sora, read in
session 10), and a new pair is written (heldout_en_wen, heldout_ja_kotone: not read). A third pair,
heldout_en_nadia and heldout_ja_shiori, was written in session 11 by someone who had read neither
saiverse/memory/ nor any conversation's misses (not read either).

Unlike dev_*.py (handwritten facts with small talk drawn at random around them), every turn here is
written out: two friends both telling their own lives, LoCoMo's way (every session a conversation,
questions about either speaker, evidence a turn that rarely repeats the question's words). A session
is a block of lines `A: text` or `B: text` (speaker_a, speaker_b), a line optionally starting with
`[tag] ` that the questions' evidence names; dia_ids are LoCoMo's `D<session>:<turn>`.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODULES = ("heldout_en_priya", "heldout_ja_sora", "heldout_en_wen", "heldout_ja_kotone",
           "heldout_en_nadia", "heldout_ja_shiori")
_LINE = re.compile(r"^(?:\[(?P<tag>[\w-]+)\]\s*)?(?P<who>[AB]):\s*(?P<text>.+)$")


def build(module: Any) -> dict[str, Any]:
    """One conversation: the sessions' lines numbered D<n>:<i>, the questions' tags made dia_ids."""
    conv: dict[str, Any] = {"speaker_a": module.A, "speaker_b": module.B}
    tags: dict[str, str] = {}
    for n, (when, block) in enumerate(module.SESSIONS, start=1):
        turns = []
        for line in (raw.strip() for raw in block.strip().splitlines()):
            if not line:
                continue
            m = _LINE.match(line)
            if m is None:
                raise ValueError(f"{module.__name__} session {n}: not `A: text` / `B: text`: {line!r}")
            dia = f"D{n}:{len(turns) + 1}"
            if m["tag"]:
                if m["tag"] in tags:
                    raise ValueError(f"{module.__name__}: tag {m['tag']} used twice")
                tags[m["tag"]] = dia
            turns.append({"speaker": module.A if m["who"] == "A" else module.B, "dia_id": dia, "text": m["text"]})
        conv[f"session_{n}_date_time"] = when
        conv[f"session_{n}"] = turns
    qa = []
    for q in module.QA:
        missing = [e for e in q["evidence"] if e not in tags]
        if missing:
            raise ValueError(f"{module.__name__}: {q['question']!r} names unknown tags {missing}")
        qa.append({**q, "evidence": [tags[e] for e in q["evidence"]]})
    return {"sample_id": module.__name__, "conversation": conv, "qa": qa}


def main() -> None:
    for name in MODULES:
        try:
            module = importlib.import_module(f"benchmarks.data.{name}")
        except ModuleNotFoundError:
            continue
        out = HERE / f"{name}.json"
        data = build(module)
        out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        n_turns = sum(len(v) for k, v in data["conversation"].items() if re.fullmatch(r"session_\d+", k))
        print(f"{out}: {n_turns} turns, {len(data['qa'])} questions")


if __name__ == "__main__":
    main()
