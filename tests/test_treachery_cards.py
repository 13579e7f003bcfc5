"""Named Treachery cards through the whole game (issue 14, item 1): the deck and its reshuffle
(the first one adds the 5 KISS cards; the KISS suggestion starts them in the discard pile), naming
a card bought at auction from the phone's phase card, discards and the cards that entries play,
and the tokens that give a card. Rules: KISS "Treachery Card Deck" (kiss-treachery-deck), the
base game's hand limit, Karama and Family Atomics."""
from __future__ import annotations

import json
import re

import pytest

from conftest import create_table, csrf, join_seat, undo
from table_helpers import history, host_state, ok, refused, set_phase, spice

FACTIONS = ["atreides", "harkonnen", "emperor", "fremen", "guild", "bg"]
THREE = ["atreides", "harkonnen", "emperor"]  # no setup step: the phase card shows the phase at once


def deck(s: dict) -> dict:
    return s["treachery_deck"]


def view(phone, t) -> str:
    r = phone.get(f"/t/{t.code}/view")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def tap(phone, t, **form) -> str:
    """A button on the phone (a form post to /t/CODE/act), with the page's revision."""
    rev = re.search(r'name="revision" value="(\d+)"', view(phone, t)).group(1)
    r = phone.post(f"/t/{t.code}/act", data={"revision": rev, **form, "csrf_token": csrf(phone, t.code)})
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_data(as_text=True)


def prompt(html: str) -> str | None:
    m = re.search(r'<div class="name-card" id="name-card".*?id="keep-unnamed".*?</div>', html, re.S)
    return m.group(0) if m else None


# -- the deck and its reshuffle ------------------------------------------------------------------

def test_a_new_deck_counts_33_cards_less_the_starting_hands(client):
    t = create_table(client, FACTIONS)
    d = deck(host_state(client, t))
    # one card each, two for the Harkonnen, dealt at the start
    assert d["total"] == 33 and d["in_hands"] == 7 and d["draw"] == 26 and d["discard"] == []
    assert d["kiss_added"] is False and d["reshuffles"] == 0


def test_buying_from_an_empty_deck_reshuffles_the_discard_pile_with_the_5_kiss_cards(client):
    t = create_table(client, FACTIONS)
    set_phase(client, t, "bidding")
    ok(client, t, type="hand.set", faction="atreides", size=4)
    ok(client, t, type="cards.set", faction="atreides", cards=["Lasgun", "Baliset", "Kulon", "Shield"])
    for c in ("Lasgun", "Baliset", "Kulon"):
        ok(client, t, "atreides", type="cards.discard", faction="atreides", card=c)
    s = host_state(client, t)
    assert deck(s)["discard"] == ["Lasgun", "Baliset", "Kulon"] and s["factions"]["atreides"]["hand_size"] == 1
    assert deck(s)["draw"] == 33 - 7 - 3
    _empty_the_deck(client, t)
    s = host_state(client, t)
    assert deck(s)["draw"] == 0 and deck(s)["total"] == 33
    s = ok(client, t, "atreides", type="bid.buy", faction="atreides", price=1)
    d = deck(s)
    assert d["kiss_added"] is True and d["reshuffles"] == 1 and d["discard"] == []
    assert d["total"] == 38 and d["draw"] == 3 + 5 - 1  # the pile and the KISS cards, less the card bought
    line = history(client, t, "harkonnen")[-1]
    assert line["type"] == "bid.buy" and "shuffled into a new deck with the 5 KISS cards" in line["summary"]
    # undo drops the purchase and its reshuffle together
    undo(client, t.code, t.host)
    d = deck(host_state(client, t))
    assert d["discard"] == ["Lasgun", "Baliset", "Kulon"] and d["reshuffles"] == 0 and not d["kiss_added"]
    # the second reshuffle adds nothing more
    ok(client, t, "atreides", type="bid.buy", faction="atreides", price=1)
    ok(client, t, "atreides", type="cards.discard", faction="atreides", card="Shield")
    _empty_the_deck(client, t)
    s = ok(client, t, "atreides", type="bid.buy", faction="atreides", price=1)
    assert deck(s)["reshuffles"] == 2 and deck(s)["total"] == 38 and deck(s)["draw"] == 0


