"""A phone keeps the board it shows when a change leaves the board as it was (real headless
Chromium, 390x844): the refresh's answer carries an empty board section and the page keeps its own
board element in place; a change on the board brings the new board. The view comes down the
phone's own stream (event: view), not as a request: the page asks for none."""
from __future__ import annotations

import pytest

from conftest import seat_phone

pytestmark = pytest.mark.browser


def test_a_refresh_keeps_the_board_element_until_the_board_changes(live_server, browser):
    from playwright.sync_api import expect

    server = live_server()
    made, ctx, page = seat_phone(browser, server, ["atreides", "harkonnen"])
    code, host = made["table"], made["host_token"]
    sizes = []
    page.on("response", lambda r: sizes.append((r.url, len(r.body()))) if r.url.endswith("/view") else None)
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
    page.evaluate("""() => { document.getElementById('board').__mark = 'kept'; window.__pushed = [];
      document.addEventListener('sse:view', function (e) { window.__pushed.push(e.detail.data.length); }); }""")
    shown = page.locator("#view [data-shown-revision]")

    def change(rev, **entry):
        assert server.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": rev}, token=host)[0] == 200
        expect(shown).to_have_attribute("data-shown-revision", str(rev + 1))

    change(0, type="spice.set", faction="harkonnen", amount=7)  # behind a shield: the board is the same
    assert page.evaluate("() => document.getElementById('board').__mark") == "kept"
    assert page.locator("#board svg.dune-map").count() == 1 and page.locator("#board[data-same]").count() == 0
    change(1, type="spice.set", faction="atreides", amount=3)
    assert page.evaluate("() => document.getElementById('board').__mark") == "kept"
    expect(page.locator("#my-spice")).to_have_text("3")  # the rest of the view did refresh
    etag = page.locator("#board").get_attribute("data-etag")
    page.evaluate("() => { document.querySelector('#board h2').__mark = 'old heading'; }")
    change(2, type="storm.set", sector=13)  # on the board: the new board comes in
    expect(page.locator("#board h2")).to_contain_text("storm over sector 13")
    assert page.locator("#board").get_attribute("data-etag") != etag
    # (static/parts.js patches the board one level down: its changed heading is a new element)
    assert page.evaluate("() => document.querySelector('#board h2').__mark") is None
    page.wait_for_timeout(200)
    assert sizes == []  # no request for the view: each came down the stream
    pushed = page.evaluate("window.__pushed")
    assert len(pushed) == 3, pushed
    kept, moved = pushed[0], pushed[-1]
    print(f"\nrefresh with the board kept: {kept} bytes; with a new board: {moved} bytes")
    assert kept < moved - 5000
    ctx.close()
