"""Issue 3 through the API: the board, the faction starts, setup, every core entry and its
refusals, the state JSON, and conservation of forces / non-negative spice over random entries."""
from __future__ import annotations

import json
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import create_app
from companion.games.dune.rules.board import load_board, slugify
from conftest import ALL_NINE, SIX, act, create_table, state
from table_helpers import (  # noqa: I001
    NEXUS,
    TOTAL_FORCES, board_spice, forces_total, history, host_state, ok, refused, set_phase,
    spice, stack,
)

FACTIONS_JSON = json.loads(open(__import__("companion").__path__[0] + "/games/dune/data/factions.json").read())["factions"]


# -- GET /api/board ----------------------------------------------------------------------------

def test_board_has_42_territories_as_printed(client):
    r = client.get("/api/board")
    assert r.status_code == 200
    b = r.get_json()
    assert b["sectors"] == 18
    ts = {t["name"]: t for t in b["territories"]}
    assert len(b["territories"]) == len(ts) == 42
    for t in b["territories"]:
        assert {"name", "type", "sectors", "spice_blow", "neighbours"} <= set(t)
    kinds = [t["type"] for t in b["territories"]]
    assert kinds.count("stronghold") == 5 and kinds.count("polar_sink") == 1
    assert {"Tuek's Sietch", "The Great Flat", "Habbanya Sietch", "Arrakeen", "Carthag", "Sietch Tabr",
            "Polar Sink"} <= set(ts)
    # neighbours name real territories, both ways
    for name, t in ts.items():
        for n in t["neighbours"]:
            assert name in ts[n]["neighbours"], (name, n)


@pytest.mark.parametrize("name, kind, sectors, blow", [
    ("Tuek's Sietch", "stronghold", [4], None),
    ("The Great Flat", "sand", [14], {"amount": 10, "sector": 14}),
    ("Cielago South", "sand", [1, 2], {"amount": 12, "sector": 1}),
    ("Imperial Basin", "sand", [8, 9, 10], None),
    ("False Wall East", "rock", [4, 5, 6, 7, 8], None),
    ("Old Gap", "sand", [8, 9, 10], {"amount": 6, "sector": 9}),
    ("Polar Sink", "polar_sink", [], None),
])
def test_board_territory_facts(client, name, kind, sectors, blow):
    t = next(x for x in client.get("/api/board").get_json()["territories"] if x["name"] == name)
    assert (t["type"], t["sectors"], t["spice_blow"]) == (kind, sectors, blow)


@pytest.mark.parametrize("spelling", ["Tuek's Sietch", "tuek's sietch", "TUEK'S SIETCH", "tueks-sietch",
                                      "Tueks Sietch"])
def test_territory_names_in_any_case_and_slug(client, table6, spelling):
    s = ok(client, table6, type="forces.place", faction="guild", territory=spelling, forces=2)
    assert stack(s, "Tuek's Sietch", "guild")["forces"] == 7
    s = ok(client, table6, type="board.spice", territory=slugify("The Great Flat").upper(), amount=3)
    assert board_spice(s, "The Great Flat") == 3


# -- the six-faction start ---------------------------------------------------------------------

@pytest.mark.parametrize("f", SIX)
def test_six_faction_start_matches_factions_json(client, table6, f):
    s = host_state(client, table6)
    data = FACTIONS_JSON[f]
    on_board = sum(p["forces"] + p["starred"] for p in data["start"])
    for p in data["start"]:
        st_ = stack(s, p["territory"], f)
        assert st_["forces"] == p["forces"] and st_["sectors"][str(p["sector"])]["forces"] == p["forces"]
    starred = data.get("starred", 0)
    assert s["factions"][f]["reserves"] == {"forces": data["total"] - starred - on_board, "starred": starred}
    assert s["factions"][f]["tanks"] == {"forces": 0, "starred": 0}
    assert spice(s, f) == data["spice"]
    assert s["factions"][f]["hand_size"] == data.get("start_cards", 1)
    assert [ld["name"] for ld in s["factions"][f]["leaders"]] == [ld["name"] for ld in data["leaders"]]
    assert forces_total(s, f) == TOTAL_FORCES