def _empty_the_deck(client, t, keep=("atreides", "harkonnen")):
    """Deal the rest of the deck into the hands of the factions not in ``keep`` (hand corrections,
    overridden past the hand limits, up to 12)."""
    for f in t.factions:
        s = host_state(client, t)
        left = deck(s)["draw"]
        if f in keep or not left:
            continue
        size = min(12, s["factions"][f]["hand_size"] + left)
        ok(client, t, type="hand.set", faction=f, size=size, override=True, reason="test: deal the deck out")
    assert deck(host_state(client, t))["draw"] == 0


def test_the_harkonnen_bonus_card_reshuffles_between_its_two_draws(client):
    t = create_table(client, FACTIONS)
    set_phase(client, t, "bidding")
    ok(client, t, type="cards.set", faction="atreides", cards=["Crysknife"])
    ok(client, t, "atreides", type="cards.discard", faction="atreides", card="Crysknife")
    _empty_the_deck(client, t)
    ok(client, t, type="hand.set", faction="bg", size=host_state(client, t)["factions"]["bg"]["hand_size"] - 1,
       override=True, reason="test: one card left")
    assert deck(host_state(client, t))["draw"] == 1
    s = ok(client, t, "harkonnen", type="bid.buy", faction="harkonnen", price=1)
    assert s["factions"]["harkonnen"]["hand_size"] == 4  # 2 + bought + bonus
    assert deck(s)["reshuffles"] == 1 and deck(s)["draw"] == 1 + 5 - 1  # Crysknife and the KISS cards, one drawn


def test_the_harkonnen_bonus_card_after_a_cache_card_comes_from_the_deck_and_can_reshuffle(client):
    t = create_table(client, FACTIONS + ["richese"])
    set_phase(client, t, "bidding")
    ok(client, t, type="cards.set", faction="atreides", cards=["Crysknife"])
    ok(client, t, "atreides", type="cards.discard", faction="atreides", card="Crysknife")
    _empty_the_deck(client, t, keep=("atreides", "harkonnen", "richese"))
    ok(client, t, "richese", type="cache.announce", card="Distrans", when="first", method="once_around")
    ok(client, t, type="spice.set", faction="harkonnen", amount=10)
    for f in host_state(client, t)["cache_auction"]["order"]:
        s = ok(client, t, f, type="cache.bid", faction=f, **({"amount": 2} if f == "harkonnen" else {}))
    s = host_state(client, t)
    assert s["cache_auction"]["winner"] == "harkonnen"
    h = s["factions"]["harkonnen"]
    assert h["hand_size"] == 4 and h["private"]["cards"] == ["Distrans"]  # the cache card, named, + the bonus
    d = deck(s)
    assert d["reshuffles"] == 1 and d["kiss_added"] and d["draw"] == 1 + 5 - 1  # Crysknife and the KISS cards


def test_the_reshuffle_entry_is_refused_while_the_deck_has_cards(client):
    t = create_table(client, FACTIONS)
    refused(client, t, "atreides", "kiss-treachery-deck", "still has 26 cards", type="treachery.reshuffle")
    _empty_the_deck(client, t)
    ok(client, t, "harkonnen", type="cards.discard", faction="harkonnen", card="Stunner")
    s = ok(client, t, "atreides", type="treachery.reshuffle")
    assert deck(s)["reshuffles"] == 1 and deck(s)["draw"] == 6 and deck(s)["kiss_added"]
    assert history(client, t)[-1]["summary"].startswith("The Treachery discard pile (1 card) is shuffled")
    # an override shuffles the pile back early, for a table that did so
    ok(client, t, "atreides", type="cards.discard", faction="atreides", card="Baliset")
    s = ok(client, t, type="treachery.reshuffle", override=True, reason="we shuffled early")
    assert deck(s)["reshuffles"] == 2 and deck(s)["discard"] == [] and deck(s)["total"] == 38


def test_option_kiss_cards_in_discard_starts_them_face_up(client):
    t = create_table(client, FACTIONS, options={"kiss_cards_in_discard": True})
    d = deck(host_state(client, t))
    assert d["discard"] == ["Projectile Weapon (KISS)", "Poison Weapon (KISS)", "Shield (KISS)",
                            "Snooper (KISS)", "Karama (KISS)"]
    assert d["total"] == 38 and d["draw"] == 26  # the same cards to draw as without the option
    _empty_the_deck(client, t)
    set_phase(client, t, "bidding")
    s = ok(client, t, "atreides", type="bid.buy", faction="atreides", price=1)
    assert deck(s)["total"] == 38 and deck(s)["draw"] == 4 and deck(s)["reshuffles"] == 1
    r = client.post("/api/tables", json={"factions": FACTIONS, "options": {"kiss_cards_in_discard": "yes"}})
    assert r.status_code == 422


