"""Pages, joining, cookies, CSRF and the live stream, through the Flask test client."""
from __future__ import annotations

import re
import threading
import time

import pytest

from conftest import SIX, act, bearer, create_table, csrf, join_seat, shows_number

NO_STORE = "no-store"


def seat_set_cookie(response, code: str) -> str:
    cookies = [c for c in response.headers.getlist("Set-Cookie") if c.startswith(f"seat_{code}=")]
    assert len(cookies) == 1, response.headers.getlist("Set-Cookie")
    return cookies[0]


def host_client(app, factions=("atreides", "harkonnen", "fremen")):
    """A laptop that created a table through the start page form; returns (client, code)."""
    laptop = app.test_client()
    assert laptop.get("/").status_code == 200
    r = laptop.post("/tables", data={"factions": list(factions), "turns": "10", "discovery_tokens": "on",
                                     "csrf_token": csrf(laptop)})
    assert r.status_code == 302, r.get_data(as_text=True)
    m = re.search(r"/t/([A-Z0-9]{5})/host$", r.headers["Location"])
    assert m, r.headers["Location"]
    return laptop, m.group(1)


# -- start, create, host ---------------------------------------------------------------------------

def test_start_page_offers_the_nine_factions(client):
    r = client.get("/")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    for f in SIX + ["ecaz", "moritani", "tleilaxu"]:
        assert f'value="{f}"' in html
    assert 'name="csrf_token"' in html
    assert 'name="turns" value="10"' in html
    assert re.search(r'name="discovery_tokens" checked', html)


def test_create_via_form_needs_the_csrf_token(client):
    client.get("/")
    r = client.post("/tables", data={"factions": ["atreides", "fremen"], "turns": "10"})
    assert r.status_code == 403
    r = client.post("/tables", data={"factions": ["atreides", "fremen"], "turns": "10", "csrf_token": "forged"})
    assert r.status_code == 403
    assert not client.application.extensions["tables"].store.list_tables()


def test_create_via_form_refuses_one_faction(client):
    client.get("/")
    r = client.post("/tables", data={"factions": ["atreides"], "turns": "10", "csrf_token": csrf(client)})
    assert r.status_code == 422
    assert "2 to 11" in r.get_data(as_text=True)


def test_create_via_form_then_host_page_shows_qr_and_join_url(app):
    laptop, code = host_client(app)
    r = laptop.get(f"/t/{code}/host")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert NO_STORE in r.headers["Cache-Control"]
    assert 'hx-history="false"' in html
    qr = re.search(r'<div class="qr-code"[^>]*>\s*(<svg.*?</svg>)', html, re.S)
    assert qr, "no inline SVG QR code"
    assert "<path" in qr.group(1)
    join_url = f"http://localhost/t/{code}/join"
    assert f">{join_url}</a>" in html
    # the table was made with the options the form gave
    t = app.extensions["tables"].table(code)
    assert t.config == {"factions": ["atreides", "harkonnen", "fremen"], "turns": 10,
                        "options": {"discovery_tokens": True}}


def test_discovery_tokens_can_be_switched_off_in_the_form(app):
    laptop = app.test_client()
    laptop.get("/")
    r = laptop.post("/tables", data={"factions": ["atreides", "fremen"], "turns": "8", "csrf_token": csrf(laptop)})
    code = r.headers["Location"].split("/")[-2]
    t = app.extensions["tables"].table(code)
    assert t.config["options"] == {"discovery_tokens": False} and t.config["turns"] == 8


def test_host_page_needs_the_host_cookie(app):
    _, code = host_client(app)
    stranger = app.test_client()
    r = stranger.get(f"/t/{code}/host")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{code}/join")
    phone = join_seat(app, code, "fremen")
    assert phone.get(f"/t/{code}/host").status_code == 302


def test_unknown_table_pages_are_404(client):
    for path in ("/t/QQQQQ/join", "/t/QQQQQ", "/t/QQQQQ/host", "/t/QQQQQ/view", "/t/QQQQQ/events"):
        assert client.get(path).status_code == 404, path


# -- joining ---------------------------------------------------------------------------------------

def test_join_page_lists_free_factions_and_the_board_view(app):
    _, code = host_client(app)
    r = app.test_client().get(f"/t/{code}/join")
    assert r.status_code == 200
    assert NO_STORE in r.headers["Cache-Control"]
    html = r.get_data(as_text=True)
    for f, name in (("atreides", "Atreides"), ("harkonnen", "Harkonnen"), ("fremen", "Fremen")):
        button = re.search(rf'<button[^>]*value="{f}"[^>]*>\s*{name}', html)
        assert button and "disabled" not in button.group(0)
    assert 'value="emperor"' not in html
    assert 'value="board"' in html


