"""Headless-Chromium journey: a silent Richese cache auction on three phones.

The host creates a table with the CHOAM & Richese add-on from the start page; Richese announces a
cache card on its phone; three phones seal bids; no phone shows another's bid until the last one
is in, then every phone shows all bids and the winner without reloading. Screenshots go to /tmp."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import BROWSER, PHONE, LiveServer, shows_number

SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))

pytestmark = BROWSER


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("cache-browser") / "data").start()
    yield srv
    srv.stop()


def test_silent_cache_auction_on_three_phones(server, browser):
    from playwright.sync_api import expect

    laptop = browser.new_context(viewport={"width": 1280, "height": 900})
    host = laptop.new_page()
    host.goto(server.url + "/")
    host.check('input[name="factions"][value="atreides"]')
    host.check('#addon-factions input[value="richese"]')
    host.check('#addon-factions input[value="choam"]')
    host.click("button:has-text('Create table')")
    host.wait_for_url(re.compile(r"/t/[A-Z0-9]{5}/host$"))
    code = host.url.rstrip("/").split("/")[-2]
    token = next(c["value"] for c in laptop.cookies() if c["name"] == f"seat_{code}")

    def entry(**body):
        body["revision"] = server.request("GET", f"/api/tables/{code}/state", token=token)[1]["revision"]
        status, answer = server.request("POST", f"/api/tables/{code}/actions", body, token)
        assert status == 200, answer

    for f in ("atreides", "choam", "richese"):
        entry(type="spice.set", faction=f, amount=40)
    entry(type="phase.set", turn=1, phase="bidding")

    phones = {}
    for f in ("atreides", "choam", "richese"):
        ctx = browser.new_context(**PHONE)
        page = ctx.new_page()
        page.goto(f"{server.url}/t/{code}/join")
        page.tap(f'button[name="seat"][value="{f}"]')
        page.wait_for_url(re.compile(rf"/t/{code}$"))
        page.wait_for_function("() => !document.body.classList.contains('offline')")
        phones[f] = page
    ri, at, ch = phones["richese"], phones["atreides"], phones["choam"]

    # Richese announces the cache card on its phone
    form = ri.locator("#cache-auction form")
    form.locator("select[name='card']").select_option("Distrans")
    form.locator("button[type='submit']").tap()
    for page in phones.values():
        expect(page.locator("#cache-auction")).to_contain_text("Distrans", timeout=5000)
    at.locator("#cache-auction").scroll_into_view_if_needed()
    at.screenshot(path=str(SHOTS / "dune-cache-announced.png"))

    # three sealed bids; each phone sees only its own until the last is in
    bids = {"atreides": 17, "choam": 23, "richese": 9}
    for i, (f, page) in enumerate((("atreides", at), ("choam", ch), ("richese", ri))):
        box = page.locator("#cache-bid-amount")
        expect(box).to_be_visible()
        b = box.bounding_box()
        assert b["height"] >= 44, b  # a thumb target
        box.fill(str(bids[f]))
        page.locator("#cache-auction button:has-text('Seal my bid')").tap()
        if i < 2:
            expect(page.locator("#cache-bid-sealed")).to_contain_text(str(bids[f]))
            for g, other in phones.items():
                if g != f:
                    expect(other.locator("#cache-auction")).to_contain_text("✓", timeout=5000)
                    assert not shows_number(other.locator("#cache-auction").inner_text(), bids[f]), (g, f)
            if i == 1:
                at.locator("#cache-auction").scroll_into_view_if_needed()
                at.screenshot(path=str(SHOTS / "dune-cache-sealed.png"))
    for page in phones.values():
        expect(page.locator("#cache-result")).to_contain_text("CHOAM buys Distrans for 23", timeout=5000)
        text = page.locator("#cache-bids").inner_text()
        assert all(shows_number(text, n) for n in bids.values()), text
    ch.locator("#cache-auction").scroll_into_view_if_needed()
    ch.screenshot(path=str(SHOTS / "dune-cache-result.png"))
    status, s = server.request("GET", f"/api/tables/{code}/state", token=token)
    assert s["factions"]["richese"]["spice"] == 40 + 23 and s["factions"]["choam"]["spice"] == 40 - 23