def test_six_faction_start_by_hand(client, table6):
    s = host_state(client, table6)
    assert stack(s, "Arrakeen", "atreides")["forces"] == 10
    assert stack(s, "Carthag", "harkonnen")["forces"] == 10
    assert stack(s, "Tuek's Sietch", "guild")["forces"] == 5
    assert s["factions"]["emperor"]["reserves"] == {"forces": 15, "starred": 5}
    assert not any("emperor" in t["forces"] for t in s["board"]["territories"].values())
    assert s["readings"]["emperor-start"] == "base"


def test_setup_reading_switches_the_emperor_to_the_kiss_sheet_and_back(client, table6):
    s = ok(client, table6, type="setup.reading", reading="emperor-start", choice="kiss-sheet")
    assert s["readings"]["emperor-start"] == "kiss-sheet"
    assert stack(s, "Carthag", "emperor")["forces"] == 10
    assert s["factions"]["emperor"]["reserves"] == {"forces": 5, "starred": 5}
    s = ok(client, table6, type="setup.reading", reading="emperor-start", choice="base")
    assert stack(s, "Carthag", "emperor")["forces"] == 0
    assert s["factions"]["emperor"]["reserves"] == {"forces": 15, "starred": 5}
    # refusals
    act(client, table6.code, table6.seats["emperor"], expect=403, type="setup.reading", reading="emperor-start",
        choice="kiss-sheet")
    refused(client, table6, "host", None, "Choose one of", type="setup.reading", reading="emperor-start",
            choice="nowhere")
    refused(client, table6, "host", None, "No setup question", type="setup.reading", reading="fremen-start",
            choice="base")
    set_phase(client, table6, "spice_blow")
    refused(client, table6, "host", "base-setup", "before the game starts", type="setup.reading",
            reading="emperor-start", choice="kiss-sheet")


# -- setup order: Fremen, then BG, then Moritani ------------------------------------------------

def test_setup_order_fremen_bg_moritani(client):
    t = create_table(client, ["atreides", "fremen", "bg", "moritani"])
    s = host_state(client, t)
    assert [x["faction"] for x in s["setup"]["pending"]] == ["fremen", "bg", "moritani"]
    refused(client, t, "bg", "bg-at-start", "Fremen places before Bene Gesserit", type="setup.bg",
            faction="bg", territory="Polar Sink")
    refused(client, t, "moritani", "moritani-at-start", "Fremen places before Moritani", type="setup.moritani",
            faction="moritani", territory="Habbanya Sietch")
    refused(client, t, "host", "base-setup", "waiting for Fremen, Bene Gesserit, Moritani", type="phase.next")
    refused(client, t, "fremen", "fremen-at-start", "exactly 10", type="setup.fremen",
            placements=[{"territory": "Sietch Tabr", "forces": 9}])
    refused(client, t, "fremen", "fremen-at-start", "not Arrakeen", type="setup.fremen",
            placements=[{"territory": "Sietch Tabr", "forces": 5}, {"territory": "Arrakeen", "forces": 5}])
    s = ok(client, t, "fremen", type="setup.fremen", placements=[
        {"territory": "sietch-tabr", "forces": 4},
        {"territory": "False Wall South", "sector": 3, "forces": 2, "starred": 1},
        {"territory": "false wall west", "sector": 16, "forces": 3}])
    assert stack(s, "Sietch Tabr", "fremen")["forces"] == 4
    assert stack(s, "False Wall South", "fremen")["starred"] == 1
    assert stack(s, "False Wall West", "fremen")["sectors"]["16"]["forces"] == 3
    assert s["factions"]["fremen"]["reserves"] == {"forces": 8, "starred": 2}
    refused(client, t, "fremen", "fremen-at-start", "already placed", type="setup.fremen",
            placements=[{"territory": "Sietch Tabr", "forces": 10}])
    refused(client, t, "moritani", "moritani-at-start", "Bene Gesserit places before Moritani",
            type="setup.moritani", faction="moritani", territory="Habbanya Sietch")
    s = ok(client, t, "bg", type="setup.bg", faction="bg", territory="Habbanya Sietch", advisor=True)
    assert stack(s, "Habbanya Sietch", "bg")["advisors"] == 1
    refused(client, t, "moritani", "moritani-at-start", "Arrakeen is occupied", type="setup.moritani",
            faction="moritani", territory="Arrakeen")
    refused(client, t, "moritani", "moritani-at-start", "Habbanya Sietch is occupied", type="setup.moritani",
            faction="moritani", territory="Habbanya Sietch")
    s = ok(client, t, "moritani", type="setup.moritani", faction="moritani", territory="Carthag")
    assert stack(s, "Carthag", "moritani")["forces"] == 6
    assert s["setup"]["pending"] == []
    refused(client, t, "host", "base-storm", "the storm has not moved yet: finish Storm before Spice Blow & Nexus",
            type="phase.next")
    ok(client, t, type="storm.move", sectors=2)
    assert ok(client, t, type="phase.next")["phase"] == "spice_blow"


