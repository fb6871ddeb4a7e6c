"""Memory on the command line: `memory` (and its pins), `context`, `chronicle`, `memopedia`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import words
from cli._frame import add_json, command, print_json, world

if TYPE_CHECKING:
    from saiverse.manager import SAIVerseManager


def memory(args: argparse.Namespace) -> int:
    """a persona's SAIMemory messages as JSON lines; --pin/--unpin ID pins a message, --pins lists them"""
    with world(args) as manager:
        if args.pin is not None or args.unpin is not None or args.pins:
            return _pins(manager, args)
        if args.search:
            records: Iterable[Any] = manager.memory_messages(args.persona, search=args.search, limit=args.limit)
        else:
            manager.world.persona(args.persona)
            records = manager.memory.iter_messages(args.persona, limit=args.limit)  # streamed: any --limit
        for rec in records:
            print_json(rec)
    return 0


def _pins(manager: SAIVerseManager, args: argparse.Namespace) -> int:
    sight = manager.sight
    if args.pin is not None:
        changed = sight.pin(args.persona, args.pin)
        print_json({"persona_id": args.persona, "message_id": args.pin, "pinned": True, "changed": changed})
    elif args.unpin is not None:
        changed = sight.unpin(args.persona, args.unpin)
        print_json({"persona_id": args.persona, "message_id": args.unpin, "pinned": False, "changed": changed})
    else:
        for pin in sight.persona_pins(args.persona):
            print_json(pin.to_dict())
    return 0


def context(args: argparse.Namespace) -> int:
    """what a persona would be given for a message: every part of the prompt, its tokens and the budget"""
    from cli._frame import settings
    from saiverse.errors import UsageError
    from saiverse.inputs import check_message

    check_message(args.text, settings(args).max_message_chars)  # what `chat` would refuse, refused here too
    if not args.text.strip():
        raise UsageError(words.say("cli_empty_message"))
    with world(args) as manager:
        building = args.building or manager.world.persona(args.persona).building_id
        if not building:
            raise UsageError(f"{args.persona} is in no building; name one with --building")
        view = manager.sight.context(args.persona, building, args.text)
    if args.json:
        print_json(view.to_dict())
        return 0
    print(_context_text(view))
    return 0


_PART_NAMES = {"system": "system prompt", "pinned": "pinned lines", "core": "Memopedia core",
               "reflex": "recalled (reflex)", "chronicle": "Chronicle", "history": "recent lines",
               "own": "this message"}


def _context_text(view: Any) -> str:
    out = [f"{view.persona_name} ({view.persona_id}) in {view.building_name} ({view.building_id}), "
           f"for: {view.message}",
           f"budget {view.budget:,} tokens, prompt {view.input_tokens:,} "
           f"(model {view.model or '-'}, counted by {view.counted_by})", ""]
    for name, label in _PART_NAMES.items():
        cap = view.shares.get(name)
        extra = f"  (of at most {cap:,})" if cap else ""
        if name == "history":
            extra = f"  ({view.history_kept} of {view.history_of} lines verbatim)"
        out.append(f"  {label:<20}{view.parts[name]:>7,}{extra}")
    out.append("")
    out.append("recalled:" if view.reflex_on else "recalled: (reflex recall is off for this persona)")
    for r in view.recalled:
        score = "lore" if r.score is None else f"{r.score:.2f}"
        out.append(f"  [{score}] {r.why}\n      {r.line}")
    if view.pins:
        out.append("pinned:")
        for p in view.pins:
            mark = "in" if p["in_prompt"] else "LEFT OUT"
            out.append(f"  #{p['message_id']} ({mark}) {p['role']}: {' '.join(p['content'].split())[:100]}")
    out += [f"note: {n}" for n in view.notes]
    out += ["", "=== system ===", view.system, "", "=== messages ==="]
    out += [f"[{m['role']}] {m['content']}" for m in view.messages]
    return "\n".join(out)


def memory_index(args: argparse.Namespace) -> int:
    """index messages for recall with the embedding model (SAIVERSE_EMBEDDING_MODEL); --wait until all are done"""
    from saiverse.errors import FAILED_EXIT, UsageError

    with world(args) as manager:
        index = manager.memory_index
        if index is None:
            raise UsageError(_no_index(manager.settings))
        if args.persona:
            manager.world.persona(args.persona)

        def show(counts: dict[str, tuple[int, int]]) -> None:
            if args.json:
                print_json({"model": index.key, "personas": {p: {"messages": n, "indexed": d}
                                                             for p, (n, d) in counts.items()}})
                return
            total, done = sum(n for n, _ in counts.values()), sum(d for _, d in counts.values())
            print(f"{index.key}: {done:,} / {total:,} messages indexed"
                  + "".join(f"\n  {p}: {d:,} / {n:,}" for p, (n, d) in sorted(counts.items())), flush=True)

        if not args.wait:
            show(index.status(args.persona))
            return 0
        try:
            index.drain(args.persona, show)
        except Exception as exc:  # noqa: BLE001 - the embedding model's failure, said in one line
            print(f"indexing stopped: {exc}", file=sys.stderr)
            return FAILED_EXIT
    return 0


