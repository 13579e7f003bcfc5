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
