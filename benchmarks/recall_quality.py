"""Recall quality: how often `memory_recall` brings a question's evidence within 2,000 characters.

    python benchmarks/recall_quality.py [conversation.json ...] [--budget 2000] [--json] [--misses]
                                        [--embedding local [--weights 0.5,1]] [--neighbours FILE|off]

Conversations are in LoCoMo's JSON shape (`speaker_a` is the user, `session_N_date_time` like
"1:56 pm on 8 May, 2023", `session_N` lists of {speaker, dia_id, text}, `qa` of {question, answer,
evidence: [dia_id...], category}); without arguments the development conversations of
benchmarks/data/ are used. Each conversation is loaded into persona mina's SAIMemory in its own temp
SAIVERSE_HOME, the real way (`SAIMemory.add`, at the session's time, a minute apart), and every
question is asked through the real `memory_recall` tool (`query` = the question, `max_chars` = the
budget, `topk` = 20; `--tool-defaults`: the tool's own defaults, 4 hits in 1,200 characters). A
question is found (any) when one evidence turn is within the first `budget` characters the tool
returns, (all) when every one is; a turn counts as there when its first 40 characters (whitespace
collapsed) are.

Recall's word neighbours (saiverse/memory/_neighbours.py) are on, as in the app once its table is built: the
table is built once per run from the packaged model (about a minute), or taken from `--neighbours FILE` (a
home's models/word-neighbours.sqlite); `--neighbours off` measures recall without it.

Beside it, on the same turns in the same run: plain BM25 — SQLite FTS5 `bm25()` over the turns, the
question's words minus English stop words OR'ed (character bigrams for Japanese), the best turns
written one a line with their date until the budget is used. Prints a table per language and
category and, as the last line, one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PERSONA, BUILDING = "mina", "library"
NEEDLE = 40
BASELINE_STOP = frozenset(
    "a about above after again against all am an and any are as at be because been before being below between "
    "both but by can could did do does doing down during each few for from further had has have having he her "
    "here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not "
    "now of off on once only or other our ours out over own same she should so some such than that the their "
    "theirs them then there these they this those through to too under until up very was we were what when "
    "where which while who whom why will with would you your yours".split())
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def turns_of(conv: dict[str, Any]) -> list[dict[str, Any]]:
    """Every turn with its time (the session's, a minute apart) and whether the user said it."""
    out = []
    n = 1
    while f"session_{n}" in conv:
        start = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        for i, turn in enumerate(conv[f"session_{n}"]):
            out.append({**turn, "at": start + timedelta(minutes=i), "user": turn["speaker"] == conv["speaker_a"]})
        n += 1
    return out


def needle(text: str) -> str:
    return " ".join(text.split())[:NEEDLE]


def bigrams(text: str) -> list[str]:
    chars = [c for c in text if c.isalnum()]
    return ["".join(chars[i:i + 2]) for i in range(len(chars) - 1)] or chars


def baseline(turns: list[dict[str, Any]], japanese: bool) -> Any:
    """A function question → text of plain FTS5 BM25 over the turns (see the module docstring)."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    for i, t in enumerate(turns):
        body = " ".join(bigrams(t["text"])) if japanese else t["text"]
        db.execute("INSERT INTO t (rowid, body) VALUES (?, ?)", (i, body))

    def ask(question: str, budget: int) -> str:
        if japanese:
            words = dict.fromkeys(bigrams(question))
        else:
            words = dict.fromkeys(w for w in re.findall(r"[a-z0-9]+", question.lower()) if w not in BASELINE_STOP)
        if not words:
            return ""
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 50", (match,)).fetchall()
        out = ""
        for (i,) in rows:
            out += f"- [{turns[i]['at']:%Y-%m-%d %H:%M}] {turns[i]['text']}\n"
            if len(out) >= budget:
                break
        return out
    return ask


def random_vectors(texts: list[str]) -> list[list[float]]:
    """A unit vector per text that depends only on the text's hash: the control for `--embedding`."""
    import hashlib
    import random

    out = []
    for t in texts:
        rng = random.Random(hashlib.sha256(t.encode()).digest())
        v = [rng.gauss(0, 1) for _ in range(64)]
        norm = sum(x * x for x in v) ** 0.5
        out.append([x / norm for x in v])
    return out


def neighbour_table(arg: str, where: Path) -> Path | None:
    """The word-neighbour table to copy into each home: `arg`'s file, None for `off`, else built into `where`."""
    if arg == "off":
        return None
    if arg:
        return Path(arg)
    from saiverse.memory import WordNeighbours
    from saiverse.settings import load_settings

    os.environ["SAIVERSE_HOME"] = str(where)
    table = WordNeighbours.packaged(where, lambda: load_settings(where))
    started = time.monotonic()
    table.start()
    if not table.wait():
        raise SystemExit("the word-neighbour table could not be built (see the log); --neighbours off to go on")
    table.stop()
    print(f"word-neighbour table built in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return table.path


def run_conversation(path: Path, budget: int, misses: bool, args: dict[str, Any] | None = None,
                     embedding: str = "", weights: tuple[float, ...] = (),
                     neighbours: Path | None = None) -> list[dict[str, Any]]:
    """Load one conversation into a fresh home, ask every question both ways; one row per question.
    With `embedding`, every turn is embedded first (`memory-index --wait`'s work) and each question is
    asked again with the dense list fused at each of `weights`: `dense<w>_any` / `dense<w>_all`."""
    data = json.loads(path.read_text(encoding="utf-8"))
    turns = turns_of(data["conversation"])
    japanese = any(_CJK.search(t["text"]) for t in turns)
    with tempfile.TemporaryDirectory() as home:
        os.environ["SAIVERSE_HOME"] = home
        os.environ["SAIVERSE_WORD_NEIGHBOURS"] = "1" if neighbours else "0"
        if neighbours:
            (Path(home) / "models").mkdir(mode=0o700)
            shutil.copyfile(neighbours, Path(home) / "models" / "word-neighbours.sqlite")
        if embedding and embedding != "random":
            os.environ["SAIVERSE_EMBEDDING_MODEL"] = embedding
        from saiverse.manager import SAIVerseManager
        from saiverse.pulse import ManagerToolContext
        from saiverse.settings import load_settings
        from tools import call_tool

        m = SAIVerseManager(load_settings(Path(home)))
        index = m.memory_index
        if embedding == "random":  # the control: vectors that mean nothing, the same fusion
            from saiverse.memory import MemoryIndex

            index = MemoryIndex(m.db, "control:random", random_vectors)
        m.chronicle_worker.stop()  # messages only: the Chronicle would need a model
        try:
            for t in turns:
                m.memory.add(PERSONA, "user" if t["user"] else "assistant", t["text"], tags=["conversation"],
                             created_at=t["at"])
            ctx = ManagerToolContext(m, PERSONA, BUILDING)
            if index is not None:
                started = time.monotonic()
                index.drain(PERSONA)
                index.dense.wait = 600.0  # the benchmark measures what dense adds, not a slow model's timeout
                print(f"{path.name}: {len(turns)} turns embedded in {time.monotonic() - started:.0f} s",
                      file=sys.stderr)
            m.memory_index = None  # lexical first
            m.memory_view.dense = None  # what the tools recall with (the manager hands it the index's dense side)
            bm25 = baseline(turns, japanese)
            text_of = {t["dia_id"]: needle(t["text"]) for t in turns}
            rows = []
            for qa in data["qa"]:
                q, ev = qa["question"], [e for e in qa.get("evidence", []) if e in text_of]
                if not ev:  # evidence naming no turn of the conversation (a typo in a dataset): not a question here
                    print(f"skipped {path.name}: {q!r} names no turn as evidence", file=sys.stderr)
                    continue
                asked = {"query": q, "max_chars": budget, "topk": 20} if args is None else {"query": q, **args}
                ours = str(call_tool("memory_recall", asked, ctx))[:budget]
                base = bm25(q, budget)[:budget]
                row = {"lang": "ja" if japanese else "en", "category": str(qa.get("category", "")),
                       "any": any(text_of[e] in ours for e in ev), "all": all(text_of[e] in ours for e in ev),
                       "bm25_any": any(text_of[e] in base for e in ev),
                       "bm25_all": all(text_of[e] in base for e in ev)}
                if index is not None:
                    m.memory_index, m.memory_view.dense = index, index.dense
                    for w in weights:
                        index.dense.weight = w
                        fused = str(call_tool("memory_recall", asked, ctx))[:budget]
                        row[f"dense{w:g}_any"] = any(text_of[e] in fused for e in ev)
                        row[f"dense{w:g}_all"] = all(text_of[e] in fused for e in ev)
                    m.memory_index, m.memory_view.dense = None, None
                rows.append(row)
                if misses and not row["all"]:
                    print(f"MISS {path.name}: {q}\n  want: {[text_of[e] for e in ev]}\n  got:\n{ours}\n",
                          file=sys.stderr)
        finally:
            m.memory_index = index
            m.close()
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["lang"], r["category"])].append(r)
        groups[(r["lang"], "ALL")].append(r)
    out = {}
    for (lang, cat), rs in sorted(groups.items()):
        keys = [k for k in rs[0] if k not in ("lang", "category")]
        out[f"{lang}/{cat}"] = {k: round(sum(r[k] for r in rs) / len(rs), 2) for k in keys} | {"n": len(rs)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("conversations", nargs="*", type=Path)
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    ap.add_argument("--misses", action="store_true", help="print each question not fully found, to stderr")
    ap.add_argument("--tool-defaults", action="store_true",
                    help="call memory_recall with its default topk and max_chars (4, 1,200), not 20 and the budget")
    ap.add_argument("--embedding", default="", metavar="MODEL",
                    help="also fuse dense recall: SAIVERSE_EMBEDDING_MODEL for the run (local, local:NAME), or "
                         "`random` (the control: vectors from each text's hash, meaning nothing)")
    ap.add_argument("--neighbours", default="", metavar="FILE|off",
                    help="the word-neighbour table to use (default: built once for the run); `off`: none")
    ap.add_argument("--weights", default="0.5,1", help="dense list weights to try with --embedding (comma-separated)")
    args = ap.parse_args()
    paths = args.conversations or sorted((ROOT / "benchmarks" / "data").glob("dev_*.json"))
    asked = {} if args.tool_defaults else None
    weights = tuple(float(w) for w in args.weights.split(",")) if args.embedding else ()
    with tempfile.TemporaryDirectory() as built:
        table = neighbour_table(args.neighbours, Path(built))
        rows = [r for p in paths
                for r in run_conversation(p, args.budget, args.misses, asked, args.embedding, weights, table)]
    figures = summary(rows)
    if not args.json:
        extra = [f"dense{w:g}" for w in weights]
        print(f"{'lang/category':<16}{'n':>4}{'any':>7}{'all':>7}{'bm25 any':>10}{'bm25 all':>10}"
              + "".join(f"{e + ' any/all':>18}" for e in extra))
        for key, f in figures.items():
            print(f"{key:<16}{f['n']:>4}{f['any']:>7.2f}{f['all']:>7.2f}{f['bm25_any']:>10.2f}{f['bm25_all']:>10.2f}"
                  + "".join(f"{f[e + '_any']:>12.2f}/{f[e + '_all']:.2f}" for e in extra))
    print(json.dumps({"budget": args.budget, "questions": len(rows), "embedding": args.embedding,
                      "neighbours": args.neighbours != "off", "figures": figures}))


if __name__ == "__main__":
    main()