def test_the_start_page_option_reaches_the_table(client, app):
    phone = app.test_client()
    phone.get("/")
    r = phone.post("/tables", data={"factions": ["atreides", "harkonnen"], "turns": "10", "discovery_tokens": "on",
                                    "kiss_cards_in_discard": "on", "csrf_token": csrf(phone)})
    assert r.status_code == 302
    code = re.search(r"/t/([A-Z0-9]{5})", r.headers["Location"]).group(1)
    assert 'name="kiss_cards_in_discard"' in phone.get("/").get_data(as_text=True)
    s = phone.get(f"/api/tables/{code}/state").get_json()
    assert s["options"]["kiss_cards_in_discard"] is True and len(s["treachery_deck"]["discard"]) == 5
    phone.post(f"/t/{code}/act", data={"type": "phase.set", "turn": "1", "phase": "bidding",
                                       "revision": str(s["revision"]), "csrf_token": csrf(phone, code)})
    html = phone.get(f"/t/{code}/view").get_data(as_text=True)
    assert "Karama (KISS)" in html and "<b>30</b> to draw" in html  # the public deck line on the bidding card


# -- naming at auction ------------------------------------------------------------------------------

@pytest.fixture()
def phones(client, app):
    t = create_table(client, THREE)
    set_phase(client, t, "bidding")
    return t, {f: join_seat(app, t.code, f) for f in THREE + ["board"]}


def test_after_a_purchase_only_the_buyers_phone_offers_to_name_it(client, phones):
    t, p = phones
    html = tap(p["atreides"], t, type="bid.buy", faction="atreides", price="2")
    box = prompt(html)
    assert box is not None and "Name the card you got" in box and "Keep it unnamed" in box
    # grouped by kind, weapons first; the KISS cards are not in the deck yet
    kinds = re.findall(r'<p class="name-card-kind">([^<]+)</p>', box)
    assert kinds == ["Weapons", "Defenses", "Cheap heroes", "Special", "Worthless"]
    assert 'value="Lasgun"' in box and 'value="Trip to Gamont"' in box and "(KISS)" not in box
    for other in ("harkonnen", "emperor"):
        assert prompt(view(p[other], t)) is None
    assert prompt(p["board"].get(f"/t/{t.code}/board/view").get_data(as_text=True)) is None
    # the public entry carries no name; one tap names the card, secretly
    html = tap(p["atreides"], t, type="cards.name", faction="atreides", card="Lasgun")
    assert prompt(html) is None
    s = host_state(client, t)
    assert s["factions"]["atreides"]["private"]["cards"] == ["Lasgun"] and s["factions"]["atreides"]["hand_size"] == 2
    assert "Lasgun" not in p["harkonnen"].get(f"/t/{t.code}/history").get_data(as_text=True)
    assert "Lasgun" not in p["harkonnen"].get(f"/api/tables/{t.code}/history").get_data(as_text=True)
    assert "Lasgun" not in view(p["harkonnen"], t)


def test_harkonnen_bonus_card_gives_two_prompts_and_keep_unnamed_dismisses_one(client, phones):
    t, p = phones
    html = tap(p["harkonnen"], t, type="bid.buy", faction="harkonnen", price="1")
    assert 'data-count="2"' in prompt(html) and "2 cards to name" in prompt(html)
    html = tap(p["harkonnen"], t, type="cards.name", faction="harkonnen", card="Chaumas")
    assert 'data-count="1"' in prompt(html)
    assert 'value="Chaumas" disabled' in prompt(html)  # the only Chaumas is in this hand now (kept in place)
    html = tap(p["harkonnen"], t, type="cards.keep_unnamed", faction="harkonnen")
    assert prompt(html) is None
    s = host_state(client, t)
    assert s["factions"]["harkonnen"]["hand_size"] == 4 and s["factions"]["harkonnen"]["private"]["cards"] == ["Chaumas"]
    # the card kept unnamed can still be named later, without a prompt
    ok(client, t, "host", type="cards.name", faction="harkonnen", card="Crysknife")


