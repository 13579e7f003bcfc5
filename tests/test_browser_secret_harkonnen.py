"""A 5-player Secret Harkonnen game to a win on five phone contexts in headless Chromium: the host
creates the table from the start page, each phone taps its name on the join page, and every
nomination, vote, discard, enactment and power is a tap on that player's own phone.
Screenshots go to $BROWSER_SHOTS (default /tmp)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import BROWSER, PHONE, LiveServer

SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))
NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve"]

pytestmark = BROWSER


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("browser-sh") / "data").start()
    yield srv
    srv.stop()


def test_five_phones_play_a_whole_game_to_a_win(server, browser):
    host_ctx = browser.new_context(**PHONE)
    host = host_ctx.new_page()
    errors = []
    host.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    host.goto(server.url + "/")
    assert host.get_by_text("Secret Harkonnen (5–10 players)").is_visible()
    host.fill("#sh-players", "\n".join(NAMES))
    host.click("#secret-harkonnen button[type=submit]")
    host.wait_for_url("**/host")
    code = host.url.rstrip("/").split("/")[-2]
    host_token = next(c["value"] for c in host_ctx.cookies() if c["name"] == f"seat_{code}")

    phones = {}
    for name in NAMES:
        ctx = browser.new_context(**PHONE)
        page = ctx.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{server.url}/t/{code}/join")
        page.click(f"button[name=seat][value={name}]")
        page.wait_for_url(f"**/t/{code}")
        assert page.locator("#now").is_visible()
        phones[name] = page

    def public():
        status, s = server.request("GET", f"/api/tables/{code}/state", token=host_token)
        assert status == 200
        return s

    def tap(name: str, selector: str, shot: str | None = None):
        before = public()["revision"]
        page = phones[name]
        page.reload()
        button = page.locator(selector).first
        box = button.bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44, (selector, box)
        if shot:
            page.screenshot(path=str(SHOTS / f"sh-{shot}.png"))
        button.click()
        for _ in range(100):
            if public()["revision"] > before:
                return
            time.sleep(0.05)
        raise AssertionError(f"{name}'s tap on {selector} made no entry: "
                             f"{page.locator('#view').inner_text()[:300]}")

    # the big screen: when the votes are revealed it holds them for the room, then the board returns
    big = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    big.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    big.goto(f"{server.url}/t/{code}/board")
    big.wait_for_timeout(300)  # the live stream opens
    reveal_seen = False

    shots = set()
    for _ in range(80):
        s = public()
        if s["phase"] == "over":
            break
        emp = s["emperor"]
        first = s["phase"] not in shots
        shots.add(s["phase"])
        if s["phase"] == "nomination":
            tap(emp, "#now button[name=governor]", "nominate" if first else None)
        elif s["phase"] == "election":
            for name in s["alive"]:
                if name not in public()["voted"]:
                    tap(name, "#now button[value=confirm]", "vote" if first and name == s["alive"][0] else None)
            if not reveal_seen:
                overlay = big.locator(".sh-reveal")
                overlay.wait_for(state="visible", timeout=5000)
                assert f"{len(s['alive'])} confirm" in overlay.inner_text()
                big.screenshot(path=str(SHOTS / "sh-board-reveal.png"))
                overlay.wait_for(state="hidden", timeout=12000)  # held a few seconds, then the board again
                reveal_seen = True
        elif s["phase"] == "legislative_emperor":
            tap(emp, "#now button[name=policy]", "discard" if first else None)
        elif s["phase"] == "legislative_governor":
            tap(s["governor"], "#now button[name=policy]", "enact" if first else None)
        elif s["phase"] == "executive":
            tap(emp, "#now form button[type=submit]", "power" if first else None)
    s = public()
    assert reveal_seen
    assert s["phase"] == "over" and s["winner"] in ("atreides", "imperial")
    for name, page in phones.items():
        page.reload()
        assert "Game over" in page.locator("#now").inner_text()
    phones["Ann"].screenshot(path=str(SHOTS / "sh-over.png"))
    board = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    board.goto(f"{server.url}/t/{code}/board")
    assert "win" in board.inner_text("main")
    board.screenshot(path=str(SHOTS / "sh-board.png"))
    assert not [e for e in errors if "Content Security Policy" in e], errors
