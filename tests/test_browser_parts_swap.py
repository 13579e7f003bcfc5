"""Another phone's change swaps only the parts of this phone's view that changed (static/parts.js;
real headless Chromium, 390x844): the parts the answer says are the same are never taken out of
the page (no flicker, nothing laid out again, the map keeps its zoom), the changed ones are
replaced alone, or only their changed lines when the rest is the same, and work (a tap on them lands), and an answer whose parts differ from the page's
(a banner appears) is swapped whole, as before, after which part-by-part swaps resume."""
from __future__ import annotations

import pytest

from conftest import seat_phone

pytestmark = pytest.mark.browser

WATCH_REMOVALS = """() => {
  window.__removed = [];
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      Array.prototype.forEach.call(r.removedNodes, function (n) { if (n.nodeType === 1) { window.__removed.push(n.id || n.tagName); } });
    });
  }).observe(document.getElementById('view'), {childList: true});
  ['board', 'now', 'my-panel'].forEach(function (id) { document.getElementById(id).__mark = id; });
}"""
MARKS = "() => ['board', 'now', 'my-panel'].map(function (id) { var e = document.getElementById(id); return e && e.__mark || null; })"


def test_a_change_swaps_only_the_parts_that_changed(live_server, browser):
    from playwright.sync_api import expect

    server = live_server()
    made, ctx, page = seat_phone(browser, server, ["atreides", "harkonnen"])
    code, host = made["table"], made["host_token"]
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
    shown = page.locator("#view [data-shown-revision]")

    def change(**entry):
        rev = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"]
        assert server.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": rev}, token=host)[0] == 200
        expect(shown).to_have_attribute("data-shown-revision", str(rev + 1))
        return rev + 1

    page.evaluate(WATCH_REMOVALS)
    rev = change(type="spice.set", faction="harkonnen", amount=7)  # nothing of this seat's own changed
    assert page.evaluate(MARKS) == ["board", "now", "my-panel"]  # the same elements, never taken out
    removed = page.evaluate("window.__removed")
    assert "board" not in removed and "now" not in removed and "my-panel" not in removed, removed
    assert "view-bar" in removed  # the bottom bar (revision, undo) did change: replaced alone
    assert page.locator("#view [data-same]").count() == 0
    revs = page.locator("#view input[name='revision']").evaluate_all("els => els.map(e => e.value)")
    assert revs and set(revs) == {str(rev)}, revs  # every form, kept or new, is on the table's revision

    etag_before = page.locator("#my-panel").get_attribute("data-etag")
    # this seat's own spice changes: in its panel the spice line alone is replaced (the panel is
    # patched one level down), and a tap on the new line lands
    page.evaluate("""() => { window.__removed = [];
      document.querySelector('#my-panel h2').__mark = 'title';
      document.querySelector('#my-panel .stat-row').__mark = 'stats'; }""")
    rev = change(type="spice.set", faction="atreides", amount=4)
    expect(page.locator("#my-spice")).to_have_text("4")
    assert page.evaluate(MARKS) == ["board", "now", "my-panel"]
    assert page.evaluate("() => document.querySelector('#my-panel h2').__mark") == "title"  # unchanged: stayed
    assert page.evaluate("() => document.querySelector('#my-panel .stat-row').__mark") is None  # changed: new
    assert page.locator("#my-panel").get_attribute("data-etag") != etag_before  # the page shows the new panel
    page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    page.locator("#my-panel button[aria-label='add 1 spice']").tap()
    expect(page.locator("#my-spice")).to_have_text("5")
    expect(shown).to_have_attribute("data-shown-revision", str(rev + 1))
    assert server.request("GET", f"/api/tables/{code}/state", token=host)[1]["factions"]["atreides"]["spice"] == 5

    # a banner appears: the parts are not the same row any more, so the view is swapped whole
    page.evaluate(WATCH_REMOVALS)
    change(type="rule.show", rule="storm", title="The storm")
    expect(page.locator("#banner")).to_contain_text("The storm")
    assert "board" in page.evaluate("window.__removed")  # the whole view was swapped...
    assert page.evaluate(MARKS)[0] == "board"  # ...and app.js put the kept board back in place
    assert page.locator("#view [data-same]").count() == 0
    expect(page.locator("#board svg").first).to_be_visible()
    # and the next change is part by part again
    page.evaluate(WATCH_REMOVALS)
    change(type="spice.set", faction="harkonnen", amount=9)
    assert page.evaluate(MARKS) == ["board", "now", "my-panel"]
    expect(page.locator("#banner")).to_contain_text("The storm")
    ctx.close()
