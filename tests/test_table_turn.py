"""Issue 4 through the API: storm dials and storm cards, spice blows and the deck, charity,
bidding, revival, collection, victory and the phase sequence, each previewed then applied."""
from __future__ import annotations

import pytest

from conftest import SIX, create_table, join_seat, state
from table_helpers import (  # noqa: I001
    open_nexus,
    board_spice, finish_setup, forces_total, history, host_state, ok, refused, set_phase, skip_phase, spice, stack,
)

PHASES = ["storm", "spice_blow", "charity", "bidding", "revival", "shipment_movement", "battle", "collection",
          "mentat_pause"]


# -- storm, turn 1: the two dials ----------------------------------------------------------------

def test_turn_one_storm_dials_preview_then_apply(client, table6):
    t = table6
    finish_setup(client, t)
    ok(client, t, type="forces.place", faction="harkonnen", territory="The Minor Erg", sector=5, forces=3)
    ok(client, t, type="forces.place", faction="harkonnen", territory="False Wall South", sector=3, forces=2)
    ok(client, t, type="forces.place", faction="fremen", territory="Cielago South", sector=1, forces=2)
    ok(client, t, type="board.spice", territory="Cielago South", sector=1, amount=12)
    ok(client, t, type="board.spice", territory="Old Gap", sector=9, amount=6)  # beyond the storm: kept

    s = host_state(client, t)
    # the players whose dots are nearest the storm's start (sector 18), one on either side
    assert s["storm_phase"]["dialers"] == ["atreides", "bg"]
    refused(client, t, "harkonnen", "base-storm", "dialled by Atreides and Bene Gesserit", type="storm.dial",
            faction="harkonnen", dial=5)

    ok(client, t, "atreides", type="storm.dial", faction="atreides", dial=3)
    assert state(client, t.code, t.seats["atreides"])["factions"]["atreides"]["private"]["storm_dial"] == 3
    bg_view = state(client, t.code, t.seats["bg"])
    assert "private" not in bg_view["factions"]["atreides"]
    assert bg_view["storm_phase"]["dialled"] == ["atreides"] and bg_view["storm_phase"]["pending"] is None
    assert history(client, t, "bg")[-1]["payload"] is None  # what Atreides dialled stays secret

    ok(client, t, "bg", type="storm.dial", faction="bg", dial=4)
    for seat in ("guild", "harkonnen", "fremen"):  # the preview is shown to everyone before applying
        v = state(client, t.code, t.seats[seat])
        assert v["storm_phase"]["pending"] == {"sectors": 7, "source": "dials"}
        p = v["storm_phase"]["preview"]
        assert p["end_sector"] == 7 and list(p["sectors_passed"]) == [1, 2, 3, 4, 5, 6, 7]
        assert p["killed"] == {"The Minor Erg@5": {"harkonnen": {"forces": 3, "starred": 0, "advisors": 0}}}
        assert p["saved_fremen"] == {"Cielago South@1": {"forces": 2, "starred": 0}}
        assert p["spice_removed"] == {"Cielago South@1": 12}
    assert host_state(client, t)["storm"]["sector"] == 18  # nothing applied yet

    refused(client, t, "host", "base-storm", "should move 7 sectors", type="storm.move", sectors=5)
    s = ok(client, t, type="storm.move", sectors=7)
    s = host_state(client, t)
    assert s["storm"]["sector"] == 7
    assert s["factions"]["harkonnen"]["tanks"]["forces"] == 3
    assert stack(s, "The Minor Erg", "harkonnen")["forces"] == 0
    assert stack(s, "False Wall South", "harkonnen")["forces"] == 2  # rock is safe
    assert stack(s, "Cielago South", "fremen")["forces"] == 2  # Wormriders: saved, not killed
    assert s["factions"]["fremen"]["saved"] == {"Cielago South@1": {"forces": 2, "starred": 0}}
    assert board_spice(s, "Cielago South") == 0 and board_spice(s, "Old Gap") == 6
    assert s.get("storm_pending") is None
    assert "storm_dial" not in s["factions"]["atreides"]["private"]
    assert forces_total(s, "harkonnen") == 20

    # the saved Fremen forces go to one destination at the end of the Spice Blow & Nexus phase
    refused(client, t, "fremen", "fremen-wormriders", "end of the Spice Blow", type="fremen.send_saved",
            **{"from": "Cielago South", "from_sector": 1, "to": "reserves", "forces": 1})
    ok(client, t, type="phase.next")
    refused(client, t, "fremen", "fremen-wormriders", "The storm is over sector 7", type="fremen.send_saved",
            **{"from": "Cielago South", "from_sector": 1, "to": "The Minor Erg", "sector": 7, "forces": 1})
    refused(client, t, "fremen", "fremen-wormriders", "Only 2 forces", type="fremen.send_saved",
            **{"from": "Cielago South", "from_sector": 1, "to": "reserves", "forces": 3})
    s = ok(client, t, "fremen", type="fremen.send_saved",
           **{"from": "cielago-south", "from_sector": 1, "to": "reserves", "forces": 1})
    assert s["factions"]["fremen"]["reserves"]["forces"] == 5 + 1
    refused(client, t, "fremen", "fremen-wormriders", "single destination", type="fremen.send_saved",
            **{"from": "Cielago South", "from_sector": 1, "to": "The Great Flat", "forces": 1})
    s = ok(client, t, "fremen", type="fremen.send_saved",
           **{"from": "Cielago South", "from_sector": 1, "to": "Reserves", "forces": 1})
    assert s["factions"]["fremen"]["saved"] == {}
    assert stack(s, "Cielago South", "fremen")["forces"] == 0
    refused(client, t, "fremen", "fremen-wormriders", "Only 0 forces", type="fremen.send_saved",
            **{"from": "Cielago South", "from_sector": 1, "to": "reserves", "forces": 1})


