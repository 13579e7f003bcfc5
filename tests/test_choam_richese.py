"""CHOAM and Richese as add-on factions (issue 15), table-driven from shared/seeds/choam-richese.txt.

Each test plays what a table would do through the JSON API and checks what the players see."""
from __future__ import annotations

import json

import pytest

from conftest import bearer, create_table
from table_helpers import get, history, host_state, its_turn, ok, refused, set_phase, spice, stack

from companion.games.dune.rules import choam as C
from companion.games.dune.rules import richese as R
from companion.games.dune.rules.economy import check_revival, hand_limit

ADDON = ["atreides", "harkonnen", "emperor", "guild", "choam", "richese"]


@pytest.fixture
def t(client):
    return create_table(client, ADDON)


def seats_state(client, t, who):
    return host_state(client, t) if who == "host" else get(client, t, who, "state")


# -- seats and setup -----------------------------------------------------------------------------

def test_create_eleven_factions_with_addon_options(client):
    every = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu",
             "choam", "richese"]
    t = create_table(client, every, options={"advanced": True, "leader_skills": True, "stronghold_cards": True})
    s = host_state(client, t)
    assert s["factions_present"] == every
    assert len(set(s["player_dots"].values())) == 11  # spread dots, one each
    ch, ri = s["factions"]["choam"], s["factions"]["richese"]
    assert (ch["spice"], ch["hand_limit"], ch["reserves"]["forces"]) == (2, 5, 20)
    assert (ri["spice"], ri["hand_limit"], ri["reserves"]["forces"]) == (5, 4, 20)
    assert [ld["name"] for ld in ch["leaders"]][-1] == "The Auditor"
    assert s["options"]["advanced"] is True and s["options"]["leader_skills"] is True
    assert len(ri["cache"]) == 10


def test_basic_play_has_no_auditor_and_options_default_false(client, t):
    s = host_state(client, t)
    assert "The Auditor" not in {ld["name"] for ld in s["factions"]["choam"]["leaders"]}
    assert {k: s["options"][k] for k in ("advanced", "leader_skills", "stronghold_cards")} == \
        {"advanced": False, "leader_skills": False, "stronghold_cards": False}
    # another seat sees CHOAM like every faction: leaders and reserves, spice behind the shield hidden
    other = get(client, t, "atreides", "state")
    assert other["factions"]["choam"]["spice"] is None and len(other["factions"]["choam"]["leaders"]) == 5


@pytest.mark.parametrize("options,needle", [
    ({"advanced": "yes"}, "options.advanced"),
    ({"leader_skills": 1}, "options.leader_skills"),
    ({"stronghold_cards": True}, "Advanced"),
])
def test_addon_options_are_strict_booleans(client, options, needle):
    r = client.post("/api/tables", json={"factions": ["choam", "richese"], "options": options})
    assert r.status_code == 422 and needle in r.get_json()["error"]["message"]


def test_start_page_offers_the_addon_marked_not_kiss(client):
    html = client.get("/").get_data(as_text=True)
    block = html.split('id="addon-factions"', 1)[1]
    assert "not KISS" in block and 'value="choam"' in block and 'value="richese"' in block
    assert 'value="choam"' not in html.split('id="addon-factions"', 1)[0]


# -- pure rules from the seed ---------------------------------------------------------------------

@pytest.mark.parametrize("buyer,present,payee", [
    ("atreides", ADDON, "richese"), ("richese", ADDON, "emperor"), ("richese", ["richese", "choam"], "bank"),
])
def test_cache_payee(buyer, present, payee):
    assert R.cache_payee(buyer, present) == payee


@pytest.mark.parametrize("bids,order,winner", [
    ({"atreides": 3, "guild": 3, "choam": 1}, ["guild", "atreides", "choam"], ("guild", 3)),
    ({"atreides": 3, "guild": 3}, ["atreides", "guild"], ("atreides", 3)),
    ({"atreides": 0, "guild": 0}, ["atreides", "guild"], (None, 0)),
    ({"atreides": 0, "guild": 4}, ["atreides", "guild"], ("guild", 4)),
])
def test_silent_auction_largest_wins_ties_by_storm_order(bids, order, winner):
    assert R.silent_winner(bids, order) == winner