# -- secret setup choices -------------------------------------------------------------------------

SECRETS = [
    ("bg", {"type": "prediction.set", "target": "tleilaxu", "turn": 7}, "prediction",
     {"faction": "tleilaxu", "turn": 7}),
    ("harkonnen", {"type": "traitors.set", "faction": "harkonnen", "traitors": ["Wykk", "Caid"]}, "traitors",
     ["Wykk", "Caid"]),
    ("ecaz", {"type": "ambassadors.set", "ambassadors": ["Ixian", "CHOAM"]}, "ambassadors", ["Ixian", "CHOAM"]),
    ("moritani", {"type": "terror.set", "tokens": ["Robbery", "Sneak Attack"]}, "terror_tokens",
     ["Robbery", "Sneak Attack"]),
    ("atreides", {"type": "kh.set", "losses": 6}, "kh_losses", 6),
    ("fremen", {"type": "storm.card", "card": 5}, "storm_card", 5),
]


@pytest.mark.parametrize("owner, entry, key, value", SECRETS, ids=[x[2] for x in SECRETS])
def test_secret_choices_stay_with_their_owner(client, owner, entry, key, value):
    t = create_table(client, ALL_NINE)
    ok(client, t, owner, **entry)
    assert state(client, t.code, t.seats[owner])["factions"][owner]["private"][key] == value
    assert host_state(client, t)["factions"][owner]["private"][key] == value
    for other in ALL_NINE:
        if other == owner:
            continue
        s = state(client, t.code, t.seats[other])
        assert "private" not in s["factions"][owner]
        h = history(client, t, other)[-1]
        assert h["payload"] is None and "private entry" in h["summary"]
        text = json.dumps(s) + json.dumps(history(client, t, other))
        if not isinstance(value, int):
            assert json.dumps(value) not in text  # the secret appears nowhere in what the other seat sees


# -- every core entry: one success each ------------------------------------------------------------

def _leader(s, f, name):
    return next(ld for ld in s["factions"][f]["leaders"] if ld["name"] == name)


