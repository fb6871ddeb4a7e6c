"""The `chronicle` and `memopedia` commands of main.py: long-term memory on the command line."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from saiverse.memory_common import LongTermMemoryError

Printer = Callable[[Any], None]


def chronicle_command(manager: Any, args: argparse.Namespace, print_json: Printer) -> int:
    """`chronicle --persona ID [--build] [--level N] [--limit N] [--json]`."""
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


def memopedia_command(manager: Any, args: argparse.Namespace, print_json: Printer) -> int:
    """`memopedia --persona ID [--page TITLE] [--json]`: the page tree, or one page and its history."""
    manager.world.persona(args.persona)
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