def test_once_around_starts_next_to_richese_and_ends_with_it():
    seats = ["atreides", "richese", "guild", "choam"]
    assert R.once_around_order(seats, seats, clockwise=True) == ["guild", "choam", "atreides", "richese"]
    assert R.once_around_order(seats, seats, clockwise=False) == ["atreides", "choam", "guild", "richese"]
    assert R.once_around_order(seats, ["atreides", "richese"]) == ["atreides", "richese"]  # full hands out


@pytest.mark.parametrize("token,on_planet,last,ok_", [
    (3, None, None, True), (3, None, 3, False), (5, 0, None, False), (0, None, 5, True),
])
def test_nofield_shipping_limits(token, on_planet, last, ok_):
    from companion.games.dune.rules.errors import RuleViolation
    if ok_:
        R.check_nofield_ship(token, on_planet=on_planet, last_used=last)
    else:
        with pytest.raises(RuleViolation):
            R.check_nofield_ship(token, on_planet=on_planet, last_used=last)


@pytest.mark.parametrize("token,reserves,other,dial_max", [(5, 20, 0, 5), (5, 2, 1, 3), (0, 20, 2, 2), (3, 0, 0, 0)])
def test_nofield_dial_cap(token, reserves, other, dial_max):
    assert R.max_dial(token, reserves, other) == dial_max


@pytest.mark.parametrize("placed,side,turn,expect", [
    (2, "double", 3, "double"), (2, "double", 4, "cancel"), (2, "double", 5, None), (2, "cancel", 4, "double"),
    (2, "cancel", 2, None),
])
def test_inflation_one_side_then_the_other_then_gone(placed, side, turn, expect):
    assert C.inflation_side({"placed_turn": placed, "side": side}, turn) == expect


def test_double_bars_bribes_from_placement():
    inf = {"placed_turn": 2, "side": "double"}
    assert C.double_face_up(inf, 2, "mentat_pause") and C.double_face_up(inf, 3, "bidding")
    assert not C.double_face_up(inf, 4, "bidding")
    assert C.double_face_up({"placed_turn": 2, "side": "cancel"}, 3, "mentat_pause")


@pytest.mark.parametrize("hand,card,value", [
    (["Snooper", "Snooper"], "Snooper", 3), (["Baliset"], "Baliset", 2), (["Snooper", "Portable Snooper"], None, 0),
])
def test_choam_discards(hand, card, value):
    from companion.games.dune.rules.errors import RuleViolation
    if card:
        assert C.discard_value(card, hand) == value
    else:
        assert C.duplicates(hand) == {}
        with pytest.raises(RuleViolation):
            C.discard_value("Snooper", hand)


def test_choam_economy_numbers():
    assert hand_limit("choam") == 5 and hand_limit("richese") == 4
    assert check_revival("choam", 2, 7, spice=10).cost == 7  # no cap, 1 each, none free
    assert check_revival("richese", 2, 3, spice=10).cost == 2  # 2 free, then 2 each
    assert C.special_charity(6) == 12 and C.special_charity(6, "double") == 24 and C.special_charity(6, "cancel") == 0
    assert C.support_income(5) == 2 and C.support_income(5, traitor_revealed=True) == 0
    assert C.audit_cards(True, 1) == 1 and C.audit_cards(False, 4) == 1 and C.audit_cards(True, 4) == 2


# -- the table: CHOAM charity ---------------------------------------------------------------------

def test_choam_charity_first_from_the_bank_then_pays_the_others(client, t):
    set_phase(client, t, "charity")
    ok(client, t, type="spice.set", faction="atreides", amount=0)
    refused(client, t, "atreides", "choam-charity", "before", type="charity.claim", faction="atreides")
    s = ok(client, t, "choam", type="charity.claim", faction="choam")
    assert spice(s, "choam") == 2 + 2 * 6
    ok(client, t, "atreides", type="charity.claim", faction="atreides")
    s = host_state(client, t)
    assert spice(s, "atreides") == 2 and spice(s, "choam") == 14 - 2


