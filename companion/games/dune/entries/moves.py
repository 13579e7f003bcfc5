"""Forces on the board: shipment and movement entries, checked by the pure rules in
rules/shipment.py and rules/movement.py against a Position snapshot of the table; the Bene
Gesserit flip; whose turn it is in Shipment & Movement (``turn.done``, and the storm-order check
around every shipment and move); the corrections that place or remove forces outside those rules
(``forces.place``, ``forces.remove``); and "where can I go?"."""
from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from ..rules import bg, karama, movement, phase_steps, shipment
from ..rules.board import POLAR_SINK, Board, piece_id
from ..rules.errors import RuleViolation, hard
from ..rules.position import Position
from ..state import occupants, place_forces, position_of, remove_forces, shift_forces, stack, territory_forces
from . import Ctx, FactionId, Payload, action
from .bookkeeping import (
    _wrap, add_spice, current_order, discard_card, name, play_karama, present, resolve_piece, resolve_place,
)


Count = Field(default=0, ge=0, le=20)
ORNITHOPTER_TERRITORIES = ("Arrakeen", "Carthag")


def position(state: dict) -> Position:
    return position_of(state)


def has_ornithopters(state: dict, f: str) -> bool:
    occ = occupants(state)
    return any(occ.get(t, {}).get(f, 0) > 0 for t in ORNITHOPTER_TERRITORIES)


def _in_phase(ctx: Ctx, state: dict, what: str) -> None:
    ctx.check(state["phase"] == "shipment_movement",
              f"{what} happens in the Shipment & Movement phase, not in {state['phase'].replace('_', ' ')}.",
              "base-shipment")


def _pay(state: dict, payer: str, amount: int, payee: str) -> None:
    if amount <= 0:
        return
    add_spice(state, payer, -amount)
    if payee == "guild" and "guild" in state["factions_present"] and payer != "guild":
        add_spice(state, "guild", amount)


def _fallback_cost(board: Board, territory: str, total: int) -> int:
    """The plain price when an override waived the pricing rule itself."""
    t = board.territory(territory)
    return total * (1 if t.is_stronghold else 2)


def _note_entry(state: dict, pos: Position, f: str, territory: str, from_off_planet: bool) -> None:
    """Remember where the BG may choose their side again after another faction's entry (rules/bg.py)."""
    if bg.may_choose_after_entry(pos, f, territory, from_off_planet):
        state["bg_choice"] = {"turn": state["turn"], "territory": territory, "by": f}
    else:
        state.pop("bg_choice", None)


def _bg_side(ctx: Ctx, pos: Position, territory: str, fighters: int, advisors: int) -> tuple[int, int]:
    """The side BG forces entering ``territory`` take (the one already there; advisors into a full
    stronghold). A two-sided entry into a new territory is an overridable refusal."""
    side = ctx.rules(bg.entering_side, ctx.board, pos, territory, fighters, advisors)
    return (side[0], side[1]) if side else (fighters, advisors)


# -- shipment ----------------------------------------------------------------------------------

class Ship(Payload):
    type: Literal["ship"]
    faction: FactionId
    to: str
    sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Count
    starred: int = Count
    advisors: int = Count
    karama: bool = False  # a Karama: ship at the Guild rate and pay the bank


def _ship_summary(p) -> str:
    n = p.forces + p.starred + p.advisors
    return f"{name(p.faction)} ships {n} force{'s' if n != 1 else ''} to {p.to}" + (" (Karama)" if p.karama else "")


@action("ship", Ship,
        public=("faction", "to", "sector", "forces", "starred", "advisors", "karama"), summary=_ship_summary)
