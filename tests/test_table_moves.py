"""Issue 5 through the API: shipment and movement refusals (message and rule id) on concrete
board positions, the override, "where can I go?" and a property: what /reach lists, `move` accepts."""
from __future__ import annotations

import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import create_app
from companion.games.dune.rules.board import load_board, split_piece
from conftest import SIX, act, create_table, join_seat, undo
from table_helpers import finish_setup, get, history, host_state, its_turn, ok, refused, set_phase, spice, stack, open_nexus


@pytest.fixture()
def t(client, table6):
    """A six-faction table in the Shipment & Movement phase of turn 1."""
    set_phase(client, table6, "shipment_movement")
    return table6


def total_spice(s) -> int:
    return sum(spice(s, f) for f in SIX)


# -- the storm at sector-piece level ----------------------------------------------------------------

def test_ship_into_the_stormed_piece_refused_other_piece_allowed(client, t):
    ok(client, t, type="storm.set", sector=9)
    refused(client, t, "emperor", "base-storm-movement",
            "The storm is over sector 9: no forces can be shipped into Imperial Basin", type="ship",
            faction="emperor", to="Imperial Basin", sector=9, forces=2)
    s = ok(client, t, "emperor", type="ship", faction="emperor", to="imperial-basin", sector=8, forces=2)
    assert stack(s, "Imperial Basin", "emperor")["sectors"] == {"8": {"forces": 2, "starred": 0, "advisors": 0}}
    s = host_state(client, t)
    assert spice(s, "emperor") == 10 - 4 and spice(s, "guild") == 5 + 4  # 2 per force into sand, to the Guild


def test_move_into_the_stormed_piece_refused_other_piece_allowed(client, t):
    ok(client, t, type="storm.set", sector=10)
    refused(client, t, "atreides", "base-storm-movement", "The storm is over sector 10: Imperial Basin",
            type="move", faction="atreides", **{"from": "Arrakeen"}, to="Imperial Basin", to_sector=10, forces=2)
    refused(client, t, "harkonnen", "base-storm-movement", "forces in Carthag cannot move out", type="move",
            faction="harkonnen", **{"from": "Carthag"}, to="Imperial Basin", to_sector=9, forces=2)
    its_turn(client, t, "atreides")  # storm order from sector 10: Guild, Bene Gesserit, Atreides...
    s = ok(client, t, "atreides", type="move", faction="atreides", **{"from": "Arrakeen"}, to="Imperial Basin",
           to_sector=9, forces=2)
    assert stack(s, "Imperial Basin", "atreides")["sectors"]["9"]["forces"] == 2
    assert stack(s, "Arrakeen", "atreides")["forces"] == 8


def test_a_path_that_must_detour_around_the_storm(client, t):
    ok(client, t, type="storm.set", sector=9)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Imperial Basin", sector=8, forces=3)
    ok(client, t, type="forces.place", faction="emperor", territory="Imperial Basin", sector=8, forces=3)
    # Harkonnen (ornithopters from Carthag) can go round: Polar Sink, Arsunt, back into Imperial Basin
    r = get(client, t, "harkonnen", "reach", territory="Imperial Basin", sector=8)
    ib = next(d for d in r["move"]["destinations"] if d["territory"] == "Imperial Basin")
    assert ib["sectors"] == [10] and ib["hops"] == 3 and "Polar Sink" in ib["path"]
    r = get(client, t, "emperor", "reach", territory="Imperial Basin", sector=8)
    assert "Imperial Basin" not in {d["territory"] for d in r["move"]["destinations"]}
    refused(client, t, "emperor", "base-storm-movement", "The storm over sector 9 blocks every route", type="move",
            faction="emperor", **{"from": "Imperial Basin", "from_sector": 8}, to="Imperial Basin", to_sector=10,
            forces=1)
    its_turn(client, t, "harkonnen")
    s = ok(client, t, "harkonnen", type="move", faction="harkonnen", **{"from": "Imperial Basin", "from_sector": 8},
           to="Imperial Basin", to_sector=10, forces=3)
    assert stack(s, "Imperial Basin", "harkonnen")["sectors"] == {"10": {"forces": 3, "starred": 0, "advisors": 0}}