def test_saved_fremen_can_go_to_a_territory_and_marks_expire_with_the_phase(client, table6):
    t = table6
    finish_setup(client, t)
    ok(client, t, type="forces.place", faction="fremen", territory="The Minor Erg", sector=5, forces=3)
    ok(client, t, type="storm.set", sector=4)
    set_phase(client, t, "storm", turn=2)
    ok(client, t, type="storm.move", sectors=1)  # the storm passes over sector 5 only
    ok(client, t, type="phase.next")
    s = ok(client, t, "fremen", type="fremen.send_saved",
           **{"from": "The Minor Erg", "from_sector": 5, "to": "the great flat", "forces": 2})
    assert stack(s, "The Great Flat", "fremen")["forces"] == 2
    assert s["factions"]["fremen"]["saved"] == {"The Minor Erg@5": {"forces": 1, "starred": 0}}
    s = skip_phase(client, t)  # the phase ends: the last saved force stays where it is
    assert s["factions"]["fremen"]["saved"] == {}
    assert stack(s, "The Minor Erg", "fremen")["forces"] == 1


# -- storm, later turns ----------------------------------------------------------------------------

def test_fremen_storm_card_is_private_then_revealed(client, table6):
    t = table6
    finish_setup(client, t)
    set_phase(client, t, "mentat_pause")
    ok(client, t, "fremen", type="storm.card", card=4)
    assert state(client, t.code, t.seats["fremen"])["factions"]["fremen"]["private"]["storm_card"] == 4
    atreides = state(client, t.code, t.seats["atreides"])
    assert "private" not in atreides["factions"]["fremen"]
    assert history(client, t, "atreides")[-1]["payload"] is None
    ok(client, t, type="phase.next")
    assert host_state(client, t)[("turn")] == 2
    refused(client, t, "host", "fremen-storm-deck", "the Fremen draw the storm card privately", type="storm.draw",
            card=4)
    ok(client, t, "fremen", type="storm.reveal")
    v = state(client, t.code, t.seats["atreides"])
    assert v["storm_phase"]["pending"] == {"sectors": 4, "source": "fremen card"}
    assert v["storm_phase"]["preview"]["end_sector"] == 4
    s = ok(client, t, type="storm.move", sectors=4)
    assert s["storm"]["sector"] == 4
    refused(client, t, "fremen", "fremen-storm-deck", "not recorded a storm card", type="storm.reveal")


