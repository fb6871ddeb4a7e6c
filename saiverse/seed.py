"""The first-run world: a city, five buildings, two personas and a few items.

Seeding happens exactly once — when the database has no city yet — and never touches a world the
user already has (deleted seed items stay deleted). It is all or nothing: the item files and their
summaries are made first (the summaries may call a model, which may fail), then the city, buildings,
personas, user and items are inserted in ONE transaction. A failure removes the files and leaves no
row, so the next start seeds again from the beginning; a kill before the commit leaves only files
of ours that no row names, which start-up repair sets aside (saiverse/care/_repair.py).
"""

from __future__ import annotations

import io
import json
import math
import uuid
from datetime import datetime
from pathlib import Path

from PIL import Image, ImageDraw

from database import Database
from database.models import Building, City, Item, ItemLocation, Persona, User
from saiverse.locks import item_lock
from saiverse.world import (
    ItemStore,
    atomic_write,
    check_image,
    clip_summary,
    new_file_name,
    relative_to_home,
    remove_quietly,
    summary_path,
    text_sha256,
)

CITY_ID = "city_main"

BUILDINGS = [
    ("entrance", "エントランス", "街の入り口。案内板と掲示板がある広いホール。", 20, 0),
    ("user_room", "ユーザーの部屋", "あなたの部屋。机と本棚、窓から街が見える。", 4, 1),
    ("library", "図書館", "詩や小説、街の記録が所蔵されている静かな図書館。", 10, 2),
    ("museum", "美術館", "生成された絵や写真が飾られている美術館。", 10, 3),
    ("atelier", "アトリエ", "絵を描いたり物語を作ったりする制作部屋。", 6, 4),
]

PERSONAS = [
    {
        "persona_id": "mina", "name": "ミナ", "avatar": "📚", "building_id": "library",
        "description": "図書館の司書。本と物語が好きで、訪れた人に合う一冊を探すのが得意。",
        "system_prompt": (
            "あなたは図書館の司書ミナです。本と物語を愛し、落ち着いた丁寧な口調で話します。"
            "相手の話をよく聞き、必要なら図書館の文書を案内します。\n"
            "一人称: わたし\n語尾: 〜ですね"
        ),
    },
    {
        "persona_id": "sora", "name": "ソラ", "avatar": "🎨", "building_id": "atelier",
        "description": "アトリエに入り浸る絵描き。好奇心旺盛で、思いついたらすぐ描きたくなる。",
        "system_prompt": (
            "あなたは絵描きのソラです。好奇心旺盛で元気、くだけた口調で話します。"
            "色や形の話が大好きで、街の美術館にもよく顔を出します。\n"
            "一人称: ボク\n語尾: 〜だよ"
        ),
    },
]

GUIDE_TEXT = """SAIVerse の使い方

ようこそ、SAIVerse へ。この街にはいくつかの建物があり、ペルソナたちが暮らしています。

1. 左の建物リストから行き先を選ぶと、その建物に移動します。
2. 中央のチャット欄に話しかけると、同じ建物にいるペルソナが応えます。@名前 で一人に話しかけられます。
3. 右のパネルには建物にいるペルソナとアイテムが並びます。アイテムをクリックすると中身を見られます。
4. 画像を添付して送ると、絵(picture)アイテムとして今いる建物に飾られます。
5. 文書(document)アイテムはモーダルで編集して保存できます。要約は自動で作り直されます。
6. チャット上部の「自律」を ON にすると、ペルソナ タブで「自律」にしたペルソナが、話しかけなくても
   自分から動きます (建物ごとの間隔、既定は 10 分ごと)。この切り替えは再起動しても残ります。

API キーがなくても、このコンピューターの中で動く組み込みのローカルモデル (llama.cpp、Gemma 3 270M) で
会話できます。小さなモデルなので、設定タブで Gemini・OpenAI・Anthropic の API キーを入れると、より賢く
話します (キーのある会社のモデルに自動で切り替わります)。どのペルソナがどのモデルで話しているかは、
チャット欄の下とペルソナの名前の横に出ます。
"""


