"""The Atreides' card records (KISS, Atreides: "You, and only you, may keep written records about
cards"): the card seen at auction joins the buyer's hand, and the public entries keep the records up to
date (discards, battle reveals, trades, cards taken unseen, the Harkonnen bonus card). Nobody else
receives them."""
from __future__ import annotations

import json

import pytest

from conftest import bearer, create_table
from table_helpers import host_state, ok, refused, set_phase

THREE = ["atreides", "harkonnen", "emperor"]


def records(client, t, who="atreides"):
    return client.get(f"/api/tables/{t.code}/state", headers=bearer(t.token(who))).get_json().get("records")


@pytest.fixture()
def bidding(client):
    t = create_table(client, THREE)
    set_phase(client, t, "bidding")
    return t


def see_and_buy(client, t, card, buyer, price=1):
    ok(client, t, "atreides", type="cards.seen", faction="atreides", card=card)
    ok(client, t, buyer, type="bid.buy", faction=buyer, price=price)


# (what happens, then the records the Atreides hold of the Emperor and of the Harkonnen)
CASES = [
    ("the card seen joins the buyer's hand",
     [("see_buy", "Lasgun", "emperor")], {"emperor": (["Lasgun"], 1)}),
    # the Harkonnen start with 2 cards: 2 unknown + the one bought (seen) + the bonus card (unknown)
    ("the Harkonnen bonus card is unknown to the Atreides",
     [("see_buy", "Chaumas", "harkonnen")], {"harkonnen": (["Chaumas"], 3)}),
    ("a card bought unseen is unknown",
     [("buy", None, "emperor")], {"emperor": ([], 2)}),
    ("a discard leaves the known hand",
     [("see_buy", "Lasgun", "emperor"), ("discard", "Lasgun", "emperor")], {"emperor": ([], 1)}),
    ("a card lost unseen (the hand corrected) forgets what was known",
     [("see_buy", "Lasgun", "emperor"), ("hand", 1, "emperor")], {"emperor": ([], 1)}),
    ("two cards seen, two buyers",
     [("see_buy", "Lasgun", "emperor"), ("see_buy", "Shield", "harkonnen")],
     {"emperor": (["Lasgun"], 1), "harkonnen": (["Shield"], 3)}),
]


@pytest.mark.parametrize("what, steps, expected", CASES, ids=[c[0] for c in CASES])
def test_records_follow_the_public_entries(client, bidding, what, steps, expected):
    t = bidding
    for kind, card, f in steps:
        if kind == "see_buy":
            see_and_buy(client, t, card, f)
        elif kind == "buy":
            ok(client, t, f, type="bid.buy", faction=f, price=1)
        elif kind == "discard":
            ok(client, t, f, type="cards.discard", faction=f, card=card)
        elif kind == "hand":
            ok(client, t, "host", type="hand.set", faction=f, size=card)
    r = records(client, t)
    for f, (known, unknown) in expected.items():
        assert r["hands"][f] == known, (what, r)
        assert r["unknown"][f] == unknown, (what, r)


def test_the_discard_pile_and_the_atreides_own_hand(client, bidding):
    t = bidding
    see_and_buy(client, t, "Lasgun", "emperor")
    ok(client, t, "emperor", type="cards.discard", faction="emperor", card="Lasgun")
    ok(client, t, "atreides", type="cards.set", faction="atreides", cards=["Shield"])
    r = records(client, t)
    assert r["discarded"] == ["Lasgun"]
    assert r["hands"]["atreides"] == ["Shield"] and r["unknown"]["atreides"] == 0


def test_an_undone_purchase_leaves_the_records(client, bidding):
    t = bidding
    see_and_buy(client, t, "Lasgun", "emperor")
    client.post(f"/api/tables/{t.code}/undo", headers=bearer(t.host), json={})
    r = records(client, t)
    assert r["hands"]["emperor"] == []
    seen = client.get(f"/api/tables/{t.code}/state", headers=bearer(t.token("atreides"))).get_json()["card_seen"]
    assert seen["noted"] == "Lasgun" and seen["card"] == 1  # the card is still up, still noted