def test_joining_sets_an_httponly_lax_cookie_without_secure(app):
    _, code = host_client(app)
    phone = app.test_client()
    phone.get(f"/t/{code}/join")
    r = phone.post(f"/t/{code}/join", data={"seat": "fremen", "csrf_token": csrf(phone)})
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{code}")
    cookie = seat_set_cookie(r, code)
    attrs = [a.strip().lower() for a in cookie.split(";")]
    assert "httponly" in attrs
    assert "samesite=lax" in attrs
    assert "secure" not in attrs
    assert "path=/" in attrs
    assert any(a.startswith("max-age=") or a.startswith("expires=") for a in attrs)  # survives a reload/sleep
    token = cookie.split(";")[0].split("=", 1)[1]
    assert len(token) * 6 >= 128


def test_join_needs_csrf(app):
    _, code = host_client(app)
    phone = app.test_client()
    phone.get(f"/t/{code}/join")
    assert phone.post(f"/t/{code}/join", data={"seat": "fremen"}).status_code == 403


def test_a_reload_keeps_the_seat(app):
    _, code = host_client(app)
    phone = join_seat(app, code, "fremen")
    for _ in range(2):
        r = phone.get(f"/t/{code}")
        assert r.status_code == 200
        html = r.get_data(as_text=True)
        assert 'id="my-panel"' in html and "Fremen" in html
    r = phone.get(f"/t/{code}/join")
    assert "Back to my seat (Fremen)" in r.get_data(as_text=True)
    assert phone.get(f"/api/tables/{code}/state").get_json()["viewer"] == "fremen"


def test_a_taken_seat_cannot_be_taken_by_a_second_phone(app):
    _, code = host_client(app)
    first = join_seat(app, code, "fremen")
    second = app.test_client()
    html = second.get(f"/t/{code}/join").get_data(as_text=True)
    assert re.search(r'<button[^>]*value="fremen"[^>]*disabled', html)
    assert "(taken)" in html
    r = second.post(f"/t/{code}/join", data={"seat": "fremen", "csrf_token": csrf(second)})
    assert r.status_code == 409
    assert "taken" in r.get_data(as_text=True)
    assert second.get_cookie(f"seat_{code}") is None
    # the first phone still has its seat
    assert first.get(f"/api/tables/{code}/state").get_json()["viewer"] == "fremen"


def test_joining_a_faction_not_at_the_table_is_refused(app):
    _, code = host_client(app)
    phone = app.test_client()
    phone.get(f"/t/{code}/join")
    assert phone.post(f"/t/{code}/join", data={"seat": "emperor", "csrf_token": csrf(phone)}).status_code == 400
    assert phone.post(f"/t/{code}/join", data={"seat": "host", "csrf_token": csrf(phone)}).status_code == 400


def test_host_reissue_frees_the_seat_and_the_old_cookie_stops_working(app):
    laptop, code = host_client(app)
    old_phone = join_seat(app, code, "fremen")
    assert old_phone.get(f"/t/{code}/view").status_code == 200

    html = laptop.get(f"/t/{code}/host").get_data(as_text=True)
    assert f'action="/t/{code}/seats/fremen/reissue"' in html
    # without CSRF: refused; a seat phone cannot re-issue either
    assert laptop.post(f"/t/{code}/seats/fremen/reissue").status_code == 403
    old_phone.get(f"/t/{code}")
    assert old_phone.post(f"/t/{code}/seats/fremen/reissue",
                          data={"csrf_token": csrf(old_phone)}).status_code == 403
    r = laptop.post(f"/t/{code}/seats/fremen/reissue", data={"csrf_token": csrf(laptop)})
    assert r.status_code == 302

    assert old_phone.get(f"/t/{code}/view").status_code == 401
    r = old_phone.get(f"/t/{code}")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{code}/join")
    assert old_phone.get(f"/api/tables/{code}/state").status_code == 401
    # the seat is free again: a new phone takes it
    new_phone = join_seat(app, code, "fremen")
    assert new_phone.get(f"/api/tables/{code}/state").get_json()["viewer"] == "fremen"
    assert old_phone.get(f"/t/{code}/view").status_code == 401


def test_board_view_join(app):
    _, code = host_client(app)
    board = join_seat(app, code, "board")
    r = board.get(f"/t/{code}")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{code}/board")
    r = board.get(f"/t/{code}/board")
    assert r.status_code == 200 and NO_STORE in r.headers["Cache-Control"]
    assert 'sse-connect="/t/' in r.get_data(as_text=True)


