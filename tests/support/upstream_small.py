"""The standard small upstream home of the import tests (written with tests/support/upstream_home.py) and the facts
an import of it must reproduce."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.upstream_home import T0, UpstreamHome, host_notice, persona_line, png_bytes, user_line, webp_bytes

GREET = {
    "name": "greet_twice", "display_name": "二度あいさつ", "description": "挨拶を二回する",
    "input_schema": [{"name": "input", "required": True}], "router_callable": False, "user_selectable": True,
    "nodes": [{"id": "a", "type": "say", "action": "こんにちは", "next": "b"},
              {"id": "b", "type": "say", "action": "{input}", "next": None}],
    "start_node": "a",
}
"""A user-made playbook this app validates as it is."""
BROKEN = {"name": "broken_flow", "description": "行き先のないノード", "input_schema": [],
          "nodes": [{"id": "a", "type": "say", "action": "x", "next": "nowhere"}], "start_node": "a"}
"""A user-made playbook that fails validation (its node points at a node that does not exist)."""


def small_home(root: Path) -> dict[str, Any]:
    """The standard test home; returns the facts an import of it must reproduce."""
    home = UpstreamHome(root)
    home.building("user_room_city_a", "ユーザーの部屋", capacity=10, instruction="ユーザーとの対話を行う場所です。")
    home.building("library_city_a", "図書館", capacity=8, instruction="静かな図書館です。", description="古い書物の図書館",
                  entry_prompt="図書館に入りました。", auto_interval=600)
    home.building("cafe_city_a", "カフェ", capacity=4, description="窓際のカフェ", auto_interval=900,
                  extra_prompt_files='["body_control.txt"]')
    home.building("air_city_a_room", "エアの部屋", capacity=1)
    avatar = webp_bytes()
    home.persona("air_city_a", "エア", "user_room_city_a", mode="auto", system_prompt="あなたはエア。",
                 models=("gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.5-flash-lite", "gemini-2.5-flash"),
                 private_room="air_city_a_room", avatar=avatar, moves=["air_city_a_room", "library_city_a"])
    home.persona("eris_city_a", "エリス", "cafe_city_a", mode="user", models=("gpt-4.1", "gpt-5-mini", None, None))
    home.persona("nova_city_a", "ノヴァ", "library_city_a", mode="sleep",
                 models=("claude-sonnet-4-5", None, None, "claude-sonnet-4-5"), moves=["cafe_city_a"])
    home.user_at("cafe_city_a")
    sketch_id, sketch = home.item("夕焼けのスケッチ", "picture", "persona", "eris_city_a", data=png_bytes((240, 120, 40)),
                                  summary="夕焼け色のスケッチ。", description="夕焼けの絵")
    night_id, night = home.item("夜空の抽象画", "picture", "building", "cafe_city_a", data=png_bytes(),
                                summary="濃紺の夜空。", description="夜空の絵", absolute=True)
    guide_id, guide = home.item("図書館の利用案内", "document", "building", "library_city_a",
                                data="開館時間は九時から。\n猫の本は二階にあります。\n", summary="開館時間と貸出の案内。",
                                description="利用案内", state='{"is_open": true}', ext="txt")
    scope_id, _ = home.item("真鍮の望遠鏡", "object", "building", "library_city_a", description="古い望遠鏡")
    pulse = "8447a2a2-3f4d-4dbd-b3ff-7e961be72e69"
    air = [("__persona__", "system", "[定期実行] 朝の挨拶を開始しました。", T0, {"tags": ["internal", f"pulse:{pulse}",
                                                                                     "playbook:meta_user"]}),
           ("__persona__", "user", "図書館に猫の本はある？", T0 + 60, {"with": ["user"], "tags": ["conversation"]}),
           ("__persona__", "assistant", "二階に猫の写真集がありますよ。", T0 + 80,
            {"tags": ["conversation", f"pulse:{pulse}"], "with": ["user"], "media": [{"type": "image"}]}),
           ("user_room_city_a", "user", "おはよう、エア。", T0 + 3600, {"with": ["user"], "tags": ["conversation"]}),
           ("user_room_city_a", "assistant", "おはようございます！", T0 + 3620,
            {"tags": ["conversation"], "with": ["user", "eris_city_a"]}),
           ("project_star_map", "assistant", "星図の計画を立てた。", T0 + 7200, None)]
    air_ids = home.messages("air_city_a", air)
    eris = [("__persona__", "user", f"今日の絵のテーマは？ 第{i}回", T0 + 100 * i, {"with": ["user"], "tags": ["conversation"]})
            for i in range(40)]
    eris_ids = home.messages("eris_city_a", eris)
    nova = [("__persona__", "user", "流星群はいつ？", T0 + 10, {"with": ["user"], "tags": ["conversation"]}),
            ("__persona__", "assistant", "八月中旬だ。", T0 + 20, {"tags": ["conversation"], "with": ["user"]}),
            ("stelis_97b421a8", "assistant", "観測地点を決めた。", T0 + 30, {"tags": ["internal"]}),
            ("library_city_a", "user", "図鑑はどこ？", T0 + 40, {"with": ["user"], "tags": ["conversation"]})]
    nova_ids = home.messages("nova_city_a", nova)
    home.stelis("nova_city_a", "stelis_97b421a8", "流星群観測計画", "流星群観測の地点・日程・機材を決めた。")
    home.working_memory("nova_city_a", {"current_goal": "流星群観測の準備"})
    home.memopedia("air_city_a", "p-user", "root_people", "ユーザー", "朝の挨拶を欠かさない。", "people",
                   ["ユーザー", "挨拶"], vividness="vivid", important=1)
    home.memopedia("air_city_a", "p-city", "root_terms", "シティA", "図書館とカフェがある。", "terms", ["シティA"])
    home.arasuji("air_city_a", "a-1", 1, "エアはユーザーと猫の本について話した。", air_ids[:3])
    home.arasuji("air_city_a", "a-2", 2, "エアの最初の日々。", ["a-1"])
    cafe = [user_line("cafe_city_a", 1, "好きな画家はいる？", "2026-10-24T13:09:00"),
            persona_line("cafe_city_a", 2, "eris_city_a", "モネが好き。", "2026-10-24T13:09:40", pulse),
            host_notice("ノヴァが図書館から入室しました"),
            # upstream's seq counter restarted: the same message_id appears again for a later line
            user_line("cafe_city_a", 1, "新メニューは？", "2026-10-25T12:05:00"),
            persona_line("cafe_city_a", 2, "eris_city_a", "抹茶ラテよ。", "2026-10-25T12:05:40", pulse)]
    old_cafe = [user_line("cafe_city_a", 90, "昔の話", "2026-10-01T10:00:00"),
                persona_line("cafe_city_a", 91, "nova_city_a", "古い記録だ。", "2026-10-01T10:00:30", pulse)]
    home.log("cafe_city_a", cafe, old_parts=[old_cafe])
    library = [host_notice("エアが入室しました"),
               user_line("library_city_a", 1, "静かだね", "2026-10-26T10:00:00"),
               persona_line("library_city_a", 2, "nova_city_a", "図書館だからね。", "2026-10-26T10:00:20", pulse)]
    home.log("library_city_a", library)
    home.log("user_room_city_a", [user_line("user_room_city_a", 1, "おはよう", "2026-10-27T08:00:00")])
    home.schedule("air_city_a", "periodic", days="[0, 1, 2, 3, 4]", time_of_day="09:00",
                  params={"selected_playbook": "basic_chat"}, description="平日朝の挨拶")
    home.schedule("nova_city_a", "oneshot", when="2099-12-05 12:00:00.000000", description="観測メモ")
    home.schedule("eris_city_a", "interval", interval=3600, meta="meta_user", description="一時間ごと")
    home.event("air_city_a", "ユーザーが図書館を訪れた。", kind="visit")
    home.event("nova_city_a", "星空観察ノートを置いた。")
    for builtin in ("basic_chat", "meta_user", "memory_recall", "detail_recall_playbook", "sub_router_user"):
        home.playbook({"name": builtin, "description": "upstream builtin", "input_schema": [],
                       "nodes": [{"id": "n", "type": "pass", "next": None}], "start_node": "n"})
    home.playbook(GREET, persona="air_city_a")
    home.playbook(BROKEN)
    home.close()
    return {
        "personas": {"air_city_a": "エア", "eris_city_a": "エリス", "nova_city_a": "ノヴァ"},
        "buildings": {"user_room_city_a", "library_city_a", "cafe_city_a", "air_city_a_room"},
        "where": {"air_city_a": "user_room_city_a", "eris_city_a": "cafe_city_a", "nova_city_a": "library_city_a"},
        "items": {sketch_id: sketch, night_id: night, guide_id: guide, scope_id: None},
        "messages": {"air_city_a": len(air), "eris_city_a": len(eris), "nova_city_a": len(nova)},
        "message_ids": {"air_city_a": air_ids, "eris_city_a": eris_ids, "nova_city_a": nova_ids},
        "log_lines": {"cafe_city_a": len(cafe) + len(old_cafe), "library_city_a": len(library),
                      "user_room_city_a": 1},
        "avatar": root / "user_data" / "icons" / "air_city_a_1795439843.webp",
    }
