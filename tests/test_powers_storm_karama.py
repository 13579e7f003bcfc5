"""The last two faction-power interactions of issue 25, through the public API, each test quoting the
seed (kiss-rules.txt) first: the Ecaz Ambassadors under the storm once Family Atomics has destroyed the
Shield Wall, and a Karama that stops the Tleilaxu Facedancers in one battle."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import create_table, join_seat, state
from table_helpers import history, host_state, ok, refused, set_phase

from companion.games.dune.rules.board import load_board
from companion.games.dune.rules.storm import storm_effects

# -- Ecaz Ambassadors under the storm ----------------------------------------------------------------

def ecaz_table(client, places=(("Arrakeen", "Fremen"), ("Carthag", "Tleilaxu"), ("Tuek's Sietch", "Emperor"))):
    """Ecaz with face-down Ambassadors in strongholds (placed at the end of Revival), then the Storm
    phase of turn 2 with the storm in sector 7 and Atreides next to the Shield Wall holding Family Atomics."""
    t = create_table(client, ["atreides", "harkonnen", "ecaz"])
    ok(client, t, "ecaz", type="ambassadors.set", faction="ecaz",
       ambassadors=["Ecaz"] + [who for _, who in places])
    set_phase(client, t, "revival")
    for territory, who in places:
        ok(client, t, "ecaz", type="ambassador.place", faction="ecaz", territory=territory, ambassador=who)
    set_phase(client, t, "storm", turn=2)
    ok(client, t, type="storm.set", sector=7)
    ok(client, t, type="forces.place", faction="atreides", territory="Imperial Basin", sector=9, forces=2)
    ok(client, t, type="cards.set", faction="atreides", cards=["Family Atomics"])
    return t


STORM_CASES = [
    # (what the rule says, Family Atomics played?, storm start, storm card, strongholds whose Ambassador goes home)
    ("the Shield Wall stands: the storm never reaches Arrakeen or Carthag", False, 7, 3, []),
    ("the wall is down: stopping in Arrakeen's sector (9) returns its Ambassador", True, 7, 2, ["Arrakeen"]),
    ("the wall is down: passing over Arrakeen and Carthag (9, 10) to sector 11", True, 8, 3, ["Arrakeen", "Carthag"]),
    ("the wall is down: the storm stops short of Arrakeen (sectors 6, 7)", True, 5, 2, []),
    ("Tuek's Sietch (sector 4) stands on rock: even after Family Atomics the storm leaves it", True, 2, 3, []),
]


@pytest.mark.parametrize("why,atomics,start,move,returned", STORM_CASES,
                         ids=["wall-stands", "stops-in", "passes-over", "short", "rock"])
def test_the_storm_returns_an_exposed_ambassador_to_ecaz_supply(client, why, atomics, start, move, returned):
    """kiss-rules.txt, Ecaz: "Ambassadors are vulnerable to game effects like Storm or explosions,
    returning to your supply." An Ambassador stands only in a stronghold: only Arrakeen and Carthag,
    once Family Atomics destroys the Shield Wall, lie where the storm kills."""
    t = ecaz_table(client)
    ok(client, t, type="storm.set", sector=start)
    ok(client, t, type="storm.draw", card=move, override=True, reason="drawn at the table")
    if atomics:
        ok(client, t, "atreides", type="atomics.family", faction="atreides")
    preview = state(client, t.code, t.token("harkonnen"))["storm_phase"]["preview"]
    assert preview["ambassadors_lost"] == returned  # the table sees it coming, as it sees the losses
    ok(client, t, type="storm.move", sectors=move)
    s = host_state(client, t)
    markers = s["board"].get("markers", {})
    for territory in ("Arrakeen", "Carthag", "Tuek's Sietch"):
        assert bool((markers.get(territory) or {}).get("ambassador")) == (territory not in returned), territory
    ecaz = state(client, t.code, t.token("ecaz"))["factions"]["ecaz"]["private"]
    back = {"Arrakeen": "Fremen", "Carthag": "Tleilaxu"}
    for territory, who in back.items():
        assert (who in ecaz["ambassadors"]) == (territory in returned), who
        assert (territory in ecaz.get("ambassadors_placed", {})) == (territory not in returned), territory
    line = next(e for e in reversed(history(client, t, "harkonnen")) if e["type"] == "storm.move")["summary"]
    for territory in returned:
        assert f"the Ambassador in {territory} returns to Ecaz's supply" in line
    if not returned:
        assert "Ambassador" not in line
    assert "Fremen" not in line and "Tleilaxu" not in line  # which Ambassador it was stays Ecaz's secret


BOARD = load_board()
STRONGHOLDS = [t.name for t in BOARD.territories.values() if t.is_stronghold]


@settings(max_examples=60, deadline=None)
@given(start=st.integers(1, 18), move=st.integers(0, 20), wall=st.booleans(),
       placed=st.sets(st.sampled_from(STRONGHOLDS)))
def test_only_arrakeen_and_carthag_lose_ambassadors_and_only_once_the_wall_is_down(start, move, wall, placed):
    """Invariant of the rule above: an Ambassador goes home only from a stronghold the storm can
    reach (Arrakeen, Carthag, after Family Atomics), and only when the storm passes over or stops there."""
    p = storm_effects(BOARD, start, move, {}, {}, shield_wall_standing=wall, ambassador_territories=sorted(placed))
    lost = set(p.ambassadors_lost)
    assert lost <= placed
    if wall:
        assert not lost
    for territory in lost:
        assert territory in ("Arrakeen", "Carthag")
        assert set(BOARD.territory(territory).sectors) & set(p.sectors_passed)
    for territory in placed & {"Arrakeen", "Carthag"}:
        if not wall and set(BOARD.territory(territory).sectors) & set(p.sectors_passed):
            assert territory in lost


# -- a Karama against the Tleilaxu Facedancers --------------------------------------------------------

def facedancer_battle(client, *, ally: bool):
    """Atreides (Duncan Idaho, 2, five forces dialed) against the Tleilaxu, or against the Harkonnen allied
    with the Tleilaxu, whose Crysknife kills Duncan Idaho: the Facedancers add 1 (half of 2)."""
    t = create_table(client, ["atreides", "harkonnen", "tleilaxu"])
    side = "harkonnen" if ally else "tleilaxu"
    ok(client, t, type="forces.place", faction=side, territory="Arrakeen", forces=5)
    if ally:
        ok(client, t, type="alliance.form", factions=["harkonnen", "tleilaxu"], override=True, reason="a Nexus")
    ok(client, t, type="cards.set", faction=side, cards=["Crysknife"])
    ok(client, t, type="cards.set", faction="atreides", cards=["Karama"])
    set_phase(client, t, "battle")
    s = ok(client, t, "atreides", type="battle.open", territory="Arrakeen", aggressor="atreides", opponent=side,
           override=True, reason="the table's battle order")
    return t, s["battles"][-1]["id"], side


@pytest.mark.parametrize("ally,stopped", [(False, False), (False, True), (True, False), (True, True)],
                         ids=["tleilaxu", "tleilaxu-stopped", "ally", "ally-stopped"])
def test_a_karama_stops_the_facedancers_for_one_battle(client, ally, stopped):
    """kiss-rules.txt, Karama, Tleilaxu: "Prevent Tleilaxu from adding strength from killed leaders to
    Tleilaxu or their allies' battle plan in one battle." (Facedancers: "add half of the strength of
    leaders that die in that battle (rounding up separately)"; Alliance: "Your ally may use Facedancers".)"""
    t, bid, side = facedancer_battle(client, ally=ally)
    leader = "Umman Kudu" if ally else "Blin"  # both strength 1
    if stopped:
        s = ok(client, t, "atreides", type="battle.karama", battle=bid, faction="atreides", power="facedancers")
        assert s["battles"][-1]["karama"] == {"facedancers": "atreides"}
        assert "Karama" in host_state(client, t)["treachery"]["discard"]
    ok(client, t, "atreides", type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=5)
    ok(client, t, side, type="battle.plan", battle=bid, faction=side, leader=leader, forces=4, weapon="Crysknife")
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    o = ok(client, t, type="battle.apply", battle=bid)["battles"][-1]["outcome"]
    assert "Duncan Idaho" in o["leaders_killed"]
    assert o["totals"][side] == 1 + 4 + (0 if stopped else 1)
    rules = [line["rule"] for line in o["lines"]]
    assert ("karama-tleilaxu" in rules) == stopped
    assert o["totals"]["atreides"] == 5  # Duncan Idaho died: the Atreides count their dial alone
    # 6 against 5 wins; stopped, 5 against 5 is a tie, and a tie goes to the aggressor
    assert o["winner"] == ("atreides" if stopped else side)