def test_only_the_atreides_note_the_card_and_only_in_bidding(client):
    t = create_table(client, THREE)
    refused(client, t, "atreides", "atreides-prescience-bidding", "bidding", type="cards.seen", faction="atreides",
            card="Lasgun")
    set_phase(client, t, "bidding")
    refused(client, t, "host", "atreides-prescience-bidding", "only the atreides", type="cards.seen",
            faction="emperor", card="Lasgun")
    r = client.post(f"/api/tables/{t.code}/actions", headers=bearer(t.token("emperor")),
                    json={"type": "cards.seen", "faction": "atreides", "card": "Lasgun", "revision": 0})
    assert r.status_code == 403


def test_a_battle_reveal_shows_the_cards_played_and_the_winner_keeps_them(client):
    t = create_table(client, ["atreides", "harkonnen", "fremen"])
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    set_phase(client, t, "battle")
    s = ok(client, t, "harkonnen", type="battle.open", territory="Arrakeen", aggressor="harkonnen", opponent="atreides",
           override=True, reason="the table lets this aggressor attack first")
    bid = s["battles"][-1]["id"]
    ok(client, t, "harkonnen", type="cards.set", faction="harkonnen", cards=["Crysknife", "Baliset"])
    ok(client, t, "atreides", type="cards.set", faction="atreides", cards=["Shield"])
    assert records(client, t)["hands"]["harkonnen"] == []  # a secret entry tells the Atreides nothing
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha", forces=5,
       weapon="crysknife")
    ok(client, t, "atreides", type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=1,
       defense="Shield")
    ok(client, t, "host", type="battle.reveal", battle=bid)
    r = records(client, t)
    assert r["hands"]["harkonnen"] == ["Crysknife"] and r["unknown"]["harkonnen"] == 1
    ok(client, t, "host", type="battle.apply", battle=bid)
    after = host_state(client, t)
    r = records(client, t)
    held = after["factions"]["harkonnen"]["hand_size"]
    assert len(r["hands"]["harkonnen"]) + r["unknown"]["harkonnen"] == held
    for c in after["treachery"]["discard"]:
        assert c not in r["hands"]["harkonnen"] or r["hands"]["harkonnen"].count(c) <= 1


def test_nobody_else_receives_records_or_the_card_seen(client, bidding):
    t = bidding
    ok(client, t, "atreides", type="cards.seen", faction="atreides", card="Gom Jabbar")
    for who in ["host", "harkonnen", "emperor"]:
        body = client.get(f"/api/tables/{t.code}/state", headers=bearer(t.token(who))).get_data(as_text=True)
        assert "records" not in json.loads(body) and json.loads(body)["card_seen"] is None, who
        assert "Gom Jabbar" not in body, who
        hist = client.get(f"/api/tables/{t.code}/history", headers=bearer(t.token(who))).get_data(as_text=True)
        assert "Gom Jabbar" not in hist, who
    export = client.get(f"/api/tables/{t.code}/export", headers=bearer(t.host)).get_data(as_text=True)
    assert "Gom Jabbar" not in export and '"cards.seen"' in export
    mine = client.get(f"/api/tables/{t.code}/history", headers=bearer(t.token("atreides"))).get_data(as_text=True)
    assert "Gom Jabbar" in mine


def test_the_house_rule_gives_each_seat_its_own_records(client):
    t = create_table(client, THREE, options={"card_records": "everyone"})
    set_phase(client, t, "bidding")
    ok(client, t, "emperor", type="bid.buy", faction="emperor", price=1)
    for who in THREE:
        r = records(client, t, who)
        assert r is not None and r["unknown"]["emperor"] == 2
    assert "records" not in client.get(f"/api/tables/{t.code}/state", headers=bearer(t.host)).get_json()


