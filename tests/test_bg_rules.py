"""Bene Gesserit advisors and fighters, pure rules (companion/games/dune/rules/bg.py), from the KISS BG sheet:
"Your forces that enter a territory with Fighters or Advisors flip to that side." / "At the
beginning of each Shipping & Movement phase ... you may flip them" / "Forces cannot flip under
Storm, where allied forces exist, or in full Strongholds."."""
from __future__ import annotations

import pytest

from companion.games.dune.rules.bg import check_flip, entering_side, may_choose_after_entry
from companion.games.dune.rules.board import load_board
from companion.games.dune.rules.errors import RuleViolation
from companion.games.dune.rules.position import Position

BOARD = load_board()


def pos(occupants=None, advisors=None, alliances=None, storm=3):
    return Position(storm_sector=storm, occupants=occupants or {}, advisors=advisors or {},
                    alliances=alliances or {})


@pytest.mark.parametrize("occ, adv, entering, expected", [
    ({}, {}, (2, 0), (2, 0, None)),                                    # new territory: as chosen
    ({}, {}, (0, 2), (0, 2, None)),
    ({}, {"Arrakeen": 1}, (2, 0), (0, 2, "advisors there")),           # no flip on reinforcement
    ({"Arrakeen": {"bg": 1}}, {}, (0, 2), (2, 0, "fighters there")),
    ({"Arrakeen": {"bg": 1}}, {}, (2, 0), (2, 0, None)),
    ({"Polar Sink": {"bg": 1}}, {}, (0, 1), (1, 0, "fighters there")),  # spiritual advisor in the Polar Sink
])
def test_entering_forces_take_the_side_already_there(occ, adv, entering, expected):
    territory = next(iter(occ or adv), "Arrakeen")
    assert entering_side(BOARD, pos(occ, adv), territory, *entering) == expected


def test_one_side_per_territory():
    with pytest.raises(RuleViolation) as e:
        entering_side(BOARD, pos(), "Arrakeen", 1, 1)
    assert e.value.rule == "bg-advisors" and e.value.overridable


@pytest.mark.parametrize("occ, entrant, alliances, off_planet, may", [
    ({"Arrakeen": {"bg": 2}}, "harkonnen", {}, False, True),
    ({"Arrakeen": {"bg": 2}}, "harkonnen", {"bg": "harkonnen", "harkonnen": "bg"}, False, False),
    ({"Arrakeen": {"bg": 2, "atreides": 3}}, "harkonnen", {}, False, False),
    ({"Arrakeen": {"bg": 2, "atreides": 3}}, "harkonnen", {}, True, True),  # spiritual advisor may follow
    ({"Arrakeen": {"bg": 2}}, "bg", {}, True, False),
    ({"Arrakeen": {"atreides": 3}}, "harkonnen", {}, True, False),  # no BG fighters there
])
def test_another_factions_entry_reopens_the_choice(occ, entrant, alliances, off_planet, may):
    assert may_choose_after_entry(pos(occ, alliances=alliances), entrant, "Arrakeen", off_planet) is may


@pytest.mark.parametrize("phase, started, chosen, to, ok", [
    ("shipment_movement", False, None, "fighters", True),
    ("shipment_movement", False, None, "advisors", True),
    ("shipment_movement", True, None, "fighters", False),
    ("shipment_movement", True, None, "advisors", False),
    ("shipment_movement", True, "Arrakeen", "advisors", True),
    ("shipment_movement", True, "Arrakeen", "fighters", False),   # no nova flip
    ("shipment_movement", True, "Carthag", "advisors", False),
    ("battle", False, None, "fighters", False),
    ("storm", False, None, "advisors", False),
    ("revival", False, None, "advisors", False),
])
def test_flip_timing(phase, started, chosen, to, ok):
    p = pos({"Arrakeen": {"bg": 1}} if to == "advisors" else {}, {} if to == "advisors" else {"Arrakeen": 1})
    if ok:
        check_flip(BOARD, p, "Arrakeen", to, phase=phase, started=started, chosen_territory=chosen, bg_sectors=(9,))
    else:
        with pytest.raises(RuleViolation) as e:
            check_flip(BOARD, p, "Arrakeen", to, phase=phase, started=started, chosen_territory=chosen,
                       bg_sectors=(9,))
        assert e.value.rule == "bg-advisors" and e.value.overridable


@pytest.mark.parametrize("occ, alliances, storm, to, needle", [
    ({}, {}, 9, "fighters", "storm"),
    ({"Arrakeen": {"atreides": 1}}, {"bg": "atreides", "atreides": "bg"}, 3, "fighters", "Allied forces"),
    ({"Arrakeen": {"atreides": 1, "harkonnen": 1}}, {}, 3, "fighters", "two other factions"),
])
def test_flip_places(occ, alliances, storm, to, needle):
    with pytest.raises(RuleViolation) as e:
        check_flip(BOARD, pos(occ, {"Arrakeen": 1}, alliances, storm), "Arrakeen", to, phase="shipment_movement",
                   started=False, bg_sectors=(9,))
    assert needle in e.value.message
