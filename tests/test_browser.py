"""A real headless-Chromium journey (Debian chromium driven by Playwright for Python).

The host creates a table on the start page, the QR code shows, two phones join in separate
browser contexts with phone-sized viewports, one enters changes, the other sees them without
reloading, and neither ever shows the other's spice. Screenshots go to /tmp (not committed).
"""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from conftest import BROWSER, PHONE, LiveServer, shows_number

SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))

pytestmark = BROWSER


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("browser") / "data").start()
    yield srv
    srv.stop()


def test_host_creates_two_phones_join_and_stay_in_sync(server, browser):
    from playwright.sync_api import expect

    # -- the host, on the laptop -----------------------------------------------------------------
    laptop = browser.new_context(viewport={"width": 1280, "height": 900})
    host = laptop.new_page()
    host.goto(server.url + "/")
    for f in ("atreides", "harkonnen", "fremen"):
        host.check(f'input[name="factions"][value="{f}"]')
    host.click("button:has-text('Create table')")
    host.wait_for_url(re.compile(r"/t/[A-Z0-9]{5}/host$"))
    code = host.url.rstrip("/").split("/")[-2]
    qr = host.locator(".qr-code svg")
    expect(qr).to_be_visible()
    box = qr.bounding_box()
    assert box["width"] >= 200 and box["height"] >= 200, box  # large enough to scan across a table
    join_url = f"{server.url}/t/{code}/join"
    expect(host.locator(".qr + .url, #join-qr .url")).to_have_text(join_url)
    # the address sits beneath the code
    url_box = host.locator("#join-qr .url").bounding_box()
    assert url_box["y"] >= box["y"] + box["height"] - 1
    host.screenshot(path=str(SHOTS / "dune-host.png"), full_page=True)

    host_token = next(c["value"] for c in laptop.cookies() if c["name"] == f"seat_{code}")
    for f, n in (("atreides", 47), ("harkonnen", 53)):
        rev = server.request("GET", f"/api/tables/{code}/state", token=host_token)[1]["revision"]
        status, _ = server.request("POST", f"/api/tables/{code}/actions",
                                   {"type": "spice.set", "faction": f, "amount": n, "revision": rev}, host_token)
        assert status == 200

    # -- two phones join ---------------------------------------------------------------------------
    phones = {}
    for f, label in (("atreides", "Atreides"), ("harkonnen", "Harkonnen")):
        ctx = browser.new_context(**PHONE)
        page = ctx.new_page()
        page.goto(join_url)
        page.tap(f'button[name="seat"][value="{f}"]')
        page.wait_for_url(re.compile(rf"/t/{code}$"))
        expect(page.locator("#my-panel h2")).to_contain_text(label)
        phones[f] = page
        cookie = next(c for c in ctx.cookies() if c["name"] == f"seat_{code}")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and not cookie["secure"]
    a, b = phones["atreides"], phones["harkonnen"]
    expect(a.locator("#my-spice")).to_have_text("47")
    expect(b.locator("#my-spice")).to_have_text("53")
    # the live stream is open on both
    for page in (a, b):
        page.wait_for_function("() => !document.body.classList.contains('offline')")
    b.evaluate("window.__noReload = 'still here'")
    rev_b = b.locator("nav.bottom .rev")
    expect(rev_b).to_have_text("rev 2")

    # -- phone A taps +1 on its spice: A updates, B sees the new revision without a reload -----------
    t0 = time.monotonic()
    a.locator("#my-panel button[aria-label='add 1 spice']").tap()
    expect(a.locator("#my-spice")).to_have_text("48")
    expect(rev_b).to_have_text("rev 3", timeout=5000)
    seen_spice = time.monotonic() - t0

    # -- phone A sets the storm through the Storm form; B's storm sector follows -------------------
    # (a person's next tap comes after the double-tap guard of the answer just swapped in)
    a.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    a.locator("#enter > summary").tap()
    a.locator("summary", has_text="Storm sector").tap()
    storm_form = a.locator("form:has(input[name='type'][value='storm.set'])")
    storm_form.locator("input[name='sector']").fill("7")
    t0 = time.monotonic()
    storm_form.locator("button[type='submit']").tap()
    expect(a.locator(".status .storm .sector")).to_have_text("7")
    expect(b.locator(".status .storm .sector")).to_have_text("7", timeout=5000)
    seen_storm = time.monotonic() - t0
    expect(rev_b).to_have_text("rev 4")
    assert b.evaluate("window.__noReload") == "still here"  # no reload happened on B
    print(f"\nphone B saw the spice change after {seen_spice * 1000:.0f} ms, the storm after "
          f"{seen_storm * 1000:.0f} ms")

    # -- neither phone shows the other's spice ---------------------------------------------------------
    for page, mine, others in ((a, 48, (53,)), (b, 53, (47, 48))):
        text = page.inner_text("body")
        html = page.content()
        assert shows_number(text, mine)
        for n in others:
            assert not shows_number(text, n), (n, text)
            assert not shows_number(html, n), n
    # the host's laptop sees both
    host.goto(f"{server.url}/t/{code}")
    host_text = host.inner_text("body")
    assert shows_number(host_text, 48) and shows_number(host_text, 53)

    # -- screenshots, for a person to look at ----------------------------------------------------------
    for f, page in phones.items():
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SHOTS / f"dune-phone-{f}.png"))
        page.screenshot(path=str(SHOTS / f"dune-phone-{f}-full.png"), full_page=True)
        # nothing on a phone page is wider than the phone
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{f}: the page is {overflow}px wider than the phone"
    for page in (a, b, host):
        page.context.close()