# -- private pages ---------------------------------------------------------------------------------

def test_private_pages_are_not_cached_and_stay_out_of_history(app):
    laptop, code = host_client(app)
    phone = join_seat(app, code, "atreides")
    for who, path, full_page in ((phone, f"/t/{code}", True), (phone, f"/t/{code}/history", True),
                                 (laptop, f"/t/{code}/host", True), (laptop, f"/t/{code}", True),
                                 (phone, f"/t/{code}/view", False), (laptop, f"/t/{code}/view", False)):
        r = who.get(path)
        assert r.status_code == 200, path
        assert NO_STORE in r.headers.get("Cache-Control", ""), path
        if full_page:
            assert re.search(r'<body[^>]*hx-history="false"', r.get_data(as_text=True)), path


# -- CSRF on cookie-authenticated writes -----------------------------------------------------------

def test_act_form_needs_the_csrf_header(app):
    _, code = host_client(app)
    phone = join_seat(app, code, "fremen")
    phone.get(f"/t/{code}")
    entry = {"type": "storm.set", "sector": "7", "revision": "0"}
    assert phone.post(f"/t/{code}/act", data=entry).status_code == 403
    assert phone.post(f"/t/{code}/act", data=entry, headers={"X-CSRF-Token": "nope"}).status_code == 403
    assert phone.post(f"/t/{code}/undo").status_code == 403
    r = phone.post(f"/t/{code}/act", data=entry, headers={"X-CSRF-Token": csrf(phone)})
    assert r.status_code == 200
    assert '<b class="sector">7</b>' in r.get_data(as_text=True)


def test_the_page_carries_the_csrf_header_for_htmx(app):
    _, code = host_client(app)
    phone = join_seat(app, code, "fremen")
    html = phone.get(f"/t/{code}").get_data(as_text=True)
    m = re.search(r"""hx-headers='\{"X-CSRF-Token": "([^"]+)"\}'""", html)
    assert m and m.group(1) == csrf(phone)


def test_api_cookie_writes_need_csrf_bearer_writes_do_not(app):
    _, code = host_client(app)
    phone = join_seat(app, code, "fremen")
    body = {"type": "storm.set", "sector": 2, "revision": 0}
    assert phone.post(f"/api/tables/{code}/actions", json=body).status_code == 403
    token = phone.get_cookie(f"seat_{code}").value
    fresh = app.test_client()  # no cookies at all: a script with the bearer token
    r = fresh.post(f"/api/tables/{code}/actions", json=body, headers=bearer(token))
    assert r.status_code == 200
    assert r.get_json()["storm"]["sector"] == 2


def test_act_form_entries_and_refusals_render_in_the_fragment(app):
    laptop, code = host_client(app)
    phone = join_seat(app, code, "atreides")
    phone.get(f"/t/{code}")
    h = {"X-CSRF-Token": csrf(phone)}
    r = phone.post(f"/t/{code}/act", data={"type": "spice.add", "faction": "atreides", "amount": "1",
                                           "revision": "0"}, headers=h)
    assert r.status_code == 200
    assert re.search(r'id="my-spice">11<', r.get_data(as_text=True))
    # stale
    r = phone.post(f"/t/{code}/act", data={"type": "storm.set", "sector": "3", "revision": "0"}, headers=h)
    assert "The table changed while you were typing" in r.get_data(as_text=True)
    # for another faction
    r = phone.post(f"/t/{code}/act", data={"type": "spice.set", "faction": "fremen", "amount": "3",
                                           "revision": "1"}, headers=h)
    assert 'role="alert"' in r.get_data(as_text=True) and "Atreides cannot make an entry for Fremen" in r.get_data(
        as_text=True)
    # malformed
    r = phone.post(f"/t/{code}/act", data={"type": "storm.set", "sector": "30", "revision": "1"}, headers=h)
    assert "sector: Input should be less than or equal to 18" in r.get_data(as_text=True)
    # undo by the seat that made the latest entry
    r = phone.post(f"/t/{code}/undo", headers=h)
    assert re.search(r'id="my-spice">10<', r.get_data(as_text=True))


# -- the live stream -------------------------------------------------------------------------------

def parse_sse(text: str) -> list[dict]:
    events = []
    for block in text.split("\n\n"):
        fields = {}
        for line in block.splitlines():
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.lstrip(" "))
        if fields:
            events.append(fields)
    return events