CORE_OK = [
    # (who, pre-steps as host, entry, check(state))
    ("atreides", [], {"type": "spice.set", "faction": "atreides", "amount": 7},
     lambda s: spice(s, "atreides") == 7),
    ("harkonnen", [], {"type": "spice.add", "faction": "harkonnen", "amount": -3},
     lambda s: spice(s, "harkonnen") == 7),
    ("guild", [], {"type": "spice.front", "faction": "guild", "amount": 2},
     lambda s: s["factions"]["guild"]["spice_front"] == 2),
    ("host", [], {"type": "board.spice", "territory": "old-gap", "sector": 9, "amount": 6},
     lambda s: s["board"]["territories"]["Old Gap"]["spice_by_sector"] == {"9": 6}),
    ("host", [{"type": "board.spice", "territory": "The Great Flat", "amount": 6}],
     {"type": "board.spice", "territory": "The Great Flat", "amount": 0},
     lambda s: board_spice(s, "The Great Flat") == 0),
    ("atreides", [], {"type": "forces.place", "faction": "atreides", "territory": "Arrakeen", "forces": 2},
     lambda s: stack(s, "Arrakeen", "atreides")["forces"] == 12
     and s["factions"]["atreides"]["reserves"]["forces"] == 8),
    ("harkonnen", [{"type": "forces.remove", "faction": "harkonnen", "territory": "Carthag", "forces": 4}],
     {"type": "forces.place", "faction": "harkonnen", "territory": "Carthag", "forces": 3, "from": "tanks"},
     lambda s: s["factions"]["harkonnen"]["tanks"]["forces"] == 1 and stack(s, "Carthag", "harkonnen")["forces"] == 9),
    ("harkonnen", [], {"type": "forces.remove", "faction": "harkonnen", "territory": "Carthag", "forces": 3},
     lambda s: s["factions"]["harkonnen"]["tanks"] == {"forces": 3, "starred": 0}),
    ("guild", [], {"type": "forces.remove", "faction": "guild", "territory": "Tuek's Sietch", "forces": 5,
                   "to": "reserves"},
     lambda s: s["factions"]["guild"]["reserves"]["forces"] == 20
     and stack(s, "Tuek's Sietch", "guild")["forces"] == 0),
    ("emperor", [], {"type": "forces.place", "faction": "emperor", "territory": "Polar Sink", "forces": 1,
                     "starred": 2},
     lambda s: stack(s, "Polar Sink", "emperor")["starred"] == 2
     and s["factions"]["emperor"]["reserves"]["starred"] == 3),
    ("bg", [{"type": "forces.place", "faction": "bg", "territory": "Polar Sink", "forces": 2},
            {"type": "phase.set", "turn": 2, "phase": "shipment_movement"}],  # flips: at the start of S&M
     {"type": "forces.flip", "territory": "Polar Sink", "to": "advisors"},
     lambda s: stack(s, "Polar Sink", "bg")["advisors"] == 2 and stack(s, "Polar Sink", "bg")["forces"] == 0),
    ("atreides", [], {"type": "leader.tanks", "faction": "atreides", "leader": "duncan"},
     lambda s: _leader(s, "atreides", "Duncan Idaho")["status"] == "tanks"),
    ("atreides", [{"type": "leader.tanks", "faction": "atreides", "leader": "Duncan Idaho"}],
     {"type": "leader.revive", "faction": "atreides", "leader": "Duncan Idaho", "paid": 2},
     lambda s: _leader(s, "atreides", "Duncan Idaho")["status"] == "alive" and spice(s, "atreides") == 8
     and spice(s, "tleilaxu") == 14),
    ("harkonnen", [], {"type": "leader.capture", "faction": "atreides", "leader": "Thufir Hawat", "by": "harkonnen"},
     lambda s: _leader(s, "atreides", "Thufir Hawat")["captured_by"] == "harkonnen"),
    ("atreides", [{"type": "leader.capture", "faction": "atreides", "leader": "Thufir Hawat", "by": "harkonnen"}],
     {"type": "leader.return", "faction": "atreides", "leader": "Thufir Hawat"},
     lambda s: _leader(s, "atreides", "Thufir Hawat")["status"] == "alive"),
    ("fremen", [], {"type": "leader.used", "faction": "fremen", "leader": "Stilgar"},
     lambda s: _leader(s, "fremen", "Stilgar")["used"] is True),
    ("harkonnen", [], {"type": "hand.set", "faction": "harkonnen", "size": 8},
     lambda s: s["factions"]["harkonnen"]["hand_size"] == 8),
    ("atreides", [], {"type": "cards.set", "faction": "atreides", "cards": ["Lasgun", "Karama"]},
     lambda s: s["factions"]["atreides"]["hand_size"] == 2),
    ("host", [{"type": "phase.set", "turn": 1, "phase": "spice_blow"}, NEXUS],  # a seat proposes (test_consent.py)
     {"type": "alliance.form", "factions": ["atreides", "bg"]},
     lambda s: s["alliances"] == {"atreides": "bg", "bg": "atreides"}),
    ("bg", [{"type": "phase.set", "turn": 1, "phase": "spice_blow"}, NEXUS,
            {"type": "alliance.form", "factions": ["atreides", "bg"]}],
     {"type": "alliance.break", "factions": ["bg", "atreides"]}, lambda s: s["alliances"] == {}),
    ("host", [], {"type": "storm.set", "sector": 5}, lambda s: s["storm"]["sector"] == 5),
    ("host", [{"type": "setup.fremen", "placements": [{"territory": "Sietch Tabr", "forces": 10}]},
              {"type": "setup.bg", "faction": "bg", "territory": "Polar Sink"},
              {"type": "setup.moritani", "faction": "moritani", "territory": "Habbanya Sietch"},
              {"type": "storm.move", "sectors": 2}],
     {"type": "phase.next"}, lambda s: s["phase"] == "spice_blow"),
    ("host", [], {"type": "phase.set", "turn": 3, "phase": "bidding"},
     lambda s: (s["turn"], s["phase"]) == (3, "bidding")),
    ("host", [], {"type": "rule.show", "rule": "base-storm", "title": "The storm"},
     lambda s: s["banner"] == {"rule": "base-storm", "title": "The storm", "by": "host"}),
    ("atreides", [], {"type": "karama.special", "faction": "atreides"},
     lambda s: s["factions"]["atreides"]["special_karama_used"] is True),
    ("bg", [], {"type": "karama.worthless", "faction": "bg"},
     lambda s: s["factions"]["bg"]["worthless_karama_used"] is True),
]