def test_phone_reload_keeps_its_seat_and_a_second_phone_cannot_take_it(server, browser):
    status, t = server.request("POST", "/api/tables", {"factions": ["fremen", "bg"]})
    code = t["table"]
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(t["join_url"])
    page.tap('button[name="seat"][value="bg"]')
    page.wait_for_url(re.compile(rf"/t/{code}$"))
    page.reload()
    assert page.url.endswith(f"/t/{code}")
    assert "Bene Gesserit" in page.inner_text("#my-panel h2")

    other = browser.new_context(**PHONE)
    p2 = other.new_page()
    p2.goto(t["join_url"])
    assert p2.locator('button[name="seat"][value="bg"]').is_disabled()
    assert p2.locator('button[name="seat"][value="fremen"]').is_enabled()
    ctx.close()
    other.close()


def test_a_live_refresh_waits_while_the_player_is_typing(server, browser):
    """Another phone's change must not wipe a half-filled form; the refresh lands once the
    player leaves the field, and sections the player opened stay open."""
    from playwright.sync_api import expect

    status, body = server.request("POST", "/api/tables", {"factions": ["atreides", "harkonnen"]})
    assert status == 201
    code, host_token = body["table"], body["host_token"]
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(f"{server.url}/t/{code}/join")
    page.tap('button[name="seat"][value="atreides"]')
    page.wait_for_url(re.compile(rf"/t/{code}$"))
    page.wait_for_function("() => !document.body.classList.contains('offline')")
    # places and numbers are picked now; free text (the cards in my hand) is still typed
    page.locator("#my-panel details.secrets > summary").tap()
    field = page.locator("form:has(input[name='type'][value='cards.set']) textarea[name='cards']")
    field.fill("Lasgun\nCrys")  # typing, not finished
    rev = server.request("GET", f"/api/tables/{code}/state", token=host_token)[1]["revision"]
    assert server.request("POST", f"/api/tables/{code}/actions",
                          {"type": "storm.set", "sector": 9, "revision": rev}, host_token)[0] == 200
    page.wait_for_timeout(1200)  # the change has reached the phone by now
    expect(field).to_have_value("Lasgun\nCrys")
    expect(page.locator(".status .storm .sector")).to_have_text("18")  # not refreshed yet
    page.locator("h2:not(.visually-hidden)").first.tap()  # the player leaves the field (a heading one sees)
    expect(page.locator(".status .storm .sector")).to_have_text("9", timeout=5000)
    assert page.locator("#my-panel details.secrets").get_attribute("open") is not None
    ctx.close()