def test_card_records_option_is_checked(client):
    r = client.post("/api/tables", json={"factions": THREE, "options": {"card_records": "nobody"}})
    assert r.status_code == 422 and "card_records" in r.get_json()["error"]["message"]


# -- cards moving between hands: trades, the Black Market, tokens, prescience -----------------------

ADDON = ["atreides", "emperor", "choam", "richese"]


def addon_table(client):
    t = create_table(client, ADDON, options={"advanced": True})
    set_phase(client, t, "bidding")
    return t


def test_a_named_black_market_card_joins_the_buyers_hand(client):
    t = addon_table(client)
    ok(client, t, "richese", type="cards.set", faction="richese", cards=["Lasgun"])
    ok(client, t, "richese", type="blackmarket.sell", faction="richese", buyer="emperor", price=2, card="Lasgun")
    r = records(client, t)
    assert r["hands"]["emperor"] == ["Lasgun"] and r["hands"]["richese"] == [] and r["unknown"]["richese"] == 0


def test_an_unnamed_black_market_card_makes_the_sellers_known_cards_uncertain(client):
    t = addon_table(client)
    see_and_buy(client, t, "Shield", "richese")  # the Atreides know Richese holds a Shield
    assert records(client, t)["hands"]["richese"] == ["Shield"]
    ok(client, t, "richese", type="blackmarket.sell", faction="richese", buyer="emperor", price=2)
    r = records(client, t)
    # which card went? nobody saw: the Shield may be gone
    assert r["hands"]["richese"] == [] and r["unknown"]["emperor"] == 2


@pytest.mark.parametrize("ally, choam_known", [("atreides", ["Crysknife"]), ("emperor", [])],
                         ids=["the Atreides trade: they know both cards", "another trade: the cards moved unseen"])
def test_a_choam_trade(client, ally, choam_known):
    t = addon_table(client)
    see_and_buy(client, t, "Snooper", "choam")
    ok(client, t, type="alliance.form", factions=["choam", ally], override=True, reason="a Nexus")
    ok(client, t, "host", type="cards.set", faction="choam", cards=["Kulon", "Snooper"])  # its hand, named
    ok(client, t, "host", type="cards.set", faction=ally, cards=["Crysknife"])
    assert records(client, t)["hands"]["choam"] == ["Snooper"]
    ok(client, t, "choam", type="choam.trade", gives="Snooper", receives="Crysknife")
    r = records(client, t)
    assert r["hands"]["choam"] == choam_known
    if ally == "atreides":
        assert "Snooper" in r["hands"]["atreides"]  # their own hand, as their phone holds it


def test_a_card_taken_from_the_deck_by_a_token_is_unknown(client):
    t = create_table(client, ["atreides", "moritani", "emperor"])
    set_phase(client, t, "mentat_pause")
    ok(client, t, "moritani", type="terror.place", faction="moritani", territory="Arrakeen", token="Robbery")
    before = records(client, t)["unknown"]["moritani"]
    ok(client, t, "moritani", type="terror.reveal", faction="moritani", territory="Arrakeen", take_card=True)
    assert records(client, t)["unknown"]["moritani"] == before + 1


def test_the_atreides_own_prescience_answer_shows_a_card(client):
    t = create_table(client, ["atreides", "harkonnen", "fremen"])
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    set_phase(client, t, "battle")
    s = ok(client, t, "harkonnen", type="battle.open", territory="Arrakeen", aggressor="harkonnen", opponent="atreides",
           override=True, reason="the table lets this aggressor attack first")
    bid = s["battles"][-1]["id"]
    ok(client, t, "host", type="cards.set", faction="harkonnen", cards=["Lasgun", "Baliset"])
    ok(client, t, "atreides", type="battle.prescience", battle=bid, faction="atreides", element="weapon")
    ok(client, t, "harkonnen", type="battle.answer", battle=bid, faction="harkonnen", weapon="Lasgun")
    r = records(client, t)
    assert r["hands"]["harkonnen"] == ["Lasgun"] and r["unknown"]["harkonnen"] == 1
    for who in ("harkonnen", "fremen", "host"):
        assert records(client, t, who) is None


