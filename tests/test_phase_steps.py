"""Issue 10 item 5 and issue 13 item 5 through the API: the phase knows when it is done.

"Next phase" is refused (overridable, the reason logged) while a step the table can see is open;
a step applied once a turn cannot be applied twice; Shipment & Movement goes in storm order (the
Guild when it wishes); the phase card's status (phase_steps, whose_turn, next_phase, spice_blow)
is derived from the state and follows every entry."""
from __future__ import annotations

import pytest

from conftest import SIX, create_table, state
from table_helpers import finish_setup, history, host_state, ok, refused, set_phase, spice


def step(s: dict, step_id: str) -> dict:
    return next(x for x in s["phase_steps"] if x["id"] == step_id)


def next_phase_refused(client, t, needle: str, rule: str, going_to: str) -> dict:
    err = refused(client, t, "host", rule, needle, type="phase.next")
    assert err["overridable"] is True
    assert going_to in err["message"], err["message"]
    return err


@pytest.fixture()
def t(client):
    t = create_table(client, SIX)
    finish_setup(client, t)
    return t


# -- phase.next is refused while a step is open ---------------------------------------------------

def test_next_phase_names_the_missing_step_and_where_it_goes(client, t):
    s = host_state(client, t)
    assert s["next_phase"] == {"phase": "spice_blow", "name": "Spice Blow & Nexus",
                               "missing": ["the storm has not moved yet"]}
    err = next_phase_refused(client, t, "the storm has not moved yet", "base-storm", "Spice Blow & Nexus")
    assert err["message"] == "The storm has not moved yet: finish Storm before Spice Blow & Nexus, or override."
    assert host_state(client, t)["phase"] == "storm"  # nothing changed
    # a seat sees the same card
    v = state(client, t.code, t.seats["harkonnen"])
    assert v["next_phase"]["missing"] == ["the storm has not moved yet"]
    assert step(v, "storm_moved") == {"id": "storm_moved", "text": "the storm has not moved yet", "done": False,
                                      "factions": [], "rule": "base-storm", "blocking": True}


def test_an_override_goes_on_and_the_history_names_both_phases_and_the_reason(client, t):
    s = ok(client, t, type="phase.next", override=True, reason="we moved the storm on the board")
    assert s["phase"] == "spice_blow"
    last = history(client, t, "atreides")[-1]
    assert last["override"] is True
    assert "Storm → Spice Blow & Nexus" in last["summary"]
    assert "[OVERRIDE: we moved the storm on the board" in last["summary"]
    assert "The storm has not moved yet" in last["summary"]


def test_a_finished_phase_goes_on_without_override_and_says_so(client, t):
    ok(client, t, "atreides", type="storm.dial", faction="atreides", dial=2)
    assert step(host_state(client, t), "storm_dials")["factions"] == ["bg"]
    ok(client, t, "bg", type="storm.dial", faction="bg", dial=1)
    ok(client, t, type="storm.move", sectors=3)
    s = host_state(client, t)
    assert step(s, "storm_moved")["done"] is True and s["next_phase"]["missing"] == []
    ok(client, t, type="phase.next")
    assert history(client, t)[-1]["summary"] == "next phase: Storm → Spice Blow & Nexus"


def test_setup_is_the_first_missing_step_on_turn_1(client):
    t = create_table(client, ["atreides", "fremen", "bg"])
    err = next_phase_refused(client, t, "Setup is not finished: waiting for Fremen, Bene Gesserit", "base-setup",
                             "Spice Blow & Nexus")
    assert "the storm has not moved yet" in err["message"]
    s = host_state(client, t)
    assert step(s, "setup")["factions"] == ["fremen", "bg"]
    assert step(s, "bg_prediction") == {"id": "bg_prediction", "text": "Bene Gesserit write down their prediction",
                                        "done": False, "factions": ["bg"], "rule": "bg-prediction",
                                        "blocking": False}
    ok(client, t, "bg", type="prediction.set", target="atreides", turn=3)
    assert step(host_state(client, t), "bg_prediction")["done"] is True
    # the prediction itself stays secret: another seat only learns that it is written down
    v = state(client, t.code, t.seats["atreides"])
    assert step(v, "bg_prediction")["done"] is True and "private" not in v["factions"]["bg"]


# -- once a turn ----------------------------------------------------------------------------------