def test_without_fremen_the_drawn_card_is_entered_and_the_storm_wraps(client):
    t = create_table(client, ["atreides", "harkonnen", "emperor", "guild"])
    ok(client, t, type="forces.place", faction="harkonnen", territory="Cielago South", sector=1, forces=4)
    ok(client, t, type="forces.place", faction="emperor", territory="Habbanya Ridge Flat", sector=17, forces=2)
    ok(client, t, type="storm.set", sector=16)
    set_phase(client, t, "storm", turn=2)
    refused(client, t, "host", "kiss-faster-storm", "only the cards 2 to 6", type="storm.draw", card=1)
    refused(client, t, "host", None, "card", type="storm.draw", card=7)
    ok(client, t, type="storm.draw", card=5)
    assert state(client, t.code, t.seats["guild"])["storm_phase"]["pending"] == {"sectors": 5,
                                                                                  "source": "storm card"}
    s = ok(client, t, type="storm.move", sectors=5)
    assert s["storm"]["sector"] == 3  # 17, 18, 1, 2, 3
    s = host_state(client, t)
    assert s["factions"]["harkonnen"]["tanks"]["forces"] == 4  # no Fremen: nobody is saved
    assert s["factions"]["emperor"]["tanks"]["forces"] == 2
    set_phase(client, t, "bidding", turn=2)
    refused(client, t, "host", "base-storm", "Storm phase", type="storm.move", sectors=3)


# -- spice blow and the deck -----------------------------------------------------------------------

def test_spice_blow_territory_cards_worms_and_a_single_nexus(app, client, table6):
    t = table6
    set_phase(client, t, "spice_blow", turn=2)
    phone = join_seat(app, t.code, "atreides")
    r = phone.get(f"/t/{t.code}/preview/blow", query_string={"card": "the-great-flat", "pile": "A"})
    assert r.status_code == 200 and "10 spice in <b>The Great Flat</b>" in r.get_data(as_text=True)
    assert host_state(client, t)["revision"] == 1  # a preview changes nothing

    s = ok(client, t, type="spice.blow", card="the great flat", pile="A")
    assert board_spice(s, "The Great Flat") == 10
    assert s["spice_deck"] == {"remaining": 19, "worms_remaining": 5, "next_worm_probability": 5 / 19}
    err = refused(client, t, "host", "base-spice-blow", "already drawn since the last reshuffle", type="spice.blow",
                  card="The Great Flat", pile="B")
    assert err["overridable"] is True  # a drawn card is never refused for good
    refused(client, t, "host", "base-spice-blow", "no spice card", type="spice.blow", card="Arrakeen", pile="B")

    ok(client, t, type="storm.set", sector=14)
    s = ok(client, t, type="spice.blow", card="Funeral Plain", pile="B")  # its blow sector is in the storm
    assert board_spice(s, "Funeral Plain") == 0
    ok(client, t, type="storm.set", sector=18)

    ok(client, t, type="forces.place", faction="harkonnen", territory="The Great Flat", forces=3)
    ok(client, t, type="forces.place", faction="fremen", territory="The Great Flat", forces=2)
    ok(client, t, type="forces.place", faction="atreides", territory="Funeral Plain", forces=2)
    r = phone.get(f"/t/{t.code}/preview/blow", query_string={"card": "Shai-Hulud", "pile": "A"})
    html = r.get_data(as_text=True)
    assert "devours in <b>The Great Flat</b>" in html and "Harkonnen −3" in html and "−10 spice" in html

    s = ok(client, t, type="spice.blow", card="Shai-Hulud", pile="A")  # devours the pile's last territory
    s = host_state(client, t)
    assert s["factions"]["harkonnen"]["tanks"]["forces"] == 3
    assert stack(s, "The Great Flat", "fremen")["forces"] == 2
    assert s["factions"]["fremen"]["saved"] == {"The Great Flat@14": {"forces": 2, "starred": 0}}
    assert board_spice(s, "The Great Flat") == 0
    assert s["nexus"] is True

    s = ok(client, t, type="spice.blow", card="shai-hulud", pile="B")  # pile B's last card: Funeral Plain
    s = host_state(client, t)
    assert s["factions"]["atreides"]["tanks"]["forces"] == 2
    assert s["nexus"] is True  # one Nexus however many worms (KISS)
    assert s["spice_deck"] == {"remaining": 16, "worms_remaining": 3, "next_worm_probability": 3 / 16}

    # a later worm in the same blow may be put by the Fremen in any sand territory
    ok(client, t, type="forces.place", faction="guild", territory="Cielago South", sector=2, forces=1)
    refused(client, t, "host", "fremen-sandworms", "only in a sand territory", type="spice.blow",
            card="Shai-Hulud", pile="A", worm_territory="Arrakeen")
    s = ok(client, t, type="spice.blow", card="Shai-Hulud", pile="A", worm_territory="cielago-south")
    assert host_state(client, t)["factions"]["guild"]["tanks"]["forces"] == 1

    refused(client, t, "host", "base-spice-blow", "the Nexus is open", type="phase.next")
    s = ok(client, t, type="nexus.close")
    assert s["nexus"] is False
    s = skip_phase(client, t)  # piles A and B both end on a worm: the table draws on the board, not here
    assert s["nexus"] is False and s["factions"]["fremen"]["saved"] == {}