def test_naming_a_card_whose_copies_are_all_accounted_for_is_refused(client, phones):
    t, p = phones
    ok(client, t, "host", type="cards.discard", faction="atreides", card="Lasgun")
    ok(client, t, "host", type="bid.buy", faction="emperor", price=1)
    refused(client, t, "host", "kiss-treachery-deck", "already face up", type="cards.name", faction="emperor",
            card="Lasgun")
    refused(client, t, "host", "kiss-treachery-deck", "first reshuffle", type="cards.name", faction="emperor",
            card="Shield (KISS)")
    html = view(p["emperor"], t)
    assert 'value="Lasgun" disabled' in prompt(html) and 'value="Shield">' in prompt(html)


def test_buy_and_name_costs_one_extra_tap(client, phones):
    """The purchase is one tap (price picked on the stepper, then 'Bought a card'); naming is one
    more tap on the card's own button: no typing, no menu."""
    t, p = phones
    html = view(p["emperor"], t)
    assert 'value="bid.buy"' in html and "Bought a card" in html
    html = tap(p["emperor"], t, type="bid.buy", faction="emperor", price="1")  # tap 1
    m = re.search(r'<button type="submit" name="card" value="Snooper">', prompt(html))
    assert m  # a button of its own: tap 2 names it
    tap(p["emperor"], t, type="cards.name", faction="emperor", card="Snooper")
    assert host_state(client, t)["factions"]["emperor"]["private"]["cards"] == ["Snooper"]


# -- discards and played cards ------------------------------------------------------------------

def test_discard_a_named_or_an_unnamed_card(client):
    t = create_table(client, FACTIONS)
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Baliset"])  # 2 cards, one named
    ok(client, t, type="hand.set", faction="harkonnen", size=2)
    s = ok(client, t, "harkonnen", type="cards.discard", faction="harkonnen", card="baliset")
    assert s["factions"]["harkonnen"]["private"]["cards"] == [] and s["factions"]["harkonnen"]["hand_size"] == 1
    s = ok(client, t, "harkonnen", type="cards.discard", faction="harkonnen", card="Gom Jabbar")  # the unnamed one
    assert deck(s)["discard"] == ["Baliset", "Gom Jabbar"] and s["factions"]["harkonnen"]["hand_size"] == 0
    assert history(client, t, "atreides")[-1]["summary"] == "Harkonnen discard Gom Jabbar"  # face up
    refused(client, t, "harkonnen", "kiss-treachery-deck", "no cards", type="cards.discard", faction="harkonnen",
            card="Kulon")
    ok(client, t, type="cards.set", faction="atreides", cards=["Shield"])
    refused(client, t, "atreides", "kiss-treachery-deck", "no Snooper", type="cards.discard", faction="atreides",
            card="Snooper")
    refused(client, t, "atreides", "kiss-treachery-deck", "no Treachery card called", type="cards.discard",
            faction="atreides", card="Pocket Knife")
    # the one Gom Jabbar is face up already
    ok(client, t, type="hand.set", faction="emperor", size=1)
    refused(client, t, "emperor", "kiss-treachery-deck", "only Gom Jabbar", type="cards.discard", faction="emperor",
            card="Gom Jabbar")
    # nobody discards for another faction
    r = client.post(f"/api/tables/{t.code}/actions", json={"type": "cards.discard", "faction": "emperor",
                                                           "card": "Kulon", "revision": s["revision"]},
                    headers={"Authorization": f"Bearer {t.seats['atreides']}"})
    assert r.status_code == 403


def test_karama_plays_discard_a_karama(client):
    t = create_table(client, ["atreides", "harkonnen", "emperor", "bg"])
    set_phase(client, t, "bidding")
    ok(client, t, type="cards.set", faction="atreides", cards=["Karama"])
    s = ok(client, t, "atreides", type="bid.buy", faction="atreides", price=5, karama=True)
    assert deck(s)["discard"] == ["Karama"] and s["factions"]["atreides"]["private"]["cards"] == []
    assert s["factions"]["atreides"]["hand_size"] == 1 and spice(s, "atreides") == 10
    assert "Karama discarded" in history(client, t)[-1]["summary"]
    # the Special Karama is a Karama card: an unnamed one goes face up as "Karama"
    s = ok(client, t, "harkonnen", type="karama.special", faction="harkonnen")
    assert deck(s)["discard"] == ["Karama", "Karama"] and s["factions"]["harkonnen"]["hand_size"] == 1
    # a hand whose cards are all named, none a Karama: refused, unless the table overrides
    ok(client, t, type="cards.set", faction="emperor", cards=["Baliset"])
    refused(client, t, "emperor", "kiss-karama", "no Karama", type="karama.special", faction="emperor")


