"""Shipment legality and cost: rates, payee, Fremen range, storm, occupancy, Guild kinds, BG advisors."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.dune.rules.board import POLAR_SINK, load_board
from companion.games.dune.rules.errors import RuleViolation
from companion.games.dune.rules.position import Position
from companion.games.dune.rules.shipment import (
    ShipCost,
    check_cross_ship,
    check_ship,
    check_ship_to_reserves,
    check_spiritual_advisor,
    in_fremen_range,
    ship_destinations,
    shipment_cost,
)

BOARD = load_board()
FULL_TUEKS = {"Tuek's Sietch": {"emperor": 5, "harkonnen": 3}}


def pos(storm=3, occupants=None, alliances=None, aftermath=None, tokens=None):
    alliances = dict(alliances or {})
    for a, b in list(alliances.items()):
        alliances[b] = a
    return Position(storm_sector=storm, occupants=occupants or {}, alliances=alliances,
                    atomics_aftermath=aftermath, token_territories=tokens or {})


# ---------------------------------------------------------------- cost

COSTS = [
    # id, position, faction, territory, forces, guild_in_game, karama, (amount, payee)
    ("sand costs 2 per force, paid to the Guild", pos(), "atreides", "Funeral Plain", 3, True, False, (6, "guild")),
    ("stronghold costs 1 per force", pos(), "atreides", "Carthag", 3, True, False, (3, "guild")),
    ("Polar Sink costs 2 per force", pos(), "harkonnen", POLAR_SINK, 2, True, False, (4, "guild")),
    ("no Guild at the table: the bank", pos(), "atreides", "Funeral Plain", 3, False, False, (6, "bank")),
    ("Guild half rate rounds up on sand", pos(), "guild", "Funeral Plain", 3, True, False, (3, "bank")),
    ("Guild half rate rounds up into a stronghold", pos(), "guild", "Carthag", 3, True, False, (2, "bank")),
    ("Guild one force into a stronghold", pos(), "guild", "Arrakeen", 1, True, False, (1, "bank")),
    ("Guild ally pays half to the Guild", pos(alliances={"atreides": "guild"}), "atreides", "Funeral Plain", 3,
     True, False, (3, "guild")),
    ("Guild ally into a stronghold", pos(alliances={"emperor": "guild"}), "emperor", "Carthag", 5, True, False,
     (3, "guild")),
    ("Karama: Guild rate, paid to the bank", pos(), "atreides", "Funeral Plain", 3, True, True, (3, "bank")),
    ("Karama without the Guild in the game", pos(), "atreides", "Carthag", 5, False, True, (3, "bank")),
    ("revealed Discovery territory costs as a stronghold", pos(tokens={"Cistern": "Cielago East@2"}), "atreides",
     "Cistern", 3, True, False, (3, "guild")),
    ("Fremen free onto The Great Flat", pos(), "fremen", "The Great Flat", 10, True, False, (0, "bank")),
    ("Fremen free into Sietch Tabr", pos(), "fremen", "Sietch Tabr", 4, True, False, (0, "bank")),
    ("Fremen free at the range edge (Cielago West)", pos(), "fremen", "Cielago West", 2, True, False, (0, "bank")),
    ("Fremen free into the Polar Sink", pos(), "fremen", POLAR_SINK, 2, True, False, (0, "bank")),
    ("Fremen allied with the Guild stay free in range", pos(alliances={"fremen": "guild"}), "fremen",
     "The Great Flat", 3, True, False, (0, "bank")),
    ("Fremen allied with the Guild ship outside range at half rate", pos(alliances={"fremen": "guild"}),
     "fremen", "Arrakeen", 3, True, False, (2, "guild")),
    ("Discovery territory on a host next to The Great Flat is in Fremen range",
     pos(tokens={"Cistern": "Plastic Basin@12"}), "fremen", "Cistern", 3, True, False, (0, "bank")),
]


@pytest.mark.parametrize(
    "position, faction, territory, forces, guild, karama, expected",
    [c[1:] for c in COSTS], ids=[c[0] for c in COSTS],
)
def test_shipment_cost(position, faction, territory, forces, guild, karama, expected):
    got = shipment_cost(BOARD, position, faction, territory, forces, guild_in_game=guild,
                        karama_guild_rate=karama)
    assert got == ShipCost(*expected)


def test_explicit_ally_argument_is_used():
    assert shipment_cost(BOARD, pos(), "atreides", "Funeral Plain", 3, guild_in_game=True,
                         ally="guild") == ShipCost(3, "guild")


@pytest.mark.parametrize(
    "position, territory, karama",
    [
        (pos(), "Arrakeen", False),
        (pos(), "Habbanya Ridge Flat", False),  # three territories from The Great Flat
        (pos(), "Tuek's Sietch", False),
        (pos(), "Arrakeen", True),  # a Karama changes the rate, not who may ship
        (pos(alliances={"fremen": "atreides"}), "Carthag", False),
        (pos(tokens={"Cistern": "False Wall West@16"}), "Cistern", False),  # host is two away
    ],
)
def test_fremen_outside_range(position, territory, karama):
    with pytest.raises(RuleViolation) as err:
        shipment_cost(BOARD, position, "fremen", territory, 2, guild_in_game=True, karama_guild_rate=karama)
    assert err.value.rule == "fremen-shipment"
    assert err.value.message.endswith("the Fremen ship only there or within two territories of it.")


def test_fremen_range_matches_board_flags():
    inside = {t for t in BOARD.territories if in_fremen_range(BOARD, pos(), t)}
    assert len(inside) == 16
    assert {"The Great Flat", "Sietch Tabr", "Cielago West", "Wind Pass North", POLAR_SINK} <= inside
    assert not {"Arrakeen", "Carthag", "Habbanya Sietch", "Habbanya Ridge Flat", "Tuek's Sietch"} & inside


# ---------------------------------------------------------------- check_ship


def ship(position, faction, territory, sector=None, forces=3, starred=0, *, reserves=10, reserves_starred=3,
         spice=20, guild=True, shipped=False, karama=False, advisors_only=False):
    return check_ship(BOARD, position, faction, territory, sector, forces, starred, reserves=reserves,
                      reserves_starred=reserves_starred, spice=spice, guild_in_game=guild, ally=None,
                      shipped_this_turn=shipped, karama_guild_rate=karama, advisors_only=advisors_only)


ACCEPTED = [
    # id, position, faction, territory, sector, kwargs, cost
    ("one-sector territory infers its sector", pos(), "atreides", "Carthag", None, {}, (3, "guild")),
    ("clear piece of a partly stormed territory", pos(storm=10), "atreides", "Imperial Basin", 8, {}, (6, "guild")),
    ("starred forces count too", pos(), "emperor", "Arrakeen", None, {"forces": 2, "starred": 2}, (4, "guild")),
    ("exactly enough spice", pos(), "atreides", "Funeral Plain", None, {"spice": 6}, (6, "guild")),
    ("Polar Sink unlimited", pos(occupants={POLAR_SINK: {"emperor": 1, "harkonnen": 1, "fremen": 1}}),
     "atreides", POLAR_SINK, None, {}, (6, "guild")),
    ("Bene Gesserit advisors into a full stronghold", pos(occupants=FULL_TUEKS), "bg", "Tuek's Sietch", None,
     {"advisors_only": True}, (3, "guild")),
    ("Ecaz ships in with its ally", pos(occupants={"Carthag": {"atreides": 2, "harkonnen": 1}},
     alliances={"ecaz": "atreides"}), "ecaz", "Carthag", None, {}, (3, "guild")),
    ("Ecaz pair counts as one for a third faction", pos(occupants={"Carthag": {"atreides": 2, "ecaz": 1}},
     alliances={"ecaz": "atreides"}), "harkonnen", "Carthag", None, {}, (3, "guild")),
    ("Fremen free into its range, no spice needed", pos(), "fremen", "The Great Flat", None, {"spice": 0},
     (0, "bank")),
    ("Guild ships at half to the bank", pos(), "guild", "Funeral Plain", None, {}, (3, "bank")),
    ("the Guild with a Karama still pays half to the bank", pos(), "guild", "Carthag", None, {"karama": True},
     (2, "bank")),
    ("Bene Gesserit advisors do not fill a stronghold",
     Position(storm_sector=3, occupants={"Carthag": {"emperor": 2}}, advisors={"Carthag": 4}), "atreides",
     "Carthag", None, {}, (3, "guild")),
]


@pytest.mark.parametrize(
    "position, faction, territory, sector, kwargs, cost",
    [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED],
)
def test_accepted_shipments(position, faction, territory, sector, kwargs, cost):
    assert ship(position, faction, territory, sector, **kwargs) == ShipCost(*cost)


REFUSED = [
    # id, position, faction, territory, sector, kwargs, rule, message, overridable
    ("not enough reserves", pos(), "atreides", "Carthag", None, {"forces": 5, "reserves": 4}, "base-shipment",
     "Atreides has only 4 forces in reserve, not 5.", False),
    ("not enough starred reserves", pos(), "emperor", "Carthag", None, {"starred": 2, "reserves_starred": 1},
     "base-shipment", "Emperor has only 1 starred force in reserve, not 2.", False),
    ("nothing to ship", pos(), "atreides", "Carthag", None, {"forces": 0}, "base-shipment", None, False),
    ("one shipment per turn", pos(), "atreides", "Carthag", None, {"shipped": True}, "base-shipment",
     "Atreides has already shipped this turn: each faction makes one shipment per turn.", True),
    ("Guild's one shipment of its three kinds", pos(), "guild", "Carthag", None, {"shipped": True},
     "guild-shipment-types", None, True),
    ("Atomics aftermath, even for the Fremen", pos(aftermath="Sietch Tabr"), "fremen", "Sietch Tabr", None, {},
     "moritani-terror-tokens",
     "The Atomics aftermath lies in Sietch Tabr: no forces may ever be shipped into it, not even Fremen.", True),
    ("Atomics aftermath for anyone", pos(aftermath="Carthag"), "guild", "Carthag", None, {},
     "moritani-terror-tokens", None, True),
    ("stronghold in storm", pos(storm=10), "atreides", "Carthag", None, {}, "base-storm-movement",
     "The storm is over sector 10: no forces can be shipped into Carthag this turn.", True),
    ("stormed piece of a partly stormed territory", pos(storm=10), "atreides", "Imperial Basin", 10, {},
     "base-storm-movement",
     "The storm is over sector 10: no forces can be shipped into Imperial Basin (West, sector 10) this turn.",
     True),
    ("rock is not spared by the storm for shipment", pos(storm=13), "fremen", "Sietch Tabr", None, {},
     "base-storm-movement", None, True),
    ("Tuek's Sietch full", pos(occupants=FULL_TUEKS), "atreides", "Tuek's Sietch", None, {}, "base-occupancy",
     "Tuek's Sietch already holds forces of two other factions (Emperor and Harkonnen): Atreides cannot ship "
     "into a full stronghold.", True),
    ("Bene Gesserit fighters into a full stronghold", pos(occupants=FULL_TUEKS), "bg", "Tuek's Sietch", None, {},
     "bg-advisors", None, True),
    ("ally already there", pos(occupants={"Funeral Plain": {"fremen": 2}}, alliances={"atreides": "fremen"}),
     "atreides", "Funeral Plain", None, {}, "base-alliance-occupancy",
     "Atreides's ally Fremen already has forces in Funeral Plain: allies may not end in the same territory "
     "except the Polar Sink.", True),
    ("Discovery territory holds two factions", pos(tokens={"Cistern": "Cielago East@2"},
     occupants={"Cistern": {"emperor": 1, "harkonnen": 1}}), "atreides", "Cistern", None, {},
     "discovery-token-territories", None, True),
    ("Fremen outside their range", pos(), "fremen", "Arrakeen", None, {}, "fremen-shipment", None, True),
    ("not enough spice", pos(), "atreides", "Funeral Plain", None, {"spice": 5}, "base-shipment-cost",
     "Shipping 3 forces into Funeral Plain costs 6 spice but Atreides has only 5 spice behind the shield.", False),
    ("Guild half rate still needs the spice", pos(), "guild", "Funeral Plain", None, {"forces": 5, "spice": 4},
     "base-shipment-cost", None, False),
    ("missing sector", pos(), "atreides", "Imperial Basin", None, {}, "base-board",
     "Imperial Basin spans sectors 8, 9, 10: say which sector.", False),
    ("sector outside the territory", pos(), "atreides", "Imperial Basin", 11, {}, "base-board", None, False),
    ("unknown territory", pos(), "atreides", "Jacurutu Sietch", None, {}, "base-board", None, False),
]


@pytest.mark.parametrize(
    "position, faction, territory, sector, kwargs, rule, message, overridable",
    [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED],
)
def test_refused_shipments(position, faction, territory, sector, kwargs, rule, message, overridable):
    with pytest.raises(RuleViolation) as err:
        ship(position, faction, territory, sector, **kwargs)
    assert err.value.rule == rule
    assert err.value.overridable is overridable
    if message is not None:
        assert err.value.message == message
    assert err.value.message.endswith(".") and ". " not in err.value.message


def test_token_territory_names_resolve_once_revealed():
    position = pos(tokens={"Jacurutu Sietch": "Meridian@18"})
    assert ship(position, "atreides", "jacurutu-sietch") == ShipCost(3, "guild")
    with pytest.raises(RuleViolation):
        ship(pos(storm=18, tokens={"Jacurutu Sietch": "Meridian@18"}), "atreides", "Jacurutu Sietch")


# ---------------------------------------------------------------- where can I ship?


def test_ship_destinations_for_fremen():
    dest = ship_destinations(BOARD, pos(storm=14), "fremen", forces=5, guild_in_game=True)
    assert "The Great Flat" not in dest  # in storm
    assert "Sietch Tabr" in dest and dest["Sietch Tabr"].amount == 0
    assert "Arrakeen" not in dest
    assert dest["Wind Pass"].sectors == (13, 15, 16)
    allied = ship_destinations(BOARD, pos(alliances={"fremen": "guild"}), "fremen", forces=3, guild_in_game=True)
    assert allied["Arrakeen"].amount == 2 and allied["The Great Flat"].amount == 0


def test_ship_destinations_leave_out_illegal_ones():
    position = pos(storm=9, occupants=FULL_TUEKS, aftermath="Carthag")
    dest = ship_destinations(BOARD, position, "atreides", forces=3, guild_in_game=True)
    assert "Arrakeen" not in dest and "Tuek's Sietch" not in dest and "Carthag" not in dest
    assert dest["Imperial Basin"].sectors == (8, 10)
    assert dest[POLAR_SINK].amount == 6 and dest[POLAR_SINK].sectors == ()
    assert dest["Sietch Tabr"].amount == 3 and dest["Sietch Tabr"].payee == "guild"
    cheap = ship_destinations(BOARD, position, "atreides", forces=3, guild_in_game=True, spice=4)
    assert set(cheap) == {"Sietch Tabr", "Habbanya Sietch"}
    assert ship_destinations(BOARD, position, "atreides", guild_in_game=True, shipped_this_turn=True) == {}
    bg = ship_destinations(BOARD, position, "bg", forces=1, guild_in_game=True, advisors_only=True)
    assert "Tuek's Sietch" in bg


FACTIONS = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu"]


@settings(max_examples=40, deadline=None)
@given(
    storm=st.integers(1, 18),
    faction=st.sampled_from(FACTIONS),
    ally=st.none() | st.sampled_from(FACTIONS),
    fill=st.lists(st.tuples(st.sampled_from(BOARD.strongholds() + ["Funeral Plain", POLAR_SINK]),
                            st.sampled_from(FACTIONS)), max_size=8),
    aftermath=st.none() | st.sampled_from(BOARD.strongholds()),
    forces=st.integers(1, 6),
    spice=st.integers(0, 12),
    karama=st.booleans(),
)
def test_ship_destinations_agree_with_check_ship(storm, faction, ally, fill, aftermath, forces, spice, karama):
    alliances = {faction: ally, ally: faction} if ally and ally != faction else {}
    occupants: dict[str, dict[str, int]] = {}
    for t, f in fill:
        occupants.setdefault(t, {})[f] = 1
    position = Position(storm_sector=storm, occupants=occupants, alliances=alliances, atomics_aftermath=aftermath)
    dest = ship_destinations(BOARD, position, faction, forces=forces, guild_in_game=True, spice=spice,
                             karama_guild_rate=karama)
    for t in BOARD.territories:
        sectors = [None] if t == POLAR_SINK else list(BOARD.territories[t].sectors)
        for s in sectors:
            try:
                cost = check_ship(BOARD, position, faction, t, s, forces, 0, reserves=forces, reserves_starred=0,
                                  spice=spice, guild_in_game=True, ally=None, shipped_this_turn=False,
                                  karama_guild_rate=karama)
            except RuleViolation:
                assert t not in dest or (s is not None and s not in dest[t].sectors)
                continue
            assert t in dest and (s is None or s in dest[t].sectors)
            assert (dest[t].amount, dest[t].payee) == (cost.amount, cost.payee)


# ---------------------------------------------------------------- Guild cross-shipment and back to reserves


def cross(position, faction, src, ss, dst, ds, forces=3, *, present=5, spice=20, shipped=False):
    return check_cross_ship(BOARD, position, faction, src, ss, dst, ds, forces, present=present, spice=spice,
                            guild_in_game=True, shipped_this_turn=shipped)


@pytest.mark.parametrize(
    "position, faction, src, ss, dst, ds, expected",
    [
        (pos(), "guild", "Tuek's Sietch", None, "Arrakeen", None, (2, "bank")),
        (pos(), "guild", "Tuek's Sietch", None, "Funeral Plain", None, (3, "bank")),
        (pos(alliances={"atreides": "guild"}), "atreides", "Arrakeen", None, "Funeral Plain", None, (3, "guild")),
        # a Fremen ally cross-ships at the half rate, never free, even into its range
        (pos(alliances={"fremen": "guild"}), "fremen", "Sietch Tabr", None, "The Great Flat", None, (3, "guild")),
        # cross-shipment jumps the storm: only the two end pieces matter
        (pos(storm=9), "guild", "Imperial Basin", 8, "Carthag", None, (2, "bank")),
        (pos(aftermath="Carthag"), "guild", "Carthag", None, "Arrakeen", None, (2, "bank")),  # out of it is fine
    ],
)
def test_cross_ship_accepted(position, faction, src, ss, dst, ds, expected):
    assert cross(position, faction, src, ss, dst, ds) == ShipCost(*expected)


@pytest.mark.parametrize(
    "position, faction, src, ss, dst, ds, kwargs, rule, overridable",
    [
        (pos(), "harkonnen", "Carthag", None, "Arrakeen", None, {}, "guild-shipment-types", True),
        (pos(storm=10), "guild", "Carthag", None, "Arrakeen", None, {}, "base-storm-movement", True),
        (pos(storm=9), "guild", "Carthag", None, "Arrakeen", None, {}, "base-storm-movement", True),
        (pos(), "guild", "Imperial Basin", 8, "Imperial Basin", 10, {}, "guild-shipment-types", True),
        (pos(aftermath="Arrakeen"), "guild", "Carthag", None, "Arrakeen", None, {}, "moritani-terror-tokens", True),
        (pos(occupants=FULL_TUEKS), "guild", "Carthag", None, "Tuek's Sietch", None, {}, "base-occupancy", True),
        (pos(), "guild", "Carthag", None, "Arrakeen", None, {"present": 2}, "guild-shipment-types", False),
        (pos(), "guild", "Carthag", None, "Arrakeen", None, {"shipped": True}, "guild-shipment-types", True),
        (pos(), "guild", "Carthag", None, "Funeral Plain", None, {"spice": 2}, "base-shipment-cost", False),
    ],
)
def test_cross_ship_refused(position, faction, src, ss, dst, ds, kwargs, rule, overridable):
    with pytest.raises(RuleViolation) as err:
        cross(position, faction, src, ss, dst, ds, **kwargs)
    assert (err.value.rule, err.value.overridable) == (rule, overridable)


@pytest.mark.parametrize("forces, expected", [(1, 1), (2, 1), (3, 2), (4, 2), (7, 4)])
def test_ship_to_reserves_cost(forces, expected):
    cost = check_ship_to_reserves(BOARD, pos(), "guild", "Tuek's Sietch", None, forces, present=10, spice=10,
                                  shipped_this_turn=False)
    assert cost == ShipCost(expected, "bank")


@pytest.mark.parametrize(
    "position, faction, kwargs, rule, message",
    [
        (pos(), "atreides", {}, "guild-shipment-types",
         "Atreides cannot ship forces back to reserves: only the Spacing Guild may."),
        (pos(alliances={"atreides": "guild"}), "atreides", {}, "guild-shipment-types", None),
        (pos(storm=4), "guild", {}, "base-storm-movement",
         "The storm is over sector 4: no forces can be shipped out of Tuek's Sietch this turn."),
        (pos(), "guild", {"spice": 1}, "base-shipment-cost", None),
        (pos(), "guild", {"shipped": True}, "guild-shipment-types", None),
    ],
)
def test_ship_to_reserves_refused(position, faction, kwargs, rule, message):
    args = {"present": 5, "spice": 10, "shipped_this_turn": False}
    if "spice" in kwargs:
        args["spice"] = kwargs["spice"]
    if "shipped" in kwargs:
        args["shipped_this_turn"] = True
    with pytest.raises(RuleViolation) as err:
        check_ship_to_reserves(BOARD, position, faction, "Tuek's Sietch", None, 4, **args)
    assert err.value.rule == rule
    if message:
        assert err.value.message == message


# ---------------------------------------------------------------- Bene Gesserit spiritual advisor


@pytest.mark.parametrize(
    "position, shipped, to, sector, expected",
    [
        (pos(), "Carthag", "Carthag", None, ("Carthag", 10)),
        (pos(), "Carthag", POLAR_SINK, None, (POLAR_SINK, None)),
        (pos(occupants=FULL_TUEKS), "Tuek's Sietch", "Tuek's Sietch", None, ("Tuek's Sietch", 4)),
        (pos(storm=9), "Imperial Basin", "imperial-basin", 8, ("Imperial Basin", 8)),
        (pos(occupants={"Carthag": {"bg": 2}}), "Carthag", POLAR_SINK, None, (POLAR_SINK, None)),
    ],
)
def test_spiritual_advisor_accepted(position, shipped, to, sector, expected):
    assert check_spiritual_advisor(BOARD, position, shipped, to, sector, shipper="atreides") == expected


@pytest.mark.parametrize(
    "position, shipped, to, sector, kwargs, rule, overridable",
    [
        (pos(), "Carthag", "Arrakeen", None, {}, "bg-spiritual-advisors", True),
        (pos(occupants={"Carthag": {"bg": 2}}), "Carthag", "Carthag", None, {}, "bg-spiritual-advisors", True),
        (pos(storm=9), "Imperial Basin", "Imperial Basin", 9, {}, "base-storm-movement", True),
        (pos(), "Carthag", "Carthag", None, {"shipper": "bg"}, "bg-spiritual-advisors", True),
        (pos(), "Carthag", "Carthag", None, {"bg_reserves": 0}, "bg-spiritual-advisors", False),
        (pos(aftermath="Carthag"), "Carthag", "Carthag", None, {}, "moritani-terror-tokens", True),
        (pos(), "Imperial Basin", "Imperial Basin", None, {}, "base-board", False),
    ],
)
def test_spiritual_advisor_refused(position, shipped, to, sector, kwargs, rule, overridable):
    with pytest.raises(RuleViolation) as err:
        check_spiritual_advisor(BOARD, position, shipped, to, sector, **kwargs)
    assert (err.value.rule, err.value.overridable) == (rule, overridable)
