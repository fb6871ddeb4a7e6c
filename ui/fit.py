"""The window on a phone and the building a browser tab keeps (docs/ARCHITECTURE.md, "UI").

`FIT_JS` runs once per page (with the app's GLOBAL_JS): it opens and closes the phone drawers
(ui/style_fit.css) and writes the building the chat header names into the tab's sessionStorage,
so a reload of this tab comes back to it while another tab keeps its own (`STORED_BUILDING_JS`
reads it back for the page's load event).
"""

from __future__ import annotations

from html import escape

from ui.i18n import Labels

STORAGE_KEY = "sv-building"

FIT_JS = """
() => {
  // The class sits on #sv-window: Gradio scopes the stylesheet's @media rules to its own container.
  const win = () => document.querySelector('#sv-window') || document.body;
  const close = () => win().classList.remove('sv-open-left', 'sv-open-right');
  const isOpen = () => win().classList.contains('sv-open-left') || win().classList.contains('sv-open-right');
  document.addEventListener('click', (ev) => {
    const target = ev.target;
    if (!target || !target.closest) return;
    const more = target.closest('[data-sv-more]');
    if (more) {  // phone: the choosers, 自律, the model notice and search unfold under the head
      const open = win().classList.toggle('sv-open-more');
      more.setAttribute('aria-expanded', open ? 'true' : 'false');
      return;
    }
    const btn = target.closest('[data-sv-drawer]');
    if (btn) {
      const cls = 'sv-open-' + btn.dataset.svDrawer;
      const open = !win().classList.contains(cls);
      close();
      if (open) win().classList.add(cls);
      return;
    }
    if (!isOpen()) return;
    const inLeft = target.closest('#sv-left'), inRight = target.closest('#sv-right');
    // A building picked, or an item opened (full-screen): the drawer has done its job.
    if ((inLeft && target.closest('#building-select label')) || (inRight && target.closest('[data-item-id]'))) {
      setTimeout(close, 120);
      return;
    }
    if (!inLeft && !inRight) close();
  }, true);
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') close(); });
  // The building this tab shows, for a reload of this tab (sessionStorage is per tab).
  const keep = () => {
    const head = document.querySelector('#chat-header [data-building-id]');
    if (head && head.dataset.buildingId) sessionStorage.setItem('__KEY__', head.dataset.buildingId);
  };
  const watch = () => {
    const h = document.querySelector('#chat-header');
    if (!h) { setTimeout(watch, 200); return; }
    keep();
    new MutationObserver(keep).observe(h, {childList: true, subtree: true, attributes: true});
  };
  watch();
}
""".replace("__KEY__", STORAGE_KEY)

STORED_BUILDING_JS = """
(stored) => { try { return sessionStorage.getItem('__KEY__') || ''; } catch (e) { return ''; } }
""".replace("__KEY__", STORAGE_KEY)
"""js of the page's load event: the building this tab showed before a reload ('' for a new tab)."""


def drawer_button(side: str, labels: Labels) -> str:
    """The ☰ (buildings) or 🧺 (this building: who is here, items) button of the phone layout."""
    icon, key = ("☰", "menu_buildings") if side == "left" else ("🧺", "menu_panel")
    text = escape(labels(key))
    return (f'<button type="button" class="sv-drawer-btn" data-sv-drawer="{side}" aria-label="{text}" '
            f'title="{text}">{icon}<span class="sv-drawer-text">{text}</span></button>')


def more_button(labels: Labels) -> str:
    """The ⋯ button of the phone layout: unfolds what the conversation keeps folded away there (the
    playbook choosers, 自律, the model notice, search)."""
    text = escape(labels("menu_more"))
    return (f'<button type="button" class="sv-drawer-btn sv-more-btn" data-sv-more="1" aria-expanded="false" '
            f'aria-label="{text}" title="{text}">⋯</button>')


def with_js(*scripts: str) -> str:
    """One page-load function running each of `scripts` (each an arrow function) in turn."""
    calls = "".join(f"({s.strip()})();\n" for s in scripts)
    return "() => {\n" + calls + "}"

PHONE_HEAD = """<style>
/* ui/fit.py: the page around the app on a phone (outside Gradio's container, so not in style_fit.css) */
@media (max-width: 640px) {
  body .gradio-container.gradio-container { padding: 4px !important; }
  .gradio-container > .main { padding: 4px 2px !important; }
}
</style>
<script>
/* ui/fit.py: put the cursor in the message box on a desktop without scrolling the page down to it
   (Gradio's autofocus scrolls, hiding the tabs; on a phone focusing would pop up the keyboard). */
(() => {
  if (!matchMedia("(pointer: fine)").matches) return;
  let tries = 0;
  const timer = setInterval(() => {
    const box = document.querySelector("#chat-input textarea");
    if (box || ++tries > 100) clearInterval(timer);
    if (box && document.activeElement === document.body) box.focus({preventScroll: true});
  }, 100);
})();
</script>"""
"""launch(head=...): the page around the app — phone rules (Gradio scopes `css` to its container) and
the message box focused without scrolling."""