def test_inflation_placed_at_mentat_pause_doubles_then_cancels(client, t):
    set_phase(client, t, "mentat_pause")
    ok(client, t, "choam", type="inflation.place", faction="choam", side="double")
    refused(client, t, "choam", "choam-inflation", "placed once", type="inflation.place", faction="choam",
            side="cancel")
    set_phase(client, t, "charity", turn=2)
    s = ok(client, t, "choam", type="charity.claim", faction="choam")
    assert spice(s, "choam") == 2 + 24
    set_phase(client, t, "charity", turn=3)
    refused(client, t, "choam", "choam-inflation", "Cancel", type="charity.claim", faction="choam")


# -- the table: the cache auction ------------------------------------------------------------------

def test_once_around_cache_auction_pays_richese(client, t):
    set_phase(client, t, "bidding")
    s = ok(client, t, "richese", type="cache.announce", card="Distrans", when="first", method="once_around")
    a = s["cache_auction"]
    assert a["card"] == "Distrans" and a["order"][-1] == "richese" and "Distrans" not in s["factions"]["richese"]["cache"]
    ok(client, t, "host", type="spice.set", faction="harkonnen", amount=10)
    for f in a["order"][:-1]:
        if f == "harkonnen":
            ok(client, t, f, type="cache.bid", faction=f, amount=4)
        else:
            ok(client, t, f, type="cache.bid", faction=f)
    s = ok(client, t, "richese", type="cache.bid", faction="richese")
    assert s["cache_auction"]["winner"] == "harkonnen" and s["cache_auction"]["price"] == 4
    assert spice(s, "richese") == 5 + 4
    assert s["factions"]["harkonnen"]["hand_size"] == 4  # 2 at start + the card + the free extra one


def test_karama_cannot_buy_a_cache_card(client, t):
    set_phase(client, t, "bidding")
    s = ok(client, t, "richese", type="cache.announce", card="Karama", when="last", method="once_around")
    first = s["cache_auction"]["order"][0]
    refused(client, t, first, "richese-cache-auction", "karama", type="cache.bid", faction=first, amount=1,
            karama=True)


def test_silent_auction_bids_stay_sealed_until_all_are_in(client, t):
    set_phase(client, t, "bidding")
    s = ok(client, t, "richese", type="cache.announce", card="Nullentropy", when="first", method="silent")
    order = s["cache_auction"]["order"]
    assert set(order) == set(ADDON)
    ok(client, t, "host", type="spice.set", faction="guild", amount=9)
    bids = {f: 0 for f in order}
    bids["guild"] = 7
    for f in order[:-1]:
        s = ok(client, t, f, type="cache.silent_bid", faction=f, amount=bids[f])
        assert s["cache_auction"]["bids"] is None and s["cache_auction"]["status"] == "open"
        # another seat sees who has bid, never how much
        peek = get(client, t, "atreides" if f != "atreides" else "choam", "state")
        assert peek["factions"][f].get("private") is None
        assert peek["cache_auction"]["bids"] is None and f in peek["cache_auction"]["bids_in"]
    s = ok(client, t, order[-1], type="cache.silent_bid", faction=order[-1], amount=bids[order[-1]])
    a = s["cache_auction"]
    assert a["bids"] == bids and a["winner"] == "guild" and a["price"] == 7
    assert spice(host_state(client, t), "richese") == 5 + 7


# -- the table: No-Field ---------------------------------------------------------------------------

def test_nofield_ship_is_a_marker_for_others_and_a_number_for_richese(client, t):
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=5)
    mine = get(client, t, "richese", "state")["board"]["territories"]["The Great Flat"]["forces"]["richese"]
    theirs = get(client, t, "atreides", "state")["board"]["territories"]["The Great Flat"]["forces"]["richese"]
    host = host_state(client, t)["board"]["territories"]["The Great Flat"]["forces"]["richese"]
    assert mine["nofield"] is True and mine["nofield_token"] == 5 and host["nofield_token"] == 5
    assert theirs["nofield"] is True and "nofield_token" not in theirs
    assert spice(get(client, t, "richese", "state"), "richese") == 5 - 2  # one force to a sand territory
    # one on the planet at a time
    refused(client, t, "richese", "richese-no-field", "one No-Field", type="nofield.ship", faction="richese",
            territory="Arrakeen", token=3)


