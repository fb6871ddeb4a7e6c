"""What the commands print for a person (cli/_world.py, _admin.py, _backup.py, _usage.py); `--json` output
is for programs and stays as it is."""

from __future__ import annotations

JA: dict[str, str] = {
    "out_world_row": "{id:<12} {name}  [{names}]  アイテム: {items}",
    "out_in_bag": "    袋の中: item:{slot}  {id}  [{type}] {name}",
    "out_bag_made": "袋 {name} (item:{slot}, {id}) を {building} に置きました",
    "out_created_persona": "ペルソナ {name} ({id}) を作りました",
    "out_created_building": "建物 {name} ({id}) を作りました",
    "out_placed": "{name} ({id}) を街の地図の ({x}, {y}) に{how}",
    "out_placed_set": "置きました",
    "out_placed_auto": "自動で置きました",
    "out_deleted_persona": "ペルソナ {name} ({id}) を削除しました",
    "out_deleted_building": "建物 {name} ({id}) を削除しました",
    "out_items_moved": "  アイテム {n} 個を {to} に移しました",
    "out_removed": "  消したもの: {what}",
    "out_backup_before": "  削除の前に取ったバックアップ: {path}",
    "out_reflex_on": "{name} ({id}) の反射想起を入れました",
    "out_reflex_off": "{name} ({id}) の反射想起を切りました",
    "out_backup_written": "バックアップを書きました: {path} ({size}、スキーマ {schema})",
    "out_backup_missing": "  見つからないファイル (データベースにはあるがディスクにない): {path}",
    "out_restored": "{home} に復元しました: スキーマ {schema}{migrated}",
    "out_restored_migrated": " (スキーマ {before} から移行)",
    "out_restored_pg": ("行は SAIVERSE_DATABASE_URL の PostgreSQL にあります。"
                        "その設定と --home {home} で起動してください"),
    "out_start_with": "起動するには: python main.py --home {home}",
    "out_prices": "料金表: {path}",
    "out_no_calls": "  (この期間のモデル呼び出しはありません)",
    "out_usage_row": "  {day}  {name} ({id})  {model}: 入力 {took:,} / 出力 {gave:,} トークン、{calls} 回、{cost}",
    "out_budget_row": "  予算 {name} ({id}): 1 日 ${usd:.2f}、今日 ${spent:.4f}{over}",
    "out_budget_over": " — 超過: ローカルモデルで答えます",
}

EN: dict[str, str] = {
    "out_world_row": "{id:<12} {name}  [{names}]  items: {items}",
    "out_in_bag": "    in the bag: item:{slot}  {id}  [{type}] {name}",
    "out_bag_made": "created bag {name} (item:{slot}, {id}) in {building}",
    "out_created_persona": "created persona {name} ({id})",
    "out_created_building": "created building {name} ({id})",
    "out_placed": "{name} ({id}) {how} at ({x}, {y}) on the city map",
    "out_placed_set": "placed",
    "out_placed_auto": "placed automatically",
    "out_deleted_persona": "deleted persona {name} ({id})",
    "out_deleted_building": "deleted building {name} ({id})",
    "out_items_moved": "  {n} items moved to {to}",
    "out_removed": "  removed: {what}",
    "out_backup_before": "  backup taken before the delete: {path}",
    "out_reflex_on": "reflex recall on for {name} ({id})",
    "out_reflex_off": "reflex recall off for {name} ({id})",
    "out_backup_written": "backup written: {path} ({size}, schema {schema})",
    "out_backup_missing": "  missing (named by the database, not on disk): {path}",
    "out_restored": "restored into {home}: schema {schema}{migrated}",
    "out_restored_migrated": " (migrated from schema {before})",
    "out_restored_pg": ("its rows are in the PostgreSQL database of SAIVERSE_DATABASE_URL; start it with that setting "
                        "and --home {home}"),
    "out_start_with": "start it with: python main.py --home {home}",
    "out_prices": "prices: {path}",
    "out_no_calls": "  (no model calls in these days)",
    "out_usage_row": "  {day}  {name} ({id})  {model}: in {took:,} / out {gave:,} tokens, {calls} calls, {cost}",
    "out_budget_row": "  budget {name} ({id}): ${usd:.2f}/day, today ${spent:.4f}{over}",
    "out_budget_over": " — over: answers with the local model",
}