KARAMA_REFUSED = [
    # (what the rule excludes, the player, setup, needle, rule)
    ('"A Karama cannot be used to subvert a faction\'s own advantage"', "tleilaxu", "tleilaxu", "own", "kiss-karama"),
    ('"to Tleilaxu or their allies\' battle plan": neither fights', "atreides", "none", "nothing to stop",
     "karama-tleilaxu"),
    ('"before battle plans are revealed"', "atreides", "revealed", "before the plans are revealed",
     "qa-battle-karama-timing"),
]


@pytest.mark.parametrize("why,player,setup,needle,rule", KARAMA_REFUSED, ids=["own", "absent", "revealed"])
def test_the_facedancers_karama_is_refused_outside_the_rule(client, why, player, setup, needle, rule):
    if setup == "none":
        t = create_table(client, ["atreides", "harkonnen", "tleilaxu"])
        ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
        set_phase(client, t, "battle")
        bid = ok(client, t, type="battle.open", territory="Arrakeen", aggressor="atreides", opponent="harkonnen",
                 override=True, reason="the table's battle order")["battles"][-1]["id"]
        refused(client, t, player, rule, needle, type="battle.karama", battle=bid, faction=player,
                power="facedancers")
        return
    t, bid, side = facedancer_battle(client, ally=False)
    if setup == "revealed":
        ok(client, t, "atreides", type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=4)
        ok(client, t, side, type="battle.plan", battle=bid, faction=side, leader="Blin", forces=4, weapon="Crysknife")
        ok(client, t, "atreides", type="battle.reveal", battle=bid)
    refused(client, t, player, rule, needle, type="battle.karama", battle=bid, faction=player, power="facedancers")


def test_the_phone_offers_the_facedancers_karama_to_the_tleilaxus_opponent_only(client):
    t, bid, side = facedancer_battle(client, ally=False)
    phones = {seat: join_seat(client.application, t.code, seat) for seat in ("atreides", "tleilaxu")}

    def page(seat):
        return phones[seat].get(f"/t/{t.code}/view").get_data(as_text=True)

    assert 'data-karama-power="facedancers"' in page("atreides")
    assert 'data-karama-power="facedancers"' not in page("tleilaxu")
    ok(client, t, type="battle.karama", battle=bid, faction="atreides", power="facedancers")  # the host, for the phone
    assert 'data-karama="facedancers"' in page("tleilaxu")  # the fact shows on every phone
    assert 'data-karama-power="facedancers"' not in page("atreides")