def test_a_board_worked_out_once_for_every_seat_keeps_the_no_field_number_to_richese(client, t):
    """The pages read views that share one board per published state (views.shared_board_view):
    the seats that see the same board share it, Richese (and the host) get the one with the number."""
    from companion.games.dune.views import view_for
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=5)
    state = client.application.extensions["tables"].table(t.code).state
    views = {who: view_for(state, who, shared=True) for who in ("atreides", "guild", "board", "richese", "host")}
    flat = {who: v["board"]["territories"]["The Great Flat"]["forces"]["richese"] for who, v in views.items()}
    for who in ("atreides", "guild", "board"):
        assert flat[who]["nofield"] is True and "nofield_token" not in flat[who], who
    assert flat["richese"]["nofield_token"] == 5 and flat["host"]["nofield_token"] == 5
    assert views["atreides"]["board"] is views["guild"]["board"] is views["board"]["board"]  # worked out once
    assert views["richese"]["board"] is not views["atreides"]["board"]
    assert view_for(state, "atreides", shared=True)["board"] is views["atreides"]["board"]
    # a view the caller may change is its own deep copy, never the shared board
    own = view_for(state, "atreides")
    assert own["board"] == views["atreides"]["board"] and own["board"] is not views["atreides"]["board"]
    # the next entry publishes a new state: its board is worked out again, and when it is as it was
    # (spice behind a shield) it is that same board; Richese's own stays its own
    ok(client, t, "atreides", type="spice.set", faction="atreides", amount=3)
    later = client.application.extensions["tables"].table(t.code).state
    assert later is not state and view_for(later, "guild", shared=True)["board"] is views["guild"]["board"]
    assert view_for(later, "richese", shared=True)["board"] is views["richese"]["board"]
    s = ok(client, t, "richese", type="nofield.reveal", faction="richese")
    revealed = client.application.extensions["tables"].table(t.code).state
    new_board = view_for(revealed, "guild", shared=True)["board"]
    assert new_board is not views["guild"]["board"] and new_board != views["guild"]["board"]  # a new board
    assert new_board == view_for(revealed, "guild")["board"]
    assert stack(s, "The Great Flat", "richese")["forces"] == 5
    assert s["factions"]["richese"]["reserves"]["forces"] == 15
    assert s["factions"]["richese"]["nofield_faceup"] == 5


def test_nofield_counts_as_one_force_for_occupancy(client, t):
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="Tuek's Sietch", token=0)
    s = host_state(client, t)
    # Tuek's Sietch already holds the Guild; the token makes two: a third faction cannot enter
    assert set(s["board"]["territories"]["Tuek's Sietch"]["forces"]) == {"guild", "richese"}
    from companion.games.dune.state import occupants
    svc = client.application.extensions["tables"]
    assert occupants(svc.table(t.code).state)["Tuek's Sietch"]["richese"] == 1


def test_nofield_storm_destroys_reserves(client, t):
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=3)
    s = ok(client, t, "host", type="nofield.reveal", faction="richese", cause="storm")
    assert s["factions"]["richese"]["tanks"]["forces"] == 3 and s["factions"]["richese"]["reserves"]["forces"] == 17
    assert "richese" not in s["board"]["territories"].get("The Great Flat", {}).get("forces", {})


def test_nofield_number_never_in_another_seats_history_or_view(client, t):
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=3)
    for who in ("atreides", "choam", "guild"):
        text = json.dumps(get(client, t, who, "state")) + json.dumps(history(client, t, who))
        assert '"token": 3' not in text and "nofield_token" not in text
        r = client.get(f"/t/{t.code}/view", headers=bearer(t.token(who)))
        if r.status_code == 200:
            assert "nofield_token" not in r.get_data(as_text=True)
    assert '"token": 3' in json.dumps(history(client, t, "richese"))


def test_nofield_moves_like_a_force(client, t):
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=5)
    s = ok(client, t, "richese", type="nofield.move", faction="richese", to="Funeral Plain")
    assert s["board"]["territories"]["Funeral Plain"]["forces"]["richese"]["nofield"] is True
    assert "The Great Flat" not in s["board"]["territories"]
    refused(client, t, "richese", "base-movement", "already moved", type="nofield.move", faction="richese",
            to="The Great Flat")


