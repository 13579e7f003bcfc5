"""Issue 23, point 4: an override prompt lists every rule it would waive before the tap that waives
them. A second shipment into the storm is refused naming both "already shipped" (base-shipment) and
the storm (base-storm-movement); the override records both as waived. Seed text: "SHIPMENT: Each
player may make one shipment of any number of forces from their reserves to any one territory"
and "Storm ... no forces may ship into, out of, move into, out of or through a sector in storm"."""
from __future__ import annotations

import pytest

from companion.games.dune.rules.errors import RuleViolation, Soft, hard
from table_helpers import history, its_turn, ok, refused, set_phase, stack


@pytest.fixture()
def t(client, table6):
    set_phase(client, table6, "shipment_movement")
    return table6


def test_a_second_shipment_into_the_storm_names_both_rules(client, t):
    ok(client, t, type="storm.set", sector=9)
    ok(client, t, "emperor", type="ship", faction="emperor", to="Imperial Basin", sector=8, forces=1)
    err = refused(client, t, "emperor", "base-shipment", "already shipped this turn", type="ship",
                  faction="emperor", to="Imperial Basin", sector=9, forces=1)
    assert err["overridable"] is True
    rules = [w["rule"] for w in err["waives"]]
    assert rules == ["base-shipment", "base-storm-movement"], err["waives"]
    assert "storm is over sector 9" in err["waives"][1]["message"]
    # the override waives exactly those, and the history says so
    s = ok(client, t, "emperor", type="ship", faction="emperor", to="Imperial Basin", sector=9, forces=1,
           override=True, reason="Table ruling")
    assert stack(s, "Imperial Basin", "emperor")["forces"] == 2
    line = history(client, t)[-1]["summary"]
    assert "already shipped" in line and "storm is over sector 9" in line, line


def test_one_broken_rule_is_one_waiver(client, t):
    ok(client, t, type="storm.set", sector=9)
    err = refused(client, t, "emperor", "base-storm-movement", "storm is over sector 9", type="ship",
                  faction="emperor", to="Imperial Basin", sector=9, forces=1)
    assert [w["rule"] for w in err["waives"]] == ["base-storm-movement"]


def test_a_refusal_no_override_passes_is_not_offered_as_overridable(client, t):
    # already shipped (overridable) and more spice than the Emperor has (hard): no Override is offered
    its_turn(client, t, "emperor")
    ok(client, t, "emperor", type="ship", faction="emperor", to="Imperial Basin", sector=8, forces=1)
    err = refused(client, t, "emperor", "base-shipment-cost", "costs 20 spice", type="ship",
                  faction="emperor", to="Imperial Basin", sector=8, forces=10)
    assert err["overridable"] is False and "waives" not in err


def test_a_fremen_shipment_out_of_range_it_cannot_pay_offers_no_override(client, table6):
    # out of the Fremen range (overridable) at a price the Fremen cannot pay (hard): said at once
    set_phase(client, table6, "shipment_movement")
    its_turn(client, table6, "fremen")
    err = refused(client, table6, "fremen", "fremen-shipment", "more than two territories from The Great Flat",
                  type="ship", faction="fremen", to="Meridian", sector=1, forces=2)
    assert err["overridable"] is False and "waives" not in err
    assert "An override would not pass either" in err["message"] and "costs 4" in err["message"]


def _soft(*steps):
    soft = Soft()
    for s in steps:
        soft(s)
    soft.done()


def _raise(e):
    def f():
        raise e
    return f


@pytest.mark.parametrize("steps, expected", [
    ((lambda: None,), None),
    ((_raise(RuleViolation("a", "r1")),), ["a"]),
    ((_raise(RuleViolation("a", "r1")), lambda: None, _raise(RuleViolation("b", "r2"))), ["a", "b"]),
])
def test_soft_collects_every_overridable_rule(steps, expected):
    if expected is None:
        _soft(*steps)
        return
    with pytest.raises(RuleViolation) as info:
        _soft(*steps)
    assert [e.message for e in info.value.every()] == expected


def test_soft_stops_at_a_hard_rule():
    with pytest.raises(RuleViolation) as info:
        _soft(_raise(RuleViolation("a")), _raise(hard("no such forces")), _raise(RuleViolation("c")))
    assert info.value.message == "no such forces" and not info.value.overridable
