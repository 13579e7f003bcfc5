"""The shipment of the Shipment & Movement card: open with its legal places on the seat's own turn;
folded before it (or once shipped), and then its places load when the player opens the fold, so a
seat waiting its turn does not have the shipment rules worked out on every refresh. A refresh or an
entry's answer while it is open renders it open and whole (X-Open-Folds), as for "Enter by hand"."""
from __future__ import annotations

import re

from conftest import act, create_table, join_seat

FACTIONS = ["atreides", "harkonnen", "fremen", "emperor"]


def in_shipment(client):
    t = create_table(client, FACTIONS)
    act(client, t.code, t.host, type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    s = act(client, t.code, t.host, type="phase.set", turn=1, phase="shipment_movement").get_json()
    first = s["whose_turn"]["faction"]
    waiting = next(f for f in s["whose_turn"]["order"] if f != first)
    return t, first, waiting


def places(html: str) -> list[str]:
    box = html[html.index('id="ship-box"'):]
    box = box[:box.index("</details>")]
    return re.findall(r'<button type="submit" class="place" name="to@sector" value="([^"]+)"', box)


def test_the_seat_on_turn_sees_its_shipment_open_with_every_legal_place(app, client):
    t, first, _ = in_shipment(client)
    html = join_seat(app, t.code, first).get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'id="ship-box" data-lazy open>' in html
    got = places(html)
    assert "Arrakeen@9" in got and "Carthag@10" in got and len(got) > 20


def test_a_seat_waiting_its_turn_gets_the_fold_closed_and_loads_the_same_places_when_it_opens_it(app, client):
    t, first, waiting = in_shipment(client)
    phone = join_seat(app, t.code, waiting)
    html = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'id="ship-box" data-lazy>' in html and 'id="not-your-turn"' in html
    assert places(html) == [] and f'hx-get="/t/{t.code}/ship"' in html
    r = phone.get(f"/t/{t.code}/ship")
    assert r.status_code == 200 and "no-store" in r.headers["Cache-Control"]
    loaded = r.get_data(as_text=True)
    got = re.findall(r'name="to@sector" value="([^"]+)"', loaded)
    assert "Arrakeen@9" in got and 'name="faction" value="%s"' % waiting in loaded
    assert re.search(r'name="revision" value="2"', loaded)  # its form carries the revision shown
    # the same places the seat gets when it is its turn
    s = act(client, t.code, t.host, type="turn.done", faction=first).get_json()
    while s["whose_turn"]["faction"] != waiting:
        s = act(client, t.code, t.host, type="turn.done", faction=s["whose_turn"]["faction"]).get_json()
    on_turn = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'id="ship-box" data-lazy open>' in on_turn and places(on_turn) == got


def test_an_open_fold_stays_open_and_whole_across_a_refresh(app, client):
    t, _, waiting = in_shipment(client)
    phone = join_seat(app, t.code, waiting)
    html = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true", "X-Open-Folds": "ship-box"}
                     ).get_data(as_text=True)
    assert 'id="ship-box" data-lazy open>' in html and "Arrakeen@9" in places(html)


def test_the_shipment_rules_are_not_run_for_a_closed_fold(app, client, monkeypatch):
    from companion.games.dune.entries import moves
    t, first, waiting = in_shipment(client)
    calls = []
    real = moves.where_can_i_go
    monkeypatch.setattr(moves, "where_can_i_go", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    join_seat(app, t.code, waiting).get(f"/t/{t.code}/view", headers={"HX-Request": "true"})
    assert calls == []
    join_seat(app, t.code, first).get(f"/t/{t.code}/view", headers={"HX-Request": "true"})
    assert calls == [first]


def test_the_fold_is_only_for_a_faction_seat_in_shipment(app, client):
    t, _, waiting = in_shipment(client)
    assert join_seat(app, t.code, "board").get(f"/t/{t.code}/ship").status_code == 403
    r = app.test_client().get(f"/t/{t.code}/ship")
    assert r.status_code in (302, 401, 403) and "to@sector" not in r.get_data(as_text=True)
    host = app.test_client()
    host.set_cookie(f"seat_{t.code}", t.host)
    assert host.get(f"/t/{t.code}/ship").status_code == 403
    assert app.test_client().get("/t/NOPE1/ship").status_code == 404
    phone = join_seat(app, t.code, waiting)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="battle")
    r = phone.get(f"/t/{t.code}/ship")
    assert r.status_code == 200 and "no longer Shipment" in r.get_data(as_text=True)
    assert "to@sector" not in r.get_data(as_text=True)