def test_first_worm_cannot_be_placed_by_fremen(client, table6):
    set_phase(client, table6, "spice_blow", turn=2)
    ok(client, table6, type="spice.blow", card="Broken Land", pile="A")
    refused(client, table6, "host", "fremen-sandworms", "second or later worm", type="spice.blow",
            card="Shai-Hulud", pile="A", worm_territory="The Great Flat")


def test_turn_one_worm_is_set_aside_and_the_odds_follow_the_draws(client, table6):
    t = table6
    set_phase(client, t, "spice_blow")
    ok(client, t, type="spice.blow", card="The Great Flat", pile="A")
    ok(client, t, type="forces.place", faction="harkonnen", territory="The Great Flat", forces=3)
    s = ok(client, t, type="spice.blow", card="Shai-Hulud", pile="A")
    assert stack(s, "The Great Flat", "harkonnen")["forces"] == 3 and board_spice(s, "The Great Flat") == 10
    assert not s.get("nexus")
    s = ok(client, t, type="spice.blow", card="Broken Land", pile="A")
    assert board_spice(s, "Broken Land") == 8
    assert s["spice_deck"]["remaining"] == 17 and s["spice_deck"]["worms_remaining"] == 4
    assert s["spice_deck"]["next_worm_probability"] == pytest.approx(4 / 17)
    assert s["spice_deck_seen"] == ["The Great Flat", "Shai-Hulud", "Broken Land"]
    set_phase(client, t, "charity")
    refused(client, t, "host", "base-spice-blow", "Spice Blow & Nexus phase", type="spice.blow",
            card="Old Gap", pile="A")


# -- charity -----------------------------------------------------------------------------------------

def test_charity(client, table6):
    t = table6
    set_phase(client, t, "charity")
    ok(client, t, type="spice.set", faction="harkonnen", amount=0)
    ok(client, t, type="spice.set", faction="emperor", amount=1)
    ok(client, t, type="spice.set", faction="atreides", amount=3)
    assert state(client, t.code, t.seats["harkonnen"])["my_charity"] == 2
    assert state(client, t.code, t.seats["emperor"])["my_charity"] == 1
    assert spice(ok(client, t, "harkonnen", type="charity.claim", faction="harkonnen"), "harkonnen") == 2
    assert spice(ok(client, t, "emperor", type="charity.claim", faction="emperor"), "emperor") == 2
    refused(client, t, "atreides", "base-charity", "no charity with 3 spice", type="charity.claim",
            faction="atreides")
    ok(client, t, type="spice.set", faction="harkonnen", amount=0)
    refused(client, t, "harkonnen", "base-charity", "already claimed charity this turn", type="charity.claim",
            faction="harkonnen")
    refused(client, t, "bg", "bg-charity", "no charity", type="charity.claim", faction="bg")  # not on turn 1
    set_phase(client, t, "charity", turn=2)
    assert spice(ok(client, t, "bg", type="charity.claim", faction="bg"), "bg") == 5 + 2  # whatever they hold
    assert spice(ok(client, t, "harkonnen", type="charity.claim", faction="harkonnen"), "harkonnen") == 2
    set_phase(client, t, "bidding", turn=2)
    ok(client, t, type="spice.set", faction="atreides", amount=0)
    refused(client, t, "atreides", "base-charity", "CHOAM Charity phase", type="charity.claim", faction="atreides")