# -- occupancy -----------------------------------------------------------------------------------------

def test_tueks_sietch_full_but_advisors_may_enter(client, t):
    ok(client, t, type="forces.place", faction="atreides", territory="Tuek's Sietch", forces=1)
    refused(client, t, "harkonnen", "base-occupancy",
            "Tuek's Sietch already holds forces of two other factions (Atreides and Spacing Guild): "
            "Harkonnen cannot ship into a full stronghold", type="ship", faction="harkonnen", to="Tuek's Sietch",
            forces=1)
    ok(client, t, type="forces.place", faction="harkonnen", territory="South Mesa", sector=4, forces=2)
    refused(client, t, "harkonnen", "base-occupancy", "cannot enter a full stronghold", type="move",
            faction="harkonnen", **{"from": "South Mesa", "from_sector": 4}, to="tueks-sietch", forces=2)
    refused(client, t, "bg", "bg-advisors", "only as advisors", type="ship", faction="bg", to="Tuek's Sietch",
            forces=1)
    its_turn(client, t, "bg")
    s = ok(client, t, "bg", type="ship", faction="bg", to="Tuek's Sietch", advisors=1)
    assert stack(s, "Tuek's Sietch", "bg")["advisors"] == 1
    assert spice(s, "bg") == 5 - 1


def test_allies_may_not_end_together_except_in_the_polar_sink(client, table6):
    t = table6
    open_nexus(client, t)
    ok(client, t, type="alliance.form", factions=["atreides", "harkonnen"])
    set_phase(client, t, "shipment_movement")
    refused(client, t, "harkonnen", "base-alliance-occupancy",
            "Harkonnen's ally Atreides already has forces in Arrakeen: allies may not end in the same territory",
            type="ship", faction="harkonnen", to="Arrakeen", forces=1)
    refused(client, t, "atreides", "base-alliance-occupancy", "Atreides's ally Harkonnen already has forces in "
            "Carthag", type="move", faction="atreides", **{"from": "Arrakeen"}, to="Carthag", forces=1)
    ok(client, t, "atreides", type="move", faction="atreides", **{"from": "Arrakeen"}, to="polar sink", forces=1)
    s = ok(client, t, "harkonnen", type="ship", faction="harkonnen", to="Polar Sink", forces=1)  # storm order
    assert stack(s, "Polar Sink", "atreides")["forces"] == 1 and stack(s, "Polar Sink", "harkonnen")["forces"] == 1


# -- cost and payment ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shipper, ally, to, sector, forces, karama, cost, payee", [
    ("guild", None, "The Great Flat", None, 3, False, 3, "bank"),  # ceil(6 / 2)
    ("guild", None, "Arrakeen", None, 1, False, 1, "bank"),  # ceil(1 / 2)
    ("atreides", "guild", "The Great Flat", None, 3, False, 3, "guild"),  # the Guild's ally: half rate
    ("atreides", "guild", "Carthag", None, 3, False, 2, "guild"),  # ceil(3 / 2)
    ("atreides", None, "The Great Flat", None, 3, False, 6, "guild"),
    ("atreides", None, "Sietch Tabr", None, 3, False, 3, "guild"),
    ("atreides", None, "Polar Sink", None, 2, False, 4, "guild"),
    ("atreides", None, "The Great Flat", None, 3, True, 3, "bank"),  # Karama: Guild rate, paid to the bank
])
def test_shipment_cost_and_payee(client, table6, shipper, ally, to, sector, forces, karama, cost, payee):
    t = table6
    if ally:
        open_nexus(client, t)
        ok(client, t, type="alliance.form", factions=[shipper, ally])
    set_phase(client, t, "shipment_movement")
    before = host_state(client, t)
    entry = {"type": "ship", "faction": shipper, "to": to, "forces": forces, "karama": karama}
    if sector:
        entry["sector"] = sector
    s = ok(client, t, shipper, **entry)
    after = host_state(client, t)
    assert spice(after, shipper) == spice(before, shipper) - cost
    if payee == "guild":
        assert spice(after, "guild") == spice(before, "guild") + cost
    else:
        assert total_spice(after) == total_spice(before) - cost
    assert s["turn_flags"][shipper]["shipped"] is True


