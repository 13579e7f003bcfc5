"""A phone keeps its own panel and its phase card when a change leaves them as they were (real
headless Chromium, 390x844): another faction's entry brings empty sections and the page keeps its
own elements, what is typed in them included, with their forms set to the new revision, so a tap on
them is not stale; a change to this seat brings the new panel, a new phase the new card."""
from __future__ import annotations

import pytest

from conftest import PHONE, seat_phone

pytestmark = pytest.mark.browser


def test_a_refresh_keeps_the_panel_until_it_changes_and_a_tap_on_the_kept_one_lands(live_server, browser):
    from playwright.sync_api import expect

    server = live_server()
    made, ctx, page = seat_phone(browser, server, ["atreides", "harkonnen"])
    code, host = made["table"], made["host_token"]
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
    page.evaluate("() => { document.getElementById('my-panel').__mark = 'kept'; }")
    shown = page.locator("#view [data-shown-revision]")

    def change(rev, **entry):
        assert server.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": rev}, token=host)[0] == 200
        expect(shown).to_have_attribute("data-shown-revision", str(rev + 1))

    change(0, type="spice.set", faction="harkonnen", amount=7)   # another faction: my panel is the same
    assert page.evaluate("() => document.getElementById('my-panel').__mark") == "kept"
    assert page.locator("#my-panel[data-same]").count() == 0
    revs = page.locator("#my-panel input[name='revision']").evaluate_all("els => els.map(e => e.value)")
    assert revs and set(revs) == {"1"}, revs
    etag_kept = page.locator("#my-panel").get_attribute("data-etag")
    # a tap on the kept panel: +1 spice lands (its form says revision 1, the table's)
    page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    page.locator("#my-panel button[aria-label='add 1 spice']").tap()
    expect(page.locator("#my-spice")).to_have_text("11")
    expect(shown).to_have_attribute("data-shown-revision", "2")
    spice = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["factions"]["atreides"]
    assert spice["spice"] == 11
    # the panel's changed spice line came in (static/parts.js patches the panel one level down)
    assert page.locator("#my-panel").get_attribute("data-etag") != etag_kept
    ctx.close()


def test_a_kept_phase_card_keeps_what_is_typed_and_a_tap_on_it_lands(live_server, browser):
    from playwright.sync_api import expect

    server = live_server()
    status, made = server.request("POST", "/api/tables", {"factions": ["atreides", "harkonnen", "fremen"]})
    assert status == 201
    code, host = made["table"], made["host_token"]

    def entry(**e):
        rev = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"]
        assert server.request("POST", f"/api/tables/{code}/actions", {**e, "revision": rev}, token=host)[0] == 200
        return rev + 1
    entry(type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    entry(type="phase.set", turn=1, phase="storm")
    ctx = browser.new_context(**PHONE)
    ctx.add_cookies([{"name": f"seat_{code}", "value": made["seats"]["atreides"], "url": server.url}])
    page = ctx.new_page()
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
    page.evaluate("() => { document.getElementById('now').__mark = 'kept'; }")
    dial = page.locator("#now input[name='dial']").first
    if dial.count():
        dial.evaluate("e => { e.value = '2'; }")   # set, not focused: the refresh is not held
    shown = page.locator("#view [data-shown-revision]")
    rev = entry(type="spice.add", faction="harkonnen", amount=2)   # nothing on this seat's card
    expect(shown).to_have_attribute("data-shown-revision", str(rev))
    assert page.evaluate("() => document.getElementById('now').__mark") == "kept"
    if dial.count():
        expect(dial).to_have_value("2")
    revs = page.locator("#now input[name='revision']").evaluate_all("els => els.map(e => e.value)")
    assert revs and set(revs) == {str(rev)}, revs
    page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    card_etag = page.locator("#now").get_attribute("data-etag")
    pick = page.locator("#setup-mine button[name='traitors']").first   # keep a traitor, on the kept card
    name = pick.get_attribute("value")
    pick.tap()
    expect(shown).to_have_attribute("data-shown-revision", str(rev + 1))
    mine = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["factions"]["atreides"]["private"]
    assert mine["traitors"] == [name]
    assert page.locator("#now").get_attribute("data-etag") != card_etag  # the new card's content came in
    ctx.close()


def test_a_change_to_my_spice_replaces_the_figure_and_keeps_the_steppers_beside_it(live_server, browser):
    """Another phone adds to this seat's spice: the figure changes in place, the +1/−1 buttons
    beside it are the page's own elements still (not re-made, so a thumb on them is not lost), set
    to the new revision, and a tap on the kept button lands."""
    from playwright.sync_api import expect

    server = live_server()
    made, ctx, page = seat_phone(browser, server, ["atreides", "harkonnen"])
    code, host = made["table"], made["host_token"]
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
    before = int(page.locator("#my-spice").inner_text())
    page.evaluate("""() => {
      document.querySelector("#my-panel button[aria-label='add 1 spice']").__mark = 'kept';
      document.querySelector("#my-panel .stat-row").__mark = 'kept';
    }""")
    shown = page.locator("#view [data-shown-revision]")
    assert server.request("POST", f"/api/tables/{code}/actions",
                          {"type": "spice.add", "faction": "atreides", "amount": 2, "revision": 0}, token=host)[0] == 200
    expect(shown).to_have_attribute("data-shown-revision", "1")
    expect(page.locator("#my-spice")).to_have_text(str(before + 2))
    kept = page.evaluate("""() => [
      document.querySelector("#my-panel button[aria-label='add 1 spice']").__mark,
      document.querySelector("#my-panel .stat-row").__mark,
      Array.from(document.querySelectorAll("#my-panel .stepper input[name='revision']")).map(e => e.value)]""")
    assert kept[0] == "kept" and kept[1] == "kept", kept
    assert kept[2] and set(kept[2]) == {"1"}, kept
    page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    page.locator("#my-panel button[aria-label='add 1 spice']").tap()
    expect(page.locator("#my-spice")).to_have_text(str(before + 3))
    state = server.request("GET", f"/api/tables/{code}/state", token=host)[1]
    assert state["factions"]["atreides"]["spice"] == before + 3 and state["revision"] == 2
    ctx.close()
