"""Hands and traitors hold real names only, and an override never breaks the hand's bookkeeping
(audit finding 7): ``cards.set`` takes Treachery cards of the deck, ``traitors.set`` leaders, and
``cards.name`` never names more cards than the hand holds, override or not."""
from __future__ import annotations

import pytest

from conftest import act, create_table, state


@pytest.fixture()
def t(client):
    return create_table(client, ["atreides", "harkonnen", "fremen"])


def refusal(client, t, who, **entry):
    r = act(client, t.code, t.token(who), expect=422, **entry)
    return r.get_json()["error"]


@pytest.mark.parametrize("override", [False, True])
def test_a_hand_holds_real_treachery_cards_only(client, t, override):
    extra = {"override": True, "reason": "the table says so"} if override else {}
    before = state(client, t.code, t.seats["atreides"])["factions"]["atreides"]
    err = refusal(client, t, "atreides", type="cards.set", faction="atreides", cards=["Crysknife", "Banana"], **extra)
    assert "no Treachery card called 'Banana'" in err["message"] and err["overridable"] is False
    assert state(client, t.code, t.seats["atreides"])["factions"]["atreides"] == before  # nothing changed
    act(client, t.code, t.seats["atreides"], type="cards.set", faction="atreides", cards=["crysknife", "SHIELD"])
    mine = state(client, t.code, t.seats["atreides"])["factions"]["atreides"]
    assert mine["private"]["cards"] == ["Crysknife", "Shield"] and mine["hand_size"] == 2  # as printed


@pytest.mark.parametrize("override", [False, True])
def test_a_traitor_is_a_real_leader(client, t, override):
    extra = {"override": True, "reason": "the table says so"} if override else {}
    err = refusal(client, t, "atreides", type="traitors.set", faction="atreides", traitors=["Mickey Mouse"], **extra)
    assert "no leader called 'Mickey Mouse'" in err["message"] and err["overridable"] is False
    act(client, t.code, t.seats["atreides"], type="traitors.set", faction="atreides", traitors=["piter de vries"])
    mine = state(client, t.code, t.seats["atreides"])["factions"]["atreides"]["private"]
    assert mine["traitors"] == ["Piter de Vries"]


def test_an_override_never_names_more_cards_than_the_hand_holds(client, t):
    act(client, t.code, t.host, type="hand.set", faction="harkonnen", size=2)
    for card in ("Crysknife", "Shield"):
        act(client, t.code, t.seats["harkonnen"], type="cards.name", faction="harkonnen", card=card)
    err = refusal(client, t, "harkonnen", type="cards.name", faction="harkonnen", card="Lasgun", override=True,
                  reason="I think I have one more")
    assert "already named" in err["message"] and err["overridable"] is False
    mine = state(client, t.code, t.seats["harkonnen"])["factions"]["harkonnen"]
    assert len(mine["private"]["cards"]) == mine["hand_size"] == 2