@pytest.mark.parametrize("who, pre, entry, check", CORE_OK, ids=[f"{i}-{x[2]['type']}" for i, x in enumerate(CORE_OK)])
def test_core_entry_is_accepted(client, who, pre, entry, check):
    t = create_table(client, ALL_NINE)
    for step in pre:
        ok(client, t, "host", **step)
    ok(client, t, who, **entry)
    s = host_state(client, t)
    assert check(s)
    for f in ALL_NINE:
        assert forces_total(s, f) == TOTAL_FORCES


# -- ... and its refusals --------------------------------------------------------------------------

CORE_REFUSED = [
    # (who, pre-steps as host, entry, rule, needle)
    ("atreides", [], {"type": "spice.add", "faction": "atreides", "amount": -11}, "base-spice",
     "has only 10 spice behind the shield"),
    ("atreides", [], {"type": "spice.set", "faction": "atreides", "amount": -1}, None, "amount"),
    ("host", [], {"type": "board.spice", "territory": "Polar Sink", "amount": 3}, "base-polar-sink", "Polar Sink"),
    ("host", [], {"type": "board.spice", "territory": "Nowhere", "amount": 3}, "base-board",
     "no territory called 'Nowhere'"),
    ("host", [], {"type": "board.spice", "territory": "Old Gap", "amount": 3}, "base-board",
     "Old Gap spans sectors 8, 9, 10: say which sector"),
    ("host", [], {"type": "board.spice", "territory": "Old Gap", "sector": 3, "amount": 3}, "base-board",
     "no part in sector 3"),
    ("atreides", [], {"type": "forces.place", "faction": "atreides", "territory": "Arrakeen", "forces": 11},
     "base-shipment", "Atreides has only 10 forces in reserve"),
    ("atreides", [], {"type": "forces.place", "faction": "atreides", "territory": "Arrakeen", "forces": 1,
                      "from": "tanks"}, "base-tanks", "in the tanks"),
    ("atreides", [], {"type": "forces.place", "faction": "atreides", "territory": "Arrakeen"}, None,
     "at least one force"),
    ("atreides", [], {"type": "forces.place", "faction": "atreides", "territory": "Arrakeen", "advisors": 1},
     None, "Only the Bene Gesserit have advisors"),
    ("atreides", [], {"type": "forces.place", "faction": "atreides", "territory": "Arrakeen", "forces": 1,
                      "from": "hand"}, None, "from"),
    ("harkonnen", [], {"type": "forces.remove", "faction": "harkonnen", "territory": "Carthag", "forces": 11},
     None, "Harkonnen has only 10 forces in Carthag"),
    ("bg", [], {"type": "forces.flip", "territory": "Arrakeen", "to": "fighters"}, "bg-advisors",
     "no forces in Arrakeen"),
    ("bg", [{"type": "forces.place", "faction": "bg", "territory": "Carthag", "advisors": 1},
            {"type": "forces.place", "faction": "atreides", "territory": "Carthag", "forces": 1},
            {"type": "phase.set", "turn": 2, "phase": "shipment_movement"}],
     {"type": "forces.flip", "territory": "Carthag", "to": "fighters"}, "bg-advisors",
     "already holds two other factions"),
    ("atreides", [], {"type": "leader.tanks", "faction": "atreides", "leader": "Paul"}, None,
     "Atreides has no leader called 'Paul'"),
    ("atreides", [{"type": "leader.tanks", "faction": "atreides", "leader": "Duncan Idaho"}],
     {"type": "leader.tanks", "faction": "atreides", "leader": "Duncan Idaho"}, "base-tanks", "already in the"),
    ("atreides", [], {"type": "leader.revive", "faction": "atreides", "leader": "Duncan Idaho"},
     "base-leader-revival", "not in the Tleilaxu Tanks"),
    ("atreides", [{"type": "leader.tanks", "faction": "atreides", "leader": "Duncan Idaho"}],
     {"type": "leader.revive", "faction": "atreides", "leader": "Duncan Idaho", "paid": 11}, "base-spice",
     "cannot pay 11"),
    ("atreides", [], {"type": "leader.capture", "faction": "harkonnen", "leader": "Feyd-Rautha", "by": "atreides"},
     "harkonnen-captured-leaders", "Only the Harkonnen capture leaders"),
    ("atreides", [], {"type": "leader.capture", "faction": "atreides", "leader": "Duncan Idaho"},
     "harkonnen-captured-leaders", "which other faction"),
    ("atreides", [], {"type": "leader.return", "faction": "atreides", "leader": "Duncan Idaho"},
     "harkonnen-captured-leaders", "not captured"),
    ("atreides", [], {"type": "hand.set", "faction": "atreides", "size": 5}, "base-hand-limit", "at most 4"),
    ("atreides", [], {"type": "cards.set", "faction": "atreides", "cards": ["Lasgun", "Shield", "Crysknife", "Baliset", "Snooper"]},
     "base-hand-limit", "at most 4"),
    ("host", [], {"type": "alliance.form", "factions": ["atreides", "bg"]}, "base-nexus",
     "end of the Spice Blow phase"),
    ("host", [{"type": "phase.set", "turn": 1, "phase": "spice_blow"}, NEXUS],
     {"type": "alliance.form", "factions": ["atreides", "atreides"]}, "base-alliances", "itself"),
    ("host", [{"type": "phase.set", "turn": 1, "phase": "spice_blow"}, NEXUS,
              {"type": "alliance.form", "factions": ["atreides", "bg"]}],
     {"type": "alliance.form", "factions": ["atreides", "fremen"]}, "base-alliances",
     "Atreides is already allied with Bene Gesserit"),
    ("host", [{"type": "phase.set", "turn": 10, "phase": "bidding"}],
     {"type": "alliance.form", "factions": ["guild", "fremen"]}, "guild-special-victory", "last turn"),
    ("bg", [], {"type": "alliance.break", "factions": ["bg", "atreides"]}, "base-alliances", "not allied"),
    ("host", [], {"type": "storm.set", "sector": 19}, None, "sector"),
    ("host", [], {"type": "phase.next"}, "base-setup", "Setup is not finished"),
    ("host", [], {"type": "phase.set", "turn": 11, "phase": "storm"}, "base-turn-sequence", "10 turns"),
    ("host", [], {"type": "phase.set", "turn": 2, "phase": "nexus"}, None, "phase"),
    ("host", [{"type": "phase.set", "turn": 10, "phase": "mentat_pause"}], {"type": "phase.next"},
     "base-turn-sequence", "Turn 10 was the last turn"),
    ("bg", [], {"type": "prediction.set", "target": "bg", "turn": 3}, "bg-prediction", "another faction"),
    ("bg", [], {"type": "prediction.set", "target": "atreides", "turn": 11}, "bg-prediction", "10 turns"),
    ("atreides", [], {"type": "traitors.set", "faction": "atreides", "traitors": ["Caid", "Wykk"]}, "base-setup",
     "keeps 1 traitor card"),
    ("ecaz", [], {"type": "ambassadors.set", "ambassadors": ["Mentat"]}, "ecaz-ambassadors",
     "Unknown ambassador 'Mentat'"),
    ("moritani", [], {"type": "terror.set", "tokens": ["Atomics", "Nuke"]}, "moritani-terror-tokens",
     "Unknown terror token 'Nuke'"),
    ("fremen", [], {"type": "storm.card", "card": 1}, "kiss-faster-storm", "only the cards 2 to 6"),
    ("atreides", [], {"type": "kh.set", "losses": -1}, None, "losses"),
    ("host", [], {"type": "rule.show", "rule": "Not An Id"}, None, "rule"),
    ("atreides", [{"type": "karama.special", "faction": "atreides"}], {"type": "karama.special", "faction": "atreides"},
     "atreides-special-karama", "already used its Special Karama"),
    ("atreides", [], {"type": "karama.worthless", "faction": "atreides"}, "bg-special-karama",
     "Only the Bene Gesserit"),
    ("bg", [{"type": "karama.worthless", "faction": "bg"}], {"type": "karama.worthless", "faction": "bg"},
     "bg-special-karama", "already played a Worthless card"),
    ("host", [], {"type": "spice.add", "faction": "atreides", "amount": 1, "colour": "red"}, None, "colour"),
]


