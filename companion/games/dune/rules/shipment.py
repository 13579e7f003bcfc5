"""Shipment legality and cost. Pure; no Flask, no table state.

Readings chosen (the lead's report lists them as well):

- Cost: 1 spice per force into a stronghold or a revealed Discovery territory, 2 elsewhere
  (the Polar Sink included). The Guild, and any faction allied with the Guild, pays half,
  rounded up, on the whole shipment (3 forces into sand: ceil(6/2) = 3). A Karama lets any
  faction ship at that half rate and pay the bank. The spice goes to the Guild when the Guild is
  in the game and the shipper is not the Guild (and no Karama was used), else to the bank.
- Fremen ship their reserves free onto The Great Flat or any territory within two territories
  of it (the board's ``fremen_ship_range``), and nowhere else. **Exception:** a Fremen allied
  with the Guild may also ship normally outside that range at the Guild half rate, paid to the
  Guild (KISS Guild ALLIANCE: "Allies may ship from their off-planet reserves onto Dune ... at
  the Spacing Guild half-price rate"; DuneBot does the same). Inside the range it stays free.
  A Karama alone does *not* open normal shipment to the Fremen (it changes the rate, not who
  may ship). A zero-cost shipment is reported with payee "bank" (no spice moves).
- A revealed Discovery territory is in the Fremen range when it is within two territories of
  The Great Flat counting the step from its host piece, i.e. when its host territory is within
  one territory of The Great Flat.
- Atomics aftermath (Moritani Atomics terror token): no shipment of any kind into it, ever,
  not even Fremen, not a Guild cross-shipment, not a spiritual advisor.
- ``forces`` and ``starred`` are *separate* counts (regular and starred), checked against
  ``reserves`` and ``reserves_starred`` respectively; the cost is per force of either kind.
- Guild cross-shipment (any one territory to any other) is open to the Guild and its ally (KISS
  Guild ALLIANCE), costs what a normal shipment into the destination would at the half rate
  (never free, also for a Fremen ally), and is the faction's one shipment of the turn. Shipping
  back to reserves is the Guild's alone: 1 spice per 2 forces, rounded up, to the bank.
- Bene Gesserit advisors (``advisors_only=True``) ignore every occupancy limit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .board import POLAR_SINK, Board
from .errors import RuleViolation, Soft, hard
from .occupancy import (
    R_STORM,
    check_destination_occupancy,
    faction_name,
    in_storm,
    is_stronghold,
    is_token,
    label,
    open_sectors,
    resolve_piece_sector,
    resolve_territory,
    token_host,
)
from .position import Position

R_SHIPMENT = "base-shipment"
R_COST = "base-shipment-cost"
R_FREMEN_SHIPMENT = "fremen-shipment"
R_GUILD_TYPES = "guild-shipment-types"
R_GUILD_HALF = "guild-half-price"
R_GUILD_ALLIANCE = "guild-alliance"
R_SPIRITUAL = "bg-spiritual-advisors"
R_ATOMICS = "moritani-terror-tokens"  # the Atomics terror token leaves the Atomics aftermath

GREAT_FLAT = "The Great Flat"


@dataclass(frozen=True)
class ShipCost:
    amount: int
    payee: str  # "guild" | "bank"


@dataclass(frozen=True)
class ShipOption:
    """One legal shipment destination: the cost and the sectors it may land in."""

    amount: int
    payee: str
    sectors: tuple[int, ...]  # empty for the Polar Sink


# ---------------------------------------------------------------- small helpers


def _forces(n: int) -> str:
    return f"{n} force" if n == 1 else f"{n} forces"


def in_fremen_range(board: Board, pos: Position, territory: str) -> bool:
    if is_token(pos, territory):
        host, _ = token_host(pos, territory)
        return board.territory_distance(host, GREAT_FLAT) <= 1
    return board.territories[territory].fremen_ship_range


def _ally(pos: Position, faction: str, ally: str | None) -> str | None:
    return ally if ally is not None else pos.ally_of(faction)


def _per_force(board: Board, pos: Position, territory: str) -> int:
    return 1 if is_token(pos, territory) or is_stronghold(board, pos, territory) else 2


def _counts(forces: int, starred: int) -> int:
    if forces < 0 or starred < 0:
        raise hard("Force counts cannot be negative.", R_SHIPMENT)
    total = forces + starred
    if total == 0:
        raise hard("A shipment must carry at least one force.", R_SHIPMENT)
    return total


def _check_once(faction: str, shipped_this_turn: bool) -> None:
    if shipped_this_turn:
        raise RuleViolation(
            f"{faction_name(faction)} has already shipped this turn: each faction makes one shipment "
            f"per turn.",
            R_GUILD_TYPES if faction == "guild" else R_SHIPMENT,
        )


def _check_aftermath(pos: Position, territory: str) -> None:
    if pos.atomics_aftermath and territory == pos.atomics_aftermath:
        raise RuleViolation(
            f"The Atomics aftermath lies in {territory}: no forces may ever be shipped into it, "
            f"not even Fremen.",
            R_ATOMICS,
        )


def _check_spice(faction: str, cost: ShipCost, spice: int, what: str) -> None:
    if cost.amount > spice:
        raise hard(
            f"{what} costs {cost.amount} spice but {faction_name(faction)} has only {spice} spice "
            f"behind the shield.",
            R_COST,
        )


def _check_held(faction: str, place: str, forces: int, starred: int, held: int, held_starred: int,
                rule: str) -> None:
    who = faction_name(faction)
    if forces > held:
        raise hard(f"{who} has only {_forces(held)} {place}, not {forces}.", rule)
    if starred > held_starred:
        kind = "starred force" if held_starred == 1 else "starred forces"
        raise hard(f"{who} has only {held_starred} {kind} {place}, not {starred}.", rule)


# ---------------------------------------------------------------- cost


def shipment_cost(
    board: Board,
    pos: Position,
    faction: str,
    territory: str,
    forces: int,
    *,
    guild_in_game: bool,
    ally: str | None = None,
    karama_guild_rate: bool = False,
) -> ShipCost:
    """Cost and payee of shipping ``forces`` (total) from reserves into ``territory``.

    Raises RuleViolation (fremen-shipment) for a Fremen shipment outside the Fremen range when
    the Fremen are not allied with the Guild: such a shipment has no price."""
    t = resolve_territory(board, pos, territory)
    if forces < 0:
        raise hard("Force counts cannot be negative.", R_SHIPMENT)
    ally = _ally(pos, faction, ally)
    guild_ally = ally == "guild"
    if faction == "fremen":
        if in_fremen_range(board, pos, t):
            return ShipCost(0, "bank")
        if not guild_ally:
            raise RuleViolation(
                f"{t} is more than two territories from The Great Flat: the Fremen ship only there "
                f"or within two territories of it.",
                R_FREMEN_SHIPMENT,
            )
    full = forces * _per_force(board, pos, t)
    half = faction == "guild" or guild_ally or karama_guild_rate
    amount = math.ceil(full / 2) if half else full
    payee = "guild" if guild_in_game and faction != "guild" and not karama_guild_rate else "bank"
    return ShipCost(amount, payee)


# ---------------------------------------------------------------- normal shipment


def check_ship(
    board: Board,
    pos: Position,
    faction: str,
    territory: str,
    sector: int | None,
    forces: int,
    starred: int,
    *,
    reserves: int,
    reserves_starred: int,
    spice: int,
    guild_in_game: bool,
    ally: str | None = None,
    shipped_this_turn: bool,
    karama_guild_rate: bool = False,
    advisors_only: bool = False,
) -> ShipCost:
    """Check a shipment from off-planet reserves and return its cost, or raise.

    Order: names and sector (hard), force counts and reserves (hard), one shipment per turn,
    Atomics aftermath, Fremen range, storm, occupancy, spice (hard)."""
    t = resolve_territory(board, pos, territory)
    s = resolve_piece_sector(board, pos, t, sector)
    total = _counts(forces, starred)
    _check_held(faction, "in reserve", forces, starred, reserves, reserves_starred, R_SHIPMENT)
    soft = Soft()  # every overridable rule broken is named, not only the first
    soft(_check_once, faction, shipped_this_turn)
    soft(_check_aftermath, pos, t)
    cost = soft(shipment_cost, board, pos, faction, t, total, guild_in_game=guild_in_game, ally=ally,
                karama_guild_rate=karama_guild_rate)
    soft(_check_storm, board, pos, t, s)
    soft(check_destination_occupancy, board, pos, faction, t, advisors_only=advisors_only, verb="ship into")
    if cost is not None:
        _check_spice(faction, cost, spice, f"Shipping {_forces(total)} into {t}")
    soft.done()
    return cost


def _check_storm(board: Board, pos: Position, t: str, s: int | None) -> None:
    if in_storm(pos, t, s):
        raise RuleViolation(
            f"The storm is over sector {pos.storm_sector}: no forces can be shipped into "
            f"{label(board, pos, t, s)} this turn.",
            R_STORM,
        )


def ship_destinations(
    board: Board,
    pos: Position,
    faction: str,
    *,
    forces: int = 1,
    guild_in_game: bool,
    ally: str | None = None,
    karama_guild_rate: bool = False,
    spice: int | None = None,
    advisors_only: bool = False,
    shipped_this_turn: bool = False,
) -> dict[str, ShipOption]:
    """Every territory ``forces`` forces from reserves may legally be shipped into, with cost
    and open sectors ("where can I go?"). With ``spice`` given, unaffordable ones are left out.
    Each entry is accepted by ``check_ship`` for each of its sectors."""
    if shipped_this_turn or forces < 1:
        return {}
    out: dict[str, ShipOption] = {}
    for t in list(board.territories) + list(pos.token_territories):
        sectors: list[int | None] = [None] if t == POLAR_SINK else list(open_sectors(board, pos, t))
        ok: list[int] = []
        cost: ShipCost | None = None
        for s in sectors:
            try:
                cost = check_ship(
                    board, pos, faction, t, s, forces, 0,
                    reserves=forces, reserves_starred=0,
                    spice=spice if spice is not None else 10**9,
                    guild_in_game=guild_in_game, ally=ally, shipped_this_turn=False,
                    karama_guild_rate=karama_guild_rate, advisors_only=advisors_only,
                )
            except RuleViolation:
                continue
            if s is not None:
                ok.append(s)
        if cost is not None and (ok or t == POLAR_SINK):
            out[t] = ShipOption(cost.amount, cost.payee, tuple(sorted(ok)))
    return out


# ---------------------------------------------------------------- Guild's other shipment kinds


def check_cross_ship(
    board: Board,
    pos: Position,
    faction: str,
    from_territory: str,
    from_sector: int | None,
    to_territory: str,
    to_sector: int | None,
    forces: int,
    starred: int = 0,
    *,
    present: int,
    present_starred: int = 0,
    spice: int,
    guild_in_game: bool = True,
    ally: str | None = None,
    shipped_this_turn: bool,
    advisors_only: bool = False,
) -> ShipCost:
    """Guild (or Guild ally) shipment of forces already on Dune from one territory to any other.

    ``present``/``present_starred``: the faction's forces on the origin piece. Cost: a normal
    shipment into the destination at the half rate; the Guild pays the bank, its ally the Guild."""
    who = faction_name(faction)
    ally = _ally(pos, faction, ally)
    if faction != "guild" and ally != "guild":
        raise RuleViolation(
            f"{who} is not the Spacing Guild nor its ally: only they may ship forces from one "
            f"territory to another.",
            R_GUILD_TYPES,
        )
    src = resolve_territory(board, pos, from_territory)
    ss = resolve_piece_sector(board, pos, src, from_sector)
    dst = resolve_territory(board, pos, to_territory)
    ds = resolve_piece_sector(board, pos, dst, to_sector)
    total = _counts(forces, starred)
    _check_held(faction, f"in {label(board, pos, src, ss)}", forces, starred, present,
                present_starred, R_GUILD_TYPES)
    if src == dst:
        raise RuleViolation(
            f"A cross-shipment must go to another territory, not back into {src}: move within "
            f"{src} instead.",
            R_GUILD_TYPES,
        )
    _check_once(faction, shipped_this_turn)
    _check_aftermath(pos, dst)
    if in_storm(pos, src, ss):
        raise RuleViolation(
            f"The storm is over sector {pos.storm_sector}: no forces can be shipped out of "
            f"{label(board, pos, src, ss)} this turn.",
            R_STORM,
        )
    if in_storm(pos, dst, ds):
        raise RuleViolation(
            f"The storm is over sector {pos.storm_sector}: no forces can be shipped into "
            f"{label(board, pos, dst, ds)} this turn.",
            R_STORM,
        )
    check_destination_occupancy(board, pos, faction, dst, advisors_only=advisors_only, verb="ship into")
    amount = math.ceil(total * _per_force(board, pos, dst) / 2)
    payee = "guild" if faction != "guild" and guild_in_game else "bank"
    cost = ShipCost(amount, payee)
    _check_spice(faction, cost, spice, f"Cross-shipping {_forces(total)} into {dst}")
    return cost


def check_ship_to_reserves(
    board: Board,
    pos: Position,
    faction: str,
    from_territory: str,
    from_sector: int | None,
    forces: int,
    starred: int = 0,
    *,
    present: int,
    present_starred: int = 0,
    spice: int,
    shipped_this_turn: bool,
) -> ShipCost:
    """Guild only: ship forces from a territory back to reserves, 1 spice per 2 forces (rounded
    up), paid to the bank."""
    if faction != "guild":
        raise RuleViolation(
            f"{faction_name(faction)} cannot ship forces back to reserves: only the Spacing Guild "
            f"may.",
            R_GUILD_TYPES,
        )
    src = resolve_territory(board, pos, from_territory)
    ss = resolve_piece_sector(board, pos, src, from_sector)
    total = _counts(forces, starred)
    _check_held(faction, f"in {label(board, pos, src, ss)}", forces, starred, present,
                present_starred, R_GUILD_TYPES)
    _check_once(faction, shipped_this_turn)
    if in_storm(pos, src, ss):
        raise RuleViolation(
            f"The storm is over sector {pos.storm_sector}: no forces can be shipped out of "
            f"{label(board, pos, src, ss)} this turn.",
            R_STORM,
        )
    cost = ShipCost(math.ceil(total / 2), "bank")
    _check_spice(faction, cost, spice, f"Shipping {_forces(total)} back to reserves")
    return cost


# ---------------------------------------------------------------- Bene Gesserit spiritual advisor


def check_spiritual_advisor(
    board: Board,
    pos: Position,
    shipped_territory: str,
    to_territory: str,
    to_sector: int | None = None,
    *,
    shipper: str | None = None,
    bg_reserves: int | None = None,
) -> tuple[str, int | None]:
    """One free Bene Gesserit advisor from reserves when another faction ships from off-planet:
    into the territory that faction shipped into (only if the Bene Gesserit have no fighters
    there) or into the Polar Sink. Advisors ignore occupancy. Returns (territory, sector)."""
    shipped = resolve_territory(board, pos, shipped_territory)
    t = resolve_territory(board, pos, to_territory)
    if shipper == "bg":
        raise RuleViolation(
            "A spiritual advisor follows another faction's shipment, not a Bene Gesserit one.",
            R_SPIRITUAL,
        )
    if bg_reserves is not None and bg_reserves < 1:
        raise hard("The Bene Gesserit have no forces in reserve to send as a spiritual advisor.",
                   R_SPIRITUAL)
    if t not in (shipped, POLAR_SINK):
        raise RuleViolation(
            f"A spiritual advisor may go only into {shipped}, where the shipment landed, or into "
            f"the Polar Sink, not into {t}.",
            R_SPIRITUAL,
        )
    _check_aftermath(pos, t)
    s = resolve_piece_sector(board, pos, t, to_sector)
    if t != POLAR_SINK and pos.occupants.get(t, {}).get("bg", 0) > 0:
        raise RuleViolation(
            f"The Bene Gesserit have fighters in {t}: a spiritual advisor may join that shipment only "
            f"once those fighters flip to advisors; otherwise send it to the Polar Sink.",
            R_SPIRITUAL,
        )
    if in_storm(pos, t, s):
        raise RuleViolation(
            f"The storm is over sector {pos.storm_sector}: no advisor can be shipped into "
            f"{label(board, pos, t, s)} this turn.",
            R_STORM,
        )
    return t, s


__all__ = [
    "ShipCost",
    "ShipOption",
    "shipment_cost",
    "check_ship",
    "ship_destinations",
    "check_cross_ship",
    "check_ship_to_reserves",
    "check_spiritual_advisor",
    "in_fremen_range",
]
