"""The phone's pages without a browser (issue 10): the phase card, tapped places, refusals beside
the form, page weight (compression, one render per load), the styled 404."""
from __future__ import annotations

import gzip
import re

from conftest import SIX, act, create_table, csrf, join_seat, state


def setup_done(client, t):
    act(client, t.code, t.host, type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    act(client, t.code, t.host, type="setup.bg", faction="bg", territory="Polar Sink")


def post(phone, code, data, htmx=True):
    headers = {"X-CSRF-Token": csrf(phone)}
    if htmx:
        headers["HX-Request"] = "true"
    return phone.post(f"/t/{code}/act", data=data, headers=headers)


def test_every_table_page_opens_with_the_phase_card(app, client):
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "atreides")
    board = join_seat(app, t.code, "board")
    html = phone.get(f"/t/{t.code}").get_data(as_text=True)
    main = html[html.index("<main>"):]
    before = main[:main.index('id="now"')]
    assert re.sub(r"<[^>]*>|<section[^>]*$", "", before).strip() == "", before   # nothing shown before it
    # the board screen (issue 24) is one screen: the map on the left, and the side column opens with the
    # turn and storm line, then the phase card (a narrow screen shows the phase card first, by CSS order)
    html = board.get(f"/t/{t.code}/board").get_data(as_text=True)
    side = html[html.index('class="bs-side"'):]
    before = side[side.index('</section>') + len('</section>'):side.index('id="now"')]
    assert "bs-top" in side[:side.index('</section>')]
    assert re.sub(r"<[^>]*>|<section[^>]*$|\{#.*?#\}", "", before, flags=re.S).strip() == "", before
    host = app.test_client()
    host.set_cookie(f"seat_{t.code}", t.host)
    html = host.get(f"/t/{t.code}").get_data(as_text=True)
    assert html.index('id="now"') < html.index("All factions (host)")


def test_the_shipment_card_offers_legal_places_as_buttons_and_a_tap_ships(app, client):
    t = create_table(client, SIX)
    setup_done(client, t)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="shipment_movement")
    for f in state(client, t.code, t.host)["whose_turn"]["order"]:
        if f == "atreides":
            break
        act(client, t.code, t.host, type="turn.done", faction=f)
    phone = join_seat(app, t.code, "atreides")
    html = phone.get(f"/t/{t.code}").get_data(as_text=True)
    now = html[html.index('id="now"'):html.index("</section>", html.index('id="now"'))]
    assert 'name="to@sector" value="Arrakeen@9"' in now
    assert 'name="territory"' not in now and 'list="territories"' not in now   # nothing to type
    rev = state(client, t.code, t.host)["revision"]
    r = post(phone, t.code, {"type": "ship", "revision": rev, "faction": "atreides", "forces": "5",
                             "to@sector": "Arrakeen@9"})
    assert r.status_code == 200
    assert "Atreides" in r.headers.get("HX-Trigger", "")         # the toast's text comes with the answer
    s = state(client, t.code, t.host)
    assert s["board"]["territories"]["Arrakeen"]["forces"]["atreides"]["forces"] == 15


def test_a_refusal_goes_to_the_sheet_and_leaves_the_form_alone(app, client):
    t = create_table(client, SIX)
    setup_done(client, t)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="shipment_movement")
    act(client, t.code, t.host, type="storm.set", sector=9)
    phone = join_seat(app, t.code, "atreides")
    rev = state(client, t.code, t.host)["revision"]
    r = post(phone, t.code, {"type": "ship", "revision": rev, "faction": "atreides", "forces": "3",
                             "to@sector": "Arrakeen@9"})
    assert r.headers["HX-Retarget"] == "#sheet"            # only the sheet is replaced: the form keeps its values
    html = r.get_data(as_text=True)
    assert 'id="refusal"' in html and 'id="now"' not in html
    assert "storm" in html.lower()
    assert 'name="forces" value="3"' in html and 'name="to" value="Arrakeen"' in html and 'name="sector" value="9"' in html
    assert "Override" in html
    # without htmx (no script) the whole view comes back with the refusal in it
    r = post(phone, t.code, {"type": "ship", "revision": rev, "faction": "atreides", "forces": "3",
                             "to@sector": "Arrakeen@9"}, htmx=False)
    assert 'id="refusal"' in r.get_data(as_text=True) and 'id="now"' in r.get_data(as_text=True)


