"""Joining without a camera, the public board screen, live seats, the phone as an app (issue 11)."""
from __future__ import annotations

import json
import re
import threading
import time

import pytest

from conftest import act, bearer, csrf, join_seat, shows_number

FACTIONS = ("atreides", "harkonnen", "fremen")
SPICE = {"atreides": 947, "harkonnen": 953, "fremen": 967}
# real names (made-up ones are refused) that no public page names unless it leaks them
CARDS = {"atreides": "Ellaca Drug", "harkonnen": "Truthtrance", "fremen": "Tleilaxu Ghola"}
TRAITOR = {"atreides": "Piter de Vries", "harkonnen": "Duncan Idaho", "fremen": "Captain Iakin Nefud"}


def host_client(app, factions=FACTIONS):
    """A laptop that created a table through the start page form; returns (client, code)."""
    laptop = app.test_client()
    assert laptop.get("/").status_code == 200
    r = laptop.post("/tables", data={"factions": list(factions), "turns": "10", "csrf_token": csrf(laptop)})
    assert r.status_code == 302, r.get_data(as_text=True)
    return laptop, re.search(r"/t/([A-Z0-9]{5})/host$", r.headers["Location"]).group(1)


def host_token(laptop, code) -> str:
    return laptop.get_cookie(f"seat_{code}").value


def with_secrets(app, factions=FACTIONS):
    """A table whose every faction has a distinctive spice amount, a card and a traitor (all private)."""
    laptop, code = host_client(app, factions)
    token = host_token(laptop, code)
    api = app.test_client()
    for f in factions:
        act(api, code, token, type="spice.set", faction=f, amount=SPICE[f])
        act(api, code, token, type="cards.set", faction=f, cards=[CARDS[f]])
        act(api, code, token, type="traitors.set", faction=f, traitors=[TRAITOR[f]])
    return laptop, code, token


def assert_public(html: str, where: str) -> None:
    for f in SPICE:
        assert not shows_number(html, SPICE[f]), f"{f}'s spice in {where}"
        assert CARDS[f] not in html, f"{f}'s card in {where}"
        assert TRAITOR[f] not in html, f"{f}'s traitor in {where}"


# -- joining by code ---------------------------------------------------------------------------------

def test_start_page_has_a_join_by_code_box(client):
    html = client.get("/").get_data(as_text=True)
    form = re.search(r'<form method="get" action="/join"[^>]*>.*?</form>', html, re.S)
    assert form and 'name="code"' in form.group(0) and "Join" in form.group(0)
    assert html.index("Join a table") < html.index("Host a table")  # a phone that lands here wants to join


@pytest.mark.parametrize("typed", ["{code}", "{lower}", " {lower} ", "{a}-{b}", "{a} {b}"])
def test_a_typed_code_opens_that_tables_join_page_whatever_the_case(app, typed):
    _, code = host_client(app)
    text = typed.format(code=code, lower=code.lower(), a=code[:2].lower(), b=code[2:])
    r = app.test_client().get("/join", query_string={"code": text})
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{code}/join")


def test_an_unknown_code_says_so_and_keeps_what_was_typed(app):
    host_client(app)
    r = app.test_client().get("/join", query_string={"code": "zzzz9"})
    assert r.status_code == 404
    html = r.get_data(as_text=True)
    assert "There is no table ZZZZ9 on this server" in html
    assert 'value="zzzz9"' in html  # nothing typed is lost
    r = app.test_client().get("/join", query_string={"code": "abc"})
    assert r.status_code == 422 and "5 letters or digits" in r.get_data(as_text=True)
    r = app.test_client().get("/join", query_string={"code": ""})
    assert r.status_code == 422 and "Type the table" in r.get_data(as_text=True)


# -- the host page -----------------------------------------------------------------------------------

def test_host_page_shows_the_code_large_and_the_join_link_as_text(app):
    laptop, code = host_client(app)
    html = laptop.get(f"/t/{code}/host").get_data(as_text=True)
    assert re.search(rf'<p class="big-code code" id="table-code"[^>]*>{code}</p>', html)
    link = re.search(r'<input id="join-link" type="text" readonly value="([^"]+)">', html)
    assert link and link.group(1).endswith(f"/t/{code}/join")
    assert 'data-copy="join-link"' in html and "/static/phone.js" in html
    assert "Phones cannot join yet" not in html  # no address plan configured: no warning


