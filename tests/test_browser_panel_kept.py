"""A phone keeps its own panel when a change leaves it as it was (real headless Chromium, 390x844):
another faction's entry brings an empty panel section and the page keeps its own panel element,
what is typed in it included, with its forms set to the new revision, so a tap on it is not stale;
a change to this seat brings the new panel."""
from __future__ import annotations

import pytest

from conftest import PHONE

pytestmark = pytest.mark.browser


def test_a_refresh_keeps_the_panel_until_it_changes_and_a_tap_on_the_kept_one_lands(live_server, browser):
    from playwright.sync_api import expect

    server = live_server()
    status, made = server.request("POST", "/api/tables", {"factions": ["atreides", "harkonnen"]})
    assert status == 201
    code, host = made["table"], made["host_token"]
    ctx = browser.new_context(**PHONE)
    ctx.add_cookies([{"name": f"seat_{code}", "value": made["seats"]["atreides"], "url": server.url}])
    page = ctx.new_page()
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
    # a tap on the kept panel: +1 spice lands (its form says revision 1, the table's)
    page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    page.locator("#my-panel button[aria-label='add 1 spice']").tap()
    expect(page.locator("#my-spice")).to_have_text("11")
    expect(shown).to_have_attribute("data-shown-revision", "2")
    spice = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["factions"]["atreides"]
    assert spice["spice"] == 11
    assert page.evaluate("() => document.getElementById('my-panel').__mark") is None  # a new panel came in
    ctx.close()