# -- bidding ------------------------------------------------------------------------------------------

def test_bidding_payments_harkonnen_bonus_and_hand_limits(client, table6):
    t = table6
    set_phase(client, t, "bidding")
    s = ok(client, t, "atreides", type="bid.buy", faction="atreides", price=3)
    s = host_state(client, t)
    assert spice(s, "atreides") == 7 and spice(s, "emperor") == 13  # paid to the Emperor
    assert s["factions"]["atreides"]["hand_size"] == 2
    s = ok(client, t, "emperor", type="bid.buy", faction="emperor", price=2)
    assert spice(s, "emperor") == 11  # the Emperor pays the bank
    s = ok(client, t, "harkonnen", type="bid.buy", faction="harkonnen", price=1)
    assert s["factions"]["harkonnen"]["hand_size"] == 2 + 1 + 1  # bought + free extra card
    ok(client, t, type="hand.set", faction="harkonnen", size=7)
    s = ok(client, t, "harkonnen", type="bid.buy", faction="harkonnen", price=1)
    assert s["factions"]["harkonnen"]["hand_size"] == 8  # no extra card beyond the limit
    refused(client, t, "harkonnen", "harkonnen-treachery", "limit of 8", type="bid.buy", faction="harkonnen",
            price=1)
    ok(client, t, type="hand.set", faction="guild", size=4)
    refused(client, t, "guild", "base-hand-limit", "limit of 4", type="bid.buy", faction="guild", price=1)
    refused(client, t, "bg", "base-spice", "cannot pay 6", type="bid.buy", faction="bg", price=6)
    s = ok(client, t, "bg", type="bid.buy", faction="bg", price=6, karama=True)  # Karama: does not pay
    # the Karama played leaves the hand face up (its one unnamed card), the bought card joins it
    assert spice(s, "bg") == 5 and s["factions"]["bg"]["hand_size"] == 1
    assert s["treachery_deck"]["discard"] == ["Karama"]
    set_phase(client, t, "revival")
    refused(client, t, "bg", "base-bidding", "Bidding phase", type="bid.buy", faction="bg", price=1)


def test_bidding_without_emperor_pays_the_bank(client):
    t = create_table(client, ["atreides", "harkonnen", "guild", "fremen"])
    set_phase(client, t, "bidding")
    before = host_state(client, t)
    ok(client, t, "atreides", type="bid.buy", faction="atreides", price=4)
    after = host_state(client, t)
    assert spice(after, "atreides") == 6
    for f in ("harkonnen", "guild", "fremen"):
        assert spice(after, f) == spice(before, f)


# -- revival --------------------------------------------------------------------------------------