def test_bg_worthless_karama_discards_a_worthless_card(client):
    t = create_table(client, ["atreides", "bg", "emperor"])
    ok(client, t, type="hand.set", faction="bg", size=2)
    ok(client, t, type="cards.set", faction="bg", cards=["Shield", "Kulon"])
    s = ok(client, t, "bg", type="karama.worthless", faction="bg")
    assert deck(s)["discard"] == ["Kulon"] and s["factions"]["bg"]["private"]["cards"] == ["Shield"]


def test_family_atomics_and_weather_control_discard_their_card(client):
    t = create_table(client, FACTIONS)
    ok(client, t, type="forces.place", faction="atreides", territory="Imperial Basin", sector=9, forces=2)
    ok(client, t, type="cards.set", faction="atreides", cards=["Family Atomics"])
    ok(client, t, type="storm.draw", card=3, override=True, reason="drawn at the table")  # the storm's movement is known, the storm not moved yet
    s = ok(client, t, "atreides", type="atomics.family", faction="atreides")
    assert deck(s)["discard"] == ["Family Atomics"] and s["factions"]["atreides"]["hand_size"] == 0
    s = ok(client, t, type="storm.move", sectors=4, weather_control=True, faction="emperor")
    assert deck(s)["discard"] == ["Family Atomics", "Weather Control"] and s["factions"]["emperor"]["hand_size"] == 0


def test_hajr_gives_an_extra_move_and_is_discarded(client):
    t = create_table(client, THREE)
    set_phase(client, t, "shipment_movement")
    from table_helpers import its_turn
    its_turn(client, t, "harkonnen")
    ok(client, t, "harkonnen", type="move", faction="harkonnen", **{"from": "Carthag"}, to="Tsimpo", to_sector=10,
       forces=2)
    refused(client, t, "harkonnen", "base-movement", "already moved", type="move", faction="harkonnen",
            **{"from": "Carthag"}, to="Tsimpo", to_sector=10, forces=2)
    s = ok(client, t, "harkonnen", type="move", faction="harkonnen", **{"from": "Carthag"}, to="Tsimpo", to_sector=10,
           forces=2, hajr=True)
    assert deck(s)["discard"] == ["Hajr"] and s["factions"]["harkonnen"]["hand_size"] == 1


def test_tleilaxu_ghola_revives_for_free_and_is_discarded(client):
    t = create_table(client, THREE)
    ok(client, t, type="forces.remove", faction="atreides", territory="Arrakeen", forces=6, to="tanks")
    ok(client, t, type="leader.tanks", faction="atreides", leader="Duncan Idaho")
    ok(client, t, type="cards.set", faction="atreides", cards=["Tleilaxu Ghola"])
    before = host_state(client, t)
    refused(client, t, "atreides", "base-revival", "at most 5", type="cards.ghola", faction="atreides", forces=4, starred=2)
    refused(client, t, "atreides", "base-revival", "say which", type="cards.ghola", faction="atreides")
    s = ok(client, t, "atreides", type="cards.ghola", faction="atreides", forces=5)
    assert s["factions"]["atreides"]["tanks"]["forces"] == 1 and spice(s, "atreides") == spice(before, "atreides")
    assert deck(s)["discard"] == ["Tleilaxu Ghola"] and s["factions"]["atreides"]["hand_size"] == 0
    undo(client, t.code, t.host)
    ok(client, t, type="hand.set", faction="atreides", size=1)
    s = ok(client, t, "atreides", type="cards.ghola", faction="atreides", leader="Duncan Idaho")
    assert next(ld for ld in s["factions"]["atreides"]["leaders"] if ld["name"] == "Duncan Idaho")["status"] == "alive"