@pytest.mark.parametrize("who, pre, entry, rule, needle", CORE_REFUSED,
                         ids=[f"{i}-{x[2]['type']}" for i, x in enumerate(CORE_REFUSED)])
def test_core_entry_refusals(client, who, pre, entry, rule, needle):
    t = create_table(client, ALL_NINE)
    for step in pre:
        ok(client, t, "host", **step)
    before = host_state(client, t)
    refused(client, t, who, rule, needle, **entry)
    after = host_state(client, t)
    assert after["revision"] == before["revision"]  # nothing was stored


def test_a_faction_not_at_the_table_is_refused(client, table6):
    refused(client, table6, "host", None, "Ecaz is not playing at this table", type="spice.set", faction="ecaz",
            amount=3)


@pytest.mark.parametrize("who, entry", [
    ("atreides", {"type": "spice.set", "faction": "harkonnen", "amount": 0}),
    ("atreides", {"type": "storm.card", "card": 4}),
    ("harkonnen", {"type": "prediction.set", "target": "atreides", "turn": 2}),
    ("atreides", {"type": "phase.set", "turn": 2, "phase": "storm"}),
    ("emperor", {"type": "setup.reading", "reading": "emperor-start", "choice": "kiss-sheet"}),
])
def test_entries_for_another_faction_or_host_only_are_403(client, table6, who, entry):
    refused(client, table6, who, None, None, _status=403, **entry)