def ship(ctx: Ctx, state: dict, p: Ship) -> None:
    f = present(state, p.faction)
    if p.advisors and f != "bg":
        raise hard("Only the Bene Gesserit ship advisors.", "bg-advisors")
    total = p.forces + p.starred + p.advisors
    if total < 1:
        raise hard("Ship at least one force.", "base-shipment")
    territory, sector = resolve_place(ctx, state, p.to, p.sector)
    _in_phase(ctx, state, "Shipping")
    pos = position(state)
    reserves = state["factions"][f]["reserves"]
    if reserves["forces"] < p.forces + p.advisors or reserves["starred"] < p.starred:
        raise hard(f"{name(f)} has only {reserves['forces']} forces"
                   f"{' and ' + str(reserves['starred']) + ' starred' if reserves['starred'] else ''} in reserve.",
                   "base-shipment")
    if p.karama:  # the same rules /api/karama lists: never against one's own advantage
        ctx.rules(karama.check_karama_use, f, "guild-ship-pay-bank", state["factions_present"],
                  ally=state["alliances"].get(f), what="ship at the Guild rate paid to the bank")
    fighters, advisors = p.forces, p.advisors
    if f == "bg":  # forces entering where BG stand take that side (rules/bg.py)
        fighters, advisors = _bg_side(ctx, pos, territory, fighters, advisors)
    spice = state["private"][f]["spice"]
    cost = ctx.rules(shipment.check_ship, ctx.board, pos, f, territory, sector, p.forces + p.advisors, p.starred,
                     reserves=reserves["forces"], reserves_starred=reserves["starred"], spice=spice,
                     guild_in_game="guild" in state["factions_present"], ally=state["alliances"].get(f),
                     shipped_this_turn=state["turn_flags"][f]["shipped"], karama_guild_rate=p.karama,
                     advisors_only=bool(advisors) and not fighters)
    if cost is None:  # overridden: price it as plainly as the rules allow
        try:
            cost = shipment.shipment_cost(ctx.board, pos, f, territory, total,
                                          guild_in_game="guild" in state["factions_present"],
                                          ally=state["alliances"].get(f), karama_guild_rate=p.karama)
        except RuleViolation:
            cost = shipment.ShipCost(_fallback_cost(ctx.board, territory, total),
                                     "guild" if "guild" in state["factions_present"] and f != "guild" else "bank")
    if cost.amount > spice:
        raise hard(f"{name(f)} has {spice} spice behind the shield; this shipment costs {cost.amount}.",
                   "base-shipment-cost")
    _pay(state, f, cost.amount, cost.payee)
    place_forces(state, f, piece_id(territory, sector), fighters, p.starred, advisors, "reserves")
    _note_entry(state, pos, f, territory, from_off_planet=True)
    if p.karama:  # the Karama card played goes face up to the discard pile (bookkeeping.play_karama)
        play_karama(ctx, state, f)
    state["turn_flags"][f]["shipped"] = True
    state["last_shipment"] = {"faction": f, "territory": territory, "cost": cost.amount, "payee": cost.payee}


class CrossShip(Payload):
    type: Literal["ship.cross"]
    faction: FactionId
    from_: str = Field(alias="from")
    from_sector: int | None = Field(default=None, ge=1, le=18)
    to: str
    sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Count
    starred: int = Count


@action("ship.cross", CrossShip, public=("faction", "from", "from_sector", "to", "sector", "forces", "starred"),
        summary=lambda p: f"{name(p.faction)} ships {p.forces + p.starred} from {p.from_} to {p.to} (Guild cross-ship)")
def ship_cross(ctx: Ctx, state: dict, p: CrossShip) -> None:
    f = present(state, p.faction)
    src_t, src_s = resolve_place(ctx, state, p.from_, p.from_sector)
    dst_t, dst_s = resolve_place(ctx, state, p.to, p.sector)
    _in_phase(ctx, state, "Shipping")
    src = piece_id(src_t, src_s)
    held = stack(state, src, f)
    spice = state["private"][f]["spice"]
    cost = ctx.rules(shipment.check_cross_ship, ctx.board, position(state), f, src_t, src_s, dst_t, dst_s,
                     p.forces, p.starred, present=held["forces"], present_starred=held["starred"], spice=spice,
                     guild_in_game="guild" in state["factions_present"], ally=state["alliances"].get(f),
                     shipped_this_turn=state["turn_flags"][f]["shipped"])
    amount = cost.amount if cost else math.ceil(_fallback_cost(ctx.board, dst_t, p.forces + p.starred) / 2)
    payee = cost.payee if cost else ("bank" if f == "guild" else "guild")
    if amount > spice:
        raise hard(f"{name(f)} has {spice} spice behind the shield; this shipment costs {amount}.",
                   "guild-half-price")
    pos = position(state)
    _pay(state, f, amount, payee)
    shift_forces(state, f, src, piece_id(dst_t, dst_s), p.forces, p.starred)
    if f == "bg" and dst_t != src_t:  # BG fighters cross-shipped onto BG advisors become advisors
        fighters, advisors = _bg_side(ctx, pos, dst_t, p.forces, 0)
        if advisors:
            d = state["board"]["forces"][piece_id(dst_t, dst_s)]["bg"]
            d["forces"] -= advisors
            d["advisors"] += advisors
    _note_entry(state, pos, f, dst_t, from_off_planet=False)
    state["turn_flags"][f]["shipped"] = True


class ShipBack(Payload):
    type: Literal["ship.reserves"]
    faction: FactionId
    from_: str = Field(alias="from")
    from_sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Count
    starred: int = Count