def test_sse_stream_carries_only_the_revision(app):
    app.config["SSE_ONCE"] = True
    _, code = host_client(app)
    phone = join_seat(app, code, "atreides")
    laptop_state = app.test_client()
    t = create_table(laptop_state, ["atreides", "bg"])  # a second table: its stream is separate
    act(laptop_state, t.code, t.host, type="spice.set", faction="atreides", amount=947)
    act(laptop_state, t.code, t.host, type="storm.set", sector=12)

    r = app.test_client().get(f"/t/{t.code}/events", headers=bearer(t.seats["bg"]))
    assert r.status_code == 200
    assert r.mimetype == "text/event-stream"
    assert "no-cache" in r.headers["Cache-Control"]
    text = r.get_data(as_text=True)
    events = parse_sse(text)
    assert events[0] == {"retry": ["1000"]}
    changed = [e for e in events if e.get("event") == ["changed"]]
    assert changed == [{"id": ["2"], "event": ["changed"], "data": ["2"]}]
    assert set(k for e in events for k in e) <= {"retry", "id", "event", "data"}
    assert "947" not in text and "12" not in text

    r = phone.get(f"/t/{code}/events")  # cookie-authenticated
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert parse_sse(r.get_data(as_text=True))[1] == {"id": ["0"], "event": ["changed"], "data": ["0"]}


def test_sse_is_open_to_anonymous_listeners_and_carries_only_the_revision(app, client, table6):
    """CONTRACTS 3: the public board screen listens without a seat; the stream has no game content."""
    app.config["SSE_ONCE"] = True
    act(client, table6.code, table6.host, type="spice.set", faction="atreides", amount=947)
    for headers in ({}, bearer("forged")):
        r = app.test_client().get(f"/t/{table6.code}/events", headers=headers)
        assert r.status_code == 200
        text = r.get_data(as_text=True)
        assert [e for e in parse_sse(text) if "event" in e] == [{"id": ["1"], "event": ["changed"], "data": ["1"]}]
        assert "947" not in text
    assert app.extensions["presence"].connected(table6.code) == {}  # anonymous listeners are not seats


def test_sse_wakes_on_a_change_after_the_revision_it_was_given(app, client, table6):
    """A stream opened at the current revision (Last-Event-ID) sends pings, then `changed`
    as soon as an entry is made."""
    app.config.update(SSE_ONCE=True, SSE_HEARTBEAT=0.05)
    act(client, table6.code, table6.host, type="storm.set", sector=3)

    def later():
        time.sleep(0.3)
        act(app.test_client(), table6.code, table6.host, type="spice.set", faction="atreides", amount=977)

    th = threading.Thread(target=later)
    th.start()
    t0 = time.monotonic()
    r = app.test_client().get(f"/t/{table6.code}/events", headers={**bearer(table6.seats["fremen"]),
                                                                     "Last-Event-ID": "1"})
    text = r.get_data(as_text=True)
    th.join()
    assert time.monotonic() - t0 >= 0.25
    assert ": ping" in text
    assert [e for e in parse_sse(text) if "event" in e] == [{"id": ["2"], "event": ["changed"], "data": ["2"]}]
    assert "977" not in text


# -- per-seat fragments ----------------------------------------------------------------------------

def test_each_seat_view_fragment_shows_its_own_spice_and_never_another_seats(app):
    laptop, code = host_client(app, factions=("atreides", "harkonnen", "fremen"))
    # set distinctive amounts through the host's own page form
    laptop.get(f"/t/{code}")
    h = {"X-CSRF-Token": csrf(laptop)}
    amounts = {"atreides": 947, "harkonnen": 953, "fremen": 967}
    for i, (f, n) in enumerate(amounts.items()):
        r = laptop.post(f"/t/{code}/act", data={"type": "spice.set", "faction": f, "amount": str(n),
                                                "revision": str(i)}, headers=h)
        assert r.status_code == 200 and 'role="alert"' not in r.get_data(as_text=True)
    host_html = laptop.get(f"/t/{code}/view").get_data(as_text=True)
    for n in amounts.values():
        assert f"<td>{n}</td>" in host_html

    phones = {f: join_seat(app, code, f) for f in amounts}
    board = join_seat(app, code, "board")
    for f, ph in phones.items():
        for path in (f"/t/{code}/view", f"/t/{code}"):
            html = ph.get(path).get_data(as_text=True)
            assert f'id="my-spice">{amounts[f]}<' in html, (f, path)
            for other, n in amounts.items():
                if other != f:
                    assert not shows_number(html, n), (f, other, path)
    for path in (f"/t/{code}/view", f"/t/{code}/board"):
        html = board.get(path).get_data(as_text=True)
        for n in amounts.values():
            assert not shows_number(html, n), path


