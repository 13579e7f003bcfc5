"""The phase-completion rules (companion/games/dune/rules/phase_steps.py), table-driven from the rules text:
base-turn-sequence, base-storm, base-spice-blow, base-nexus, base-charity, base-bidding,
base-revival, base-shipment, guild-ship-when-you-wish, base-battle, base-collection,
base-mentat-pause."""
from __future__ import annotations

import pytest

from companion.games.dune.rules import phase_steps as ps
from companion.games.dune.rules.errors import RuleViolation
from companion.games.dune.rules.phases import storm_order

SIX_DOTS = {"atreides": 1, "harkonnen": 4, "fremen": 7, "emperor": 10, "guild": 13, "bg": 16}


def by_id(steps):
    return {s.id: s for s in steps}


# -- storm: setup first on turn 1, the storm moves once a turn ---------------------------------------

@pytest.mark.parametrize("turn, kwargs, missing_ids", [
    (1, {"setup_pending": ["fremen", "bg"]}, ["setup", "storm_moved"]),
    (1, {"setup_pending": [], "storm_moved": False}, ["storm_moved"]),
    (1, {"setup_pending": [], "storm_moved": True}, []),
    (1, {"setup_pending": ["bg"], "storm_moved": True}, ["setup"]),
    (2, {"fremen_present": True}, ["storm_moved"]),
    (2, {"fremen_present": True, "storm_pending": True}, ["storm_moved"]),  # card revealed, not applied
    (3, {"fremen_present": False, "storm_moved": True}, []),
])
def test_storm_blocking_steps(turn, kwargs, missing_ids):
    assert [s.id for s in ps.missing(ps.storm_steps(turn, **kwargs))] == missing_ids


def test_storm_steps_name_who_acts():
    steps = by_id(ps.storm_steps(1, setup_pending=["fremen"], dialers=["atreides", "bg"], dialled=["bg"],
                                 bg_prediction=False, traitors_missing=["harkonnen"]))
    assert steps["setup"].factions == ("fremen",) and steps["setup"].rule == "base-setup"
    assert steps["storm_dials"].factions == ("atreides",) and not steps["storm_dials"].blocking
    assert steps["bg_prediction"].factions == ("bg",) and not steps["bg_prediction"].blocking
    assert steps["traitors"].factions == ("harkonnen",) and not steps["traitors"].blocking
    later = by_id(ps.storm_steps(2, fremen_present=True))
    assert later["storm_card"].factions == ("fremen",) and later["storm_card"].rule == "fremen-storm-deck"
    assert "setup" not in later and "storm_dials" not in later


@pytest.mark.parametrize("moved_turn, turn, refused", [(None, 1, False), (1, 1, True), (1, 2, False),
                                                         (5, 5, True)])
def test_the_storm_moves_once_a_turn(moved_turn, turn, refused):
    if refused:
        with pytest.raises(RuleViolation) as e:
            ps.check_storm_not_moved(moved_turn, turn)
        assert e.value.rule == "base-storm" and e.value.overridable
    else:
        ps.check_storm_not_moved(moved_turn, turn)


# -- spice blow: one card per pile, worms draw again, a Nexus stays open until closed ---------------

@pytest.mark.parametrize("blows, done, pile", [
    ([], {"A": False, "B": False}, "A"),
    ([("A", "Old Gap")], {"A": True, "B": False}, "B"),
    ([("A", "Shai-Hulud")], {"A": False, "B": False}, "A"),  # turn 1 worm set aside: draw again
    ([("A", "Shai-Hulud"), ("A", "Old Gap")], {"A": True, "B": False}, "B"),
    ([("A", "Old Gap"), ("A", "Shai-Hulud")], {"A": False, "B": False}, "A"),  # worm after: keep drawing
    ([("A", "Old Gap"), ("B", "Shai-Hulud")], {"A": True, "B": False}, "B"),
    ([("A", "Old Gap"), ("B", "Shai-Hulud"), ("B", "Broken Land")], {"A": True, "B": True}, "B"),
])
def test_piles(blows, done, pile):
    assert ps.piles_done(blows) == done
    assert ps.next_pile(blows) == pile
    missing = [s.id for s in ps.missing(ps.spice_blow_steps(blows))]
    assert missing == [f"blow_{p}" for p in ("A", "B") if not done[p]]


def test_an_open_nexus_blocks_and_saved_fremen_do_not():
    blows = [("A", "Old Gap"), ("B", "Broken Land")]
    steps = ps.spice_blow_steps(blows, nexus_open=True, saved_fremen=True)
    assert [s.id for s in ps.missing(steps)] == ["nexus"]
    saved = by_id(steps)["fremen_saved"]
    assert saved.factions == ("fremen",) and not saved.blocking and saved.rule == "fremen-wormriders"
    assert ps.missing(ps.spice_blow_steps(blows, nexus_open=False, saved_fremen=True)) == []


# -- charity and revival never block ----------------------------------------------------------------