@action("ship.reserves", ShipBack, public=("faction", "from", "from_sector", "forces", "starred"),
        summary=lambda p: f"{name(p.faction)} ships {p.forces + p.starred} from {p.from_} back to reserves")
def ship_reserves(ctx: Ctx, state: dict, p: ShipBack) -> None:
    f = present(state, p.faction)
    src_t, src_s = resolve_place(ctx, state, p.from_, p.from_sector)
    _in_phase(ctx, state, "Shipping")
    src = piece_id(src_t, src_s)
    held = stack(state, src, f)
    spice = state["private"][f]["spice"]
    cost = ctx.rules(shipment.check_ship_to_reserves, ctx.board, position(state), f, src_t, src_s,
                     p.forces, p.starred, present=held["forces"], present_starred=held["starred"], spice=spice,
                     shipped_this_turn=state["turn_flags"][f]["shipped"])
    amount = cost.amount if cost else math.ceil((p.forces + p.starred) / 2)
    if amount > spice:
        raise hard(f"{name(f)} has {spice} spice behind the shield; this costs {amount}.", "guild-half-price")
    _pay(state, f, amount, "bank")
    from ..state import remove_forces
    remove_forces(state, f, src, p.forces, p.starred, 0, "reserves")
    state["turn_flags"][f]["shipped"] = True


class SpiritualAdvisor(Payload):
    type: Literal["ship.advisor"]
    faction: Literal["bg"] = "bg"
    to: str
    sector: int | None = Field(default=None, ge=1, le=18)


@action("ship.advisor", SpiritualAdvisor,
        public=("faction", "to", "sector"), summary=lambda p: f"Bene Gesserit send a spiritual advisor to {p.to}")
def ship_advisor(ctx: Ctx, state: dict, p: SpiritualAdvisor) -> None:
    present(state, "bg")
    last = state.get("last_shipment")
    ctx.check(bool(last) and last["faction"] != "bg",
              "A spiritual advisor follows another faction's shipment from off-planet; none was just made.",
              "bg-spiritual-advisors")
    shipped = last["territory"] if last else POLAR_SINK
    result = ctx.rules(shipment.check_spiritual_advisor, ctx.board, position(state), shipped, p.to, p.sector,
                       shipper=last["faction"] if last else None,
                       bg_reserves=state["factions"]["bg"]["reserves"]["forces"])
    if result:
        territory, sector = result
    else:
        territory, sector = resolve_place(ctx, state, p.to, p.sector)
    # an advisor sent onto BG fighters (the Polar Sink) becomes a fighter: no mixed stack
    fighters, advisors = _bg_side(ctx, position(state), territory, 0, 1)
    place_forces(state, "bg", piece_id(territory, sector), fighters, 0, advisors, "reserves")
    state["last_shipment"] = None


# -- Bene Gesserit flip ------------------------------------------------------------------------

class ForcesFlip(Payload):
    type: Literal["forces.flip"]
    faction: Literal["bg"] = "bg"
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    to: Literal["advisors", "fighters"]


@action("forces.flip", ForcesFlip,
        public=("faction", "territory", "sector", "to"),
        summary=lambda p: f"Bene Gesserit flip to {p.to} in {p.territory}")
def forces_flip(ctx: Ctx, state: dict, p: ForcesFlip) -> None:
    present(state, "bg")
    territory = ctx.board.resolve(p.territory)
    pieces = ctx.board.territory(territory).pieces()
    have = territory_forces(state, territory).get("bg")
    if not have or not (have["forces"] + have["advisors"]):
        raise hard(f"The Bene Gesserit have no forces in {territory}.", "bg-advisors")
    flags = state["turn_flags"].values()
    started = any(x.get("shipped") or x.get("moved") for x in flags) or bool(state.get("last_shipment"))
    choice = state.get("bg_choice") or {}
    chosen = choice.get("territory") if choice.get("turn") == state["turn"] else None
    bg_sectors = tuple(int(pc.rpartition("@")[2]) for pc in pieces
                       if "@" in pc and "bg" in state["board"]["forces"].get(pc, {}))
    ctx.rules(bg.check_flip, ctx.board, position(state), territory, p.to, phase=state["phase"], started=started,
              chosen_territory=chosen, bg_sectors=bg_sectors)
    for piece in pieces:
        s = state["board"]["forces"].get(piece, {}).get("bg")
        if not s:
            continue
        if p.to == "fighters":
            s["forces"] += s["advisors"]
            s["advisors"] = 0
        else:
            s["advisors"] += s["forces"]
            s["forces"] = 0


# -- movement ----------------------------------------------------------------------------------