def test_my_cards_lists_the_hand_and_discards_with_a_tap(client, app):
    t = create_table(client, THREE)
    ok(client, t, type="hand.set", faction="atreides", size=3)
    ok(client, t, type="cards.set", faction="atreides", cards=["Truthtrance", "Shield"])
    ok(client, t, type="hand.set", faction="atreides", size=3)
    phone = join_seat(app, t.code, "atreides")
    html = view(phone, t)
    box = html[html.index('id="hand-cards"'):]
    box = box[:box.index("</details>")]
    assert "My cards: Truthtrance, Shield (+1 unnamed)" in box
    assert 'value="Truthtrance">Discard Truthtrance' in box and "Lasgun" not in box  # no list of every card
    html = tap(phone, t, type="cards.discard", faction="atreides", card="Truthtrance")
    assert "My cards: Shield (+1 unnamed)" in html
    tap(phone, t, type="cards.discard", faction="atreides", card="Gom Jabbar")  # the unnamed one, by name
    s = host_state(client, t)
    assert deck(s)["discard"] == ["Truthtrance", "Gom Jabbar"] and s["factions"]["atreides"]["hand_size"] == 1
    other = join_seat(app, t.code, "harkonnen")
    assert "My cards: Shield" not in view(other, t)  # the hand is private; the discard pile public
    assert other.get(f"/api/tables/{t.code}/state").get_json()["treachery_deck"]["discard"] == ["Truthtrance", "Gom Jabbar"]


def test_correcting_the_hand_never_leaves_more_prompts_than_unnamed_cards(client):
    t = create_table(client, THREE)
    set_phase(client, t, "bidding")
    ok(client, t, "emperor", type="bid.buy", faction="emperor", price=1)
    s = ok(client, t, "emperor", type="cards.set", faction="emperor", cards=["Kulon", "Shield"])
    assert s["factions"]["emperor"]["private"]["to_name"] == 0 and s["name_card"] is None
    ok(client, t, type="hand.set", faction="emperor", size=3)
    assert host_state(client, t)["factions"]["emperor"]["private"]["to_name"] == 0


# -- cards given by tokens ---------------------------------------------------------------------------

def test_treachery_card_stash_gives_an_unnamed_card_to_name(client, app):
    from test_discovery import reveal_token
    t = create_table(client, THREE)
    before = deck(host_state(client, t))["draw"]
    r = reveal_token(client, t, "Funeral Plain", "Treachery Card Stash", "harkonnen", "Pasty Mesa", 6)
    assert r.status_code == 200, r.get_data(as_text=True)
    s = host_state(client, t)
    assert s["factions"]["harkonnen"]["hand_size"] == 3 and deck(s)["draw"] == before - 1
    assert s["factions"]["harkonnen"]["private"]["to_name"] == 1  # its phone offers to name it
    phone = join_seat(app, t.code, "harkonnen")
    assert prompt(view(phone, t)) is not None
    assert prompt(view(join_seat(app, t.code, "atreides"), t)) is None


def test_robbery_takes_the_top_card_even_into_a_full_hand(client):
    t = create_table(client, ["atreides", "moritani", "ecaz"])
    set_phase(client, t, "mentat_pause")
    ok(client, t, "moritani", type="terror.place", faction="moritani", territory="Arrakeen", token="Robbery")
    ok(client, t, "moritani", type="terror.place", faction="moritani", territory="Carthag", token="Sabotage")
    limit = host_state(client, t)["factions"]["moritani"]["hand_limit"]
    ok(client, t, type="hand.set", faction="moritani", size=limit)
    refused(client, t, "moritani", "moritani-terror-tokens", "Only Robbery", type="terror.reveal", faction="moritani",
            territory="Carthag", take_card=True)
    s = ok(client, t, "moritani", type="terror.reveal", faction="moritani", territory="Arrakeen", take_card=True)
    assert s["factions"]["moritani"]["hand_size"] == limit + 1  # over the limit: Moritani discard one
    assert s["name_card"]["count"] == 1 and s["name_card"]["over_limit"] == 1
    assert "take the top Treachery card" in history(client, t, "atreides")[-1]["summary"]


