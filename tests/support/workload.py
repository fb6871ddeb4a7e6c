"""A child process for the kill campaign: random writes against one home, reporting each commit.

Run as `python tests/support/workload.py HOME SEED`. It opens the manager (which repairs what
the previous kill left), prints `READY`, then loops forever over pulses, document patches, uploads
and productions, printing one JSON line per operation *after* it committed. The parent kills it
with SIGKILL at a random moment and checks that every reported commit survived.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PIL import Image  # noqa: E402

from saiverse.manager import SAIVerseManager  # noqa: E402
from saiverse.settings import load_settings  # noqa: E402


def _report(**fields: object) -> None:
    print(json.dumps(fields, ensure_ascii=False), flush=True)


def _png(rng: random.Random) -> bytes:
    img = Image.new("RGB", (64, 48), (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def main(home: str, seed: int) -> None:
    rng = random.Random(seed)
    manager = SAIVerseManager(load_settings(home))
    doc_id = next(i.item_id for i in manager.items.list_owned("building", "library") if i.type == "document")
    _report(op="ready")
    n = 0
    while True:
        n += 1
        tag = f"s{seed}-{n}"
        op = rng.choice(["pulse", "pulse", "patch", "patch", "upload", "production"])
        if op == "pulse":
            text = f"こんにちは {tag}"
            list(manager.handle_user_input("library", text, persona_id="mina"))
            _report(op="pulse", text=text)
        elif op == "patch":
            line = f"追記 {tag}"
            manager.items.edit_document(doc_id, lambda t, line=line: (t + line + "\n", None))
            _report(op="patch", item_id=doc_id, line=line)
        elif op == "upload":
            data = _png(rng)
            info = manager.upload_image("museum", data, f"絵 {tag}")
            _report(op="upload", item_id=info.item_id, sha256=hashlib.sha256(data).hexdigest())
        else:
            text = f"@ソラ 絵本を作って: 猫の冒険 {tag}"
            list(manager.handle_user_input("atelier", text, persona_id="sora"))
            _report(op="production", text=text)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
