"""Movement legality: range, storm at piece level, occupancy. Pure; no Flask, no table state.

Model: forces sit on a *piece* (``"Territory@sector"``, or ``"Polar Sink"``). A move is a path
over touching pieces. A step between two pieces of the same territory costs 0, a step into
another territory costs 1; a destination is reachable when some path costs no more than the
movement allowance and

- never enters, leaves or crosses a piece whose sector is the storm sector (any terrain; the
  Polar Sink is never in storm);
- never enters a stronghold (or revealed Discovery territory) already holding two other
  factions, neither to stop there nor to pass through it (Bene Gesserit advisors excepted);
- does not end in a territory holding the mover's ally (Polar Sink and Ecaz + ally excepted).

Moving inside one territory is free, but still not through its stormed piece: a path may leave
the territory and come back (e.g. Imperial Basin@8 -> Polar Sink -> Arsunt@10 -> Imperial
Basin@10 costs 3 with the storm at 9). Moving into the Atomics aftermath territory is allowed
(only shipment into it is barred).

Revealed Discovery territories touch only their host piece and share its sector (so the storm
over the host blocks them, and they are one territory further than the host).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

from .board import POLAR_SINK, Board
from .errors import RuleViolation, hard
from .occupancy import (
    R_STORM,
    Graph,
    check_destination_occupancy,
    faction_name,
    full_for,
    in_storm,
    label,
    join,
    node_id,
    piece_graph,
    resolve_piece_sector,
    resolve_territory,
    transit_blocked,
    ally_conflict,
)
from .position import Position

R_MOVEMENT = "base-movement"
R_FREMEN_MOVEMENT = "fremen-movement"
R_ORNITHOPTERS = "base-ornithopters"
R_ORNITHOPTER_TOKEN = "discovery-ornithopter"

BASE_ALLOWANCE = 1
FREMEN_ALLOWANCE = 2
ORNITHOPTER_ALLOWANCE = 3


@dataclass(frozen=True)
class Reach:
    """How a faction can reach one territory this turn."""

    territory: str
    sectors: tuple[int, ...]  # reachable sectors of it (empty for the Polar Sink)
    path: tuple[str, ...]     # cheapest path, origin piece first, node ids
    hops: int                 # territory steps along that path


def movement_allowance(faction: str, ornithopters: bool = False, ornithopter_token: bool = False) -> int:
    """1; Fremen 2; 3 with ornithopters (forces in Arrakeen or Carthag when movement starts)
    or when spending the Ornithopter Discovery token for this move."""
    if ornithopters or ornithopter_token:
        return ORNITHOPTER_ALLOWANCE
    return FREMEN_ALLOWANCE if faction == "fremen" else BASE_ALLOWANCE


def _allowance_rule(faction: str, allowance: int) -> str:
    if allowance >= ORNITHOPTER_ALLOWANCE:
        return R_ORNITHOPTERS
    if faction == "fremen" and allowance == FREMEN_ALLOWANCE:
        return R_FREMEN_MOVEMENT
    return R_MOVEMENT


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


def _search(
    graph: Graph,
    start: str,
    *,
    storm_sector: int | None,
    blocked: set[str],
) -> tuple[dict[str, int], dict[str, str | None]]:
    """Cheapest territory-step cost from ``start`` to every node, avoiding stormed pieces
    (when ``storm_sector`` is given) and the territories in ``blocked``."""
    start_territory = graph.territory_of[start]
    dist: dict[str, int] = {start: 0}
    prev: dict[str, str | None] = {start: None}
    heap: list[tuple[int, str]] = [(0, start)]
    while heap:
        d, node = heapq.heappop(heap)
        if d > dist[node]:
            continue
        here = graph.territory_of[node]
        for nxt in graph.adjacency[node]:
            t = graph.territory_of[nxt]
            if storm_sector is not None and t != POLAR_SINK and graph.sector_of[nxt] == storm_sector:
                continue
            if t in blocked and t != start_territory:
                continue
            nd = d + (0 if t == here else 1)
            if nd < dist.get(nxt, 1 << 30):
                dist[nxt] = nd
                prev[nxt] = node
                heapq.heappush(heap, (nd, nxt))
    return dist, prev


def _path(prev: dict[str, str | None], node: str) -> tuple[str, ...]:
    out = []
    cur: str | None = node
    while cur is not None:
        out.append(cur)
        cur = prev[cur]
    return tuple(reversed(out))


def _may_end(board: Board, pos: Position, faction: str, territory: str, origin_territory: str,
             advisors_only: bool) -> bool:
    if territory == origin_territory:
        return True  # already there: no one new enters
    if faction == "bg" and advisors_only:
        return True
    if full_for(board, pos, faction, territory):
        return False
    return ally_conflict(pos, faction, territory) is None


def reachable(
    board: Board,
    pos: Position,
    faction: str,
    from_territory: str,
    from_sector: int | None,
    allowance: int,
    *,
    advisors_only: bool = False,
) -> dict[str, Reach]:
    """Every territory the stack on ``from_territory@from_sector`` may legally end in this turn.

    The origin territory is listed only when another of its sectors can be reached. Empty when
    the origin piece is under the storm. ``advisors_only`` (Bene Gesserit) ignores occupancy."""
    origin = resolve_territory(board, pos, from_territory)
    sector = resolve_piece_sector(board, pos, origin, from_sector)
    if in_storm(pos, origin, sector):
        return {}
    graph = piece_graph(board, pos)
    start = node_id(origin, sector)
    blocked = transit_blocked(board, pos, faction, advisors_only=advisors_only)
    dist, prev = _search(graph, start, storm_sector=pos.storm_sector, blocked=blocked)
    best: dict[str, tuple[int, str]] = {}
    sectors: dict[str, list[int]] = {}
    for node, d in dist.items():
        if d > allowance or node == start:
            continue
        t = graph.territory_of[node]
        if not _may_end(board, pos, faction, t, origin, advisors_only):
            continue
        s = graph.sector_of[node]
        if s is not None:
            sectors.setdefault(t, []).append(s)
        else:
            sectors.setdefault(t, [])
        if t not in best or (d, node) < best[t]:
            best[t] = (d, node)
    return {
        t: Reach(t, tuple(sorted(sectors[t])), _path(prev, node), d)
        for t, (d, node) in sorted(best.items())
    }


def check_move(
    board: Board,
    pos: Position,
    faction: str,
    from_territory: str,
    from_sector: int | None,
    to_territory: str,
    to_sector: int | None,
    allowance: int,
    *,
    advisors_only: bool = False,
) -> list[str]:
    """Return the cheapest legal path (node ids, origin first) or raise the most specific
    RuleViolation: unknown names/sectors (hard), no move at all, origin in storm, destination
    in storm, destination full / ally there, out of range, storm blocking every path, full
    strongholds blocking every path."""
    who = faction_name(faction)
    origin = resolve_territory(board, pos, from_territory)
    o_sector = resolve_piece_sector(board, pos, origin, from_sector)
    dest = resolve_territory(board, pos, to_territory)
    d_sector = resolve_piece_sector(board, pos, dest, to_sector)
    start, goal = node_id(origin, o_sector), node_id(dest, d_sector)
    o_label, d_label = label(board, pos, origin, o_sector), label(board, pos, dest, d_sector)
    storm = pos.storm_sector

    if start == goal:
        raise hard(f"The forces are already in {o_label}: a move must end somewhere else.", R_MOVEMENT)
    if in_storm(pos, origin, o_sector):
        raise RuleViolation(
            f"The storm is over sector {storm}: forces in {o_label} cannot move out this turn.", R_STORM
        )
    if in_storm(pos, dest, d_sector):
        raise RuleViolation(
            f"The storm is over sector {storm}: {d_label} cannot be entered this turn.", R_STORM
        )
    if dest != origin:
        check_destination_occupancy(board, pos, faction, dest, advisors_only=advisors_only)

    graph = piece_graph(board, pos)
    blocked = transit_blocked(board, pos, faction, advisors_only=advisors_only)
    dist, prev = _search(graph, start, storm_sector=storm, blocked=blocked)
    if dist.get(goal, 1 << 30) <= allowance:
        return list(_path(prev, goal))

    # Why not? Compare with the storm and the full strongholds taken away one at a time.
    free = _search(graph, start, storm_sector=None, blocked=set())[0].get(goal, 1 << 30)
    if free > allowance:
        return _out_of_range(faction, who, o_label, d_label, free, allowance)
    storm_only = _search(graph, start, storm_sector=storm, blocked=set())[0].get(goal, 1 << 30)
    occ_only = _search(graph, start, storm_sector=None, blocked=blocked)[0].get(goal, 1 << 30)
    reach = f"within {_plural(allowance, 'territory')}"
    if storm_only > allowance and occ_only <= allowance:
        raise RuleViolation(
            f"The storm over sector {storm} blocks every route from {o_label} to {d_label} {reach}.",
            R_STORM,
        )
    full_names = join(sorted(blocked))
    if occ_only > allowance and storm_only <= allowance:
        raise RuleViolation(
            f"Every route from {o_label} to {d_label} {reach} passes through a stronghold holding two "
            f"other factions ({full_names}), which {who} cannot move through.",
            "base-occupancy",
        )
    raise RuleViolation(
        f"The storm over sector {storm} and the full strongholds ({full_names}) block every route "
        f"from {o_label} to {d_label} {reach}.",
        R_STORM,
    )


def _out_of_range(faction: str, who: str, o_label: str, d_label: str, distance: int, allowance: int):
    if distance >= 1 << 30:
        raise RuleViolation(f"There is no route from {o_label} to {d_label}.", R_MOVEMENT)
    raise RuleViolation(
        f"{d_label} is {_plural(distance, 'territory')} away from {o_label}: {who} may move only "
        f"{_plural(allowance, 'territory')} this turn.",
        _allowance_rule(faction, allowance),
    )