def test_revival_free_paid_and_limits(client, table6):
    t = table6
    finish_setup(client, t)
    ok(client, t, type="forces.remove", faction="atreides", territory="Arrakeen", forces=6)
    ok(client, t, type="forces.remove", faction="harkonnen", territory="Carthag", forces=4)
    ok(client, t, type="forces.remove", faction="fremen", territory="Sietch Tabr", forces=5)
    ok(client, t, type="forces.place", faction="emperor", territory="Polar Sink", starred=2)
    ok(client, t, type="forces.remove", faction="emperor", territory="Polar Sink", starred=2)
    refused(client, t, "atreides", "base-revival", "Revival phase", type="revive", faction="atreides", forces=1)
    set_phase(client, t, "revival")
    s = ok(client, t, "atreides", type="revive", faction="atreides", forces=2)
    assert spice(s, "atreides") == 10  # 2 free
    assert s["factions"]["atreides"]["tanks"]["forces"] == 4 and s["factions"]["atreides"]["reserves"]["forces"] == 12
    refused(client, t, "atreides", "base-revival", "already revived", type="revive", faction="atreides", forces=1)
    s = ok(client, t, "harkonnen", type="revive", faction="harkonnen", forces=3)
    assert spice(s, "harkonnen") == 8  # 2 free + 1 at 2 spice
    refused(client, t, "fremen", "fremen-free-revival", "cannot buy more", type="revive", faction="fremen",
            forces=4)
    assert spice(ok(client, t, "fremen", type="revive", faction="fremen", forces=3), "fremen") == 3
    refused(client, t, "emperor", "emperor-sardaukar", "only 1 starred", type="revive", faction="emperor",
            starred=2)
    s = ok(client, t, "emperor", type="revive", faction="emperor", starred=1)
    assert s["factions"]["emperor"]["reserves"]["starred"] == 4 and spice(s, "emperor") == 10
    set_phase(client, t, "revival", turn=2)
    refused(client, t, "atreides", "base-revival", "at most 3", type="revive", faction="atreides", forces=4)
    refused(client, t, "atreides", "base-revival", "only 4 forces", type="revive", faction="atreides", forces=5)
    s = ok(client, t, "atreides", type="revive", faction="atreides", forces=3)
    assert spice(s, "atreides") == 8
    for f in SIX:
        assert forces_total(s, f) == 20


# -- collection -------------------------------------------------------------------------------------

def test_collection_preview_then_apply(client, table6):
    t = table6
    ok(client, t, type="board.spice", territory="The Great Flat", amount=10)
    ok(client, t, type="forces.place", faction="harkonnen", territory="The Great Flat", forces=3)
    ok(client, t, type="board.spice", territory="Old Gap", sector=9, amount=6)
    ok(client, t, type="forces.place", faction="emperor", territory="Old Gap", sector=8, forces=2)
    ok(client, t, type="board.spice", territory="Cielago South", sector=1, amount=3)
    ok(client, t, type="forces.place", faction="guild", territory="Cielago South", sector=2, forces=2)
    ok(client, t, type="board.spice", territory="Habbanya Erg", sector=15, amount=8)
    ok(client, t, type="forces.place", faction="bg", territory="Habbanya Erg", sector=15, advisors=2)
    refused(client, t, "host", "base-collection", "Spice Collection phase", type="collection.apply")
    set_phase(client, t, "collection")
    v = state(client, t.code, t.seats["guild"])
    got = {(p["faction"], p["territory"]): p["amount"] for p in v["collection_preview"] if p["source"] == "collection"}
    assert got == {
        ("harkonnen", "The Great Flat"): 9,  # 3 per force: Harkonnen hold Carthag (ornithopters)
        ("emperor", "Old Gap"): 4,  # 2 per force
        ("guild", "Cielago South"): 3,  # capped by the spice there
    }  # Bene Gesserit advisors collect nothing
    assert host_state(client, t)["revision"] == v["revision"]
    s = ok(client, t, type="collection.apply")
    s = host_state(client, t)
    assert spice(s, "harkonnen") == 10 + 9 + 2  # + Carthag's income
    assert spice(s, "emperor") == 10 + 4
    assert spice(s, "guild") == 5 + 3 + 1  # + Tuek's Sietch's income
    assert spice(s, "bg") == 5
    assert board_spice(s, "The Great Flat") == 1 and board_spice(s, "Old Gap") == 2
    assert board_spice(s, "Cielago South") == 0 and board_spice(s, "Habbanya Erg") == 8
    refused(client, t, "host", "base-collection", "already collected", type="collection.apply")


# -- victory at the Mentat Pause -----------------------------------------------------------------------