def test_nofield_battle_dial_capped_and_revealed_with_the_plans(client, t):
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=3)
    ok(client, t, type="forces.place", faction="atreides", territory="The Great Flat", forces=4)
    set_phase(client, t, "battle")
    assert any(b["territory"] == "The Great Flat" for b in get(client, t, "atreides", "battles")["implied"])
    s = ok(client, t, "atreides", type="battle.open", territory="The Great Flat", aggressor="atreides",
           opponent="richese", override=True, reason="the table lets this aggressor attack first")
    bid = s["battles"][-1]["id"]
    refused(client, t, "richese", "richese-no-field", "cannot dial 4", type="battle.plan", battle=bid, faction="richese",
            leader="Lady Helena", forces=4)
    ok(client, t, "richese", type="battle.plan", battle=bid, faction="richese", leader="Lady Helena", forces=3)
    before = get(client, t, "atreides", "state")
    assert "nofield_token" not in json.dumps(before)  # still secret while the plans are sealed
    ok(client, t, "atreides", type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=2)
    s = ok(client, t, "atreides", type="battle.reveal", battle=bid)
    assert stack(s, "The Great Flat", "richese")["forces"] == 3
    assert s["factions"]["richese"]["nofield_faceup"] == 3 and s["board"]["territories"]["The Great Flat"][
        "forces"]["richese"].get("nofield") is None
    assert s["battles"][-1]["plans"]["richese"]["forces"] == 3


def test_choam_revives_any_number_at_one_spice(client, t):
    ok(client, t, type="spice.set", faction="choam", amount=10)
    ok(client, t, type="forces.place", faction="choam", territory="The Great Flat", forces=8)
    ok(client, t, type="forces.remove", faction="choam", territory="The Great Flat", forces=8, to="tanks")
    set_phase(client, t, "revival")
    s = ok(client, t, "choam", type="revive", faction="choam", forces=6)
    assert spice(s, "choam") == 4 and s["factions"]["choam"]["reserves"]["forces"] == 18


def test_richese_in_tueks_sietch_blocks_the_fremen_special_victory():
    from companion.games.dune.rules.victory import TUEKS_BLOCKERS
    assert "richese" in TUEKS_BLOCKERS


def test_karama_api_lists_the_addon_vulnerabilities(client):
    r = client.get("/api/karama", query_string={"player": "atreides", "factions": "atreides,choam,richese",
                                                "phase": "bidding"})
    assert r.status_code == 200, r.get_data(as_text=True)
    ids = [o["id"] for o in r.get_json()["options"] if o["applies_now"]]
    assert "richese-cache-auction" in ids and "choam-charity" not in ids


def test_phase_card_waits_for_choam_charity_and_the_cache_card(client, t):
    set_phase(client, t, "charity")
    steps = host_state(client, t)["phase_steps"]
    assert any("choam" in x["factions"] for x in steps)
    set_phase(client, t, "bidding")
    steps = host_state(client, t)["phase_steps"]
    assert steps[0]["id"] == "cache-auction" and steps[0]["factions"] == ["richese"] and not steps[0]["done"]


def test_silent_auction_on_the_phone_pages(app, client, t):
    """Each phone gets a sealed-bid form; after its bid it sees its own amount, others only a tick."""
    from conftest import join_seat
    set_phase(client, t, "bidding")
    ok(client, t, "richese", type="cache.announce", card="Stone Burner", when="first", method="silent")
    ok(client, t, "guild", type="cache.silent_bid", faction="guild", amount=3)
    guild = join_seat(app, t.code, "guild")
    atreides = join_seat(app, t.code, "atreides")
    g = guild.get(f"/t/{t.code}/view").get_data(as_text=True)
    a = atreides.get(f"/t/{t.code}/view").get_data(as_text=True)
    assert 'id="cache-bid-sealed"' in g and "sealed: 3" in g
    assert 'id="cache-bid-amount"' in a and "sealed: 3" not in a and "Stone Burner" in a


