"""Alliances and the Nexus by the rules (issue 25), through the public API, the seed first."""
from __future__ import annotations

import pytest

from conftest import create_table
from table_helpers import NEXUS, get, history, host_state, ok, refused, set_phase

FACTIONS = ["atreides", "harkonnen", "fremen", "guild"]


def worm_nexus(client, t, turn: int = 2) -> dict:
    """A real Nexus: turn 2, a territory card then Shai-Hulud on pile A."""
    set_phase(client, t, "spice_blow", turn=turn)
    ok(client, t, type="spice.blow", pile="A", card="The Great Flat")
    s = ok(client, t, type="spice.blow", pile="A", card="Shai-Hulud")
    assert s["nexus"] is True
    return s


def test_alliances_change_only_while_a_nexus_is_open(client):
    """kiss-rules.txt, Single Nexus: "There is only one Nexus at the end of the phase if Shai-Hulud
    spawned at any of the two Spice blows." Alliances are made and broken in it, not after it closes,
    not in another phase."""
    t = create_table(client, FACTIONS)
    set_phase(client, t, "spice_blow", turn=2)
    refused(client, t, "host", "kiss-single-nexus", "no nexus is open", type="alliance.form",
            factions=["atreides", "fremen"])
    worm_nexus(client, t)
    ok(client, t, type="alliance.form", factions=["atreides", "fremen"])
    ok(client, t, type="nexus.close")
    refused(client, t, "host", "kiss-single-nexus", "no nexus is open", type="alliance.break",
            factions=["atreides", "fremen"])
    refused(client, t, "host", "kiss-single-nexus", "no nexus is open", type="alliance.form",
            factions=["harkonnen", "guild"])
    set_phase(client, t, "battle", turn=2)
    refused(client, t, "host", "base-nexus", "spice blow", type="alliance.break", factions=["atreides", "fremen"])
    assert host_state(client, t)["alliances"] == {"atreides": "fremen", "fremen": "atreides"}
    # a correction stays possible, with its reason
    ok(client, t, type="alliance.break", factions=["atreides", "fremen"], override=True, reason="recorded late")
    assert host_state(client, t)["alliances"] == {}


def test_a_nexus_recorded_by_hand_needs_a_worm_or_an_override(client):
    t = create_table(client, FACTIONS)
    set_phase(client, t, "spice_blow", turn=2)
    refused(client, t, "host", "kiss-single-nexus", "no shai-hulud", type="nexus.open")
    ok(client, t, **NEXUS)
    refused(client, t, "host", "base-nexus", "already open", type="nexus.open")


@pytest.mark.parametrize("leave_by", ["phase.set", "phase.next"])
def test_the_guilds_alliance_breaks_when_the_last_turns_spice_blow_ends(client, leave_by):
    """kiss-rules.txt, Spacing Guild: "You always break from any alliance that you have at the end of
    the Spice Blow phase of the last turn, and you cannot ally for the rest of the game." The table
    records it; the former allies may then battle."""
    t = create_table(client, FACTIONS)
    last = host_state(client, t)["last_turn"]
    worm_nexus(client, t, turn=last)
    ok(client, t, type="alliance.form", factions=["guild", "harkonnen"])
    ok(client, t, type="alliance.form", factions=["atreides", "fremen"])
    if leave_by == "phase.set":
        ok(client, t, type="phase.set", turn=last, phase="charity")
    else:
        ok(client, t, type="phase.next", override=True, reason="the test skips the phase's steps")
    s = host_state(client, t)
    assert s["alliances"] == {"atreides": "fremen", "fremen": "atreides"}
    line = history(client, t)[-1]["summary"]
    assert "Guild's alliance with Harkonnen breaks" in line
    # the former allies share Arrakeen: now a battle
    ok(client, t, type="forces.place", faction="guild", territory="Arrakeen", forces=2)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=2)
    ok(client, t, type="phase.set", turn=last, phase="battle")
    assert any({"guild", "harkonnen"} <= set(b["factions"]) for b in get(client, t, "guild", "battles")["implied"])


def test_an_earlier_turns_spice_blow_leaves_the_guilds_alliance(client):
    t = create_table(client, FACTIONS)
    worm_nexus(client, t, turn=2)
    ok(client, t, type="alliance.form", factions=["guild", "harkonnen"])
    ok(client, t, type="phase.set", turn=2, phase="charity")
    assert host_state(client, t)["alliances"] == {"guild": "harkonnen", "harkonnen": "guild"}


# -- Tleilaxu Paranoid -------------------------------------------------------------------------------

PARANOID = [
    # (turn, a worm this Spice Blow?, the alliance breaks?)
    (2, False, True),    # "at the end of each Spice Blow phase without a Nexus ... your current alliance breaks"
    (2, True, False),    # a Nexus: it stands
    (1, False, False),   # "Starting from the 2nd turn"
]


@pytest.mark.parametrize("turn,worm,breaks", PARANOID, ids=["no-nexus", "nexus", "turn-1"])
def test_tleilaxu_paranoid_breaks_the_alliance_after_a_spice_blow_without_a_nexus(client, turn, worm, breaks):
    """kiss-rules.txt, Tleilaxu Paranoid: "Starting from the 2nd turn, at the end of each Spice Blow
    phase without a Nexus or a Sandtrout drawn, your current alliance breaks (if you had one)" """
    t = create_table(client, ["atreides", "harkonnen", "tleilaxu", "guild"])
    ok(client, t, type="alliance.form", factions=["tleilaxu", "harkonnen"], override=True, reason="an earlier Nexus")
    set_phase(client, t, "spice_blow", turn=turn)
    ok(client, t, type="spice.blow", pile="A", card="The Great Flat")
    if worm:
        ok(client, t, type="spice.blow", pile="A", card="Shai-Hulud")
    ok(client, t, type="phase.set", turn=turn, phase="charity")
    s = host_state(client, t)
    assert ("tleilaxu" not in s["alliances"]) == breaks, s["alliances"]
    if breaks:
        assert "Paranoid" in history(client, t)[-1]["summary"]


def test_after_paranoid_the_tleilaxu_offer_an_alliance_to_another_faction_only(client):
    """kiss-rules.txt, Tleilaxu Paranoid: "... and you may offer factions other than your most recent
    ally to enter an alliance, with them breaking their current alliance if they accept." """
    t = create_table(client, ["atreides", "harkonnen", "tleilaxu", "guild"])
    ok(client, t, type="alliance.form", factions=["tleilaxu", "harkonnen"], override=True, reason="an earlier Nexus")
    ok(client, t, type="alliance.form", factions=["atreides", "guild"], override=True, reason="an earlier Nexus")
    set_phase(client, t, "spice_blow", turn=2)
    ok(client, t, type="spice.blow", pile="A", card="The Great Flat")
    ok(client, t, type="phase.set", turn=2, phase="charity")
    refused(client, t, "host", "tleilaxu-paranoid", "most recent ally", type="alliance.form",
            factions=["tleilaxu", "harkonnen"])
    s = ok(client, t, type="alliance.form", factions=["tleilaxu", "atreides"])  # no Nexus needed: the offer
    assert s["alliances"] == {"tleilaxu": "atreides", "atreides": "tleilaxu"}  # the Atreides left the Guild
    ok(client, t, type="alliance.break", factions=["tleilaxu", "atreides"], override=True, reason="a test")
    refused(client, t, "host", "base-nexus", None, type="alliance.form", factions=["tleilaxu", "guild"])  # one offer