def _no_index(settings: Any) -> str:
    """Why there is no index: no embedding model set, or the one set cannot be used (a key or URL missing)."""
    from words import say

    name = settings.embedding_model
    if not name:
        return say("embed_not_set", lang=settings.lang)
    from saiverse.llm.embeddings import cloud_embedder

    try:
        cloud_embedder(settings, name).close()
    except ValueError as exc:
        return say("embed_cannot_use", lang=settings.lang, name=name, why=exc)
    return say("embed_cannot_use_log", lang=settings.lang, name=name)


def chronicle(args: argparse.Namespace) -> int:
    """a persona's Chronicle entries, newest first (--build writes what is due)"""
    with world(args) as manager:
        return _chronicle(manager, args)


def memopedia(args: argparse.Namespace) -> int:
    """a persona's Memopedia pages, or one page with its history"""
    with world(args) as manager:
        return _memopedia(manager, args)


def _chronicle(manager: SAIVerseManager, args: argparse.Namespace) -> int:
    manager.world.persona(args.persona)
    built = manager.build_chronicle(args.persona) if args.build else None
    entries = manager.chronicle.entries(args.persona, level=args.level, limit=args.limit)
    levels = manager.chronicle.levels(args.persona)
    if args.json:
        print_json({"persona_id": args.persona, "built": built, "levels": levels,
                    "entries": [e.to_dict() for e in entries]})
        return 0
    if built is not None:
        print(f"書いたエントリ: {len(built['created'])} 件 (要約したメッセージ {built['messages']} 件)")
    print("レベル別: " + (", ".join(f"Lv.{lv} {n}件" for lv, n in sorted(levels.items())) or "まだありません"))
    for e in entries:
        period = f"{e.start:%Y-%m-%d %H:%M}" if e.start else "?"
        flag = f"  ⚠ {e.problem}" if e.problem else ("  (まとめ済み)" if e.is_consolidated else "")
        print(f"{e.entry_id}  Lv.{e.level} {period}〜 {e.message_count}件{flag}\n    {e.content}")
    return 0


def _flat(nodes: list[dict[str, Any]], depth: int = 0) -> list[dict[str, Any]]:
    out = []
    for n in nodes:
        out.append({**n["page"].to_dict(), "depth": depth, "problem": n["problem"]})
        out += _flat(n["children"], depth + 1)
    return out


def _memopedia(manager: SAIVerseManager, args: argparse.Namespace) -> int:
    manager.world.persona(args.persona)
    from saiverse.memory import LongTermMemoryError

    store = manager.memopedia
    if args.page:
        try:
            page = store.find(args.persona, title=args.page)
        except LongTermMemoryError:
            page = store.get(args.persona, args.page)  # an id works too; an unknown one names it
        history = store.history(args.persona, page.page_id)
        if args.json:
            print_json({"persona_id": args.persona, "page": page.to_dict(), "history": history})
        else:
            print(f"# {page.title}  ({page.page_id}, {page.category})\n{page.summary}\n\n{page.content}")
            for h in history:
                print(f"\n--- {h['edited_at']} {h['edit_type']} ({h['edit_source'] or '-'})\n{h['diff']}")
        return 0
    pages = _flat(store.tree(args.persona))
    if args.json:
        print_json({"persona_id": args.persona, "pages": pages})
    else:
        for p in pages:
            note = f"  ⚠ {p['problem']}" if p["problem"] else ""
            print(f"{'  ' * p['depth']}- {p['title']} ({p['page_id']}){note}")
    return 0


def register(sub: Any) -> None:
    """This module's commands on the main parser."""
    from cli._args import LIMIT, whole

    p = command(sub, memory)
    p.add_argument("--persona", required=True)
    p.add_argument("--search", help="recall search query")
    p.add_argument("--limit", type=LIMIT, default=200)
    pins = p.add_mutually_exclusive_group()
    pins.add_argument("--pin", type=LIMIT, metavar="ID", help="pin message ID (its `id`): always in her prompt")
    pins.add_argument("--unpin", type=LIMIT, metavar="ID", help="unpin message ID")
    pins.add_argument("--pins", action="store_true", help="list her pinned messages, in the order pinned")
    add_json(p, "print JSON lines (the default)")

    p = command(sub, context)
    p.add_argument("--persona", required=True)
    p.add_argument("--building", help="where she is asked (default: where she is)")
    p.add_argument("text", metavar="TEXT", help="the user's message")
    add_json(p, "print one JSON object")

    p = command(sub, memory_index)
    p.add_argument("--persona", help="only this persona (default: every persona)")
    p.add_argument("--wait", action="store_true", help="index now and return when every message is indexed")
    add_json(p, "print JSON lines")

    p = command(sub, chronicle)
    p.add_argument("--persona", required=True)
    p.add_argument("--build", action="store_true", help="first write the entries that are due")
    p.add_argument("--level", type=whole(1, 100), help="only this level")
    p.add_argument("--limit", type=LIMIT, default=200)
    add_json(p, "print one JSON object")

    p = command(sub, memopedia)
    p.add_argument("--persona", required=True)
    p.add_argument("--page", help="title (or id) of the page to print")
    add_json(p, "print one JSON object")