def test_ixian_and_richese_ambassadors_draw_a_card(client):
    t = create_table(client, ["atreides", "moritani", "ecaz"])
    ok(client, t, "ecaz", type="ambassadors.set", faction="ecaz", ambassadors=["Ixian", "Richese", "Atreides"])
    set_phase(client, t, "revival")
    ok(client, t, "ecaz", type="ambassador.place", faction="ecaz", territory="Arrakeen", ambassador="Ixian")
    ok(client, t, "ecaz", type="ambassador.place", faction="ecaz", territory="Carthag", ambassador="Richese")
    ok(client, t, "ecaz", type="ambassador.place", faction="ecaz", territory="Sietch Tabr", ambassador="Atreides")
    before = host_state(client, t)
    refused(client, t, "ecaz", "ecaz-ambassadors", "say which one", type="ambassador.trigger", territory="Arrakeen",
            take_card=True)
    s = ok(client, t, "ecaz", type="ambassador.trigger", territory="Arrakeen", take_card=True, discard="Kulon")
    assert deck(s)["discard"] == ["Kulon"] and s["factions"]["ecaz"]["hand_size"] == 1
    assert s["factions"]["ecaz"]["private"]["to_name"] == 1
    s = ok(client, t, "ecaz", type="ambassador.trigger", territory="Carthag", take_card=True)
    assert s["factions"]["ecaz"]["hand_size"] == 2 and spice(s, "ecaz") == spice(before, "ecaz") - 3
    refused(client, t, "ecaz", "ecaz-ambassadors", "gives no Treachery card", type="ambassador.trigger",
            territory="Sietch Tabr", take_card=True)


def test_shipping_with_a_karama_discards_it(client):
    t = create_table(client, THREE + ["guild"])
    set_phase(client, t, "shipment_movement", turn=2)
    from table_helpers import its_turn
    its_turn(client, t, "harkonnen")
    s = ok(client, t, "harkonnen", type="ship", faction="harkonnen", to="Arrakeen", forces=2, karama=True)
    assert deck(s)["discard"] == ["Karama"] and s["factions"]["harkonnen"]["hand_size"] == 1


# -- secrets: no card name one seat holds reaches another seat ----------------------------------------
#
# Each faction names cards from its own pool (real card names, so the rules accept them); a name of
# another faction's pool may appear on a seat's page only when it is public (face up in the discard
# pile, or named in a public discard entry), or inside that seat's own "Name the card you got"
# prompt, which must then list it like every card not accounted for by what that seat knows.

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from conftest import bearer  # noqa: E402

POOLS = {"atreides": ["Crysknife", "Maula Pistol", "Slip Tip"],
         "harkonnen": ["Chaumurky", "Ellaca Drug", "Gom Jabbar"],
         "emperor": ["Jubba Cloak", "Trip to Gamont", "La La La"]}


@pytest.fixture(scope="module")
def cards_app(tmp_path_factory):
    from companion import create_app
    return create_app({"DATA_DIR": str(tmp_path_factory.mktemp("cards")), "TESTING": True})


who = st.sampled_from(THREE)
card_step = st.one_of(
    st.builds(lambda a, f: (a or f, {"type": "bid.buy", "faction": f, "price": 0}), st.sampled_from([None, "host"]), who),
    st.builds(lambda f, i: (f, {"type": "cards.name", "faction": f, "card": POOLS[f][i]}), who, st.integers(0, 2)),
    st.builds(lambda f, i: (f, {"type": "cards.name", "faction": f, "card": POOLS[f][i]}), who, st.integers(0, 2)),
    st.builds(lambda f: (f, {"type": "cards.keep_unnamed", "faction": f}), who),
    st.builds(lambda f, i: (f, {"type": "cards.discard", "faction": f, "card": POOLS[f][i]}), who, st.integers(0, 2)),
    st.builds(lambda a, f, i: (a, {"type": "cards.name", "faction": f, "card": POOLS[f][i]}), who, who,
              st.integers(0, 2)),  # a seat trying to name another's card: forbidden, and must not leak
    st.just(("host", {"type": "undo"})),
)