@pytest.mark.parametrize("entitled, claimed, left", [
    ([], [], ()), (["fremen"], [], ("fremen",)), (["fremen", "bg"], ["bg"], ("fremen",)),
    (["fremen"], ["fremen"], ()),
])
def test_charity_is_optional(entitled, claimed, left):
    (step,) = ps.charity_steps(entitled, claimed)
    assert step.factions == left and step.done == (not left) and not step.blocking


def test_revival_is_optional():
    (step,) = ps.revival_steps(["atreides", "harkonnen"], ["atreides"])
    assert step.factions == ("harkonnen",) and not step.blocking and ps.missing([step]) == []


# -- bidding: one card per faction with room; openers go round in storm order --------------------------

@pytest.mark.parametrize("order, eligible, previous, opener", [
    (["atreides", "harkonnen", "fremen"], ["atreides", "harkonnen", "fremen"], None, "atreides"),
    (["atreides", "harkonnen", "fremen"], ["harkonnen", "fremen"], None, "harkonnen"),  # full hand passes
    (["atreides", "harkonnen", "fremen"], ["atreides", "harkonnen", "fremen"], "atreides", "harkonnen"),
    (["atreides", "harkonnen", "fremen"], ["atreides", "fremen"], "atreides", "fremen"),  # skip a full hand
    (["atreides", "harkonnen", "fremen"], ["atreides", "harkonnen"], "harkonnen", "atreides"),  # wraps round
    (["atreides", "harkonnen", "fremen"], [], "harkonnen", None),
])
def test_bidding_opener(order, eligible, previous, opener):
    assert ps.bidding_opener(order, eligible, previous) == opener


@pytest.mark.parametrize("cards, sold, ended, eligible, done, text", [
    (6, 0, False, ["atreides"], False, "6 of 6 cards still up for auction"),
    (6, 5, False, ["atreides"], False, "1 of 6 cards still up for auction"),
    (6, 6, False, ["atreides"], True, "bidding is over"),
    (6, 2, True, ["atreides"], True, "bidding is over: the rest went back after everyone passed"),
    (3, 1, False, [], True, "bidding is over"),  # every hand is full
])
def test_bidding_step(cards, sold, ended, eligible, done, text):
    (step,) = ps.bidding_steps(cards, sold, ended=ended, eligible=eligible, opener="atreides")
    assert (step.done, step.text, step.blocking) == (done, text, True)
    assert step.factions == (() if done else ("atreides",))


# -- shipment & movement: storm order, the Guild when it wishes ---------------------------------------

ORDER = storm_order(18, SIX_DOTS)  # atreides harkonnen fremen emperor guild bg


@pytest.mark.parametrize("shipped, moved, passed, current, done", [
    ([], [], [], "atreides", []),
    (["atreides"], [], [], "atreides", []),  # shipped, has still to move
    (["atreides"], ["atreides"], [], "harkonnen", ["atreides"]),
    ([], ["atreides"], [], "harkonnen", ["atreides"]),  # no shipment, just a move
    ([], [], ["atreides", "harkonnen"], "fremen", ["atreides", "harkonnen"]),
    (["guild"], [], [], "guild", []),  # the Guild went first: its turn until it is done
    ([], [], ["atreides", "harkonnen", "fremen", "emperor", "bg"], "guild", ["atreides", "harkonnen", "fremen",
                                                                           "emperor", "bg"]),
    ([], [], ORDER, None, ORDER),
])
def test_whose_turn(shipped, moved, passed, current, done):
    turn = ps.shipment_turn(ORDER, shipped, moved, passed)
    assert turn.current == current and list(turn.done) == done
    assert turn.to_dict()["faction"] == current and turn.to_dict()["order"] == ORDER


@pytest.mark.parametrize("actor, shipped, moved, passed, action, rule", [
    ("atreides", [], [], [], "ship", None),
    ("harkonnen", [], [], [], "ship", "base-shipment"),
    ("bg", [], [], [], "move", "base-shipment"),
    ("harkonnen", ["atreides"], [], [], "ship", "base-shipment"),  # Atreides is mid-turn
    ("harkonnen", ["atreides"], ["atreides"], [], "ship", None),
    ("guild", [], [], [], "ship", None),  # the Guild goes first if it wishes
    ("guild", [], [], ["atreides", "harkonnen"], "ship", None),  # ... or between two turns
    ("guild", ["atreides"], [], [], "ship", "guild-ship-when-you-wish"),  # not in the middle of one
    ("atreides", ["guild"], [], [], "ship", "guild-ship-when-you-wish"),  # the Guild is going now
    ("atreides", [], [], ["atreides"], "ship", "base-shipment"),  # said done: no shipment after
    ("atreides", ["atreides"], ["atreides"], [], "ship", "base-shipment"),  # moved: the shipment came first
    ("atreides", [], ["atreides"], [], "move", None),  # a second move: the movement rules refuse it
    ("harkonnen", [], [], [], "done", "base-shipment"),
])
def test_check_shipment_turn(actor, shipped, moved, passed, action, rule):
    turn = ps.shipment_turn(ORDER, shipped, moved, passed)
    if rule is None:
        ps.check_shipment_turn(actor, turn, action)
        return
    with pytest.raises(RuleViolation) as e:
        ps.check_shipment_turn(actor, turn, action)
    assert e.value.rule == rule and e.value.overridable