def test_host_page_lists_other_addresses_and_warns_when_only_loopback(app):
    laptop, code = host_client(app)
    app.config.update(PUBLIC_URL="http://192.168.1.23:8765", LAN_OTHER_URLS=["http://10.0.0.5:8765"])
    html = laptop.get(f"/t/{code}/host").get_data(as_text=True)
    assert f"http://192.168.1.23:8765/t/{code}/join" in html
    assert re.search(rf"Not reachable\? Try:.*http://10\.0\.0\.5:8765/t/{code}/join", html, re.S)
    assert "Phones cannot join yet" not in html
    from companion.netaddr import Candidate, plan
    app.config.update(plan("0.0.0.0", 8765, found=[Candidate("127.0.0.1", ["hostname"])]).config())
    html = laptop.get(f"/t/{code}/host").get_data(as_text=True)
    warning = re.search(r'<div class="error lan-warning" role="alert".*?</div>', html, re.S).group(0)
    for words in ("Phones cannot join yet", "no network address", "same Wi-Fi", "--public-url", "firewall"):
        assert words in warning, words


# -- the board screen: public by construction ------------------------------------------------------------

def board_clients(app, laptop, code):
    """Everyone who might open the board screen: the host's laptop, a seat's phone, a board seat,
    a browser with no cookie, a browser with a cancelled seat cookie."""
    stale = join_seat(app, code, "fremen")
    laptop.post(f"/t/{code}/seats/fremen/reissue", data={"csrf_token": csrf(laptop)})
    return {"host": laptop, "atreides": join_seat(app, code, "atreides"), "board seat": join_seat(app, code, "board"),
            "no cookie": app.test_client(), "cancelled seat": stale}


def test_board_screen_shows_only_public_state_whatever_cookie_the_browser_holds(app):
    laptop, code, token = with_secrets(app)
    act(app.test_client(), code, token, type="storm.set", sector=11)
    act(app.test_client(), code, token, type="board.spice", territory="The Great Flat", amount=6)
    pages = {}
    for who, browser in board_clients(app, laptop, code).items():
        r = browser.get(f"/t/{code}/board")
        assert r.status_code == 200, who
        assert "no-store" in r.headers["Cache-Control"]
        html = r.get_data(as_text=True)
        assert_public(html, f"the board screen opened by {who}")
        assert re.search(r'class="sector">11<', html) and "The Great Flat" in html  # the public board is there
        assert 'hx-get="/t/{0}/board/view"'.format(code) in html
        assert re.search(rf'sse-connect="/t/{code}/events(\?since=\d+)?"', html)
        assert f'hx-get="/t/{code}/view"' not in html  # the refresh never asks for a seat's view
        pages[who] = re.sub(r'"X-CSRF-Token": "[^"]*"', "", html)
    # the same page for everyone (the CSRF token aside): nothing depends on the cookie
    assert len(set(pages.values())) == 1


def test_board_screen_refresh_stays_public_after_live_changes(app):
    laptop, code, token = with_secrets(app)
    clients = board_clients(app, laptop, code)
    phone = clients["atreides"]
    # a phone changes its own spice from its page, the host changes the storm
    phone.get(f"/t/{code}")
    rev = phone.get(f"/api/tables/{code}/state").get_json()["revision"]
    r = phone.post(f"/t/{code}/act", data={"type": "spice.set", "faction": "atreides", "amount": "971",
                                           "revision": str(rev)}, headers={"X-CSRF-Token": csrf(phone)})
    assert r.status_code == 200 and 'id="my-spice">971<' in r.get_data(as_text=True)
    act(app.test_client(), code, token, type="storm.set", sector=4)
    for who, browser in clients.items():
        r = browser.get(f"/t/{code}/board/view")
        assert r.status_code == 200 and "no-store" in r.headers["Cache-Control"]
        html = r.get_data(as_text=True)
        assert_public(html, f"the board refresh fetched by {who}")
        assert not shows_number(html, 971), who
        assert re.search(r'class="sector">4<', html), who
        assert f'data-revision="{rev + 2}"' in html, who
        # the latest entries are public lines only: the spice entry is not listed at all
        assert "storm set to sector 4" in html and "private entry" not in html


