"""User-made playbooks: the rows of upstream's `playbooks` table that are not upstream builtins.

Rule for "builtin": a row is an upstream builtin when its name is one upstream has shipped in
`builtin_data/playbooks/public/` — the file's stem, or the stem without `_playbook` (upstream's
seed names rows after the JSON's `name`, which is one or the other). `UPSTREAM_BUILTIN_PLAYBOOKS`
lists them for every upstream version up to 0.2.x (a home made by a newer upstream may carry more
builtin rows; those are listed by name among the skipped). Builtins are never imported: this app
has its own playbooks, and an upstream builtin can be imported by hand with `import-playbook`.

A user playbook is rebuilt from the row (`nodes_json` holds the whole document in current upstream
versions, only the node list in older ones, with `schema_json` holding the rest), then validated
and stored by this home's `PlaybookCatalog` inside the import transaction. Playbooks may call each
other, so validation repeats until no more pass; the rest are skipped with the validation message.
A name that is one of this app's builtins, or already stored with a different body, is refused.
"""

from __future__ import annotations

import json
from typing import Any, cast

from database import Database
from saiverse.importer.context import Context, rows
from saiverse.importer.convert import json_value
from saiverse.importer.report import Text
from saiverse.importer.target import JoinedDatabase
from saiverse.pulse import PlaybookCatalog
from sea.playbook import PlaybookError, builtin_playbooks, parse_playbook

_UPSTREAM_FILES = """
agentic_chat_playbook autonomy_creation autonomy_memory_organization autonomy_web_research basic_chat
building_move_playbook create_building_playbook deep_research_playbook deep_research_v1 deep_work deep_work_v1
deep_work_v2 detail_recall_playbook document_create_playbook document_search_playbook fragment_organize
generate_image_local_playbook generate_image_playbook item_action_playbook item_pickup_playbook
item_place_playbook item_use_playbook judgment_day_close judgment_day_open judgment_on_event
judgment_post_conversation judgment_post_session memopedia_edit_playbook memopedia_edit_v1
memopedia_note_playbook memopedia_write_playbook memopedia_write_v1 memory_recall_playbook memory_research
meta_agentic meta_auto meta_auto_full meta_autonomy_decision meta_exec_speak meta_judgment meta_judgment_alert
meta_judgment_idle_empty meta_judgment_idle_pending meta_judgment_life_purpose meta_judgment_running
meta_simple_speak meta_user meta_user_manual meta_websearch_demo novel_writing read_url_content_playbook
research_task schedule_management_playbook searxng_search_playbook send_email_to_user_playbook source_chronicle
source_document source_memopedia source_messagelog source_pdf source_web spell_args_decider
sub_detect_situation_change sub_execute_phase sub_finalize_auto sub_generate_want sub_perceive sub_reaction
sub_router_auto sub_router_user sub_speak sub_speak_simple sub_think_meta tick track_autonomous track_external
track_social track_user_conversation track_waiting uri_view wait web_research_playbook web_search_step
web_search_sub x_post_playbook x_read_mentions_playbook x_read_timeline_playbook x_reply_playbook
x_search_tweets_playbook
""".split()
UPSTREAM_BUILTIN_PLAYBOOKS: frozenset[str] = frozenset(
    _UPSTREAM_FILES + [n.removesuffix("_playbook") for n in _UPSTREAM_FILES])
"""Names of upstream's builtin playbooks (file stems under builtin_data/playbooks/public, with and
without `_playbook`), from upstream's history up to v0.2.x."""

def playbook_document(row: dict[str, Any]) -> dict[str, Any]:
    """The playbook JSON of an upstream `playbooks` row."""
    nodes = json_value(row.get("nodes_json"), None)
    if isinstance(nodes, dict):
        doc: dict[str, Any] = dict(nodes)  # the whole document, as upstream's loader stored it
        doc.setdefault("name", row.get("name"))
        return doc
    schema = json_value(row.get("schema_json"), {})
    doc = dict(schema) if isinstance(schema, dict) else {}
    doc["nodes"] = nodes if isinstance(nodes, list) else []
    doc.setdefault("name", row.get("name"))
    for key in ("display_name", "description"):
        if row.get(key) and key not in doc:
            doc[key] = row[key]
    for key in ("router_callable", "user_selectable", "dev_only"):
        if row.get(key) and key not in doc:
            doc[key] = True
    if row.get("required_credentials") and "required_credentials" not in doc:
        doc["required_credentials"] = json_value(row["required_credentials"], row["required_credentials"])
    return doc


def _unreadable_json(row: dict[str, Any]) -> str | None:
    """The column (nodes_json, schema_json) whose text is not JSON, if any: the row cannot be rebuilt."""
    for column in ("nodes_json", "schema_json"):
        raw = row.get(column)
        if isinstance(raw, str | bytes) and raw.strip() and json_value(raw, _MISSING) is _MISSING:
            return column
    return None


_MISSING = object()


def _same(stored: str, text: str) -> bool:
    try:
        return parse_playbook(stored).model_dump() == parse_playbook(text).model_dump()
    except (PlaybookError, ValueError):
        return False


def import_playbooks(ctx: Context) -> None:
    catalog = PlaybookCatalog(cast(Database, JoinedDatabase(ctx.connection)))
    ours = set(builtin_playbooks())
    pending: dict[str, str] = {}
    builtin = 0
    for row in rows(ctx.src, "playbooks"):
        name = str(row.get("name") or "")
        if not name or name in UPSTREAM_BUILTIN_PLAYBOOKS:
            builtin += 1
            continue
        broken = _unreadable_json(row)
        if broken:
            ctx.report.skip("playbook", name, Text(f"{broken} が JSON として読めません (データベース内で壊れています)",
                                                   f"its {broken} is not valid JSON (damaged in the database)"))
            continue
        text = json.dumps(playbook_document(row), ensure_ascii=False)
        if name in ours:
            ctx.report.skip("playbook", name, Text(
                f"このアプリの組み込みプレイブック {name} と同じ名前です "
                "(置き換えません。内容を確かめて import-playbook で取り込めます)",
                f"it has the name of this app's builtin playbook {name} (not replaced; check it and import it by "
                "hand with import-playbook)"))
        elif name in ctx.state.playbooks:
            if _same(ctx.state.playbooks[name], text):
                ctx.report.existing["playbooks"] += 1
            else:
                ctx.report.skip("playbook", name, Text(
                    "同じ名前のプレイブックがすでにあります (上書きしません)",
                    "a playbook of this name is already stored here (not overwritten)"))
        else:
            pending[name] = text
    if builtin:
        ctx.report.note(Text(
            f"アップストリーム組み込みのプレイブック {builtin} 件は取り込んでいません (このアプリのものを使います)",
            f"{builtin} upstream builtin playbooks were left out (this app has its own)"))
    errors: dict[str, str] = {}
    progress = True
    while pending and progress:
        progress = False
        for name, text in list(pending.items()):
            try:
                catalog.store(catalog.check_text(text, source=f"upstream playbook {name}"))
            except (PlaybookError, ValueError) as exc:
                errors[name] = str(exc)
                continue
            del pending[name]
            ctx.report.imported["playbooks"] += 1
            progress = True
    for name in pending:
        ctx.report.skip("playbook", name, Text(f"検証に通りません: {errors[name]}",
                                               f"it does not validate: {errors[name]}"))