def test_victory_alone_with_three_strongholds(client, table6):
    t = table6
    ok(client, t, type="forces.remove", faction="harkonnen", territory="Carthag", forces=10, to="reserves")
    ok(client, t, type="forces.remove", faction="guild", territory="Tuek's Sietch", forces=5, to="reserves")
    ok(client, t, type="forces.place", faction="atreides", territory="Carthag", forces=1)
    ok(client, t, type="forces.place", faction="atreides", territory="Sietch Tabr", forces=1)
    set_phase(client, t, "collection")
    assert "victory_preview" not in host_state(client, t)
    set_phase(client, t, "mentat_pause")
    v = state(client, t.code, t.seats["guild"])["victory_preview"]
    assert v["winners"] == ["atreides"] and v["rule"] == "base-victory" and "3 strongholds" in v["reason"]
    refused(client, t, "atreides", None, None, _status=403, type="victory.confirm", winners=["atreides"])
    refused(client, t, "host", "base-victory", "The rules say", type="victory.confirm", winners=["harkonnen"])
    s = ok(client, t, type="victory.confirm", winners=["atreides"])
    assert s["winner"]["factions"] == ["atreides"]


def test_allies_need_four_strongholds(client, table6):
    t = table6
    open_nexus(client, t)
    ok(client, t, type="alliance.form", factions=["atreides", "bg"])
    ok(client, t, type="forces.remove", faction="harkonnen", territory="Carthag", forces=10, to="reserves")
    ok(client, t, type="forces.place", faction="atreides", territory="Carthag", forces=1)
    ok(client, t, type="forces.place", faction="atreides", territory="Sietch Tabr", forces=1)
    set_phase(client, t, "mentat_pause")
    assert host_state(client, t)["victory_preview"]["winners"] == []  # 3 are not enough for allies
    refused(client, t, "host", "base-victory", "nobody has won", type="victory.confirm", winners=["atreides"])
    ok(client, t, type="forces.place", faction="bg", territory="Habbanya Sietch", forces=1)
    v = host_state(client, t)["victory_preview"]
    assert sorted(v["winners"]) == ["atreides", "bg"] and v["rule"] == "base-alliances"
    s = ok(client, t, type="victory.confirm", winners=["bg", "atreides"])
    assert sorted(s["winner"]["factions"]) == ["atreides", "bg"]


def test_bg_prediction_preview_is_private_and_decides_the_confirmation(client, table6):
    t = table6
    ok(client, t, "bg", type="prediction.set", target="atreides", turn=1)
    ok(client, t, type="forces.remove", faction="harkonnen", territory="Carthag", forces=10, to="reserves")
    ok(client, t, type="forces.place", faction="atreides", territory="Carthag", forces=1)
    ok(client, t, type="forces.place", faction="atreides", territory="Sietch Tabr", forces=1)
    set_phase(client, t, "mentat_pause")
    assert state(client, t.code, t.seats["bg"])["victory_preview_bg"]["winners"] == ["bg"]
    assert "victory_preview_bg" not in state(client, t.code, t.seats["atreides"])
    assert state(client, t.code, t.seats["atreides"])["victory_preview"]["winners"] == ["atreides"]
    refused(client, t, "host", "bg-prediction", "predicted", type="victory.confirm", winners=["atreides"])
    assert ok(client, t, type="victory.confirm", winners=["bg"])["winner"]["factions"] == ["bg"]


# -- the phase sequence -------------------------------------------------------------------------------

def test_phase_next_walks_the_nine_phases_and_rolls_over(client, table6):
    t = table6
    finish_setup(client, t)
    ok(client, t, type="leader.used", faction="atreides", leader="Thufir Hawat")
    seen = [host_state(client, t)["phase"]]
    for _ in range(9):
        s = skip_phase(client, t)
        seen.append(s["phase"])
        if s["phase"] == "shipment_movement" and s["turn"] == 1:
            ok(client, t, type="ship", faction="atreides", to="Arrakeen", forces=1)
            assert host_state(client, t)["turn_flags"]["atreides"]["shipped"] is True
    assert seen == PHASES + ["storm"]
    s = host_state(client, t)
    assert s["turn"] == 2 and s["phase_name"] == "Storm" and s["now"]["rule"]
    assert s["factions"]["atreides"]["leaders"][0]["used"] is False  # leaders are fresh each turn
    assert s["storm_order"][0] == "atreides"  # the storm at 18 reaches the dot at 1 first
    for _ in range(5):
        s = skip_phase(client, t)
    assert s["phase"] == "shipment_movement" and s["turn_flags"]["atreides"]["shipped"] is False