def test_the_house_rule_records_the_reveals_of_a_seats_own_battles_only(client):
    t = create_table(client, ["atreides", "harkonnen", "fremen"], options={"card_records": "everyone"})
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    set_phase(client, t, "battle")
    s = ok(client, t, "harkonnen", type="battle.open", territory="Arrakeen", aggressor="harkonnen", opponent="atreides",
           override=True, reason="the table lets this aggressor attack first")
    bid = s["battles"][-1]["id"]
    ok(client, t, "host", type="cards.set", faction="harkonnen", cards=["Crysknife", "Baliset"])
    ok(client, t, "host", type="cards.set", faction="atreides", cards=["Shield"])
    ok(client, t, "host", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha", forces=5,
       weapon="crysknife")
    ok(client, t, "host", type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=1,
       defense="Shield")
    ok(client, t, "host", type="battle.reveal", battle=bid)
    assert records(client, t, "atreides")["hands"]["harkonnen"] == ["Crysknife"]
    assert records(client, t, "harkonnen")["hands"]["atreides"] == ["Shield"]
    assert records(client, t, "fremen")["hands"]["harkonnen"] == []  # not its battle
    assert records(client, t, "harkonnen")["hands"]["harkonnen"] == ["Crysknife", "Baliset"]  # its own hand


@pytest.mark.parametrize("house_rule", [False, True], ids=["the rule", "the house rule"])
def test_the_host_page_names_who_keeps_records(app, house_rule):
    import re

    from conftest import csrf
    laptop = app.test_client()
    laptop.get("/")
    form = {"factions": THREE, "turns": "10", "csrf_token": csrf(laptop)}
    if house_rule:
        form["card_records_everyone"] = "on"
    r = laptop.post("/tables", data=form)
    code = re.search(r"/t/([A-Z0-9]{5})/host$", r.headers["Location"]).group(1)
    html = laptop.get(f"/t/{code}/host").get_data(as_text=True)
    note = re.search(r'id="card-records-rule">(.*?)</p>', html, re.S).group(1)
    assert ("House rule" in note) == house_rule and ("You, and only you" in note) != house_rule
    state = app.extensions["tables"].table(code).state
    assert state["options"]["card_records"] == ("everyone" if house_rule else "atreides")


def test_both_sides_discarding_after_a_battle_keeps_what_else_was_known(client):
    t = create_table(client, ["atreides", "harkonnen", "fremen"])
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    set_phase(client, t, "bidding")
    see_and_buy(client, t, "Baliset", "harkonnen")  # known: Baliset (+ 2 at the start, + the bonus card)
    for card in ("Crysknife", "Baliset"):
        ok(client, t, "harkonnen", type="cards.name", faction="harkonnen", card=card)
    ok(client, t, "atreides", type="cards.name", faction="atreides", card="Shield")
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    set_phase(client, t, "battle")
    s = ok(client, t, "harkonnen", type="battle.open", territory="Arrakeen", aggressor="harkonnen", opponent="atreides",
           override=True, reason="the table lets this aggressor attack first")
    bid = s["battles"][-1]["id"]
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha", forces=5,
       weapon="crysknife")
    ok(client, t, "atreides", type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=1,
       defense="Shield")
    ok(client, t, "host", type="battle.reveal", battle=bid)
    assert sorted(records(client, t)["hands"]["harkonnen"]) == ["Baliset", "Crysknife"]
    ok(client, t, "host", type="battle.apply", battle=bid)
    h = host_state(client, t)
    r = records(client, t)
    kept = [c for c in ("Crysknife",) if c in h["factions"]["harkonnen"]["private"]["cards"]]
    assert sorted(r["hands"]["harkonnen"]) == sorted(["Baliset", *kept])  # Baliset stays known
    assert len(r["hands"]["harkonnen"]) + r["unknown"]["harkonnen"] == h["factions"]["harkonnen"]["hand_size"]