def test_board_screen_shows_whose_turn_and_the_rule_shown_to_the_table(app, monkeypatch):
    laptop, code, token = with_secrets(app)
    import companion.games.dune.web.pages as pages
    real = pages.view_for

    def with_turn(state, viewer, **options):
        v = real(state, viewer, **options)
        v["whose_turn"] = {"faction": "harkonnen", "order": ["atreides", "harkonnen", "fremen"],
                           "done": ["atreides"], "note": "The Guild may ship when it wishes."}
        return v

    monkeypatch.setattr(pages, "view_for", with_turn)
    html = app.test_client().get(f"/t/{code}/board").get_data(as_text=True)
    whose = re.search(r'<section class="card bs-whose">.*?</section>', html, re.S).group(0)
    assert re.search(r'class="bs-actor f-harkonnen">Harkonnen<', whose)
    assert "Atreides ✓" in whose and "The Guild may ship when it wishes." in whose
    monkeypatch.setattr(pages, "view_for", real)
    html = app.test_client().get(f"/t/{code}/board").get_data(as_text=True)
    assert "Whose turn" not in html  # absent key: nothing invented
    # a rule pushed to the table appears on the board screen with its text
    laptop.get(f"/t/{code}")
    r = laptop.post(f"/t/{code}/show-rule", data={"rule": "kiss-simple-dialing"}, headers={"X-CSRF-Token": csrf(laptop)})
    assert r.status_code == 204
    html = app.test_client().get(f"/t/{code}/board/view").get_data(as_text=True)
    rule = re.search(r'<section class="card bs-rule">.*?</section>', html, re.S).group(0)
    assert "Rule shown to the table" in rule and "kiss-simple-dialing" in rule and 'class="bs-rule-text"' in rule


def test_board_screen_has_no_controls(app):
    laptop, code, _ = with_secrets(app)
    html = app.test_client().get(f"/t/{code}/board").get_data(as_text=True)
    main = html.split("<main>", 1)[1]
    assert "<form" not in main and "hx-post" not in main and "<input" not in main


def test_the_phones_board_button_opens_the_public_board(app):
    _, code = host_client(app)
    phone = join_seat(app, code, "atreides")
    html = phone.get(f"/t/{code}").get_data(as_text=True)
    assert f'href="/t/{code}/board"' in html
    assert "Table" in phone.get(f"/t/{code}/board").get_data(as_text=True)


def test_unknown_table_board_is_404(client):
    assert client.get("/t/QQQQQ/board").status_code == 404
    assert client.get("/t/QQQQQ/board/view").status_code == 404


# -- seats, live -----------------------------------------------------------------------------------------

def read_events(response, want: str, timeout: float = 5.0) -> list[str]:
    """Read a streaming SSE response until an ``event: want`` block arrives; returns the blocks."""
    blocks, buf, deadline = [], "", time.monotonic() + timeout
    for chunk in response.response:
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            blocks.append(block)
            if f"event: {want}" in block:
                return blocks
        assert time.monotonic() < deadline, blocks
    return blocks


def test_seat_list_shows_connected_while_a_phone_holds_the_stream(app):
    app.config["SSE_HEARTBEAT"] = 0.05
    laptop, code = host_client(app)
    presence = app.extensions["presence"]
    phone = join_seat(app, code, "atreides")
    html = laptop.get(f"/t/{code}/seats").get_data(as_text=True)
    assert re.search(r'data-seat="atreides".*?joined, not connected', html, re.S)
    r = phone.get(f"/t/{code}/events", buffered=False)
    read_events(r, "changed")
    assert presence.connected(code) == {"atreides": 1}
    html = laptop.get(f"/t/{code}/seats").get_data(as_text=True)
    assert re.search(r'data-seat="atreides"><span class="seat-name">Atreides</span>\s*<span class="ok seat-state">● connected',
                     html)
    assert re.search(r'data-seat="harkonnen">.*?free', html, re.S)
    r.close()  # the phone goes to sleep: its stream ends
    assert presence.connected(code) == {}
    assert "● connected" not in laptop.get(f"/t/{code}/seats").get_data(as_text=True)
    # only the host sees the seat list
    assert phone.get(f"/t/{code}/seats").status_code == 403
    assert app.test_client().get(f"/t/{code}/seats").status_code in (302, 403)


def test_a_join_wakes_open_streams_with_a_seats_event(app):
    app.config["SSE_HEARTBEAT"] = 0.05
    laptop, code = host_client(app)
    presence = app.extensions["presence"]
    r = laptop.get(f"/t/{code}/events", buffered=False)  # the host page's stream
    read_events(r, "changed")
    before = presence.epoch(code)

    def later():
        time.sleep(0.2)
        join_seat(app, code, "harkonnen")

    th = threading.Thread(target=later)
    th.start()
    blocks = read_events(r, "seats")
    th.join()
    seats = [b for b in blocks if "event: seats" in b]
    assert seats and int(seats[-1].split("data: ")[1]) > before
    assert not re.search(r"harkonnen|atreides|spice", "\n".join(blocks), re.I)  # still no game content
    r.close()
    assert presence.connected(code) == {}


