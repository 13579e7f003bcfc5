"""Shared pieces of the shipment and movement rules: names, storm, occupancy, the piece graph.

Pure functions over the Board and a Position snapshot; no Flask, no table state.

Readings chosen here (see also the module docs of ``movement`` and ``shipment``):

- *Storm* blocks a whole piece (``Territory@sector``) whose sector is the storm sector, on any
  terrain; the Polar Sink is never in storm.
- *Revealed Discovery territories* (``Position.token_territories``: name -> host piece) are
  territories of their own, sitting in the host piece's sector and touching **only** the host
  piece. So the storm over the host's sector blocks them too (KISS makes forces *in* them immune
  to storm losses, which is a different thing from moving through the storm), and reaching one
  costs one territory step more than reaching its host. Their node id is ``"Name@sector"``.
- *Full*: a stronghold already holding occupying forces of two other factions (Bene Gesserit
  advisors never count; the Polar Sink has no limit) may not be entered nor passed through. A
  revealed Discovery territory holds at most two factions, which is the same test. Ecaz and its
  ally count as ONE faction for everybody else's count, and never count against each other.
- *Allies* may not end in the same territory, except the Polar Sink and except Ecaz with its ally
  (KISS Ecaz OCCUPY). Passing through a territory that holds the ally is allowed.
- Bene Gesserit *advisors* ignore all of the occupancy limits above (they "do not prevent anyone
  from moving in" and may sit with the ally: KISS only forbids *flipping* where allied forces are).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .board import POLAR_SINK, Board, slugify
from .errors import RuleViolation, hard
from .factions import FACTION_NAMES
from .position import Position


# rule ids (rules corpus)
R_STORM = "base-storm-movement"
R_OCCUPANCY = "base-occupancy"
R_ALLY = "base-alliance-occupancy"
R_ECAZ = "ecaz-occupy"
R_TOKEN = "discovery-token-territories"
R_BG_ADVISORS = "bg-advisors"
R_BOARD = "base-board"


def faction_name(faction: str) -> str:
    return FACTION_NAMES.get(faction, faction)


def join(items: Iterable[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def names(factions: Iterable[str]) -> str:
    """Display names of faction ids, joined: "Emperor and Harkonnen"."""
    return join(faction_name(f) for f in factions)


# ---------------------------------------------------------------- territories and pieces


def resolve_territory(board: Board, pos: Position, name: str) -> str:
    """Canonical name of a board territory or of a *revealed* Discovery territory.

    An unknown name is a bookkeeping impossibility, so the refusal is hard."""
    if isinstance(name, str) and name.strip():
        key = name.strip().lower()
        for token in pos.token_territories:
            if key == token.lower() or slugify(key) == slugify(token):
                return token
    try:
        return board.resolve(name)
    except RuleViolation as exc:
        raise hard(exc.message, exc.rule or R_BOARD) from None


def is_token(pos: Position, territory: str) -> bool:
    return territory in pos.token_territories


def token_host(pos: Position, territory: str) -> tuple[str, int]:
    host = pos.token_territories[territory]
    name, _, sector = host.rpartition("@")
    return name, int(sector)


def territory_sectors(board: Board, pos: Position, territory: str) -> tuple[int, ...]:
    if is_token(pos, territory):
        return (token_host(pos, territory)[1],)
    return board.territories[territory].sectors


def is_stronghold(board: Board, pos: Position, territory: str) -> bool:
    return (not is_token(pos, territory)) and board.territories[territory].is_stronghold


def resolve_piece_sector(board: Board, pos: Position, territory: str, sector: int | None) -> int | None:
    """Check or infer the sector of a piece (hard refusal when impossible).

    Polar Sink -> None; a one-sector territory may omit the sector."""
    if territory == POLAR_SINK:
        return None
    sectors = territory_sectors(board, pos, territory)
    if is_token(pos, territory):
        if sector is not None and sector not in sectors:
            raise hard(
                f"{territory} lies only in sector {sectors[0]}, not in sector {sector}.", R_BOARD
            )
        return sectors[0]
    try:
        return board.resolve_sector(territory, sector)
    except RuleViolation as exc:
        raise hard(exc.message, exc.rule or R_BOARD) from None


def node_id(territory: str, sector: int | None) -> str:
    return POLAR_SINK if territory == POLAR_SINK else f"{territory}@{sector}"


def node_parts(node: str) -> tuple[str, int | None]:
    if node == POLAR_SINK:
        return POLAR_SINK, None
    name, _, sector = node.rpartition("@")
    return name, int(sector)


def label(board: Board, pos: Position, territory: str, sector: int | None) -> str:
    """Player-facing name of a piece: "Imperial Basin (East, sector 8)"."""
    if territory == POLAR_SINK or is_token(pos, territory):
        return territory
    return board.territories[territory].label(sector)


# ---------------------------------------------------------------- storm


def in_storm(pos: Position, territory: str, sector: int | None) -> bool:
    """A piece is in storm when its sector is the storm sector. The Polar Sink never is."""
    return territory != POLAR_SINK and sector is not None and sector == pos.storm_sector


def open_sectors(board: Board, pos: Position, territory: str) -> tuple[int, ...]:
    """Sectors of ``territory`` not under the storm (empty tuple for the Polar Sink)."""
    if territory == POLAR_SINK:
        return ()
    return tuple(s for s in territory_sectors(board, pos, territory) if s != pos.storm_sector)


# ---------------------------------------------------------------- occupancy


def ecaz_pair(pos: Position, faction: str) -> str | None:
    """The faction that counts as the same faction as ``faction`` under Ecaz OCCUPY, if any."""
    ally = pos.ally_of(faction)
    if ally and (faction == "ecaz" or ally == "ecaz"):
        return ally
    return None


def other_occupants(pos: Position, faction: str, territory: str) -> list[str]:
    """Occupying sides other than ``faction`` in ``territory``, Ecaz + ally grouped as one.

    Returns display labels, e.g. ``["Ecaz+Atreides", "Harkonnen"]``."""
    present = pos.factions_in(territory) - {faction}
    partner = ecaz_pair(pos, faction)
    if partner:
        present.discard(partner)
    units: list[str] = []
    ecaz_ally = pos.ally_of("ecaz")
    if "ecaz" in present and ecaz_ally and ecaz_ally in present:
        present -= {"ecaz", ecaz_ally}
        units.append(f"Ecaz+{faction_name(ecaz_ally)}")
    units.extend(faction_name(f) for f in sorted(present))
    return sorted(units)


def limited(board: Board, pos: Position, territory: str) -> bool:
    """Does ``territory`` have the two-faction limit (stronghold or revealed Discovery territory)?"""
    if territory == POLAR_SINK:
        return False
    return is_token(pos, territory) or board.territories[territory].is_stronghold


def full_for(board: Board, pos: Position, faction: str, territory: str) -> list[str] | None:
    """The two (or more) other sides filling ``territory`` for ``faction``, or None if not full."""
    if not limited(board, pos, territory):
        return None
    others = other_occupants(pos, faction, territory)
    return others if len(others) >= 2 else None


def ally_conflict(pos: Position, faction: str, territory: str) -> str | None:
    """The ally whose forces forbid ``faction`` to end in ``territory``, if any."""
    if territory == POLAR_SINK:
        return None
    ally = pos.ally_of(faction)
    if not ally or ecaz_pair(pos, faction):
        return None
    return ally if ally in pos.factions_in(territory) else None


def check_destination_occupancy(
    board: Board,
    pos: Position,
    faction: str,
    territory: str,
    *,
    advisors_only: bool = False,
    verb: str = "enter",
) -> None:
    """Raise the occupancy refusal for ending in ``territory``, if any.

    ``verb`` is "enter" for movement, "ship into" for shipment."""
    who = faction_name(faction)
    if faction == "bg" and advisors_only:
        return  # advisors ignore occupancy limits and coexist with everyone
    full = full_for(board, pos, faction, territory)
    if full:
        holders = join(full)
        if is_token(pos, territory):
            raise RuleViolation(
                f"{territory} already holds {holders}: a revealed Discovery territory holds at most "
                f"two factions, so {who} cannot {verb} it.",
                R_TOKEN,
            )
        if faction == "bg":
            raise RuleViolation(
                f"{territory} already holds forces of two other factions ({holders}): "
                f"Bene Gesserit may {verb} it only as advisors.",
                R_BG_ADVISORS,
            )
        raise RuleViolation(
            f"{territory} already holds forces of two other factions ({holders}): "
            f"{who} cannot {verb} a full stronghold.",
            R_OCCUPANCY,
        )
    ally = ally_conflict(pos, faction, territory)
    if ally:
        raise RuleViolation(
            f"{who}'s ally {faction_name(ally)} already has forces in {territory}: allies may not end "
            f"in the same territory except the Polar Sink.",
            R_ALLY,
        )


def transit_blocked(board: Board, pos: Position, faction: str, *, advisors_only: bool = False) -> set[str]:
    """Territories ``faction`` may not pass through: full strongholds / Discovery territories."""
    if faction == "bg" and advisors_only:
        return set()
    names_ = [t for t in board.strongholds()] + list(pos.token_territories)
    return {t for t in names_ if full_for(board, pos, faction, t)}


# ---------------------------------------------------------------- the piece graph


@dataclass(frozen=True)
class Graph:
    adjacency: dict[str, tuple[str, ...]]
    territory_of: dict[str, str]
    sector_of: dict[str, int | None]


def piece_graph(board: Board, pos: Position) -> Graph:
    """Board pieces plus one node per revealed Discovery territory, linked to its host only."""
    adj: dict[str, list[str]] = {p: list(ns) for p, ns in board.piece_neighbours.items()}
    for token, host in pos.token_territories.items():
        if host not in adj:
            raise hard(f"The Discovery territory {token} sits on an unknown piece {host!r}.", R_TOKEN)
        _, sector = node_parts(host)
        node = node_id(token, sector)
        adj[node] = [host]
        adj[host].append(node)
    territory_of = {n: node_parts(n)[0] for n in adj}
    sector_of = {n: node_parts(n)[1] for n in adj}
    return Graph({n: tuple(ns) for n, ns in adj.items()}, territory_of, sector_of)