def test_a_turn_with_the_addon(client):
    """KISS factions plus CHOAM and Richese play one turn: CHOAM's charity, a cache auction, a
    No-Field shipped face down and revealed in battle; every hidden number private until revealed."""
    from table_helpers import skip_phase
    t = create_table(client, ["atreides", "harkonnen", "choam", "richese"])
    ok(client, t, type="phase.set", turn=2, phase="charity")
    ok(client, t, type="spice.set", faction="atreides", amount=1)
    ok(client, t, "choam", type="charity.claim", faction="choam")
    ok(client, t, "atreides", type="charity.claim", faction="atreides")
    s = host_state(client, t)
    assert (spice(s, "choam"), spice(s, "atreides")) == (2 + 8 - 1, 2)
    s = ok(client, t, type="phase.next")  # charity done: bidding
    assert s["phase"] == "bidding"
    s = ok(client, t, "richese", type="cache.announce", card="Mirror Weapon", when="first", method="once_around")
    for f in s["cache_auction"]["order"]:
        ok(client, t, f, type="cache.bid", faction=f, **({"amount": 2} if f == "atreides" else {}))
    s = host_state(client, t)
    assert s["cache_auction"]["winner"] == "atreides" and spice(s, "richese") == 7
    assert s["phase_steps"][0]["done"]
    skip_phase(client, t)  # the normal auction
    skip_phase(client, t)  # revival
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="Arrakeen", token=5)
    assert "nofield_token" not in json.dumps(get(client, t, "atreides", "state"))
    ok(client, t, "richese", type="turn.done", faction="richese")
    s = skip_phase(client, t)
    assert s["phase"] == "battle"
    s = ok(client, t, "atreides", type="battle.open", territory="Arrakeen", aggressor="atreides", opponent="richese", override=True, reason="the table lets this aggressor attack first")
    b = s["battles"][-1]["id"]
    ok(client, t, "richese", type="battle.plan", battle=b, faction="richese", leader="Talis Balt", forces=5)
    ok(client, t, "atreides", type="battle.plan", battle=b, faction="atreides", leader="Lady Jessica", forces=2)
    s = ok(client, t, "atreides", type="battle.reveal", battle=b)
    assert stack(s, "Arrakeen", "richese")["forces"] == 5
    assert "5" in s["last_revealed"]["marker"]


@pytest.mark.parametrize("advanced,traitor,income", [(True, False, 1), (False, False, 0), (True, True, 0)])
def test_choam_support_income_in_advanced_play(client, advanced, traitor, income):
    """Advanced: CHOAM takes half (rounded down) of the spice another faction pays for its forces."""
    t = create_table(client, ["atreides", "harkonnen", "choam"], options={"advanced": advanced})
    for f in ("atreides", "harkonnen"):
        ok(client, t, type="spice.set", faction=f, amount=10)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    set_phase(client, t, "battle")
    s = ok(client, t, "harkonnen", type="battle.open", territory="Arrakeen", aggressor="harkonnen",
           opponent="atreides", override=True, reason="the table lets this aggressor attack first")
    b = s["battles"][-1]["id"]
    ok(client, t, "harkonnen", type="battle.plan", battle=b, faction="harkonnen", leader="Feyd-Rautha", forces=5)
    ok(client, t, "atreides", type="battle.plan", battle=b, faction="atreides", leader="Duncan Idaho", forces=2)
    ok(client, t, "harkonnen", type="battle.reveal", battle=b)
    if traitor:
        ok(client, t, "atreides", type="battle.traitor", battle=b, faction="atreides")
    s = ok(client, t, "host", type="battle.apply", battle=b)
    paid = s["battles"][-1]["outcome"]["spice_paid"]
    assert sum(paid.values()) >= 3 or traitor
    assert spice(s, "choam") == 2 + (sum(v // 2 for v in paid.values()) if advanced and not traitor else 0)
    assert (spice(s, "choam") - 2 > 0) == bool(income)


def test_black_market_is_advanced_only_and_replaces_a_normal_card(client):
    basic = create_table(client, ADDON)
    set_phase(client, basic, "bidding")
    refused(client, basic, "richese", "richese-black-market", "Advanced", type="blackmarket.sell",
            faction="richese", buyer="atreides", price=3)
    t = create_table(client, ADDON, options={"advanced": True})
    set_phase(client, t, "bidding")
    before = host_state(client, t)["auction"]["cards"]
    s = ok(client, t, "richese", type="blackmarket.sell", faction="richese", buyer="atreides", price=3)
    assert s["auction"]["cards"] == before - 1
    assert (spice(s, "richese"), s["factions"]["richese"]["hand_size"], s["factions"]["atreides"]["hand_size"]) \
        == (8, 0, 2)


def test_the_storm_reveals_a_nofield_and_destroys_that_many_from_reserves(client, t):
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=5)
    ok(client, t, type="phase.set", turn=2, phase="storm")
    ok(client, t, type="storm.set", sector=12)
    s = ok(client, t, type="storm.move", sectors=3)  # over 13, 14, 15: The Great Flat is in 14
    ri = s["factions"]["richese"]
    assert (ri["reserves"]["forces"], ri["tanks"]["forces"], ri["nofield_faceup"]) == (15, 5, 5)
    assert "The Great Flat" not in s["board"]["territories"]
    assert "storm" in s["last_revealed"]["marker"]


def test_a_storm_elsewhere_leaves_the_nofield_hidden(client, t):
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=5)
    ok(client, t, type="phase.set", turn=2, phase="storm")
    ok(client, t, type="storm.set", sector=2)
    s = ok(client, t, type="storm.move", sectors=3)
    assert s["board"]["territories"]["The Great Flat"]["forces"]["richese"]["nofield"] is True
    assert s["factions"]["richese"]["tanks"]["forces"] == 0