def test_the_turn_1_storm_moves_once(client, t):
    ok(client, t, "atreides", type="storm.dial", faction="atreides", dial=2)
    ok(client, t, "bg", type="storm.dial", faction="bg", dial=2)
    assert ok(client, t, type="storm.move", sectors=4)["storm"]["sector"] == 4
    err = refused(client, t, "host", "base-storm", "already moved this turn", type="storm.move", sectors=6)
    assert err["overridable"] is True
    refused(client, t, "atreides", "base-storm", "already moved this turn", type="storm.dial", faction="atreides",
            dial=6)
    assert host_state(client, t)["storm"]["sector"] == 4  # not 18 -> 4 -> 10
    # a table ruling can still record it, with its reason
    s = ok(client, t, type="storm.move", sectors=6, override=True, reason="we dialled again by mistake")
    assert s["storm"]["sector"] == 10


def test_a_later_turn_storm_moves_once_and_a_new_turn_moves_it_again(client, t):
    set_phase(client, t, "storm", turn=2)
    ok(client, t, type="storm.move", sectors=3)
    refused(client, t, "host", "base-storm", "already moved this turn", type="storm.move", sectors=3)
    set_phase(client, t, "storm", turn=3)
    assert ok(client, t, type="storm.move", sectors=2)["storm"]["sector"] == 5


def test_collection_is_applied_once_a_turn(client, t):
    ok(client, t, type="board.spice", territory="Old Gap", sector=9, amount=6)
    ok(client, t, type="forces.place", faction="atreides", territory="Old Gap", sector=9, forces=2)
    set_phase(client, t, "collection")
    s = host_state(client, t)
    assert s["collection_applied"] is False and step(s, "collection")["done"] is False
    next_phase_refused(client, t, "spice collection not applied yet", "base-collection", "Mentat Pause")
    ok(client, t, type="collection.apply")
    s = host_state(client, t)
    assert s["collection_applied"] is True and step(s, "collection")["done"] is True
    err = refused(client, t, "host", "base-collection", "already collected this turn", type="collection.apply")
    assert err["overridable"] is False
    assert ok(client, t, type="phase.next")["phase"] == "mentat_pause"


def test_charity_once_per_faction_per_turn_and_never_blocking(client, t):
    set_phase(client, t, "charity", turn=2)
    ok(client, t, "fremen", type="spice.set", faction="fremen", amount=1)
    s = state(client, t.code, t.seats["fremen"])
    assert step(s, "charity")["factions"] == ["fremen", "bg"] and step(s, "charity")["blocking"] is False
    # another seat does not learn that the Fremen hold 0 or 1 spice; the Bene Gesserit's is public
    assert step(state(client, t.code, t.seats["atreides"]), "charity")["factions"] == ["bg"]
    ok(client, t, "fremen", type="charity.claim", faction="fremen")
    err = refused(client, t, "fremen", "base-charity", "already claimed charity this turn", type="charity.claim",
                  faction="fremen")
    assert err["overridable"] is False
    ok(client, t, "bg", type="charity.claim", faction="bg")
    refused(client, t, "bg", "base-charity", "already claimed", type="charity.claim", faction="bg")
    assert step(host_state(client, t), "charity")["done"] is True
    assert ok(client, t, type="phase.next")["phase"] == "bidding"


# -- spice blow ------------------------------------------------------------------------------------

def test_the_blow_card_list_shrinks_and_the_pile_is_remembered(client, t):
    set_phase(client, t, "spice_blow", turn=2)
    s = host_state(client, t)
    assert s["spice_blow"]["pile"] == "A" and s["spice_blow"]["drawn"] == []
    assert len(s["spice_blow"]["cards_left"]) == 20 and s["spice_blow"]["cards_left"].count("Shai-Hulud") == 5
    next_phase_refused(client, t, "no card turned on pile A yet; no card turned on pile B yet", "base-spice-blow",
                       "CHOAM Charity")
    s = ok(client, t, type="spice.blow", card="Old Gap", pile="A")
    left = s["spice_blow"]["cards_left"]
    assert "Old Gap" not in left and len(left) == 19 == s["spice_deck"]["remaining"]
    assert s["spice_blow"]["pile"] == "B" and s["spice_blow"]["drawn"] == [{"pile": "A", "card": "Old Gap"}]
    assert step(s, "blow_A")["done"] and not step(s, "blow_B")["done"]
    # a worm on B: draw again onto B; a Nexus opens and has to be closed
    s = ok(client, t, type="spice.blow", card="Shai-Hulud", pile="B")
    assert s["spice_blow"]["cards_left"].count("Shai-Hulud") == 4 and len(s["spice_blow"]["cards_left"]) == 18
    assert s["spice_blow"]["pile"] == "B" and not step(s, "blow_B")["done"]
    s = ok(client, t, type="spice.blow", card="Broken Land", pile="B")
    assert step(s, "blow_B")["done"] and "Broken Land" not in s["spice_blow"]["cards_left"]
    next_phase_refused(client, t, "the Nexus is open", "base-nexus", "CHOAM Charity")
    ok(client, t, type="nexus.close")
    refused(client, t, "host", "base-nexus", "No Nexus is open", type="nexus.close")
    assert host_state(client, t)["next_phase"]["missing"] == []
    assert ok(client, t, type="phase.next")["phase"] == "charity"


