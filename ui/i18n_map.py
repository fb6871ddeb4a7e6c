"""Labels of the city map (ui/city_map.py) and its fields on the ワールド tab; merged into ui/i18n.py's tables."""

from __future__ import annotations

MAP_JA: dict[str, str] = {
    "map_title": "街の地図",
    "map_you": "📍 あなた",
    "map_here_title": "あなたはここにいます",
    "map_auto": "自動配置",
    "map_go": "{name} へ移動",
    "map_nobody": "誰もいません",
    "map_empty": "建物がありません",
    "col_map": "地図",
    "wb_map_x": "地図の X (空欄 = 自動配置)",
    "wb_map_y": "地図の Y (空欄 = 自動配置)",
}

MAP_EN: dict[str, str] = {
    "map_title": "City map",
    "map_you": "📍 You",
    "map_here_title": "You are here",
    "map_auto": "placed automatically",
    "map_go": "Go to {name}",
    "map_nobody": "nobody here",
    "map_empty": "No buildings",
    "col_map": "Map",
    "wb_map_x": "Map X (empty = automatic)",
    "wb_map_y": "Map Y (empty = automatic)",
}