class Move(Payload):
    type: Literal["move"]
    faction: FactionId
    from_: str = Field(alias="from")
    from_sector: int | None = Field(default=None, ge=1, le=18)
    to: str
    to_sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Count
    starred: int = Count
    advisors: int = Count
    ornithopter_token: bool = False
    hajr: bool = False  # a Hajr card: an extra move this turn (the card goes to the discard pile)


def _move_summary(p) -> str:
    n = p.forces + p.starred + p.advisors
    return f"{name(p.faction)} moves {n} from {p.from_} to {p.to}"


def allowance_for(state: dict, f: str, use_token: bool = False) -> int:
    return movement.movement_allowance(f, ornithopters=has_ornithopters(state, f), ornithopter_token=use_token)


@action("move", Move,
        public=("faction", "from", "from_sector", "to", "to_sector", "forces", "starred", "advisors",
                "ornithopter_token", "hajr"),
        summary=_move_summary)
def move(ctx: Ctx, state: dict, p: Move) -> None:
    f = present(state, p.faction)
    if p.advisors and f != "bg":
        raise hard("Only the Bene Gesserit have advisors.", "bg-advisors")
    if p.forces + p.starred + p.advisors < 1:
        raise hard("Move at least one force.", "base-movement")
    src_t, src_s = resolve_place(ctx, state, p.from_, p.from_sector)
    dst_t, dst_s = resolve_place(ctx, state, p.to, p.to_sector)
    _in_phase(ctx, state, "Movement")
    moved_before = state["turn_flags"][f]["moved"]
    if p.hajr:  # the extra move a Hajr gives (before or after the turn's own): the card goes face up
        discard_card(ctx, state, f, "Hajr", "base-movement", strict=False)
    else:
        ctx.check(not state["turn_flags"][f]["moved"], f"{name(f)} has already moved a group this turn.",
                  "base-movement")
    if p.ornithopter_token:
        if not state["factions"][f].get("ornithopter_token"):
            raise hard(f"{name(f)} does not hold the Ornithopter Discovery token.", "discovery-ornithopter")
        state["factions"][f]["ornithopter_token"] = False
    allowance = allowance_for(state, f, p.ornithopter_token)
    pos = position(state)
    fighters, advisors = p.forces, p.advisors
    if f == "bg" and dst_t != src_t:  # forces entering where BG stand take that side (rules/bg.py)
        fighters, advisors = _bg_side(ctx, pos, dst_t, p.forces, p.advisors)
    ctx.rules(movement.check_move, ctx.board, pos, f, src_t, src_s, dst_t, dst_s, allowance,
              advisors_only=bool(advisors) and not (fighters or p.starred))
    shift_forces(state, f, piece_id(src_t, src_s), piece_id(dst_t, dst_s), p.forces, p.starred, p.advisors)
    if (fighters, advisors) != (p.forces, p.advisors):
        d = state["board"]["forces"][piece_id(dst_t, dst_s)]["bg"]
        d["forces"] += fighters - p.forces
        d["advisors"] += advisors - p.advisors
    if dst_t != src_t:
        _note_entry(state, pos, f, dst_t, from_off_planet=False)
    state["turn_flags"][f]["moved"] = moved_before if p.hajr else True


# -- forces (corrections: these bypass movement rules) ----------------------------------------

class _Stack(Payload):
    """Some of one faction's forces on one piece of the board."""
    faction: FactionId
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Count
    starred: int = Count
    advisors: int = Count


class ForcesPlace(_Stack):
    type: Literal["forces.place"]
    from_: Literal["reserves", "tanks"] = Field(default="reserves", alias="from")


class ForcesRemove(_Stack):
    type: Literal["forces.remove"]
    to: Literal["reserves", "tanks"] = "tanks"


def _stack_piece(ctx: Ctx, state: dict, p: _Stack, verb: str) -> str:
    present(state, p.faction)
    piece = resolve_piece(ctx, p.territory, p.sector, state)
    if p.forces + p.starred + p.advisors == 0:
        raise hard(f"{verb} at least one force.")
    return piece


def _forces_text(p) -> str:
    bits = [f"{p.forces}"]
    if p.starred:
        bits.append(f"{p.starred}*")
    if getattr(p, "advisors", 0):
        bits.append(f"{p.advisors} advisors")
    return " + ".join(bits)


@action("forces.place", ForcesPlace,
        public=("faction", "territory", "sector", "forces", "starred", "advisors", "from"),
        summary=lambda p: f"{name(p.faction)} places {_forces_text(p)} in {p.territory} from {p.from_}")