def test_a_reissued_seats_stream_stops_counting_as_connected(app):
    app.config["SSE_HEARTBEAT"] = 0.05
    laptop, code = host_client(app)
    presence = app.extensions["presence"]
    phone = join_seat(app, code, "fremen")
    r = phone.get(f"/t/{code}/events", buffered=False)
    read_events(r, "changed")
    assert presence.connected(code) == {"fremen": 1}
    epoch = presence.epoch(code)
    laptop.post(f"/t/{code}/seats/fremen/reissue", data={"csrf_token": csrf(laptop)})
    assert presence.epoch(code) > epoch
    read_events(r, "seats")
    for _ in r.response:  # the stream ends by itself: that phone no longer holds the seat
        pass
    assert presence.connected(code) == {}
    # and the API's re-issue wakes the host page too
    epoch = presence.epoch(code)
    assert app.test_client().post(f"/api/tables/{code}/seats/fremen/reissue", json={},
                                  headers=bearer(host_token(laptop, code))).status_code == 200
    assert presence.epoch(code) > epoch


def test_presence_registry_contract():
    from companion.table.presence import Presence
    p = Presence()
    seen = []
    p.subscribe(lambda code, epoch: seen.append((code, epoch)))
    assert p.connected("abcde") == {} and p.epoch("ABCDE") == 0
    p.enter("abcde", "atreides")
    p.enter("ABCDE", "atreides")
    p.enter("ABCDE", "host")
    assert p.connected("ABCDE") == {"atreides": 2, "host": 1}
    p.leave("ABCDE", "atreides")
    p.leave("ABCDE", "host")
    p.leave("ABCDE", "host")  # a second leave is harmless
    assert p.connected("abcde") == {"atreides": 1}
    assert p.epoch("ABCDE") == 6 and seen[-1] == ("ABCDE", 6)
    woke = []
    th = threading.Thread(target=lambda: woke.append(p.wait("ABCDE", 6, 5.0)))
    th.start()
    time.sleep(0.05)
    p.bump("ABCDE")
    th.join(2)
    assert woke == [7]


# -- the phone as an app -----------------------------------------------------------------------------------

def test_manifest_icons_and_favicon_are_served_locally(app):
    client = app.test_client()
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.mimetype == "application/manifest+json"
    m = json.loads(r.get_data(as_text=True))
    assert m["display"] in ("fullscreen", "standalone") and m["start_url"] == "/" and m["theme_color"]
    sizes = set()
    for icon in m["icons"]:
        assert icon["src"].startswith("/static/")
        img = client.get(icon["src"])
        assert img.status_code == 200 and img.mimetype == "image/png"
        data = img.get_data()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert icon["sizes"] == f"{w}x{h}"
        sizes.add(w)
    assert {192, 512} <= sizes
    ico = client.get("/favicon.ico")
    assert ico.status_code == 200 and ico.get_data()[:4] == b"\x00\x00\x01\x00"
    html = client.get("/").get_data(as_text=True)
    assert 'rel="manifest" href="/manifest.webmanifest"' in html and 'rel="icon" href="/favicon.ico"' in html
    assert '<meta name="theme-color"' in html


def test_a_tables_pages_link_a_manifest_that_opens_that_table(app):
    _, code = host_client(app)
    phone = join_seat(app, code, "atreides")
    html = phone.get(f"/t/{code}").get_data(as_text=True)
    assert f'rel="manifest" href="/t/{code}/manifest.webmanifest"' in html
    m = json.loads(phone.get(f"/t/{code}/manifest.webmanifest").get_data(as_text=True))
    assert m["start_url"] == f"/t/{code}" and code in m["name"]
    assert app.test_client().get("/t/QQQQQ/manifest.webmanifest").status_code == 404


def test_phone_has_an_off_by_default_keep_screen_on_toggle_and_scripts_are_files(app):
    _, code = host_client(app)
    phone = join_seat(app, code, "atreides")
    html = phone.get(f"/t/{code}").get_data(as_text=True)
    assert re.search(r'<button type="button" id="wake-lock"[^>]*aria-pressed="false"[^>]*>Keep screen on</button>', html)
    for path in ("/", f"/t/{code}", f"/t/{code}/board", f"/t/{code}/join"):
        page = phone.get(path).get_data(as_text=True)
        assert "/static/errors.js" in page and "/static/phone.js" in page, path
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page), path  # no inline scripts (CSP)
        assert not re.search(r"\son[a-z]+=|hx-on", page), path  # no inline handlers
    for name in ("errors.js", "phone.js", "vendor/nosleep-0.12.0/no-sleep.webm", "vendor/nosleep-0.12.0/no-sleep.mp4"):
        r = phone.get(f"/static/{name}")
        assert r.status_code == 200 and r.content_length > 1000, name