@pytest.mark.parametrize("to, sector, allowed", [
    ("The Great Flat", None, True),
    ("Sietch Tabr", None, True),
    ("Cielago West", 17, True),
    ("Wind Pass North", 16, True),
    ("Broken Land", 10, True),
    ("Tsimpo", 12, True),
    ("Polar Sink", None, True),
    ("Meridian", 1, False),
    ("Habbanya Sietch", None, False),
    ("Habbanya Ridge Flat", 17, False),
    ("Old Gap", 9, False),
    ("Arsunt", 11, False),
])
def test_fremen_free_shipment_range_edges(client, table6, to, sector, allowed):
    t = table6
    set_phase(client, t, "shipment_movement")
    entry = {"type": "ship", "faction": "fremen", "to": to, "forces": 2}
    if sector:
        entry["sector"] = sector
    if allowed:
        its_turn(client, t, "fremen")
        s = ok(client, t, "fremen", **entry)
        assert stack(s, to, "fremen")["forces"] == 2 and spice(s, "fremen") == 3  # free
    else:
        refused(client, t, "fremen", "fremen-shipment", f"{to} is more than two territories from The Great Flat",
                **entry)


def test_one_shipment_and_one_move_per_turn(client, t):
    ok(client, t, "atreides", type="ship", faction="atreides", to="Arrakeen", forces=1)
    refused(client, t, "atreides", "base-shipment", "Atreides has already shipped this turn", type="ship",
            faction="atreides", to="Arrakeen", forces=1)
    ok(client, t, "atreides", type="move", faction="atreides", **{"from": "Arrakeen"}, to="Old Gap", to_sector=9,
       forces=1)
    refused(client, t, "atreides", "base-movement", "already moved a group this turn", type="move",
            faction="atreides", **{"from": "Arrakeen"}, to="Old Gap", to_sector=9, forces=1)
    ok(client, t, "guild", type="ship", faction="guild", to="Tuek's Sietch", forces=1)
    refused(client, t, "guild", "guild-shipment-types", "already shipped this turn", type="ship", faction="guild",
            to="Tuek's Sietch", forces=1)
    set_phase(client, t, "shipment_movement", turn=2)  # a new turn: both again
    ok(client, t, "atreides", type="ship", faction="atreides", to="Arrakeen", forces=1)
    ok(client, t, "atreides", type="move", faction="atreides", **{"from": "Arrakeen"}, to="Old Gap", to_sector=9,
       forces=1)


def test_movement_range_ornithopters_fremen_and_others(client, table6):
    t = table6
    finish_setup(client, t)
    set_phase(client, t, "shipment_movement")
    ok(client, t, type="forces.place", faction="emperor", territory="Old Gap", sector=8, forces=2)
    refused(client, t, "emperor", "base-movement",
            "Plastic Basin (North, sector 11) is 2 territories away from Old Gap (East, sector 8): Emperor may "
            "move only 1 territory this turn.", type="move", faction="emperor",
            **{"from": "Old Gap", "from_sector": 8}, to="Plastic Basin", to_sector=11, forces=2)
    refused(client, t, "fremen", "fremen-movement", "Fremen may move only 2 territories", type="move",
            faction="fremen", **{"from": "Sietch Tabr"}, to="Old Gap", to_sector=9, forces=2)
    s = ok(client, t, "atreides", type="move", faction="atreides", **{"from": "Arrakeen"}, to="Plastic Basin",
           to_sector=11, forces=4)  # ornithopters: 3 territories
    its_turn(client, t, "fremen")
    ok(client, t, "fremen", type="move", faction="fremen", **{"from": "Sietch Tabr"}, to="Broken Land",
       to_sector=11, forces=2)
    assert stack(s, "Plastic Basin", "atreides")["forces"] == 4
    assert get(client, t, "atreides", "reach", territory="Arrakeen")["move"]["allowance"] == 3
    assert get(client, t, "emperor", "reach", territory="Old Gap", sector=8)["move"]["allowance"] == 1


