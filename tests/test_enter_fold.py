""""Enter by hand" (corrections, rare entries) is opened rarely and holds some 500 elements: the
phone page renders it empty and its forms load when it is opened; a refresh or an entry's answer
while it is open renders it open and whole (the phone says which lazy folds are open), so it stays
as the player left it without a second request."""
from __future__ import annotations

import re

from conftest import act, create_table, join_seat

OPEN = {"HX-Request": "true", "X-Open-Folds": "enter"}


def test_the_phone_page_leaves_enter_by_hand_empty_until_it_is_opened(app, client):
    t = create_table(client, ["atreides", "harkonnen"])
    phone = join_seat(app, t.code, "atreides")
    for html in (phone.get(f"/t/{t.code}").get_data(as_text=True),
                 phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)):
        assert 'id="enter" data-lazy>' in html and f'hx-get="/t/{t.code}/enter"' in html
        assert "Spice behind a shield" not in html and "storm.set" not in html
    r = phone.get(f"/t/{t.code}/enter")
    assert r.status_code == 200 and "no-store" in r.headers["Cache-Control"]
    body = r.get_data(as_text=True)
    assert "Spice behind a shield" in body and 'value="storm.set"' in body


def test_an_open_fold_is_rendered_open_and_whole_by_a_refresh(app, client):
    t = create_table(client, ["atreides", "harkonnen"])
    phone = join_seat(app, t.code, "atreides")
    act(client, t.code, t.host, type="storm.set", sector=5)
    html = phone.get(f"/t/{t.code}/view", headers=OPEN).get_data(as_text=True)
    assert 'id="enter" data-lazy open>' in html
    assert "Spice behind a shield" in html and 'value="storm.set"' in html
    assert re.search(r'name="revision" value="1"', html)  # its forms carry the revision shown
    # only lazy folds the page knows: anything else in the header is ignored
    html = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true", "X-Open-Folds": "nope,<x>"}
                     ).get_data(as_text=True)
    assert 'id="enter" data-lazy>' in html and "Spice behind a shield" not in html and "<x>" not in html


def test_the_fold_is_only_for_a_seat(app, client):
    t = create_table(client, ["atreides", "harkonnen"])
    board = join_seat(app, t.code, "board")
    assert board.get(f"/t/{t.code}/enter").status_code == 403
    r = app.test_client().get(f"/t/{t.code}/enter")
    assert r.status_code in (302, 401, 403) and "Spice behind a shield" not in r.get_data(as_text=True)
    host = app.test_client()
    host.set_cookie(f"seat_{t.code}", t.host)
    assert "End the game" in host.get(f"/t/{t.code}/enter").get_data(as_text=True)
    assert app.test_client().get("/t/NOPE1/enter").status_code == 404