@pytest.mark.parametrize("seen, size, absent", [
    ([], 20, None),
    (["Old Gap"], 19, "Old Gap"),
    (["Shai-Hulud"] * 5, 15, "Shai-Hulud"),
    (["Old Gap", "Shai-Hulud", "Broken Land"], 17, "Broken Land"),
])
def test_cards_left_follow_the_deck_rules(seen, size, absent):
    from companion.games.dune.rules.spice import deck_status
    from companion.games.dune.views import cards_left
    left = cards_left(seen, True)
    assert len(left) == size == deck_status(seen, True)["remaining"]
    if absent:
        assert absent not in left


def test_after_every_card_was_seen_the_deck_is_whole_again():
    from companion.games.dune.rules.spice import load_spice_data
    from companion.games.dune.views import cards_left
    data = load_spice_data()
    every = list(data["territory_cards"]) + ["Shai-Hulud"] * data["shai_hulud"]["count"]
    assert sorted(cards_left(every, True)) == sorted(every)
    assert cards_left(every + ["Old Gap"], True).count("Old Gap") == 0


# -- bidding -------------------------------------------------------------------------------------------

def test_cards_up_for_auction_count_down_and_the_opener_moves_on(client, t):
    set_phase(client, t, "bidding")
    s = host_state(client, t)
    assert s["cards_for_auction"] == 6 and s["auction"]["cards"] == 6
    w = s["whose_turn"]
    assert w["faction"] == "atreides" and w["order"][0] == "atreides" and w["done"] == []
    assert "Card 1 of 6" in w["note"]
    ok(client, t, "emperor", type="bid.buy", faction="emperor", price=1)
    s = host_state(client, t)
    assert s["cards_for_auction"] == 5 and s["whose_turn"]["faction"] == "harkonnen"
    assert s["whose_turn"]["done"] == ["emperor"] and "Card 2 of 6" in s["whose_turn"]["note"]
    next_phase_refused(client, t, "5 of 6 cards still up for auction", "base-bidding", "Revival")
    for buyer in ("atreides", "fremen", "guild", "bg"):
        ok(client, t, buyer, type="bid.buy", faction=buyer, price=1)
    assert host_state(client, t)["cards_for_auction"] == 1
    ok(client, t, "harkonnen", type="bid.buy", faction="harkonnen", price=1)
    s = host_state(client, t)
    assert s["cards_for_auction"] == 0 and s["whose_turn"]["faction"] is None  # not "6 cards up" any more
    assert step(s, "auction")["done"] is True
    assert ok(client, t, type="phase.next")["phase"] == "revival"


def test_everyone_passing_ends_the_bidding(client, t):
    set_phase(client, t, "bidding")
    ok(client, t, "atreides", type="bid.buy", faction="atreides", price=2)
    ok(client, t, type="bid.unsold")
    s = host_state(client, t)
    assert s["cards_for_auction"] == 0 and step(s, "auction")["text"].startswith("bidding is over")
    refused(client, t, "host", "base-bidding", "already ended", type="bid.unsold")
    assert ok(client, t, type="phase.next")["phase"] == "revival"


# -- shipment & movement in storm order ---------------------------------------------------------------

@pytest.fixture()
def sm(client, t):
    set_phase(client, t, "shipment_movement")
    return t