def test_history_page_hides_other_seats_secret_entries(app):
    laptop, code = host_client(app)
    a = join_seat(app, code, "atreides")
    a.get(f"/t/{code}")
    a.post(f"/t/{code}/act", data={"type": "spice.set", "faction": "atreides", "amount": "947", "revision": "0"},
           headers={"X-CSRF-Token": csrf(a)})
    assert "947" in a.get(f"/t/{code}/history").get_data(as_text=True)
    assert "947" in laptop.get(f"/t/{code}/history").get_data(as_text=True)
    h = join_seat(app, code, "harkonnen").get(f"/t/{code}/history").get_data(as_text=True)
    assert not shows_number(h, 947) and "Atreides: private entry" in h


@pytest.mark.parametrize("path", ["/t/{code}/view", "/t/{code}/history"])
def test_pages_without_a_seat(app, path):
    _, code = host_client(app)
    r = app.test_client().get(path.format(code=code))
    assert r.status_code in (302, 401)


def test_two_phones_tapping_the_same_free_seat_at_once_one_wins_and_keeps_it(app):
    """Both phones saw the seat free; exactly one gets it, and the winner's credential works
    (the loser must not cancel it)."""
    import threading as th
    _, code = host_client(app, factions=("atreides", "fremen"))
    for _ in range(15):
        laptop_token = app.extensions["tables"].reissue(code, "fremen")  # free the seat again
        assert laptop_token
        phones = [app.test_client() for _ in range(2)]
        for p in phones:
            p.get(f"/t/{code}/join")
        barrier = th.Barrier(2)
        results = [None, None]

        def tap(i):
            barrier.wait()
            results[i] = phones[i].post(f"/t/{code}/join", data={"seat": "fremen", "csrf_token": csrf(phones[i])})

        threads = [th.Thread(target=tap, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        working = [p for p, r in zip(phones, results)
                   if r.status_code == 302 and p.get(f"/t/{code}/view").status_code == 200]
        assert len(working) == 1, [r.status_code for r in results]
        assert sum(r.status_code == 302 for r in results) == 1, [r.status_code for r in results]


def test_a_stale_form_entry_offers_one_tap_resend_with_the_same_values(app, client):
    """Two dialers typing at once: the second gets the fresh table and a 'Send it again' button
    carrying its own values at the new revision; nothing was changed by the stale entry."""
    import re

    from conftest import SIX, create_table, join_seat, state
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "atreides")
    token = csrf(phone)
    rev = state(client, t.code, t.host)["revision"]
    r = phone.post(f"/t/{t.code}/act", data={"type": "storm.set", "sector": "4", "revision": str(rev)},
                   headers={"X-CSRF-Token": token})
    assert "storm over <b class=\"sector\">4" in r.get_data(as_text=True)
    # same revision again: stale
    html = phone.post(f"/t/{t.code}/act", data={"type": "storm.set", "sector": "6", "revision": str(rev)},
                      headers={"X-CSRF-Token": token}).get_data(as_text=True)
    assert "The table changed while you were typing" in html
    assert state(client, t.code, t.host)["storm"]["sector"] == 4
    form = re.search(r'<form[^>]*class="resend".*?</form>', html, re.S).group(0)
    assert 'name="sector" value="6"' in form and f'name="revision" value="{rev + 1}"' in form
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form))
    r = phone.post(f"/t/{t.code}/act", data=fields, headers={"X-CSRF-Token": token})
    assert state(client, t.code, t.host)["storm"]["sector"] == 6


def test_override_form_keeps_structured_entries(app, client):
    """The Fremen setup (a list of placements) survives the refusal-then-override round trip."""
    import re

    from conftest import SIX, create_table, join_seat, state
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "fremen")
    token = csrf(phone)
    data = {"type": "setup.fremen", "faction": "fremen", "revision": "0",
            "placements-0-territory": "Sietch Tabr", "placements-0-forces": "6",
            "placements-1-territory": "Carthag", "placements-1-forces": "4"}
    html = phone.post(f"/t/{t.code}/act", data=data, headers={"X-CSRF-Token": token}).get_data(as_text=True)
    assert "The Fremen start only in" in html
    form = re.search(r'<form[^>]*class="override".*?</form>', html, re.S).group(0)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form))
    assert fields["placements-1-territory"] == "Carthag"
    phone.post(f"/t/{t.code}/act", data=fields, headers={"X-CSRF-Token": token})
    s = state(client, t.code, t.host)
    assert s["board"]["territories"]["Carthag"]["forces"]["fremen"]["forces"] == 4