def test_a_worm_reveals_a_nofield_and_destroys_that_many_from_reserves(client, t):
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=3)
    ok(client, t, type="phase.set", turn=2, phase="spice_blow")
    ok(client, t, type="storm.set", sector=2)
    ok(client, t, type="spice.blow", card="The Great Flat", pile="A")
    s = ok(client, t, type="spice.blow", card="Shai-Hulud", pile="A")
    ri = s["factions"]["richese"]
    assert (ri["reserves"]["forces"], ri["tanks"]["forces"], ri["nofield_faceup"]) == (17, 3, 3)
    assert "worm" in s["last_revealed"]["marker"]


def test_stronghold_cards_go_to_sole_occupants_at_the_mentat_pause(client):
    t = create_table(client, ADDON, options={"advanced": True, "stronghold_cards": True})
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=2)
    s = set_phase(client, t, "mentat_pause")
    holders = s["stronghold_cards"]["holders"]
    assert holders["Carthag"] == "harkonnen" and holders["Tuek's Sietch"] == "guild"
    assert holders["Arrakeen"] is None and holders["Sietch Tabr"] is None  # shared, empty: set aside
    basic = create_table(client, ADDON)
    assert "stronghold_cards" not in set_phase(client, basic, "mentat_pause")


def test_choam_sees_its_own_charity_on_its_phone(client, t):
    set_phase(client, t, "charity")
    assert get(client, t, "choam", "state")["my_charity"] == 12


def test_allied_nofield_shipment_places_the_allys_forces_at_once(client, t):
    ok(client, t, type="alliance.form", factions=["richese", "atreides"], override=True, reason="a Nexus")
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "atreides")
    s = ok(client, t, "richese", type="nofield.ally_ship", faction="richese", territory="The Great Flat", token=5,
           payer="ally")
    assert stack(s, "The Great Flat", "atreides")["forces"] == 5
    assert s["factions"]["richese"]["nofield_faceup"] == 5 and "nofield" not in json.dumps(s["board"])
    h = host_state(client, t)
    assert spice(h, "atreides") == 10 - 2 and spice(h, "guild") == 5 + 2
    refused(client, t, "richese", "richese-no-field", "twice", type="nofield.ship", faction="richese",
            territory="The Great Flat", token=5)


def test_atreides_may_not_ask_a_nofield_battler_for_the_dial(client, t):
    """choam-richese.txt, No-Field: "In a battle involving the token ... Atreides may not ask to see
    your number dialed in that battle." The other elements stay open to Prescience."""
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    ok(client, t, "richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=3)
    ok(client, t, type="forces.place", faction="atreides", territory="The Great Flat", forces=4)
    set_phase(client, t, "battle")
    s = ok(client, t, "atreides", type="battle.open", territory="The Great Flat", aggressor="atreides",
           opponent="richese")
    bid = s["battles"][-1]["id"]
    refused(client, t, "atreides", "richese-no-field", "may not ask richese for the dial", type="battle.prescience",
            battle=bid, faction="atreides", element="dial")
    ok(client, t, "atreides", type="battle.prescience", battle=bid, faction="atreides", element="weapon")