# -- state JSON (issue 3 section 6) ------------------------------------------------------------------

def test_state_json_fields(client, table6):
    ok(client, table6, type="board.spice", territory="Old Gap", sector=9, amount=6)
    ok(client, table6, type="forces.place", faction="emperor", territory="Old Gap", sector=8, forces=2, starred=1)
    for viewer in ["host", "atreides", "board"]:
        token = table6.host if viewer == "host" else (
            table6.seats[viewer] if viewer != "board" else None)
        if token is None:
            continue
        s = state(client, table6.code, token)
        for f, d in s["factions"].items():
            assert set(d["reserves"]) >= {"forces", "starred"} and set(d["tanks"]) >= {"forces", "starred"}
            assert isinstance(d["leaders"], list) and len(d["leaders"]) == 5
            assert isinstance(d["hand_size"], int)
            if viewer in ("host", f):
                assert isinstance(d["spice"], int)
            else:
                assert d["spice"] is None
        og = s["board"]["territories"]["Old Gap"]
        assert og["spice"] == 6
        assert og["forces"]["emperor"]["forces"] == 2 and og["forces"]["emperor"]["starred"] == 1
        assert og["forces"]["emperor"]["sectors"]["8"]["forces"] == 2
        assert og["forces"]["emperor"]["sectors"]["8"]["starred"] == 1
        assert s["turn"] == 1 and s["phase"] == "storm" and s["storm"]["sector"] == 18


# -- property: forces are conserved, spice never negative --------------------------------------------

TERRITORIES = sorted(load_board().territories)


def _spelling(draw, name):
    return draw(st.sampled_from([name, name.lower(), name.upper(), slugify(name)]))


@st.composite
def entries(draw):
    entry = draw(_entries())
    if draw(st.integers(0, 3)) == 0:  # an override waives every soft refusal: conservation must still hold
        entry.update(override=True, reason="the board says so")
    return entry


