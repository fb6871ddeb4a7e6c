"""設定 tab, バックアップ section: make a backup (and download it), see the backups, restore one into a new folder.

Everything goes through `manager.backups` (saiverse/care/_backup_auto.py) and `restore_backup`
(saiverse/care/_restore.py); a big world shows its progress in bytes. A restore never touches the
world that is open: it writes only into an empty or new folder, and the page says how to start it.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any, Protocol

import gradio as gr

from saiverse.port import BackupStore, UserError, human_size, restore_backup
from ui.i18n import Labels
from ui.tabs import TabRefresh, error_html, ok_html, table_html


class BackupOwner(Protocol):
    """What this section needs from the manager."""

    backups: BackupStore

    @property
    def settings(self) -> Any: ...


def backups_table(manager: BackupOwner, labels: Labels) -> str:
    """Every archive in the backups folder, newest first."""
    rows = [(e.created.strftime("%Y-%m-%d %H:%M"), labels(f"bk_kind_{e.kind}"), e.path.name, human_size(e.size))
            for e in manager.backups.list()]
    return table_html([labels(k) for k in ("col_when", "col_kind", "col_file", "col_size")], rows,
                      empty=labels("bk_none"))


def _choices(manager: BackupOwner) -> list[str]:
    return [e.path.name for e in manager.backups.list()]


def _note(manager: BackupOwner, labels: Labels) -> str:
    text = labels("bk_note", keep=manager.settings.backup_keep, folder=str(manager.backups.folder))
    return f'<p class="sv-muted sv-note" id="backup-note">{escape(text)}</p>'


def default_target(home: Path) -> str:
    """A suggestion for the restore folder: beside the home, dated."""
    return str(home.with_name(f"{home.name}-restored-{datetime.now():%Y%m%d}"))


def _progress_fn(progress: Any, labels: Labels, key: str) -> Any:
    def report(done: int, total: int, what: str) -> None:
        progress(done / total if total else 0.0, desc=labels(key, what=what))

    return report


_handed_out: list[Path] = []
"""Temp folders of backups handed to a session for download (ui/tabs/backups.py `_hand_out`)."""


def _forget_hand_outs() -> None:
    while _handed_out:
        shutil.rmtree(_handed_out.pop(), ignore_errors=True)


atexit.register(_forget_hand_outs)


def _hand_out(archive: Path) -> Path:
    """The archive, linked into a fresh private temp folder for Gradio to hand to this session only.

    The backups folder is not among the paths Gradio serves (ui/app.py `launch_kwargs`), so no other
    client can fetch `/gradio_api/file=<home>/backups/…`; Gradio copies this link into its cache under
    a name made from the content, which only the session that asked is told. The previous hand-out's
    folder goes when the next is made (and at exit)."""
    _forget_hand_outs()
    folder = Path(tempfile.mkdtemp(prefix="saiverse-download-"))  # mode 700
    _handed_out.append(folder)
    target = folder / archive.name
    try:
        target.hardlink_to(archive)  # no copy when the temp folder is on the same disk
    except OSError:
        shutil.copy2(archive, target)
    return target


def build_backup_section(manager: BackupOwner, labels: Labels) -> TabRefresh:
    """Create the section's components in the current context and wire them."""
    gr.Markdown(f"### {labels('bk_title')}")
    gr.HTML(_note(manager, labels))
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=420):
            with gr.Row():
                create = gr.Button(labels("bk_create"), variant="primary", elem_id="backup-create", scale=0,
                                   min_width=200)
                status = gr.HTML(elem_id="backup-status")
            download = gr.File(label=labels("bk_file"), interactive=False, elem_id="backup-download", visible=False)
            gr.Markdown(f"#### {labels('bk_list')}")
            table = gr.HTML(backups_table(manager, labels), elem_id="backup-table")
        with gr.Column(scale=2, min_width=380, elem_classes=["sv-form"]):
            gr.Markdown(f"#### {labels('bk_restore_title')}")
            pick = gr.Dropdown(_choices(manager), value=None, label=labels("bk_restore_pick"),
                               elem_id="backup-restore-pick")
            upload = gr.File(label=labels("bk_restore_upload"), file_types=[".zip"], elem_id="backup-restore-upload")
            target = gr.Textbox(value=default_target(manager.settings.home), label=labels("bk_restore_target"),
                                elem_id="backup-restore-target")
            with gr.Row():
                restore_status = gr.HTML(elem_id="backup-restore-status")
                restore = gr.Button(labels("bk_restore"), elem_id="backup-restore", scale=0, min_width=140)

    def on_create(progress: gr.Progress = gr.Progress()) -> list[Any]:  # noqa: B008 - Gradio's idiom
        try:
            result = manager.backups.create("manual", progress=_progress_fn(progress, labels, "bk_progress"))
        except (UserError, OSError) as exc:
            return [error_html(labels("bk_failed", error=str(exc))), gr.skip(), gr.skip(), gr.skip()]
        return [ok_html(labels("bk_created", name=result.path.name, size=human_size(result.size))),
                gr.File(value=str(_hand_out(result.path)), visible=True), backups_table(manager, labels),
                gr.Dropdown(choices=_choices(manager))]

    def on_restore(name: str | None, uploaded: Any, folder: str,
                   progress: gr.Progress = gr.Progress()) -> str:  # noqa: B008 - Gradio's idiom
        upload_path = uploaded if isinstance(uploaded, str) else (uploaded or {}).get("path") if uploaded else None
        if not name and not upload_path:
            return error_html(labels("bk_need_source"))
        raw = (folder or "").strip()
        if not raw or not Path(raw).expanduser().is_absolute():
            return error_html(labels("bk_need_target"))
        try:
            archive = Path(upload_path) if upload_path else manager.backups.path_of(str(name))
            result = restore_backup(archive, Path(raw), _progress_fn(progress, labels, "bk_progress_restore"))
        except (UserError, OSError, ValueError) as exc:
            return error_html(labels("bk_failed", error=str(exc)))
        return ok_html(labels("bk_restored", home=str(result.home), schema=result.schema_after,
                              personas=result.counts.get("personas", 0), messages=result.counts.get("messages", 0)))

    create.click(on_create, None, [status, download, table, pick])
    restore.click(on_restore, [pick, upload, target], restore_status)

    def refresh() -> list[Any]:
        return [backups_table(manager, labels), gr.Dropdown(choices=_choices(manager))]

    return TabRefresh(refresh, [table, pick], drawn=True)