# -- override --------------------------------------------------------------------------------------------

def test_override_is_accepted_logged_and_visible_to_everyone(client, t):
    ok(client, t, type="forces.place", faction="emperor", territory="Old Gap", sector=8, forces=2)
    err = refused(client, t, "emperor", "base-movement", "2 territories away", type="move", faction="emperor",
                  **{"from": "Old Gap", "from_sector": 8}, to="Plastic Basin", to_sector=11, forces=2)
    assert err["overridable"] is True
    refused(client, t, "emperor", None, "An override needs a short reason", type="move", faction="emperor",
            **{"from": "Old Gap", "from_sector": 8}, to="Plastic Basin", to_sector=11, forces=2, override=True)
    refused(client, t, "emperor", None, "An override needs a short reason", type="move", faction="emperor",
            **{"from": "Old Gap", "from_sector": 8}, to="Plastic Basin", to_sector=11, forces=2, override=True,
            reason="   ")
    s = ok(client, t, "emperor", type="move", faction="emperor", **{"from": "Old Gap", "from_sector": 8},
           to="Plastic Basin", to_sector=11, forces=2, override=True, reason="the board shows it")
    assert stack(s, "Plastic Basin", "emperor")["forces"] == 2
    for seat in ("host", "atreides", "fremen"):
        last = history(client, t, seat)[-1]
        assert last["override"] is True
        assert "[OVERRIDE: the board shows it" in last["summary"] and "2 territories away" in last["summary"]


@pytest.mark.parametrize("entry, rule, needle", [
    ({"type": "ship", "faction": "atreides", "to": "Arrakeen", "forces": 11}, "base-shipment",
     "only 10 forces in reserve"),
    ({"type": "ship", "faction": "atreides", "to": "The Great Flat", "forces": 6}, "base-shipment-cost",
     "costs 12 spice but Atreides has only 10"),
    ({"type": "move", "faction": "emperor", "from": "Old Gap", "from_sector": 8, "to": "Arrakeen", "forces": 1},
     None, "Emperor has only 0 forces in Old Gap"),
    ({"type": "ship", "faction": "atreides", "to": "Nowhere", "forces": 1}, "base-board", "no territory called"),
])
def test_hard_errors_cannot_be_overridden(client, t, entry, rule, needle):
    err = refused(client, t, entry["faction"], rule, needle, override=True, reason="we insist", **entry)
    assert err["overridable"] is False


# -- where can I go? -------------------------------------------------------------------------------

