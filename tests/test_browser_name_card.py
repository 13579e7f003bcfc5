"""Headless-Chromium journey: buying a card at auction and naming it on the phone (issue 14,
item 1). The buyer's phone shows "Name the card you got" right under the form it tapped (which
does not move); one more tap names the card, secretly; the other phone and the board screen never
show the prompt. Screenshot: $BROWSER_SHOTS/dune-name-card.png (default /tmp)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import BROWSER, PHONE, LiveServer

SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))

pytestmark = BROWSER


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("name-card-browser") / "data").start()
    yield srv
    srv.stop()


def test_buy_then_name_on_the_phone_in_one_extra_tap(server, browser):
    from playwright.sync_api import expect

    status, body = server.request("POST", "/api/tables", {"factions": ["atreides", "harkonnen", "emperor"]})
    assert status == 201
    code, host = body["table"], body["host_token"]
    rev = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"]
    status, _ = server.request("POST", f"/api/tables/{code}/actions",
                               {"type": "phase.set", "turn": 1, "phase": "bidding", "revision": rev}, host)
    assert status == 200

    pages = {}
    for seat in ("harkonnen", "atreides", "board"):
        page = browser.new_context(**PHONE).new_page()
        page.goto(f"{server.url}/t/{code}/join")
        page.tap(f'button[name="seat"][value="{seat}"]')
        page.wait_for_url(re.compile(rf"/t/{code}(/board)?$"))
        pages[seat] = page
    hk = pages["harkonnen"]

    taps = 0
    buy = hk.get_by_role("button", name="Bought a card")
    buy.scroll_into_view_if_needed()
    y = buy.bounding_box()["y"]
    buy.tap()
    taps += 1
    box = hk.locator("#name-card")
    expect(box).to_contain_text("Name the card you got", timeout=5000)
    expect(box).to_contain_text("2 cards to name")  # the Harkonnen bonus card too
    again = hk.get_by_role("button", name="Bought a card")
    expect(again).to_be_visible()
    box_after = again.bounding_box() or (again.wait_for(state="visible") or again.bounding_box())
    assert abs(box_after["y"] - y) < 4  # nothing jumped (the live refresh may swap it in meanwhile)
    chaumas = box.locator('button[value="Chaumas"]')
    chaumas.scroll_into_view_if_needed()
    assert chaumas.bounding_box()["height"] >= 44
    hk.screenshot(path=str(SHOTS / "dune-name-card.png"))
    chaumas.tap()
    taps += 1
    expect(box.locator('button[value="Chaumas"]')).to_be_disabled(timeout=5000)
    # a person's next tap comes after the double-tap guard of the last answer (static/idempotency.js)
    expect(box).not_to_contain_text("2 cards to name")   # the answer is in: one card left to name
    hk.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    # "Keep it unnamed" is below the screen now: a thumb scrolls to it, then taps (Chrome drops a
    # touch that comes within a few ms of a scroll, which no thumb does)
    keep = hk.locator("#keep-unnamed")
    keep.scroll_into_view_if_needed()
    hk.wait_for_timeout(300)
    keep.tap()
    taps += 1
    expect(hk.locator("#name-card")).to_have_count(0, timeout=5000)
    assert taps == 3  # buy, name the bought card, keep the bonus card unnamed: nothing typed

    s = server.request("GET", f"/api/tables/{code}/state", token=host)[1]
    assert s["factions"]["harkonnen"]["hand_size"] == 4
    assert s["factions"]["harkonnen"]["private"]["cards"] == ["Chaumas"]
    for seat in ("atreides", "board"):
        page = pages[seat]
        expect(page.locator("#now")).to_contain_text("Bidding", timeout=5000)
        assert page.locator("#name-card").count() == 0
        # (the Atreides' buttons for the card up for auction list every card name: set aside)
        html = page.evaluate("""() => { const c = document.documentElement.cloneNode(true);
            c.querySelectorAll('#card-seen').forEach(e => e.remove()); return c.outerHTML; }""")
        assert "Chaumas" not in html