def test_the_last_turn_ends_the_game_and_phase_set_is_for_the_host(client):
    t = create_table(client, SIX, turns=1)
    finish_setup(client, t)
    for _ in range(8):
        s = skip_phase(client, t)
    assert (s["turn"], s["phase"]) == (1, "mentat_pause")
    refused(client, t, "host", "base-turn-sequence", "Turn 1 was the last turn", type="phase.next")
    refused(client, t, "atreides", None, "Only the host", _status=403, type="phase.set", turn=1, phase="storm")
    s = ok(client, t, type="phase.set", turn=1, phase="bidding")
    assert (s["turn"], s["phase"]) == (1, "bidding")


def test_weather_control_replaces_the_storm_move(client):
    from conftest import SIX, act, create_table
    t = create_table(client, SIX)
    act(client, t.code, t.host, type="storm.set", sector=3)
    s = act(client, t.code, t.host, type="storm.move", sectors=10, weather_control=True).json
    assert s["storm"]["sector"] == 13
    r = act(client, t.code, t.host, type="storm.move", sectors=11, weather_control=True, expect=422)
    assert "0 to 10" in r.json["error"]["message"]


def test_seven_factions_get_spread_dots_and_the_host_can_set_them(client):
    from conftest import ALL_NINE, act, create_table, state
    t = create_table(client, ALL_NINE[:7])
    dots = state(client, t.code, t.host)["player_dots"]
    assert len(set(dots.values())) == 7 and all(1 <= d <= 18 for d in dots.values())
    assert len(state(client, t.code, t.host)["storm_order"]) == 7
    act(client, t.code, t.host, type="dots.set", dots={"atreides": 2})
    assert state(client, t.code, t.host)["player_dots"]["atreides"] == 2
    act(client, t.code, t.seats["atreides"], type="dots.set", dots={"atreides": 3}, expect=403)


def test_bidding_shows_cards_up_for_auction(client):
    from conftest import SIX, act, create_table, state
    t = create_table(client, SIX)
    act(client, t.code, t.host, type="hand.set", faction="atreides", size=4)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="bidding")
    assert state(client, t.code, t.host)["cards_for_auction"] == 5


def test_leader_revival_in_the_revival_phase_is_priced_and_paid_to_the_tleilaxu(client):
    from conftest import act, create_table, state
    t = create_table(client, ["atreides", "harkonnen", "tleilaxu"])
    act(client, t.code, t.host, type="leader.tanks", faction="atreides", leader="Duncan Idaho")
    act(client, t.code, t.host, type="phase.set", turn=2, phase="revival")
    # four Atreides leaders are still alive: not yet
    r = act(client, t.code, t.seats["atreides"], type="leader.revive", faction="atreides", leader="Duncan Idaho",
            expect=422)
    assert r.json["error"]["rule"] == "base-leader-revival"
    assert r.json["error"]["message"] == "Atreides can revive a leader only when all of its leaders are in the tanks."
    for leader in ("Thufir Hawat", "Lady Jessica", "Gurney Halleck", "Dr. Wellington Yueh"):
        act(client, t.code, t.host, type="leader.tanks", faction="atreides", leader=leader)
    before = state(client, t.code, t.host)["factions"]
    act(client, t.code, t.seats["atreides"], type="leader.revive", faction="atreides", leader="Gurney Halleck")
    after = state(client, t.code, t.host)["factions"]
    assert after["atreides"]["spice"] == before["atreides"]["spice"] - 4  # his strength
    assert after["tleilaxu"]["spice"] == before["tleilaxu"]["spice"] + 4  # Axolotl Tanks
    # one leader per turn
    r = act(client, t.code, t.seats["atreides"], type="leader.revive", faction="atreides", leader="Duncan Idaho",
            expect=422)
    assert "already revived a leader this turn" in r.json["error"]["message"]
