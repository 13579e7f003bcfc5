"""Bookkeeping by the rules (issue 25): a hand never holds more named cards than cards, and only
real Treachery cards and real leaders are recorded."""
from __future__ import annotations

from conftest import create_table, state
from table_helpers import ok, refused

FACTIONS = ["atreides", "harkonnen", "fremen"]


def private(client, t, f):
    return state(client, t.code, t.token(f))["factions"][f]["private"]


def test_cards_set_accepts_only_real_treachery_cards(client):
    """kiss-treachery-deck: the hand holds cards of the deck; anything else is a hard refusal."""
    t = create_table(client, FACTIONS)
    refused(client, t, "atreides", "kiss-treachery-deck", "no treachery card called 'excalibur'",
            type="cards.set", faction="atreides", cards=["Crysknife", "Excalibur"])
    refused(client, t, "atreides", "kiss-treachery-deck", None, type="cards.set", faction="atreides",
            cards=["Excalibur"], override=True, reason="try")
    ok(client, t, "atreides", type="cards.set", faction="atreides", cards=["crysknife", "SHIELD"])
    assert private(client, t, "atreides")["cards"] == ["Crysknife", "Shield"]


def test_traitors_set_accepts_only_leaders_of_the_factions_playing(client):
    """base-setup: each traitor card names a leader of a faction at the table."""
    t = create_table(client, FACTIONS)
    refused(client, t, "harkonnen", "base-setup", "no leader called 'nobody'", type="traitors.set",
            faction="harkonnen", traitors=["Duncan Idaho", "Nobody"])
    refused(client, t, "atreides", "base-setup", "no leader called", type="traitors.set", faction="atreides",
            traitors=["Bashar"])  # an Emperor leader: the Emperor is not playing
    ok(client, t, "harkonnen", type="traitors.set", faction="harkonnen", traitors=["duncan idaho", "Stilgar"])
    assert private(client, t, "harkonnen")["traitors"] == ["Duncan Idaho", "Stilgar"]


def test_cards_name_never_names_more_cards_than_the_hand_holds_even_overridden(client):
    t = create_table(client, FACTIONS)
    ok(client, t, "atreides", type="cards.set", faction="atreides", cards=["Shield"])
    for kw in ({}, {"override": True, "reason": "the table insists"}):
        refused(client, t, "atreides", "kiss-treachery-deck", "already named", type="cards.name",
                faction="atreides", card="Snooper", **kw)
    s = state(client, t.code, t.token("atreides"))
    assert s["factions"]["atreides"]["hand_size"] == 1 and s["factions"]["atreides"]["private"]["cards"] == ["Shield"]


def test_a_karama_stops_the_harkonnen_bonus_card_on_bid_buy(client):
    """kiss-rules.txt, Harkonnen, Vulnerable: "Karama can prevent you from taking a bonus free treachery
    card, once." The buy is recorded with who played the Karama: one card, not two."""
    from table_helpers import set_phase
    t = create_table(client, FACTIONS)
    ok(client, t, "atreides", type="cards.set", faction="atreides", cards=["Karama"])
    set_phase(client, t, "bidding")
    before = state(client, t.code, t.host)["factions"]["harkonnen"]["hand_size"]
    refused(client, t, "host", "karama-harkonnen", "another faction", type="bid.buy", faction="atreides", price=1,
            bonus_karama="harkonnen")
    s = ok(client, t, type="bid.buy", faction="harkonnen", price=1, bonus_karama="atreides")
    assert s["factions"]["harkonnen"]["hand_size"] == before + 1
    assert s["factions"]["atreides"]["hand_size"] == 0 and "Karama" in s["treachery"]["discard"]
    s = ok(client, t, type="bid.buy", faction="harkonnen", price=1)
    assert s["factions"]["harkonnen"]["hand_size"] == before + 3  # the next buy takes its bonus again