def _strip_prompt(html: str) -> tuple[str, str | None]:
    """The page without the seat's own naming prompt, and the prompt. (The Atreides' "card up for
    auction" buttons list every card name too, as the prompt does: not a leak either.)"""
    html = re.sub(r'<div class="name-card card-seen" id="card-seen">.*?<!-- /card-seen -->', "", html, flags=re.S)
    box = prompt(html)
    if box is None:
        return html, None
    start = html.index(box)
    return html[:start] + html[start + len(box):], box


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(steps=st.lists(card_step, min_size=1, max_size=6))
def test_no_seat_sees_a_card_name_another_seat_holds(cards_app, steps):
    api = cards_app.test_client()
    t = create_table(api, THREE)
    set_phase(api, t, "bidding")
    phones = {}
    for f in THREE + ["board"]:
        c = cards_app.test_client()
        token = t.seats[f] if f != "board" else cards_app.extensions["tables"].spectator_token(t.code)
        c.set_cookie(f"seat_{t.code}", token)
        phones[f] = c
    public: set[str] = set()  # names that went face up at some point (a public discard entry)
    for actor, entry in steps:
        token = t.host if actor == "host" else t.seats[actor]
        if entry["type"] == "undo":
            api.post(f"/api/tables/{t.code}/undo", json={}, headers=bearer(token))
        else:
            rev = api.get(f"/api/tables/{t.code}/state", headers=bearer(t.host)).get_json()["revision"]
            r = api.post(f"/api/tables/{t.code}/actions", json={**entry, "revision": rev}, headers=bearer(token))
            assert r.status_code in ((200, 422) if actor in ("host", entry["faction"]) else (403,)), r.get_data(as_text=True)
            if r.status_code == 200 and entry["type"] == "cards.discard":
                public.add(entry["card"])
            if actor not in ("host", entry["faction"]) and "card" in entry:
                assert entry["card"] not in r.get_data(as_text=True)
        host = api.get(f"/api/tables/{t.code}/state", headers=bearer(t.host)).get_json()
        discard = host["treachery_deck"]["discard"]
        secret = {f: set(host["factions"][f]["private"]["cards"]) - public for f in THREE}
        for viewer in THREE + ["board"]:
            phone = phones[viewer]
            s = phone.get(f"/api/tables/{t.code}/state").get_json()
            own_prompt = s.pop("name_card", None)
            texts = {"state JSON": json.dumps(s),
                     "history JSON": phone.get(f"/api/tables/{t.code}/history").get_data(as_text=True),
                     "history page": phone.get(f"/t/{t.code}/history").get_data(as_text=True)}
            html, box = _strip_prompt(phone.get(f"/t/{t.code}/view").get_data(as_text=True))
            texts["view HTML"] = html
            for other in THREE:
                if other == viewer:
                    continue
                for n in secret[other]:
                    for where, text in texts.items():
                        assert n not in text, f"{viewer} sees {other}'s {n} in {where}"
            # the prompt: only on the seat's own phone, and it lists every card that seat cannot
            # account for (so its absence never tells which card another seat holds)
            if viewer == "board":
                assert box is None and own_prompt is None
                continue
            mine = host["factions"][viewer]["private"]
            if box is not None:
                assert own_prompt is not None and mine.get("to_name")
                held = set(mine["cards"])
                for other in THREE:
                    for n in POOLS[other]:
                        if n not in discard and n not in held:
                            assert f'value="{n}">' in box, (viewer, n)  # offered, not disabled


def test_the_prompt_lasts_for_the_phase_the_card_came_in(client, phones):
    t, p = phones
    tap(p["emperor"], t, type="bid.buy", faction="emperor", price="1")
    assert prompt(view(p["emperor"], t)) is not None
    ok(client, t, "host", type="phase.set", turn=1, phase="revival")
    assert prompt(view(p["emperor"], t)) is None  # the card stays unnamed; My secrets can still name it
    assert host_state(client, t)["factions"]["emperor"]["hand_size"] == 2


def test_family_atomics_only_once_the_storm_move_is_known_and_before_it_moves(client):
    """base-family-atomics, the card: "after the Storm movement is calculated, but before the Storm is
    moved", by a faction with forces on the Shield Wall or next to it (overridable)."""
    t = create_table(client, FACTIONS)
    ok(client, t, type="forces.place", faction="atreides", territory="Imperial Basin", sector=9, forces=2)
    ok(client, t, type="cards.set", faction="atreides", cards=["Family Atomics"])
    refused(client, t, "atreides", "base-family-atomics", "movement is known", type="atomics.family",
            faction="atreides")
    ok(client, t, type="storm.draw", card=2, override=True, reason="drawn at the table")
    ok(client, t, type="storm.move", sectors=2)
    refused(client, t, "atreides", "base-family-atomics", "before the storm moves", type="atomics.family",
            faction="atreides")
    ok(client, t, "atreides", type="atomics.family", faction="atreides", override=True, reason="played in time")