def test_whose_turn_follows_storm_order(client, sm):
    t = sm
    w = host_state(client, t)["whose_turn"]
    assert w["order"] == ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]  # storm at 18
    assert w["faction"] == "atreides" and w["done"] == [] and "when it wishes" in w["note"]
    ok(client, t, "atreides", type="ship", faction="atreides", to="Arrakeen", forces=1)
    assert host_state(client, t)["whose_turn"]["faction"] == "atreides"  # ships, then moves
    ok(client, t, "atreides", type="move", faction="atreides", **{"from": "Arrakeen"}, to="Imperial Basin",
       to_sector=9, forces=1)
    w = host_state(client, t)["whose_turn"]
    assert w["faction"] == "harkonnen" and w["done"] == ["atreides"]
    ok(client, t, "harkonnen", type="turn.done", faction="harkonnen")
    s = host_state(client, t)
    assert s["whose_turn"]["faction"] == "fremen" and step(s, "ship_move")["factions"] == [
        "fremen", "emperor", "guild", "bg"]
    next_phase_refused(client, t, "Fremen, Emperor, Spacing Guild and Bene Gesserit still to ship and move",
                       "base-shipment", "Battle")


def test_an_out_of_order_shipment_is_refused_and_overridable(client, sm):
    t = sm
    err = refused(client, t, "emperor", "base-shipment", "It is Atreides's turn to ship and move, not Emperor's",
                  type="ship", faction="emperor", to="Imperial Basin", sector=8, forces=2)
    assert err["overridable"] is True
    assert spice(host_state(client, t), "emperor") == 10  # nothing paid
    refused(client, t, "fremen", "base-shipment", "It is Atreides's turn", type="move", faction="fremen",
            **{"from": "Sietch Tabr"}, to="Funeral Plain", forces=1)
    refused(client, t, "bg", "base-shipment", "It is Atreides's turn", type="turn.done", faction="bg")
    s = ok(client, t, "emperor", type="ship", faction="emperor", to="Imperial Basin", sector=8, forces=2,
           override=True, reason="Atreides let the Emperor go first")
    assert s["turn_flags"]["emperor"]["shipped"] is True
    assert "It is Atreides's turn" in history(client, t)[-1]["summary"]
    # a rule refusal of the entry itself comes before the turn order
    refused(client, t, "harkonnen", "base-shipment", "only 10 forces in reserve", type="ship", faction="harkonnen",
            to="Carthag", forces=15)


def test_a_faction_that_moved_has_finished_its_turn(client, sm):
    t = sm
    ok(client, t, "atreides", type="move", faction="atreides", **{"from": "Arrakeen"}, to="Imperial Basin",
       to_sector=9, forces=1)
    refused(client, t, "atreides", "base-shipment", "already finished its shipment and movement", type="ship",
            faction="atreides", to="Arrakeen", forces=1)
    refused(client, t, "atreides", "base-shipment", "already finished", type="turn.done", faction="atreides")


def test_the_guild_ships_when_it_wishes(client, sm):
    t = sm
    s = ok(client, t, "guild", type="ship", faction="guild", to="Tuek's Sietch", forces=1)  # before Atreides
    w = s["whose_turn"]
    assert w["faction"] == "guild" and w["note"] == "The Spacing Guild is taking its turn now."
    refused(client, t, "atreides", "guild-ship-when-you-wish", "The Spacing Guild is taking its turn now",
            type="ship", faction="atreides", to="Arrakeen", forces=1)
    ok(client, t, "guild", type="turn.done", faction="guild")
    assert host_state(client, t)["whose_turn"]["faction"] == "atreides"
    ok(client, t, "atreides", type="ship", faction="atreides", to="Arrakeen", forces=1)


def test_the_guild_goes_between_turns_not_in_the_middle_of_one(client, sm):
    t = sm
    ok(client, t, "atreides", type="ship", faction="atreides", to="Arrakeen", forces=1)
    err = refused(client, t, "guild", "guild-ship-when-you-wish", "not in the middle of one", type="ship",
                  faction="guild", to="Tuek's Sietch", forces=1)
    assert err["overridable"] is True
    ok(client, t, "atreides", type="turn.done", faction="atreides")
    ok(client, t, "guild", type="ship", faction="guild", to="Tuek's Sietch", forces=1)  # between two turns
    refused(client, t, "harkonnen", "guild-ship-when-you-wish", "waits until it has shipped and moved",
            type="turn.done", faction="harkonnen")