@st.composite
def _entries(draw):
    f = draw(st.sampled_from(SIX))
    territory = draw(st.sampled_from(TERRITORIES))
    name = _spelling(draw, territory)
    sectors = load_board().territories[territory].sectors
    how = draw(st.sampled_from(["valid", "valid", "valid", "valid", "omitted", "any"]))
    if how == "valid" and sectors:
        sector = draw(st.sampled_from(sectors))
    else:
        sector = None if how != "any" else draw(st.integers(1, 18))
    n = draw(st.sampled_from([1, 2, 3, 5, 8, 0, 12]))
    starred = draw(st.sampled_from([0, 0, 0, 1, 2, 4]))
    kind = draw(st.sampled_from(["place", "remove", "ship", "move", "storm", "spice", "board_spice", "phase",
                                 "revive", "collect", "blow"]))
    if kind == "place":
        return {"type": "forces.place", "faction": f, "territory": name, "sector": sector, "forces": n,
                "starred": starred, "from": draw(st.sampled_from(["reserves", "tanks"]))}
    if kind == "remove":
        return {"type": "forces.remove", "faction": f, "territory": name, "sector": sector, "forces": n,
                "starred": starred, "to": draw(st.sampled_from(["reserves", "tanks"]))}
    if kind == "ship":
        return {"type": "ship", "faction": f, "to": name, "sector": sector, "forces": n, "starred": starred}
    if kind == "move":
        if draw(st.booleans()):  # from a starting stack, so that some moves are legal
            f, name, sector = draw(st.sampled_from([("atreides", "Arrakeen", 9), ("harkonnen", "Carthag", 10),
                                                    ("guild", "Tuek's Sietch", 4)]))
            starred = 0
        dest = draw(st.sampled_from(TERRITORIES))
        dsectors = load_board().territories[dest].sectors
        return {"type": "move", "faction": f, "from": name, "from_sector": sector, "to": dest,
                "to_sector": draw(st.sampled_from(dsectors)) if dsectors else None, "forces": n,
                "starred": starred}
    if kind == "storm":
        return {"type": "storm.move", "sectors": draw(st.integers(0, 20))}
    if kind == "spice":
        return {"type": "spice.add", "faction": f, "amount": draw(st.integers(-15, 15))}
    if kind == "board_spice":
        return {"type": "board.spice", "territory": name, "sector": sector, "amount": draw(st.integers(0, 12))}
    if kind == "phase":
        return {"type": "phase.set", "turn": draw(st.integers(1, 3)),
                "phase": draw(st.sampled_from(["storm", "spice_blow", "revival", "shipment_movement",
                                               "shipment_movement", "collection"]))}
    if kind == "revive":
        return {"type": "revive", "faction": f, "forces": min(n, 10), "starred": min(starred, 3)}
    if kind == "collect":
        return {"type": "collection.apply"}
    return {"type": "spice.blow", "card": draw(st.sampled_from(["Shai-Hulud", territory])),
            "pile": draw(st.sampled_from(["A", "B"]))}


@pytest.fixture(scope="module")
def shared_client():
    with tempfile.TemporaryDirectory() as d:
        yield create_app({"DATA_DIR": d, "TESTING": True}).test_client()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(entries(), min_size=1, max_size=16))
def test_property_forces_conserved_and_spice_never_negative(shared_client, steps):
    client = shared_client
    t = create_table(client, SIX)
    set_phase(client, t, "shipment_movement")
    accepted = 1
    for entry in steps:
        entry = {k: v for k, v in entry.items() if v is not None}
        r = act(client, t.code, t.host, expect=None, **entry)
        assert r.status_code in (200, 422), (entry, r.get_data(as_text=True))
        accepted += r.status_code == 200
        s = r.get_json() if r.status_code == 200 else host_state(client, t)
        for f in SIX:
            assert forces_total(s, f) == TOTAL_FORCES, (f, entry)
            assert spice(s, f) >= 0, (f, entry)
            for k in ("reserves", "tanks"):
                assert min(s["factions"][f][k].values()) >= 0
        for name, terr in s["board"]["territories"].items():
            assert terr["spice"] >= 0
            for st_ in terr["forces"].values():
                assert min(st_["forces"], st_["starred"], st_["advisors"]) >= 0
    # the table replays to the same state (undo machinery relies on it)
    assert host_state(client, t)["revision"] == accepted
