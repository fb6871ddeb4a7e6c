"""Items in the room's modal, in real Chromium: each item shows its short id (`item:N`) in the room's
list and in the modal; the person renames an item and rewrites its description, a refused name keeps
what was typed, and deleting asks first, takes a backup, and removes the item and its file."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import RunningApp, act, new_page, served, settle, shot, textbox, wait_toast

pytestmark = [pytest.mark.filterwarnings("ignore:::gradio.queueing"), pytest.mark.browser]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    with served(tmp_path_factory.mktemp("item_edit") / "home") as app:
        yield app


def _open(page: Any, name: str) -> Any:
    page.locator("#item-list [data-item-id]", has_text=name).first.click()
    page.locator("#item-modal-title", has_text=name).wait_for()
    return page.locator("#item-modal")


def test_rename_describe_and_delete_an_item(running: RunningApp, browser: Any) -> None:
    manager = running.manager
    doc = manager.items.create_document("星の観察ノート", "オリオン座を見た。", owner_kind="building",
                                        owner_id="library", description="星の記録")
    with new_page(browser, running.url) as page:
        row = page.locator("#item-list [data-item-id]", has_text="星の観察ノート")
        row.wait_for()
        short = f"item:{manager.items.get(doc.item_id).slot_number}"
        assert short in row.inner_text()  # the room's list says each item's short id
        modal = _open(page, "星の観察ノート")
        assert short in page.locator("#item-modal-title").inner_text()
        page.locator("#item-modal-edit").get_by_text("名前と説明を編集").click()
        name = textbox(page, "item-modal-name")
        name.wait_for()
        assert name.input_value() == "星の観察ノート"
        # The folded part's fields mount as it opens: wait for the modal's events, then type, and see the
        # field hold what was typed (blurred: the field's value is the page's) before saving.
        settle(page)
        name.fill("   ")
        name.blur()
        page.wait_for_function("() => document.querySelector('#item-modal-name input, #item-modal-name textarea')"
                               ".value === '   '")
        act(page, page.locator("#item-modal-edit-save"))
        status = page.locator("#item-modal-edit-status")
        status.locator(".sv-error, .sv-ok").wait_for()
        assert "アイテム名が空です" in status.inner_text(), status.inner_text()  # a blank name is refused
        assert manager.items.get(doc.item_id).name == "星の観察ノート"
        name.fill("冬の星座ノート")
        textbox(page, "item-modal-description").fill("冬の夜に見えた星座の記録")
        act(page, page.locator("#item-modal-edit-save"))
        page.locator("#item-modal-edit-status", has_text="「冬の星座ノート」を保存しました").wait_for()
        page.locator("#item-modal-title", has_text="冬の星座ノート").wait_for()
        page.locator("#item-list [data-item-id]", has_text="冬の星座ノート").wait_for()
        shot(page, "35_item_edited")
        info = manager.items.get(doc.item_id)
        assert (info.name, info.description) == ("冬の星座ノート", "冬の夜に見えた星座の記録")
        path = manager.items.file_of(info)
        assert path.is_file()

        act(page, page.locator("#item-modal-delete"))
        confirm = page.locator("#item-modal-delete-confirm")
        confirm.get_by_text("自動バックアップ").wait_for()
        assert short in confirm.inner_text()
        shot(page, "35_item_delete_confirm")
        act(page, page.locator("#item-modal-delete-no"))  # やめる: nothing happens
        confirm.wait_for(state="hidden")
        assert manager.items.get(doc.item_id).name == "冬の星座ノート"
        act(page, page.locator("#item-modal-delete"))
        act(page, page.locator("#item-modal-delete-yes"))
        wait_toast(page, "「冬の星座ノート」を削除しました")
        modal.wait_for(state="detached")
        page.wait_for_function("() => !document.querySelector('#item-list').innerText.includes('冬の星座ノート')")
    assert all(i.item_id != doc.item_id for i in manager.items.list_owned("building", "library"))
    assert not path.exists()
    backups = [b for b in manager.backups.list() if b.kind == "delete"]
    assert len(backups) == 1 and backups[0].path.is_file()  # the item and its file are in it


def test_a_bag_shows_what_it_holds(running: RunningApp, browser: Any) -> None:
    manager = running.manager
    bag = manager.items.create_object("旅の袋", "革の袋", owner_kind="building", owner_id="library", kind="bag")
    coin = manager.items.create_object("銀貨", "古い銀貨", owner_kind="building", owner_id="library")
    manager.items.move(coin.item_id, "bag", bag.item_id)
    with new_page(browser, running.url) as page:
        row = page.locator("#item-list [data-item-id]", has_text="旅の袋")
        row.wait_for()
        assert "👜" in row.inner_text() and "袋" in row.inner_text()
        assert page.locator("#item-list [data-item-id]", has_text="銀貨").count() == 0  # it is in the bag
        _open(page, "旅の袋")
        held = page.locator("#item-modal-not-viewable")
        held.get_by_text("この袋に入っているもの (1 個)").wait_for()
        assert "銀貨" in held.inner_text() and "item:1" in held.inner_text()
        shot(page, "35_bag_modal")


def test_a_person_makes_a_bag_in_the_room_and_puts_an_item_in_it(running: RunningApp, browser: Any) -> None:
    """Under the room's item list: 👜 袋を作る, a name, ＋ この部屋に置く — the bag is in the list with its
    short id; an empty name is refused and keeps the description typed; the bag then holds an item."""
    manager = running.manager
    with new_page(browser, running.url) as page:
        page.locator("#item-list").wait_for()
        page.locator("#sv-new-bag").get_by_text("👜 袋を作る").click()
        name, description = textbox(page, "sv-new-bag-name"), textbox(page, "sv-new-bag-description")
        name.wait_for()
        name.fill("  ")
        description.fill("星図を入れる筒")
        act(page, page.locator("#sv-new-bag-create"))
        page.locator("#sv-new-bag-status", has_text="アイテム名が空です").wait_for()
        assert description.input_value() == "星図を入れる筒"  # nothing typed is lost
        assert not [i for i in manager.items.list_owned("building", "library") if i.type == "bag"
                    and i.description == "星図を入れる筒"]
        name.fill("星図の筒")
        act(page, page.locator("#sv-new-bag-create"))
        page.locator("#sv-new-bag-status", has_text="袋「星図の筒」").wait_for()
        row = page.locator("#item-list [data-item-id]", has_text="星図の筒")
        row.wait_for()
        bag = next(i for i in manager.items.list_owned("building", "library") if i.name == "星図の筒")
        assert (bag.type, bag.description) == ("bag", "星図を入れる筒")
        assert "👜" in row.inner_text() and f"item:{bag.slot_number}" in row.inner_text()
        assert name.input_value() == "" and description.input_value() == ""
        shot(page, "35_bag_made")
        chart = manager.items.create_object("冬の星図", "オリオン座の星図", owner_kind="building", owner_id="library")
        manager.items.move(chart.item_id, "bag", bag.item_id)  # what item_move does when a persona is asked
        page.reload()
        _open(page, "星図の筒").get_by_text("この袋に入っているもの (1 個)").wait_for()
