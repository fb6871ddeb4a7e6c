"""The `model` CLI command: `model pull NAME [--set-default]`, `model list`, `model catalog`, `model servers`,
`model retry [NAME]`.

`pull` never opens the world (it only writes under
`<home>/models/` and, with --set-default, settings.json); `list` opens it to say which personas use
each model. Progress goes to stderr as a bar when it is a terminal, else as a line every few seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from saiverse.llm.local import PullProgress
    from saiverse.settings import Settings

from cli._frame import add_home, command, print_json, settings, world

PrintJson = Callable[[Any], None]


def model(args: argparse.Namespace) -> int:
    """local models: pull one from the hub, list what is installed or found"""

    def personas() -> list[Any]:
        with world(args) as manager:
            return manager.world.personas()

    return model_command(settings(args), args, print_json, personas)


def register(sub: Any) -> None:
    """`model` and its actions, on the main parser."""
    p = command(sub, model)
    actions = p.add_subparsers(dest="model_action", required=True)
    a = actions.add_parser("pull", help="download a GGUF into <home>/models/ (a listed name or owner/repo/file.gguf)")
    add_home(a)
    a.add_argument("name", help="a name from `model catalog`, or owner/repo/file.gguf")
    a.add_argument("--set-default", action="store_true", help="then answer with it by default (settings.json)")
    a.add_argument("--json", action="store_true", help="print the result as one JSON object")
    a = actions.add_parser("retry", help="try a local model marked broken again (its next use loads it afresh)")
    add_home(a)
    a.add_argument("name", nargs="?", default="", help="local:NAME's NAME (default: the default local model)")
    a.add_argument("--json", action="store_true", help="print JSON")
    for action, what in (("list", "the models in <home>/models/: size, profile, whether it ran here, who uses it"),
                         ("catalog", "the models `model pull` offers by name"),
                         ("servers", "look for Ollama, LM Studio and llama.cpp servers on this machine now")):
        a = actions.add_parser(action, help=what)
        add_home(a)
        a.add_argument("--json", action="store_true", help="print JSON")


def _progress() -> tuple[Callable[[PullProgress], None], Callable[[], None]]:
    from saiverse.disk import human_size

    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=0, unit="B", unit_scale=True, file=sys.stderr, leave=False, mininterval=0.2)

        def show(p: PullProgress) -> None:
            bar.total, bar.n = p.total, p.done
            bar.set_description(p.phase)
            bar.refresh()

        return show, bar.close
    last = [0.0]

    def line(p: PullProgress) -> None:
        now = time.monotonic()
        if p.phase == "download" and now - last[0] < 5:
            return
        last[0] = now
        eta = f", {p.eta_s:.0f} s left" if p.eta_s else ""
        print(f"{p.phase}: {human_size(p.done)} / {human_size(p.total)} ({human_size(int(p.bytes_per_s))}/s{eta})",
              file=sys.stderr, flush=True)

    return line, lambda: None


def model_command(settings: Settings, args: argparse.Namespace, print_json: PrintJson,
                  personas: Callable[[], list[Any]]) -> int:
    """Run `model <action>`; `personas` opens the world only when `list` needs it."""
    from saiverse.disk import human_size

    action = args.model_action
    if action == "pull":
        from saiverse.errors import FAILED_EXIT
        from saiverse.llm.local import PullInterrupted, pull

        show, close = _progress()
        try:
            result = pull(settings, args.name, progress=show, set_default=args.set_default)
        except PullInterrupted as exc:
            close()
            print(str(exc), file=sys.stderr)
            return FAILED_EXIT
        finally:
            close()
        if args.json:
            print_json(result.to_dict())
        else:
            resumed = f" (resumed at {human_size(result.resumed_from)})" if result.resumed_from else ""
            print(f"{result.filename}: {human_size(result.size)}, sha256 {result.sha256[:12]}… ok{resumed}")
            print(f"use it as local:{result.name}" + (" — now the default model" if result.default else
                                                      f" (or: model pull {args.name} --set-default)"))
        return 0
    if action == "catalog":
        from saiverse.llm.local import CATALOG

        rows = [{"name": e.name, "repo": e.repo, "file": e.filename, "size": e.approx_bytes, "params": e.params,
                 "kind": e.kind, "good_at": e.good_at_ja if settings.lang == "ja" else e.good_at_en} for e in CATALOG]
        if args.json:
            print_json(rows)
        else:
            for r in rows:
                print(f"{r['name']:<28} {human_size(r['size']):>9}  {r['params']:<5} {r['kind']:<9} {r['good_at']}")
        return 0
    if action == "retry":
        from saiverse.llm.local import HealthBook, LocalModelMissing, model_path

        try:
            path = model_path(settings, args.name)
        except LocalModelMissing as exc:
            print(str(exc), file=sys.stderr)
            return 2
        before = HealthBook(settings.home).get(path)
        HealthBook(settings.home).forget(path)
        if args.json:
            print_json({"model": str(path), "was": before.state if before else "untried"})
        else:
            print(f"{path.name}: " + ("marked broken before; it will be loaded afresh on its next use"
                                      if before and before.state == "broken" else "not marked broken; nothing to do"))
        return 0
    if action == "servers":
        from saiverse.llm.servers import probe

        found = [s.to_dict() for s in probe(settings)]
        if args.json:
            print_json(found)
        elif not found:
            print("no Ollama, LM Studio or llama.cpp server answered on this machine")
        else:
            for s in found:
                print(f"{s['label']:<18} {s['url']:<26} {', '.join(s['models']) or '(no models)'}")
        return 0
    from saiverse.llm import installed_models

    rows = [m.to_dict() for m in installed_models(settings, personas())]
    if args.json:
        print_json(rows)
        return 0
    for m in rows:
        size = human_size(m["size"]) if m["assembled"] else "(first use)"
        ctx = f"ctx {m['runs_context'] or m['context'] or ''}"
        ctx = f"{ctx} (trained {m['context']})" if m["context"] and m["runs_context"] != m["context"] else ctx
        mark = "*" if m["default"] else ("e" if m["embedding"] else " ")
        users = ", ".join(m["used_by"]) or "-"
        profile = "embedding" if m["kind"] == "embedding" else m["profile"]
        print(f"{mark} {m['name']:<36} {size:>11}  {m['source']:<8} {profile:<13} {ctx:<26} {m['runs']:<8} "
              f"{users}")
        if m["runs"] == "broken":
            print(f"    broken: {m['runs_detail']} (python main.py model retry {m['name']})")
    print("(* answers personas without their own model; e: recall's embedding model, SAIVERSE_EMBEDDING_MODEL;"
          " use a model as local:NAME)")
    return 0