def forces_place(ctx: Ctx, state: dict, p: ForcesPlace) -> None:
    piece = _stack_piece(ctx, state, p, "Place")
    place_forces(state, p.faction, piece, p.forces, p.starred, p.advisors, p.from_)


@action("forces.remove", ForcesRemove,
        public=("faction", "territory", "sector", "forces", "starred", "advisors", "to"),
        summary=lambda p: f"{name(p.faction)} removes {_forces_text(p)} from {p.territory} to {p.to}")
def forces_remove(ctx: Ctx, state: dict, p: ForcesRemove) -> None:
    piece = _stack_piece(ctx, state, p, "Remove")
    remove_forces(state, p.faction, piece, p.forces, p.starred, p.advisors, p.to)


# -- whose turn it is: storm order, the Guild when it wishes ---------------------------------------

def shipment_turn(state: dict) -> phase_steps.ShipmentTurn:
    flags = state["turn_flags"]
    done = state.get("shipment_done") or {}
    passed = done.get("factions", []) if done.get("turn") == state["turn"] else []
    return phase_steps.shipment_turn(current_order(state), [f for f, x in flags.items() if x["shipped"]],
                                     [f for f, x in flags.items() if x["moved"]], passed)


class TurnDone(Payload):
    type: Literal["turn.done"]
    faction: FactionId


@action("turn.done", TurnDone, public=("faction",),
        summary=lambda p: f"{name(p.faction)} {'is' if p.faction == 'guild' else 'are'} done shipping and moving")
def turn_done(ctx: Ctx, state: dict, p: TurnDone) -> None:
    f = present(state, p.faction)
    ctx.check(state["phase"] == "shipment_movement",
              "A faction says it is done with its shipment and move in the Shipment & Movement phase.",
              "base-shipment")
    ctx.rules(phase_steps.check_shipment_turn, f, shipment_turn(state), "done")
    done = state.get("shipment_done") or {}
    if done.get("turn") != state["turn"]:
        done = {"turn": state["turn"], "factions": []}
    if f not in done["factions"]:
        done["factions"].append(f)
    state["shipment_done"] = done


def _order_before(ctx: Ctx, state: dict, p):
    if state["phase"] == "shipment_movement" and p.faction in state["factions_present"]:
        return shipment_turn(state)
    return None


def _in_storm_order(kind: str):
    """Shipment & Movement goes in storm order, the Guild when it wishes. Checked on the turn as
    it stood before the entry, once the shipment and movement rules above accepted it, so a
    refusal says first what is wrong with the entry itself. A refusal discards the entry."""
    def check(ctx: Ctx, state: dict, p, turn) -> None:
        if turn is not None:
            ctx.rules(phase_steps.check_shipment_turn, p.faction, turn, kind)
    return check


for _type, _kind in (("ship", "ship"), ("ship.cross", "ship"), ("ship.reserves", "ship"), ("move", "move")):
    _wrap(_type, before=_order_before, after=_in_storm_order(_kind))


# -- "where can I go?" -------------------------------------------------------------------------

def where_can_i_go(state: dict, board: Board, f: str, territory: str | None, sector: int | None) -> dict:
    """Legal moves for the stack at territory/sector, and legal shipments from reserves with cost."""
    pos = position(state)
    out: dict = {"faction": f, "move": None, "ship": None}
    guild = "guild" in state["factions_present"]
    ally = state["alliances"].get(f)
    if territory:
        t = board.resolve(territory)
        s = board.resolve_sector(t, sector)
        held = stack(state, piece_id(t, s), f)
        allowance = allowance_for(state, f)
        reach = movement.reachable(board, pos, f, t, s, allowance,
                                   advisors_only=bool(held["advisors"]) and not (held["forces"] or held["starred"]))
        out["move"] = {
            "from": t, "from_sector": s, "allowance": allowance, "already_moved": state["turn_flags"][f]["moved"],
            "destinations": [{"territory": r.territory, "sectors": list(r.sectors), "hops": r.hops,
                              "path": list(r.path)} for r in reach.values()],
        }
    reserves = state["factions"][f]["reserves"]
    if reserves["forces"] + reserves["starred"] > 0:
        options = shipment.ship_destinations(board, pos, f, forces=1, guild_in_game=guild, ally=ally,
                                             shipped_this_turn=state["turn_flags"][f]["shipped"])
        out["ship"] = {
            "already_shipped": state["turn_flags"][f]["shipped"],
            "destinations": [{"territory": t, "sectors": list(o.sectors), "cost_one_force": o.amount,
                              "payee": o.payee} for t, o in sorted(options.items())],
        }
    return out


__all__ = ["position", "allowance_for", "shipment_turn", "where_can_i_go"]
