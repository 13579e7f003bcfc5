"""Movement legality: storm at piece level, range, occupancy, refusal messages and rule ids."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.dune.rules.board import POLAR_SINK, Board, load_board
from companion.games.dune.rules.errors import RuleViolation
from companion.games.dune.rules.movement import check_move, movement_allowance, reachable
from companion.games.dune.rules.occupancy import piece_graph, transit_blocked
from companion.games.dune.rules.position import Position

BOARD = load_board()
FULL_TUEKS = {"Tuek's Sietch": {"emperor": 5, "harkonnen": 3}}
CISTERN = {"Cistern": "Cielago East@2"}


def pos(storm=3, occupants=None, alliances=None, aftermath=None, tokens=None, advisors=None):
    alliances = dict(alliances or {})
    for a, b in list(alliances.items()):
        alliances[b] = a
    return Position(
        storm_sector=storm,
        occupants=occupants or {},
        advisors=advisors or {},
        alliances=alliances,
        atomics_aftermath=aftermath,
        token_territories=tokens or {},
    )


def hops(path):
    territories = [p.rpartition("@")[0] if "@" in p else p for p in path]
    return sum(1 for a, b in zip(territories, territories[1:]) if a != b)


# ---------------------------------------------------------------- allowance


@pytest.mark.parametrize(
    "faction, thopters, token, expected",
    [
        ("atreides", False, False, 1),
        ("fremen", False, False, 2),
        ("atreides", True, False, 3),
        ("fremen", True, False, 3),
        ("harkonnen", False, True, 3),
        ("fremen", False, True, 3),
    ],
)
def test_movement_allowance(faction, thopters, token, expected):
    assert movement_allowance(faction, thopters, token) == expected


# ---------------------------------------------------------------- accepted moves

ACCEPTED = [
    # id, position, faction, from, from_sector, to, to_sector, allowance, expected path (or None), hops
    ("free move inside a territory", pos(storm=3), "atreides", "Imperial Basin", 8, "Imperial Basin", 10, 1,
     ["Imperial Basin@8", "Imperial Basin@9", "Imperial Basin@10"], 0),
    ("storm over the middle piece: detour out and back in with ornithopters", pos(storm=9), "atreides",
     "Imperial Basin", 8, "Imperial Basin", 10, 3,
     ["Imperial Basin@8", "Polar Sink", "Arsunt@10", "Imperial Basin@10"], 3),
    ("Carthag directly when no storm is near", pos(storm=3), "atreides", "Imperial Basin", 8, "Carthag", None, 1,
     None, 1),
    ("Carthag by the Polar Sink detour around the storm at 9", pos(storm=9), "atreides", "Imperial Basin", 8,
     "Carthag", None, 3, ["Imperial Basin@8", "Polar Sink", "Arsunt@10", "Carthag@10"], 3),
    ("cross Imperial Basin through its clear piece while sector 8 is in storm", pos(storm=8), "fremen",
     "Arsunt", 10, "Old Gap", 9, 2, ["Arsunt@10", "Imperial Basin@9", "Old Gap@9"], 2),
    ("enter a partly stormed territory by its clear piece", pos(storm=10), "atreides", "Arrakeen", None,
     "Imperial Basin", 9, 1, ["Arrakeen@9", "Imperial Basin@9"], 1),
    ("Fremen move two", pos(storm=3), "fremen", "Sietch Tabr", None, "Tsimpo", 12, 2, None, 2),
    ("ornithopters reach three", pos(storm=3), "atreides", "Arrakeen", None, "Hagga Basin", 11, 3, None, 3),
    ("Polar Sink holds any number of factions", pos(occupants={POLAR_SINK: {"emperor": 2, "harkonnen": 2,
     "fremen": 2, "guild": 1}}), "atreides", "Imperial Basin", 8, POLAR_SINK, None, 1, None, 1),
    ("allies may share the Polar Sink", pos(occupants={POLAR_SINK: {"fremen": 3}}, alliances={"atreides": "fremen"}),
     "atreides", "Imperial Basin", 8, POLAR_SINK, None, 1, None, 1),
    ("Ecaz joins its ally in a stronghold", pos(occupants={"Carthag": {"atreides": 4, "harkonnen": 2}},
     alliances={"ecaz": "atreides"}), "ecaz", "Imperial Basin", 10, "Carthag", None, 1, None, 1),
    ("the ally of Ecaz joins Ecaz", pos(occupants={"Imperial Basin": {"ecaz": 6}}, alliances={"ecaz": "emperor"}),
     "emperor", "Arrakeen", None, "Imperial Basin", 9, 1, None, 1),
    ("Ecaz and ally count as one faction for others", pos(occupants={"Carthag": {"ecaz": 3, "atreides": 4}},
     alliances={"ecaz": "atreides"}), "harkonnen", "Imperial Basin", 10, "Carthag", None, 1, None, 1),
    ("Bene Gesserit advisors enter a full stronghold", pos(occupants=FULL_TUEKS), "bg", "South Mesa", 4,
     "Tuek's Sietch", None, 1, None, 1),
    ("advisors do not count toward a full stronghold",
     pos(occupants={"Tuek's Sietch": {"emperor": 5}}, advisors={"Tuek's Sietch": 3}), "atreides",
     "South Mesa", 4, "Tuek's Sietch", None, 1, None, 1),
    ("movement into the Atomics aftermath is allowed", pos(aftermath="Carthag"), "atreides", "Imperial Basin",
     10, "Carthag", None, 1, None, 1),
    ("a revealed Discovery territory is one step past its host", pos(tokens=CISTERN), "fremen", "Cielago South", 2,
     "Cistern", None, 2, ["Cielago South@2", "Cielago East@2", "Cistern@2"], 2),
    ("two factions may share a Discovery territory", pos(tokens=CISTERN, occupants={"Cistern": {"emperor": 1}}),
     "atreides", "Cielago East", 2, "Cistern", 2, 1, None, 1),
    ("a full stronghold may be left", pos(occupants={"Tuek's Sietch": {"emperor": 5, "harkonnen": 3, "atreides": 1}}),
     "atreides", "Tuek's Sietch", None, "South Mesa", 4, 1, None, 1),
]


@pytest.mark.parametrize(
    "position, faction, src, src_sector, dst, dst_sector, allowance, path, n_hops",
    [case[1:] for case in ACCEPTED],
    ids=[case[0] for case in ACCEPTED],
)
def test_accepted_moves(position, faction, src, src_sector, dst, dst_sector, allowance, path, n_hops):
    advisors_only = faction == "bg"
    got = check_move(BOARD, position, faction, src, src_sector, dst, dst_sector, allowance,
                     advisors_only=advisors_only)
    if path is not None:
        assert got == path
    assert hops(got) == n_hops <= allowance
    assert all(not p.endswith(f"@{position.storm_sector}") for p in got)
    reach = reachable(BOARD, position, faction, src, src_sector, allowance, advisors_only=advisors_only)
    assert dst in reach
    assert dst_sector is None or dst_sector in reach[dst].sectors


# ---------------------------------------------------------------- refusals

REFUSED = [
    # id, position, faction, from, from_sector, to, to_sector, allowance, rule, message, overridable
    ("storm over the middle piece blocks the free move inside Imperial Basin", pos(storm=9), "atreides",
     "Imperial Basin", 8, "Imperial Basin", 10, 1, "base-storm-movement",
     "The storm over sector 9 blocks every route from Imperial Basin (East, sector 8) to Imperial Basin "
     "(West, sector 10) within 1 territory.", True),
    ("the detour is too long for the Fremen", pos(storm=9), "fremen", "Imperial Basin", 8, "Carthag", None, 2,
     "base-storm-movement",
     "The storm over sector 9 blocks every route from Imperial Basin (East, sector 8) to Carthag within "
     "2 territories.", True),
    ("Old Gap cut in two by the storm", pos(storm=9), "atreides", "Old Gap", 8, "Old Gap", 10, 3,
     "base-storm-movement", None, True),
    ("destination in storm", pos(storm=10), "atreides", "Imperial Basin", 8, "Carthag", None, 3,
     "base-storm-movement", "The storm is over sector 10: Carthag cannot be entered this turn.", True),
    ("destination piece in storm", pos(storm=10), "atreides", "Arrakeen", None, "Imperial Basin", 10, 1,
     "base-storm-movement",
     "The storm is over sector 10: Imperial Basin (West, sector 10) cannot be entered this turn.", True),
    ("origin in storm", pos(storm=9), "atreides", "Arrakeen", None, "Rim Wall West", None, 1,
     "base-storm-movement", "The storm is over sector 9: forces in Arrakeen cannot move out this turn.", True),
    ("rock does not help against the storm", pos(storm=4), "fremen", "Tuek's Sietch", None, "South Mesa", 3, 2,
     "base-storm-movement", "The storm is over sector 4: forces in Tuek's Sietch cannot move out this turn.",
     True),
    ("out of range", pos(storm=3), "atreides", "Basin", None, "Carthag", None, 1, "base-movement",
     "Carthag is 3 territories away from Basin: Atreides may move only 1 territory this turn.", True),
    ("out of Fremen range", pos(storm=3), "fremen", "Arrakeen", None, "Hagga Basin", 11, 2, "fremen-movement",
     "Hagga Basin (East, sector 11) is 3 territories away from Arrakeen: Fremen may move only 2 territories "
     "this turn.", True),
    ("out of ornithopter range", pos(storm=3), "harkonnen", "Carthag", None, "Habbanya Sietch", None, 3,
     "base-ornithopters", None, True),
    ("Tuek's Sietch full", pos(occupants=FULL_TUEKS), "atreides", "South Mesa", 4, "Tuek's Sietch", None, 1,
     "base-occupancy",
     "Tuek's Sietch already holds forces of two other factions (Emperor and Harkonnen): Atreides cannot "
     "enter a full stronghold.", True),
    ("Bene Gesserit fighters into a full stronghold", pos(occupants=FULL_TUEKS), "bg", "South Mesa", 4,
     "Tuek's Sietch", None, 1, "bg-advisors",
     "Tuek's Sietch already holds forces of two other factions (Emperor and Harkonnen): Bene Gesserit may "
     "enter it only as advisors.", True),
    ("Ecaz pair plus one fill a stronghold", pos(occupants={"Carthag": {"ecaz": 3, "atreides": 4, "harkonnen": 1}},
     alliances={"ecaz": "atreides"}), "emperor", "Imperial Basin", 10, "Carthag", None, 1, "base-occupancy",
     "Carthag already holds forces of two other factions (Ecaz+Atreides and Harkonnen): Emperor cannot "
     "enter a full stronghold.", True),
    ("allies may not end together", pos(occupants={"Carthag": {"fremen": 3}}, alliances={"atreides": "fremen"}),
     "atreides", "Imperial Basin", 10, "Carthag", None, 1, "base-alliance-occupancy",
     "Atreides's ally Fremen already has forces in Carthag: allies may not end in the same territory except "
     "the Polar Sink.", True),
    ("allies may not end together on sand either", pos(occupants={"Old Gap": {"fremen": 3}},
     alliances={"atreides": "fremen"}), "atreides", "Arrakeen", None, "Old Gap", 9, 1,
     "base-alliance-occupancy", None, True),
    ("Discovery territory holds two factions", pos(tokens=CISTERN, occupants={"Cistern": {"emperor": 1,
     "harkonnen": 2}}), "atreides", "Cielago East", 2, "Cistern", None, 1, "discovery-token-territories",
     "Cistern already holds Emperor and Harkonnen: a revealed Discovery territory holds at most two factions, "
     "so Atreides cannot enter it.", True),
    ("the storm over the host blocks a Discovery territory", pos(storm=2, tokens=CISTERN), "atreides",
     "Cielago East", 3, "Cistern", None, 3, "base-storm-movement",
     "The storm is over sector 2: Cistern cannot be entered this turn.", True),
    ("a Discovery territory is one step past its host", pos(tokens=CISTERN), "atreides", "Cielago South", 2,
     "Cistern", None, 1, "base-movement", None, True),
    ("unknown territory", pos(), "atreides", "Arrakis City", None, "Carthag", None, 1, "base-board", None, False),
    ("wrong sector", pos(), "atreides", "Imperial Basin", 11, "Carthag", None, 1, "base-board", None, False),
    ("missing sector of a multi-sector territory", pos(), "atreides", "Carthag", None, "Imperial Basin", None, 1,
     "base-board", "Imperial Basin spans sectors 8, 9, 10: say which sector.", False),
    ("no move at all", pos(), "atreides", "Carthag", None, "carthag", None, 1, "base-movement", None, False),
]


@pytest.mark.parametrize(
    "position, faction, src, src_sector, dst, dst_sector, allowance, rule, message, overridable",
    [case[1:] for case in REFUSED],
    ids=[case[0] for case in REFUSED],
)
def test_refused_moves(position, faction, src, src_sector, dst, dst_sector, allowance, rule, message, overridable):
    with pytest.raises(RuleViolation) as err:
        check_move(BOARD, position, faction, src, src_sector, dst, dst_sector, allowance)
    assert err.value.rule == rule
    assert err.value.overridable is overridable
    if message is not None:
        assert err.value.message == message
    # one sentence
    assert err.value.message.count(". ") == 0 and err.value.message.endswith(".")
    # and "where can I go?" agrees
    if not overridable:
        return
    try:
        reach = reachable(BOARD, position, faction, src, src_sector, allowance)
    except RuleViolation:
        return
    if dst in reach and dst_sector is not None:
        assert dst_sector not in reach[dst].sectors
    elif dst_sector is None:
        assert dst not in reach


def test_names_accept_any_case_and_slug():
    path = check_move(BOARD, pos(), "atreides", "imperial-basin", 8, "CARTHAG", None, 1)
    assert path[-1] == "Carthag@10"


# ---------------------------------------------------------------- "where can I go?"


def test_reachable_inside_partly_stormed_territory():
    reach = reachable(BOARD, pos(storm=9), "atreides", "Imperial Basin", 8, 1)
    assert "Imperial Basin" not in reach  # sector 10 only by a 3-territory detour
    assert set(reach) == {"False Wall East", "Hole In The Rock", POLAR_SINK, "Rim Wall West", "Shield Wall"}
    assert reach[POLAR_SINK].sectors == () and reach[POLAR_SINK].hops == 1
    assert reach["False Wall East"].sectors == (4, 5, 6, 7, 8)
    reach3 = reachable(BOARD, pos(storm=9), "atreides", "Imperial Basin", 8, 3)
    assert reach3["Imperial Basin"].sectors == (10,)
    assert reach3["Imperial Basin"].hops == 3
    assert "Arrakeen" not in reach3 and "Old Gap" in reach3 and reach3["Old Gap"].sectors == (8,)


def test_reachable_lists_sectors_and_paths():
    reach = reachable(BOARD, pos(storm=3), "fremen", "Sietch Tabr", None, 2)
    assert reach["Tsimpo"].sectors == (10, 11, 12)  # inside Tsimpo every sector is free
    assert reach["Tsimpo"].path[0] == "Sietch Tabr@13"
    assert reach["Tsimpo"].hops == 2
    assert POLAR_SINK not in reach and "Wind Pass" in reach  # the Polar Sink is a third step here
    assert "Sietch Tabr" not in reach  # nowhere else to go inside a one-sector territory
    stormy = reachable(BOARD, pos(storm=11), "fremen", "Sietch Tabr", None, 2)
    assert stormy["Tsimpo"].sectors == (12,)  # the storm at 11 cuts Tsimpo@10 off
    assert stormy["Tsimpo"].path == ("Sietch Tabr@13", "Plastic Basin@13", "Plastic Basin@12", "Tsimpo@12")


def test_reachable_empty_from_storm():
    assert reachable(BOARD, pos(storm=9), "atreides", "Arrakeen", None, 3) == {}


def test_reachable_leaves_out_full_strongholds_and_ally_territories():
    position = pos(occupants={**FULL_TUEKS, "Pasty Mesa": {"fremen": 1}}, alliances={"atreides": "fremen"})
    reach = reachable(BOARD, position, "atreides", "South Mesa", 4, 1)
    assert "Tuek's Sietch" not in reach and "Pasty Mesa" not in reach
    assert "False Wall South" in reach
    bg = reachable(BOARD, position, "bg", "South Mesa", 4, 1, advisors_only=True)
    assert "Tuek's Sietch" in bg
    assert "Tuek's Sietch" not in reachable(BOARD, position, "bg", "South Mesa", 4, 1)


def test_atomics_aftermath_does_not_block_movement():
    reach = reachable(BOARD, pos(aftermath="Carthag"), "atreides", "Imperial Basin", 10, 1)
    assert "Carthag" in reach


# ---------------------------------------------------------------- passing through a full stronghold

# On the printed board no stronghold is ever a short cut, so this uses a tiny made-up board:
# A@1 - S@1 (stronghold) - B@1, and a long way round A@1 - C@2 - D@3 - B@1.
TOY = Board({
    "sectors": 18, "storm_start": 18, "player_dots": [1],
    "territories": [
        {"name": n, "type": ty, "sectors": [s], "spice_blow": None, "neighbours": nb,
         "fremen_ship_range": False, "shield_wall_protected": False, "family_atomics_range": False}
        for n, ty, s, nb in [
            ("A", "sand", 1, ["S", "C"]), ("S", "stronghold", 1, ["A", "B"]), ("B", "sand", 1, ["S", "D"]),
            ("C", "sand", 2, ["A", "D"]), ("D", "sand", 3, ["C", "B"]),
        ]
    ],
    "pieces": {"A@1": ["S@1", "C@2"], "S@1": ["A@1", "B@1"], "B@1": ["S@1", "D@3"],
               "C@2": ["A@1", "D@3"], "D@3": ["C@2", "B@1"]},
})


def test_cannot_pass_through_a_full_stronghold():
    free = Position(storm_sector=9)
    assert check_move(TOY, free, "atreides", "A", 1, "B", 1, 2) == ["A@1", "S@1", "B@1"]
    full = Position(storm_sector=9, occupants={"S": {"emperor": 1, "harkonnen": 1}})
    assert transit_blocked(TOY, full, "atreides") == {"S"}
    with pytest.raises(RuleViolation) as err:
        check_move(TOY, full, "atreides", "A", 1, "B", 1, 2)
    assert err.value.rule == "base-occupancy"
    assert err.value.message == (
        "Every route from A to B within 2 territories passes through a stronghold holding two other "
        "factions (S), which Atreides cannot move through."
    )
    assert check_move(TOY, full, "atreides", "A", 1, "B", 1, 3) == ["A@1", "C@2", "D@3", "B@1"]
    # advisors pass
    assert check_move(TOY, full, "bg", "A", 1, "B", 1, 2, advisors_only=True) == ["A@1", "S@1", "B@1"]
    # the storm closes the long way, the stronghold the short one
    stormy = Position(storm_sector=2, occupants={"S": {"emperor": 1, "harkonnen": 1}})
    with pytest.raises(RuleViolation) as err:
        check_move(TOY, stormy, "atreides", "A", 1, "B", 1, 3)
    assert err.value.rule == "base-storm-movement"
    assert "full strongholds (S)" in err.value.message
    assert "B" not in reachable(TOY, stormy, "atreides", "A", 1, 3)


# ---------------------------------------------------------------- property: reachable == check_move

FACTIONS = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu"]
TOKEN_HOSTS = ["Cielago East@2", "Gara Kulon@7", "Meridian@18", "Pasty Mesa@6", "False Wall West@16",
               "Plastic Basin@12"]
ALL_PIECES = BOARD.all_pieces()
TERRITORIES = list(BOARD.territories)


@st.composite
def positions(draw):
    storm = draw(st.integers(1, 18))
    tokens = {}
    if draw(st.booleans()):
        tokens["Cistern"] = draw(st.sampled_from(TOKEN_HOSTS))
    places = TERRITORIES + list(tokens) + BOARD.strongholds() * 3  # strongholds more often
    occupants: dict[str, dict[str, int]] = {}
    for _ in range(draw(st.integers(0, 14))):
        t = draw(st.sampled_from(places))
        f = draw(st.sampled_from(FACTIONS))
        occupants.setdefault(t, {})[f] = draw(st.integers(1, 5))
    alliances = {}
    pool = draw(st.permutations(FACTIONS))
    for i in range(draw(st.integers(0, 3))):
        a, b = pool[2 * i], pool[2 * i + 1]
        alliances[a], alliances[b] = b, a
    aftermath = draw(st.none() | st.sampled_from(BOARD.strongholds()))
    return Position(storm_sector=storm, occupants=occupants, alliances=alliances,
                    atomics_aftermath=aftermath, token_territories=tokens)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    position=positions(),
    faction=st.sampled_from(FACTIONS),
    origin=st.sampled_from(ALL_PIECES),
    allowance=st.integers(0, 3),
    advisors_only=st.booleans(),
)
def test_reachable_agrees_with_check_move(position, faction, origin, allowance, advisors_only):
    advisors_only = advisors_only and faction == "bg"
    o_t, _, o_s = origin.rpartition("@") if "@" in origin else (origin, "", "")
    o_sector = int(o_s) if o_s else None
    reach = reachable(BOARD, position, faction, o_t, o_sector, allowance, advisors_only=advisors_only)
    accepted = {(t, s) for t, r in reach.items() for s in (r.sectors or (None,))}
    graph = piece_graph(BOARD, position)
    for node in graph.adjacency:
        t, s = graph.territory_of[node], graph.sector_of[node]
        if (t, s) == (o_t, o_sector):
            continue
        try:
            path = check_move(BOARD, position, faction, o_t, o_sector, t, s, allowance,
                              advisors_only=advisors_only)
        except RuleViolation as exc:
            assert (t, s) not in accepted, (t, s, exc.message)
            assert exc.message and exc.rule
            continue
        assert (t, s) in accepted, (t, s, path)
        assert path[0] == graph_node(o_t, o_sector) and path[-1] == node
        assert hops(path) <= allowance
        assert all(graph.sector_of[p] != position.storm_sector or graph.territory_of[p] == POLAR_SINK
                   for p in path)
        for a, b in zip(path, path[1:]):
            assert b in graph.adjacency[a]


def graph_node(t, s):
    return POLAR_SINK if t == POLAR_SINK else f"{t}@{s}"
