"""A seat's phase card (what this phase asks of it) is rendered again only when something it could
show changed (issue 30): at every step of a game, across phases, each seat's page is the same with
and without the kept cards, its forms carry the revision shown, and a seat's card is only its own."""
from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import act, create_table, seat_clients as phones

MIDGAME = Path(__file__).resolve().parents[1] / "benchmarks" / "midgame_6f.json"
FOLDS = ({"HX-Request": "true"}, {"HX-Request": "true", "X-Open-Folds": "ship-box,enter"})


def pages(app, code, clients, kept: bool) -> dict:
    app.config["NOW_PART_CACHE"] = kept
    return {(role, i): c.get(f"/t/{code}/view", headers=h).get_data(as_text=True)
            for role, c in clients.items() for i, h in enumerate(FOLDS)}


def card(html: str) -> str:
    return html[html.index('id="now"'):html.index("</section>", html.index('id="now"'))]


def compare(app, code, clients, revision):
    kept = pages(app, code, clients, True)
    plain = pages(app, code, clients, False)
    for key, html in kept.items():
        assert html == plain[key], f"{key}: the page with kept phase cards differs"
        forms = re.findall(r'name="revision" value="([^"]+)"', card(html))
        assert set(forms) <= {str(revision)}, key


def test_every_seat_sees_the_same_page_at_every_step_and_phase(app, client):
    from companion.games.dune.web.now_part import kept
    t = create_table(client, ["atreides", "harkonnen", "fremen", "emperor", "guild"])
    clients = phones(app, t.code, {"host": t.host, **t.seats})
    steps = [
        dict(type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}]),
        dict(type="phase.set", turn=1, phase="storm"),
        dict(type="storm.set", sector=5),
        dict(type="phase.set", turn=1, phase="bidding"),
        dict(type="spice.add", faction="atreides", amount=3),
        dict(type="phase.set", turn=1, phase="shipment_movement"),
        "turn.done",                                                           # whose turn moves on
        dict(type="bribe", **{"from": "harkonnen"}, to="fremen", spice=2),
        dict(type="ship", faction="emperor", to="Arrakeen", forces=2, override=True, reason="test"),
        dict(type="ship", faction="guild", to="Arrakeen", forces=1, override=True, reason="test"),  # Arrakeen full
        dict(type="phase.set", turn=1, phase="battle"),
        dict(type="phase.set", turn=1, phase="collection"),
    ]
    hits = 0
    for step in steps:
        if step == "turn.done":
            s = client.get(f"/api/tables/{t.code}/state", headers={"Authorization": f"Bearer {t.host}"}).get_json()
            step = dict(type="turn.done", faction=s["whose_turn"]["faction"])
        r = act(client, t.code, t.host, expect=None, **step)
        assert r.status_code == 200, (step, r.get_data(as_text=True))
        compare(app, t.code, clients, r.get_json()["revision"])
        hits = kept(app).hits
    assert hits > 0  # cards that did not change were reused


def test_a_mid_game_table_with_and_without_kept_cards(app, client):
    made = client.post("/api/tables/import", json=json.loads(MIDGAME.read_text("utf-8"))).get_json()
    clients = phones(app, made["table"], {"host": made["host_token"], **made["seats"]})
    t = app.extensions["tables"].table(made["table"])
    compare(app, made["table"], clients, t.revision)
    r = act(client, made["table"], made["host_token"], type="bribe", **{"from": "atreides"}, to="harkonnen", spice=1)
    compare(app, made["table"], clients, r.get_json()["revision"])


def test_the_seat_on_turn_gets_its_new_legal_places_after_another_seats_shipment(app, client):
    t = create_table(client, ["atreides", "harkonnen", "fremen", "emperor"])
    act(client, t.code, t.host, type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    s = act(client, t.code, t.host, type="phase.set", turn=1, phase="shipment_movement").get_json()
    first = s["whose_turn"]["faction"]
    phone = phones(app, t.code, t.seats)[first]
    app.config["NOW_PART_CACHE"] = True
    before = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'value="Carthag@10"' in before
    others = [f for f in s["whose_turn"]["order"] if f != first and f != "harkonnen"][:2]
    for f in others:   # two more factions in Carthag (with the Harkonnen already there): it is full
        act(client, t.code, t.host, type="ship", faction=f, to="Carthag", forces=1, override=True, reason="test")
    after = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'value="Carthag@10"' not in after


def test_a_card_the_phone_already_shows_is_not_sent_again_except_one_holding_the_battle_panel(app, client):
    t = create_table(client, ["atreides", "harkonnen", "fremen"])
    act(client, t.code, t.host, type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    act(client, t.code, t.host, type="phase.set", turn=1, phase="bidding")
    phone = phones(app, t.code, t.seats)["atreides"]
    first = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    etag = re.search(r'id="now" data-etag="([0-9a-f]{16})"', first).group(1)
    have = {"HX-Request": "true", "X-Have-Parts": f"now={etag}"}
    r = act(client, t.code, t.host, type="spice.add", faction="harkonnen", amount=2).get_json()
    again = phone.get(f"/t/{t.code}/view", headers=have).get_data(as_text=True)
    assert (f'<section class="card now-card f-atreides" id="now" data-etag="{etag}" '
            f'data-revision="{r["revision"]}" data-same></section>') in again
    assert "Next phase" not in again.split('id="my-panel"')[0]
    # the phase moves on: a new card, sent whole
    act(client, t.code, t.host, type="phase.set", turn=1, phase="shipment_movement")
    moved = phone.get(f"/t/{t.code}/view", headers=have).get_data(as_text=True)
    assert 'data-phase="shipment_movement"' in moved and f'data-etag="{etag}"' not in moved
    # in the Battle phase the card holds the battle panel, which loads by itself: always whole
    act(client, t.code, t.host, type="phase.set", turn=1, phase="battle")
    b1 = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'id="battle"' in b1 and 'id="now" data-etag=' not in b1
