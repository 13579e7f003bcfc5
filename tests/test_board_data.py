"""The board and faction data files against the compiled reference (shared/reference/).

The package carries its own copies (companion/games/dune/data/board.json, factions.json); these tests keep
them true to the reference and to the counts the reference states."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from companion.games.dune.rules.board import POLAR_SINK, load_board, slugify, split_piece
from companion.games.dune.rules.factions import FACTION_IDS, load_factions

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"

board = load_board()


def test_counts_as_the_reference_states():
    types = Counter(t.type for t in board.territories.values())
    assert len(board.territories) == 42
    assert types == {"sand": 29, "rock": 7, "stronghold": 5, "polar_sink": 1}
    assert sum(len(t.sectors) for t in board.territories.values()) == 85
    assert len(board.piece_neighbours) == 86  # 85 pieces + the Polar Sink
    pairs = {frozenset((a, b)) for a, ns in board.piece_neighbours.items() for b in ns}
    assert len(pairs) == 190
    territory_pairs = {frozenset((t.name, n)) for t in board.territories.values() for n in t.neighbours}
    assert len(territory_pairs) == 103
    assert sum(1 for t in board.territories.values() if t.spice_blow) == 15
    assert sum(1 for t in board.territories.values() if t.fremen_ship_range) == 16
    assert sorted(board.strongholds()) == ["Arrakeen", "Carthag", "Habbanya Sietch", "Sietch Tabr", "Tuek's Sietch"]


def test_adjacency_is_symmetric_at_both_levels():
    for t in board.territories.values():
        for n in t.neighbours:
            assert t.name in board.territories[n].neighbours, (t.name, n)
    for a, ns in board.piece_neighbours.items():
        for b in ns:
            assert a in board.piece_neighbours[b], (a, b)


def test_every_piece_lies_inside_its_territorys_span():
    for pid in board.piece_neighbours:
        name, sector = split_piece(pid)
        t = board.territories[name]
        if name == POLAR_SINK:
            assert sector is None
        else:
            assert sector in t.sectors, pid


def test_piece_links_realise_exactly_the_territory_links():
    realised = set()
    for a, ns in board.piece_neighbours.items():
        for b in ns:
            ta, tb = split_piece(a)[0], split_piece(b)[0]
            if ta != tb:
                assert tb in board.territories[ta].neighbours, (a, b)
                realised.add(frozenset((ta, tb)))
    declared = {frozenset((t.name, n)) for t in board.territories.values() for n in t.neighbours}
    assert realised == declared


@pytest.mark.parametrize("name, kind, sectors, blow", [
    ("Cielago North", "sand", [18, 1, 2], {"amount": 8, "sector": 2}),
    ("Tuek's Sietch", "stronghold", [4], None),
    ("Imperial Basin", "sand", [8, 9, 10], None),
    ("The Great Flat", "sand", [14], {"amount": 10, "sector": 14}),
    ("Hagga Basin", "sand", [11, 12], {"amount": 6, "sector": 12}),
    ("False Wall East", "rock", [4, 5, 6, 7, 8], None),
    ("Polar Sink", "polar_sink", [], None),
])
def test_sample_territories_from_the_reference_table(name, kind, sectors, blow):
    t = board.territories[name]
    assert (t.type, list(t.sectors), t.spice_blow) == (kind, sectors, blow)


def test_shield_wall_protects_exactly_imperial_basin_arrakeen_carthag():
    assert sorted(t.name for t in board.territories.values() if t.shield_wall_protected) == [
        "Arrakeen", "Carthag", "Imperial Basin"]


@pytest.mark.parametrize("typed, canonical", [
    ("tueks-sietch", "Tuek's Sietch"), ("TUEK'S SIETCH", "Tuek's Sietch"), ("the great flat", "The Great Flat"),
    ("the-great-flat", "The Great Flat"), ("polar sink", "Polar Sink"), ("Hole in the rock", "Hole In The Rock"),
])
def test_names_in_any_case_and_slug_form(typed, canonical):
    assert board.resolve(typed) == canonical
    assert slugify(canonical) == board.territories[canonical].slug


@pytest.mark.skipif(not (REFERENCE / "dune-map.json").exists(), reason="shared/reference not beside the checkout")
def test_board_data_matches_the_reference_json():
    ref = json.loads((REFERENCE / "dune-map.json").read_text())
    ours = json.loads(Path(__file__).resolve().parents[1].joinpath("companion/games/dune/data/board.json").read_text())
    assert ours["territories"] == ref["territories"]
    assert ours["pieces"] == ref["pieces"]


@pytest.mark.skipif(not (REFERENCE / "dune-map.md").exists(), reason="shared/reference not beside the checkout")
def test_discovery_tokens_match_the_reference_table():
    text = (REFERENCE / "dune-map.md").read_text()
    for tok in board.discovery_tokens:
        line = next(x for x in text.splitlines() if x.startswith(f"| {tok['card']} | {tok['kind'].title()} |"))
        assert f"({tok['sector']})" in line and tok["territory"].split(" (")[0] in line


# -- factions ---------------------------------------------------------------------------------

FACTS = {  # faction: (spice, free revival, hand limit, forces on the board at start, starred)
    "atreides": (10, 2, 4, 10, 0), "harkonnen": (10, 2, 8, 10, 0), "fremen": (3, 3, 4, 0, 3),
    "emperor": (10, 1, 4, 0, 5), "guild": (5, 1, 4, 5, 0), "bg": (5, 1, 4, 0, 0), "ecaz": (12, 2, 4, 6, 0),
    "moritani": (12, 2, 4, 0, 0), "tleilaxu": (12, 1, 4, 6, 0),
    # the CHOAM & Richese add-on (shared/reference/factions.md, choam-richese.txt): all 20 in reserve
    "choam": (2, 0, 5, 0, 0), "richese": (5, 2, 4, 0, 0),
}


@pytest.mark.parametrize("fid", FACTION_IDS)
def test_faction_facts(fid):
    f = load_factions()["factions"][fid]
    spice, revival, hand, on_board, starred = FACTS[fid]
    assert (f["spice"], f["free_revival"], f["hand_limit"], f["starred"]) == (spice, revival, hand, starred)
    assert sum(p["forces"] + p["starred"] for p in f["start"]) == on_board
    assert f["total"] == 20 and len(f["leaders"]) == 5
    for p in f["start"]:
        assert board.resolve_sector(p["territory"], p["sector"]) == p["sector"]


def test_leader_strengths_from_the_reference():
    leaders = {fid: {ld["name"]: ld["strength"] for ld in f["leaders"]} for fid, f in load_factions()["factions"].items()}
    totals = {fid: sum(v for v in ls.values() if v) for fid, ls in leaders.items()}
    assert totals == {"atreides": 17, "harkonnen": 16, "fremen": 23, "emperor": 19, "guild": 14, "bg": 25,
                      "ecaz": 16, "moritani": 16, "tleilaxu": 10,
                      "choam": 16, "richese": 16}
    assert leaders["fremen"]["Stilgar"] == 7 and leaders["harkonnen"]["Feyd-Rautha"] == 6


def test_emperor_start_offers_both_readings_with_base_as_default():
    r = load_factions()["factions"]["emperor"]["readings"]
    assert r["default"] == "base" and set(r["options"]) == {"base", "kiss-sheet"}
    assert r["options"]["kiss-sheet"]["start"] == [{"territory": "Carthag", "sector": 10, "forces": 10, "starred": 0}]


def test_the_auditor_is_choams_advanced_only_sixth_leader():
    f = load_factions()["factions"]["choam"]
    assert "The Auditor" not in {ld["name"] for ld in f["leaders"]}
    assert [(ld["name"], ld["strength"]) for ld in f["advanced_leaders"]] == [("The Auditor", 2)]
    assert load_factions()["factions"]["richese"]["no_field_tokens"] == [0, 3, 5]
    assert len(load_factions()["factions"]["richese"]["cache"]) == 10