def test_when_everyone_else_is_done_the_guild_goes(client, sm):
    t = sm
    for f in ("atreides", "harkonnen", "fremen", "emperor", "bg"):
        assert host_state(client, t)["whose_turn"]["faction"] == f
        ok(client, t, f, type="turn.done", faction=f)
    w = host_state(client, t)["whose_turn"]
    assert w["faction"] == "guild" and "Spacing Guild goes now" in w["note"]
    ok(client, t, "guild", type="turn.done", faction="guild")
    s = host_state(client, t)
    assert s["whose_turn"]["faction"] is None and step(s, "ship_move")["done"] is True
    assert ok(client, t, type="phase.next")["phase"] == "battle"


# -- battle, mentat pause -------------------------------------------------------------------------------

def test_a_battle_left_to_fight_blocks_the_battle_phase(client, t):
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
    set_phase(client, t, "battle")
    s = host_state(client, t)
    assert step(s, "battles")["factions"] == ["atreides", "harkonnen"]
    next_phase_refused(client, t, "battles to fight: Arrakeen (Atreides v Harkonnen)", "base-battle",
                       "Spice Collection")
    ok(client, t, type="forces.remove", faction="harkonnen", territory="Arrakeen", forces=3, to="tanks")
    assert step(host_state(client, t), "battles")["done"] is True
    assert ok(client, t, type="phase.next")["phase"] == "collection"


def test_a_battle_in_a_revealed_discovery_territory_counts():
    from companion.games.dune.entries.phases import open_battles
    from companion.games.dune.rules.board import load_board
    s = {"board": {"forces": {"Jacurutu Sietch": {"harkonnen": {"forces": 2, "starred": 0, "advisors": 0},
                                                 "fremen": {"forces": 1, "starred": 0, "advisors": 0}}}},
         "alliances": {}, "storm": {"sector": 7}, "player_dots": {"harkonnen": 4, "fremen": 7},
         "factions_present": ["harkonnen", "fremen"]}
    assert open_battles(load_board(), s) == [("Jacurutu Sietch", ["harkonnen", "fremen"])]
    s["alliances"] = {"harkonnen": "fremen", "fremen": "harkonnen"}
    assert open_battles(load_board(), s) == []


def test_a_win_the_rules_see_must_be_confirmed(client):
    t = create_table(client, ["atreides", "harkonnen"])
    ok(client, t, type="forces.place", faction="atreides", territory="Tuek's Sietch", forces=1)
    ok(client, t, type="forces.place", faction="atreides", territory="Sietch Tabr", forces=1)
    set_phase(client, t, "mentat_pause")
    s = host_state(client, t)
    assert s["victory_preview"]["winners"] == ["atreides"]
    next_phase_refused(client, t, "the rules see a win for Atreides", "base-victory", "Storm (turn 2)")
    ok(client, t, type="victory.confirm", winners=["atreides"])
    next_phase_refused(client, t, "the game is over: Atreides won", "base-victory", "Storm (turn 2)")


# -- a whole turn, each step done for real -------------------------------------------------------------

def test_a_whole_turn_goes_through_without_a_single_override(client, t):
    seen = []

    def advance():
        s = host_state(client, t)
        assert s["next_phase"]["missing"] == [], (s["phase"], s["next_phase"])
        seen.append(ok(client, t, type="phase.next")["phase"])

    ok(client, t, "atreides", type="storm.dial", faction="atreides", dial=1)
    ok(client, t, "bg", type="storm.dial", faction="bg", dial=1)
    ok(client, t, type="storm.move", sectors=2)
    advance()
    ok(client, t, type="spice.blow", card="Shai-Hulud", pile="A")  # turn 1: set aside, draw again
    ok(client, t, type="spice.blow", card="Old Gap", pile="A")
    ok(client, t, type="spice.blow", card="Broken Land", pile="B")
    advance()
    advance()  # nobody may claim charity on turn 1 with these spice totals
    ok(client, t, type="bid.unsold")
    advance()
    advance()  # revival: nothing in the tanks
    order = host_state(client, t)["whose_turn"]["order"]
    for f in order:
        ok(client, t, f, type="turn.done", faction=f)
    advance()
    advance()  # no battle on the board
    ok(client, t, type="collection.apply")
    advance()
    ok(client, t, "fremen", type="storm.card", card=4)
    advance()
    assert seen == ["spice_blow", "charity", "bidding", "revival", "shipment_movement", "battle", "collection",
                    "mentat_pause", "storm"]
    assert history(client, t)[-1]["summary"] == "next phase: Mentat Pause → Storm (turn 2)"
    assert not any(e["override"] for e in history(client, t))