def test_reach_lists_moves_and_shipments_with_costs(client, t):
    ok(client, t, type="forces.place", faction="atreides", territory="Tuek's Sietch", forces=1)
    r = get(client, t, "atreides", "reach", territory="arrakeen")
    assert r["faction"] == "atreides" and r["move"]["from"] == "Arrakeen" and r["move"]["allowance"] == 3
    moves = {d["territory"]: d for d in r["move"]["destinations"]}
    assert moves["Imperial Basin"]["hops"] == 1 and moves["Imperial Basin"]["sectors"] == [8, 9, 10]
    assert moves["Carthag"]["hops"] == 2 and "Arrakeen" not in moves
    ships = {d["territory"]: d for d in r["ship"]["destinations"]}
    assert ships["Carthag"]["cost_one_force"] == 1 and ships["Carthag"]["payee"] == "guild"
    assert ships["The Great Flat"]["cost_one_force"] == 2
    r = get(client, t, "emperor", "reach")  # no stack asked: shipments only
    assert r["move"] is None
    assert "Tuek's Sietch" not in {d["territory"] for d in r["ship"]["destinations"]}  # full for the Emperor
    r = get(client, t, "fremen", "reach")
    assert {d["cost_one_force"] for d in r["ship"]["destinations"]} == {0}
    assert "Carthag" not in {d["territory"] for d in r["ship"]["destinations"]}
    assert get(client, t, "host", "reach", faction="guild")["faction"] == "guild"
    get(client, t, "atreides", "reach", 403, faction="emperor")
    assert get(client, t, "atreides", "reach", 422, territory="Nowhere")["error"]["rule"] == "base-board"
    assert get(client, t, "host", "reach", 422, faction="ecaz")["error"]["message"]


def test_reach_fragment_on_the_phone(app, client, t):
    phone = join_seat(app, t.code, "atreides")
    html = phone.get(f"/t/{t.code}/reach", query_string={"territory": "Arrakeen"}).get_data(as_text=True)
    assert 'data-territory="Imperial Basin"' in html and "Move → Imperial Basin" in html
    assert "move up to 3 territories" in html
    assert phone.get(f"/t/{t.code}/reach", query_string={"faction": "emperor"}).status_code == 403


# -- property: what /reach lists, `move` accepts -------------------------------------------------------

BOARD = load_board()
PIECES = sorted(BOARD.all_pieces())
STRONGHOLDS = sorted(BOARD.strongholds())


@pytest.fixture(scope="module")
def shared_client():
    with tempfile.TemporaryDirectory() as d:
        yield create_app({"DATA_DIR": d, "TESTING": True}).test_client()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mover=st.sampled_from(["atreides", "fremen", "emperor", "bg", "guild", "harkonnen"]),
       piece=st.sampled_from(PIECES), storm=st.integers(1, 18),
       full=st.one_of(st.none(), st.sampled_from(STRONGHOLDS)),
       ally=st.one_of(st.none(), st.sampled_from(SIX)), advisors=st.booleans(), data=st.data())
def test_property_every_reach_destination_is_accepted_by_move(shared_client, mover, piece, storm, full, ally,
                                                              advisors, data):
    client = shared_client
    t = create_table(client, SIX)
    if ally and ally != mover:
        open_nexus(client, t)
        ok(client, t, type="alliance.form", factions=[mover, ally])
    set_phase(client, t, "shipment_movement")
    ok(client, t, type="storm.set", sector=storm)
    if full:  # make one stronghold hold two other factions
        for f in [x for x in ("emperor", "fremen", "bg") if x != mover][:2]:
            ok(client, t, type="forces.place", faction=f, territory=full, forces=1)
    territory, sector = split_piece(piece)
    kind = "advisors" if (mover == "bg" and advisors) else "forces"
    place = {"type": "forces.place", "faction": mover, "territory": territory, kind: 2}
    if sector is not None:
        place["sector"] = sector
    ok(client, t, **place)
    r = get(client, t, mover, "reach", territory=territory, sector=sector or "")
    options = [(d["territory"], s) for d in r["move"]["destinations"] for s in (d["sectors"] or [None])]
    if not options:
        return
    picks = data.draw(st.lists(st.sampled_from(options), min_size=1, max_size=4, unique=True))
    its_turn(client, t, mover)
    for dest, dsector in picks:
        entry = {"type": "move", "faction": mover, "from": territory, "to": dest, kind: 1}
        if sector is not None:
            entry["from_sector"] = sector
        if dsector is not None:
            entry["to_sector"] = dsector
        resp = act(client, t.code, t.seats[mover], expect=None, **entry)
        assert resp.status_code == 200, (entry, resp.get_json())
        undo(client, t.code, t.seats[mover])