def test_battle_want_strength_uses_the_forces_present_and_karama_notes_are_text(app, client):
    t = create_table(client, SIX)
    setup_done(client, t)
    act(client, t.code, t.host, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="battle")
    phone = join_seat(app, t.code, "atreides")
    # nothing dialled yet (forces=0): the answer still comes from the 10 forces in Arrakeen
    html = phone.get(f"/t/{t.code}/battle", query_string={"forces": "0", "want": "7"}).get_data(as_text=True)
    assert 'id="dial-best"' in html and "dial <b>7</b> forces" in html
    assert "{&#39;text&#39;" not in html and "{'text'" not in html   # notes printed as sentences
    assert "Karama can never cancel your own faction" in html
    # strength beyond what is there is refused in a sentence
    html = phone.get(f"/t/{t.code}/battle", query_string={"want": "15"}).get_data(as_text=True)
    assert 'class="error"' in html


def test_text_answers_are_compressed_but_the_live_stream_is_not(app, client):
    app.config["SSE_ONCE"] = True
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "atreides")
    r = phone.get(f"/t/{t.code}", headers={"Accept-Encoding": "gzip"})
    assert r.headers["Content-Encoding"] == "gzip"
    assert b'id="now"' in gzip.decompress(r.get_data())
    r = phone.get("/static/app.css", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert r.headers.get("Content-Encoding") in ("br", "gzip")
    r = phone.get(f"/t/{t.code}/events", headers={"Accept-Encoding": "gzip, br"})
    assert r.mimetype == "text/event-stream" and "Content-Encoding" not in r.headers
    assert "event: changed" in r.get_data(as_text=True)


def test_one_render_per_load(app, client):
    """The page asks the stream only for changes after the revision it shows (no refetch at once),
    and the battle panel is fetched once: on load in the Battle phase, when opened otherwise."""
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "atreides")
    html = phone.get(f"/t/{t.code}").get_data(as_text=True)
    rev = state(client, t.code, t.host)["revision"]
    # ...and asks it for the seat's view itself on another seat's change (issue 30)
    assert f'sse-connect="/t/{t.code}/events?since={rev}&parts=view"' in html
    assert html.count(f'hx-get="/t/{t.code}/battle"') == 1 and "toggle from:#battle-details once" in html
    setup_done(client, t)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="battle")
    html = phone.get(f"/t/{t.code}").get_data(as_text=True)
    panel = re.findall(r'<div id="battle"[^>]*>', html)
    assert len(panel) == 1 and 'hx-trigger="load"' in panel[0]


def test_a_styled_404(client):
    r = client.get("/t/NOPE9")
    assert r.status_code == 404 and "text/html" in r.content_type
    html = r.get_data(as_text=True)
    assert "app.css" in html and 'id="not-found"' in html and "Start page" in html
    r = client.get("/no/such/page")
    assert r.status_code == 404 and 'id="not-found"' in r.get_data(as_text=True)
    r = client.get("/api/tables/NOPE9/state")
    assert r.status_code in (401, 404) and r.is_json


def test_ecaz_ambassador_supply_is_ticked_not_typed(app, client):
    t = create_table(client, ["ecaz", "atreides"])
    phone = join_seat(app, t.code, "ecaz")
    html = phone.get(f"/t/{t.code}/secrets").get_data(as_text=True)  # "My secrets", loaded when opened
    assert 'type="checkbox" name="ambassadors" value="Ixian"' in html and 'textarea name="ambassadors"' not in html
    rev = state(client, t.code, t.host)["revision"]
    data = [("type", "ambassadors.set"), ("revision", str(rev)), ("faction", "ecaz"), ("ambassadors", ""),
            ("ambassadors", "Ixian"), ("ambassadors", "CHOAM")]
    from werkzeug.datastructures import MultiDict
    r = phone.post(f"/t/{t.code}/act", data=MultiDict(data), headers={"X-CSRF-Token": csrf(phone)})
    assert r.status_code == 200
    mine = state(client, t.code, t.host)["factions"]["ecaz"]["private"]["ambassadors"]
    assert sorted(mine) == ["CHOAM", "Ixian"]
    assert 'value="Ixian" checked' in phone.get(f"/t/{t.code}/secrets").get_data(as_text=True)


def test_traitors_are_ticked_from_the_leaders_at_the_table(app, client):
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "harkonnen")
    html = phone.get(f"/t/{t.code}").get_data(as_text=True)
    assert 'name="traitors" value="Thufir Hawat"' in html and 'textarea name="traitors"' not in html
    from werkzeug.datastructures import MultiDict
    rev = state(client, t.code, t.host)["revision"]
    r = phone.post(f"/t/{t.code}/act", headers={"X-CSRF-Token": csrf(phone)}, data=MultiDict(
        [("type", "traitors.set"), ("revision", str(rev)), ("faction", "harkonnen"), ("traitors", ""),
         ("traitors", "Thufir Hawat"), ("traitors", "Lady Jessica")]))
    assert r.status_code == 200
    assert state(client, t.code, t.host)["factions"]["harkonnen"]["private"]["traitors"] == ["Thufir Hawat", "Lady Jessica"]