def test_saying_done_twice_is_a_hard_refusal():
    turn = ps.shipment_turn(ORDER, [], [], ["atreides"])
    with pytest.raises(RuleViolation) as e:
        ps.check_shipment_turn("atreides", turn, "done")
    assert not e.value.overridable


def test_the_storm_decides_who_goes_first():
    # qa-first-player: storm stops in sector 10 -> the dot in 13 first ... the dot in 10 last
    turn = ps.shipment_turn(storm_order(10, SIX_DOTS), [], [], [])
    assert turn.order == ("guild", "bg", "atreides", "harkonnen", "fremen", "emperor")
    assert turn.current == "bg"  # the Guild is first in storm order but goes when it wishes
    assert turn.to_dict()["note"].startswith("The Spacing Guild may ship and move when it wishes")


def test_shipment_step_lists_who_is_left():
    (step,) = ps.shipment_steps(ps.shipment_turn(ORDER, [], ["atreides"], ["harkonnen", "fremen", "emperor"]))
    assert step.factions == ("guild", "bg") and not step.done and step.rule == "base-shipment"


# -- battle, collection, mentat pause --------------------------------------------------------------------

def test_battle_step():
    (open_,) = ps.battle_steps([("Arrakeen", ["atreides", "harkonnen"]), ("Carthag", ["harkonnen", "emperor"])])
    assert not open_.done and open_.factions == ("atreides", "harkonnen", "emperor")
    assert open_.text == "battles to fight: Arrakeen (Atreides v Harkonnen), Carthag (Harkonnen v Emperor)"
    (closed,) = ps.battle_steps([])
    assert closed.done


@pytest.mark.parametrize("applied, anything, done", [(False, True, False), (True, True, True),
                                                      (False, False, True)])
def test_collection_step(applied, anything, done):
    (step,) = ps.collection_steps(applied, anything)
    assert step.done == done and step.blocking


@pytest.mark.parametrize("kwargs, missing", [
    ({}, []),
    ({"winners": ["atreides"]}, ["victory"]),
    ({"winners": ["atreides"], "confirmed": ["atreides"]}, ["victory"]),  # the game is over
    ({"fremen_card": False}, []),  # next turn's storm card: shown, never blocking
])
def test_mentat_pause(kwargs, missing):
    assert [s.id for s in ps.missing(ps.mentat_steps(**kwargs))] == missing


def test_no_storm_card_step_on_the_last_turn():
    assert "storm_card" not in by_id(ps.mentat_steps(fremen_card=False, last_turn=True))
    assert by_id(ps.mentat_steps(fremen_card=False))["storm_card"].factions == ("fremen",)


# -- the refusal ---------------------------------------------------------------------------------------

def test_refusal_names_every_missing_step_and_the_next_phase():
    steps = ps.spice_blow_steps([("A", "Old Gap")], nexus_open=True)
    v = ps.refusal("Spice Blow & Nexus", steps, "CHOAM Charity")
    assert v.overridable and v.rule == "base-spice-blow"
    assert v.message == ("No card turned on pile B yet; the Nexus is open (alliances are made and broken, then "
                         "the table closes it): finish Spice Blow & Nexus before CHOAM Charity, or override.")
    assert ps.refusal("Spice Blow & Nexus", ps.spice_blow_steps([("A", "X"), ("B", "Y")]), "CHOAM Charity") is None


def test_steps_serialise_to_the_view_contract():
    d = ps.storm_steps(2)[-1].to_dict()
    assert set(d) == {"id", "text", "done", "factions", "rule", "blocking"}
    assert isinstance(d["factions"], list)


# -- storm order: the player dots must be sectors of the board ------------------------------------

@pytest.mark.parametrize("storm, dots, expected", [
    (18, SIX_DOTS, ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]),  # the storm starts at 18
    (4, SIX_DOTS, ["fremen", "emperor", "guild", "bg", "atreides", "harkonnen"]),   # a dot under the storm is last
    (5, {"fremen": 7, "bg": 7}, ["fremen", "bg"]),                                  # a tie keeps the seats' order
])
def test_storm_order_starts_with_the_dot_the_storm_reaches_next(storm, dots, expected):
    assert storm_order(storm, dots) == expected


@pytest.mark.parametrize("dot", [0, 19, -3, True, "7", None, 7.0])
def test_a_player_dot_off_the_board_is_refused_naming_the_faction(dot):
    with pytest.raises(RuleViolation, match=r"player dot of Fremen must be a sector from 1 to 18"):
        storm_order(10, {"atreides": 1, "fremen": dot})