def draw_starry_night(size: int = 480) -> bytes:
    """The museum's first picture, drawn with Pillow: a night sky over hills."""
    img = Image.new("RGB", (size, size))
    draw = ImageDraw.Draw(img)
    for y in range(size):
        t = y / size
        draw.line([(0, y), (size, y)], fill=(int(10 + 30 * t), int(20 + 40 * t), int(70 + 90 * t)))
    for i in range(90):
        x = (i * 97) % size
        y = (i * 53) % int(size * 0.6)
        r = 1 + (i % 3)
        draw.ellipse([x - r, y - r, x + r, y + r], fill=(255, 250, 210))
    draw.ellipse([size * 0.7, size * 0.1, size * 0.85, size * 0.25], fill=(250, 235, 160))
    pts = [(x, size * 0.78 - 30 * math.sin(x / size * math.pi * 2)) for x in range(0, size + 1, 8)]
    draw.polygon([(0, size), *pts, (size, size)], fill=(20, 50, 35))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def seed_world(db: Database, items: ItemStore) -> bool:
    """Create the first-run world if the database has none; returns whether it seeded.

    Several processes may start on a new home at once: the check and the inserts happen under one
    lock, so exactly one of them seeds.
    """
    with item_lock(items.home, "first-run seed"):
        return _seed_locked(db, items)


def _seed_locked(db: Database, items: ItemStore) -> bool:
    with db.session() as s:
        if s.get(City, CITY_ID) is not None or s.query(City).first() is not None:
            return False
    written: list[Path] = []
    try:
        rows = _seed_items(items, written)
        with db.session() as s:  # one transaction: the whole world or none of it
            s.add(City(city_id=CITY_ID, name="サイバース市", description="ペルソナたちが暮らす小さな街。"))
            s.flush()
            for bid, name, desc, cap, order in BUILDINGS:
                s.add(Building(
                    building_id=bid, city_id=CITY_ID, name=name, description=desc, capacity=cap,
                    sort_order=order, system_instruction=f"ここは{name}です。{desc}",
                ))
            s.flush()
            for p in PERSONAS:
                s.add(Persona(city_id=CITY_ID, interaction_mode="user", **p))
            s.add(User(user_id="user", name="あなた", building_id="library"))
            for item, owner in rows:
                s.add(item)
                s.flush()
                s.add(ItemLocation(item_id=item.item_id, owner_kind="building", owner_id=owner,
                                   updated_at=item.created_at))
    except BaseException:
        remove_quietly(*written)
        raise
    return True


def _row(name: str, type_: str, description: str, state: dict[str, object], file_path: str | None = None) -> Item:
    now = datetime.now()
    return Item(item_id=str(uuid.uuid4()), name=name, type=type_, description=description,
                state_json=json.dumps(state, ensure_ascii=False), file_path=file_path, created_at=now, updated_at=now)


def _with_file(items: ItemStore, path: Path, data: bytes | str, summary: str, written: list[Path]) -> str:
    """Write a seed item's file and its summary sidecar (recorded in `written`); its FILE_PATH."""
    written.append(path)
    atomic_write(path, data)
    written.append(summary_path(path))
    atomic_write(summary_path(path), summary)
    return relative_to_home(items.home, path)


def _seed_items(items: ItemStore, written: list[Path]) -> list[tuple[Item, str]]:
    """The seed items' rows (not yet added) with their buildings; their files are written meanwhile."""
    rows = [
        (_row("古い鍵", "object", "図書館の奥の書庫で見つかった、錆びた真鍮の鍵。どの扉のものかは分からない。", {}),
         "library"),
        (_row("案内板", "object", "街の建物と行き方が描かれた木の案内板。", {}), "entrance"),
    ]
    guide = items.home / "documents" / new_file_name("txt")
    summary = clip_summary(items.summarize_document(GUIDE_TEXT, None) or "SAIVerse使い方ガイド")
    rel = _with_file(items, guide, GUIDE_TEXT, summary, written)
    rows.append((_row("SAIVerse使い方ガイド", "document", summary, {
        "created_by": "seed", "version": 1, "sha256": text_sha256(GUIDE_TEXT)}, rel), "library"))
    picture = check_image(draw_starry_night(), max_bytes=20 * 1024 * 1024, max_pixels=40_000_000)
    path = items.home / "image" / new_file_name(picture.ext)
    written.append(path)
    atomic_write(path, picture.data)
    summary = clip_summary(items.summarize_picture(path, None) or "星空の絵")
    rel = _with_file(items, path, picture.data, summary, written)
    rows.append((_row("星空の絵", "picture", summary, {
        "mime_type": picture.mime, "width": picture.width, "height": picture.height,
        "created_by": "seed", "prompt": "丘の上の星空"}, rel), "museum"))
    return rows
