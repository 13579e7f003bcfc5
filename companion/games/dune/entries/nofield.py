"""Richese's No-Field tokens (the CHOAM & Richese add-on): shipped face down, for Richese or for its
ally, moved, and revealed by choice, with the battle plans, or by a storm or a worm.

A face-down No-Field's number lives only under ``state["private"]["richese"]``; the public state
carries the marker. It counts as one Richese force: the battle, storm and worm entries are wrapped
here so that they see it."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import richese, shipment
from ..rules.board import piece_id, split_piece
from ..rules.errors import RuleViolation, hard
from ..state import position_of
from . import REGISTRY, Ctx, Payload, action
from . import battle  # noqa: F401  (battle.open, battle.plan and battle.reveal are wrapped here)
from .bookkeeping import _wrap, add_spice, name, present, resolve_place
from .karama_stops import _stopped
from .moves import _in_storm_order, _order_before, allowance_for
from .storm_spice import preview_blow, preview_storm


RULE_NOFIELD = "richese-no-field"


def _nofield(state: dict) -> dict | None:
    return state["private"]["richese"].get("nofield") if "richese" in state["private"] else None


class NoFieldShip(Payload):
    type: Literal["nofield.ship"]
    faction: Literal["richese"] = "richese"
    territory: str = Field(min_length=1, max_length=60)
    sector: int | None = Field(default=None, ge=1, le=18)
    token: int = Field(ge=0, le=5)  # 0, 3 or 5 (rules/richese.check_nofield_ship refuses the others)


@action("nofield.ship", NoFieldShip,
        public=(), secret=True, summary=lambda p: f"Richese ship a No-Field to {p.territory}")
def nofield_ship(ctx: Ctx, state: dict, p: NoFieldShip) -> None:
    present(state, "richese")
    _stopped(state, "richese-no-field")
    territory, sector = resolve_place(ctx, state, p.territory, p.sector)
    ctx.check(state["phase"] == "shipment_movement", "A No-Field is shipped in the Shipment & Movement phase.",
              RULE_NOFIELD)
    here = _nofield(state)
    ctx.rules(richese.check_nofield_ship, p.token, on_planet=here["token"] if here else None,
              last_used=state["factions"]["richese"]["nofield_faceup"])
    if here:  # an override: the token on the planet goes back, unrevealed
        state["board"].pop("nofield", None)
    pos = position_of(state)
    spice = state["private"]["richese"]["spice"]
    cost = ctx.rules(shipment.check_ship, ctx.board, pos, "richese", territory, sector, 1, 0, reserves=1,
                     reserves_starred=0, spice=spice, guild_in_game="guild" in state["factions_present"],
                     ally=state["alliances"].get("richese"),
                     shipped_this_turn=state["turn_flags"]["richese"]["shipped"])
    if cost is None:
        cost = shipment.ShipCost(1 if ctx.board.territories.get(territory) and
                                 ctx.board.territories[territory].is_stronghold else 2,
                                 "guild" if "guild" in state["factions_present"] else "bank")
    if cost.amount > spice:
        raise hard(f"Richese has {spice} spice; shipping a No-Field costs {cost.amount}.", "base-shipment-cost")
    add_spice(state, "richese", -cost.amount)
    if cost.payee == "guild" and "guild" in state["factions_present"]:
        add_spice(state, "guild", cost.amount)
    piece = piece_id(territory, sector)
    state["board"]["nofield"] = {"piece": piece}
    state["private"]["richese"]["nofield"] = {"piece": piece, "token": p.token}
    state["factions"]["richese"]["nofield_faceup"] = None  # the face-up token returns when another is placed
    state["private"]["richese"]["nofield_last"] = p.token
    state["turn_flags"]["richese"]["shipped"] = True
    state["last_shipment"] = {"faction": "richese", "territory": territory, "cost": cost.amount,
                              "payee": cost.payee}


class NoFieldAlly(Payload):
    type: Literal["nofield.ally_ship"]
    faction: Literal["richese"] = "richese"
    territory: str = Field(min_length=1, max_length=60)
    sector: int | None = Field(default=None, ge=1, le=18)
    token: int = Field(ge=0, le=5)
    payer: Literal["richese", "ally"] = "richese"


@action("nofield.ally_ship", NoFieldAlly, public=("faction", "territory", "sector", "token", "payer"),
        summary=lambda p: f"Richese ship their ally's forces to {p.territory} with the {p.token} No-Field")
def nofield_ally_ship(ctx: Ctx, state: dict, p: NoFieldAlly) -> None:
    """A No-Field shipment for the ally's forces, revealed at once: any token already on the planet
    is revealed first; one force's price (1 to a stronghold, 2 elsewhere, to the Guild or the bank)
    paid by either ally; up to the token's number of the ally's reserves are placed."""
    present(state, "richese")
    _stopped(state, "richese-no-field")
    _stopped(state, "richese-ally-benefit")
    ally = state["alliances"].get("richese")
    if not ally:
        raise hard("Richese offer a No-Field shipment only to an ally.", "richese-alliance")
    territory, sector = resolve_place(ctx, state, p.territory, p.sector)
    ctx.check(state["phase"] == "shipment_movement", "A No-Field is shipped in the Shipment & Movement phase.",
              RULE_NOFIELD)
    if _nofield(state):  # reveal the token already on the planet first
        state["last_revealed"] = {"by": "richese", "territory": split_piece(_nofield(state)["piece"])[0],
                                  "marker": reveal_nofield(state, "voluntary")}
    ctx.rules(richese.check_nofield_ship, p.token, on_planet=None,
              last_used=state["factions"]["richese"]["nofield_faceup"])
    payer = "richese" if p.payer == "richese" else ally
    pos = position_of(state)
    reserves = state["factions"][ally]["reserves"]
    n = richese.reveal_forces(p.token, reserves["forces"])
    cost = ctx.rules(shipment.check_ship, ctx.board, pos, ally, territory, sector, max(n, 1), 0,
                     reserves=max(reserves["forces"], 1), reserves_starred=0, spice=10 ** 6,
                     guild_in_game="guild" in state["factions_present"], ally="richese",
                     shipped_this_turn=state["turn_flags"][ally]["shipped"])
    t = ctx.board.territories.get(territory)
    amount = 1 if t and t.is_stronghold else 2  # one force's price, whatever number is revealed
    payee = "guild" if "guild" in state["factions_present"] and payer != "guild" else "bank"
    if cost is not None and cost.payee == "bank":
        payee = "bank"
    have = state["private"][payer]["spice"]
    if amount > have:
        raise hard(f"{name(payer)} has {have} spice; the No-Field shipment costs {amount}.", "base-shipment-cost")
    add_spice(state, payer, -amount)
    if payee == "guild":
        add_spice(state, "guild", amount)
    if n:
        from ..state import place_forces
        place_forces(state, ally, piece_id(territory, sector), n, 0, 0, "reserves")
    state["factions"]["richese"]["nofield_faceup"] = p.token
    state["turn_flags"][ally]["shipped"] = True
    ctx.summary = (f"Richese ship {n} {name(ally)} force{'s' if n != 1 else ''} to {territory} with the "
                   f"{p.token} No-Field ({name(payer)} pays {amount})")


class NoFieldMove(Payload):
    type: Literal["nofield.move"]
    faction: Literal["richese"] = "richese"
    to: str = Field(min_length=1, max_length=60)
    to_sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Field(default=0, ge=0, le=20)  # Richese forces moving with it, from the same piece


@action("nofield.move", NoFieldMove,
        public=("faction", "to", "to_sector", "forces"), summary=lambda p: f"Richese move the No-Field to {p.to}"
        + (f" with {p.forces} forces" if p.forces else ""))
def nofield_move(ctx: Ctx, state: dict, p: NoFieldMove) -> None:
    """A face-down No-Field moves like a force: it is Richese's one group move of the turn."""
    from ..rules import movement
    from ..state import shift_forces
    present(state, "richese")
    hidden = _nofield(state)
    if not hidden:
        raise hard("Richese has no No-Field on the planet.", RULE_NOFIELD)
    src_t, src_s = split_piece(hidden["piece"])
    dst_t, dst_s = resolve_place(ctx, state, p.to, p.to_sector)
    ctx.check(state["phase"] == "shipment_movement", "Movement happens in the Shipment & Movement phase.",
              "base-movement")
    ctx.check(not state["turn_flags"]["richese"]["moved"], "Richese has already moved a group this turn.",
              "base-movement")
    ctx.rules(movement.check_move, ctx.board, position_of(state), "richese", src_t, src_s, dst_t, dst_s,
              allowance_for(state, "richese"))
    dst = piece_id(dst_t, dst_s)
    if p.forces:
        shift_forces(state, "richese", hidden["piece"], dst, p.forces, 0)
    hidden["piece"] = dst
    state["board"]["nofield"] = {"piece": dst}
    state["turn_flags"]["richese"]["moved"] = True


class NoFieldReveal(Payload):
    type: Literal["nofield.reveal"]
    faction: Literal["richese"] = "richese"
    cause: Literal["voluntary", "battle", "storm", "worm", "gamont"] = "voluntary"


def reveal_nofield(state: dict, cause: str) -> str:
    """Turn the token face up: place its number of forces from reserves (or destroy them, for a
    storm or worm), never more than the reserves hold. Returns the history line."""
    hidden = _nofield(state)
    if not hidden:
        raise hard("Richese has no No-Field on the planet.", RULE_NOFIELD)
    piece, token = hidden["piece"], hidden["token"]
    reserves = state["factions"]["richese"]["reserves"]
    n = richese.reveal_forces(token, reserves["forces"])
    territory, _ = split_piece(piece)
    if cause in ("storm", "worm"):
        reserves["forces"] -= n
        state["factions"]["richese"]["tanks"]["forces"] += n
        what = f"{n} force{'s' if n != 1 else ''} destroyed by the {cause}"
    else:
        from ..state import place_forces
        if n:
            place_forces(state, "richese", piece, n, 0, 0, "reserves")
        back = 1 if cause == "gamont" and n else 0  # Trip to Gamont: one revealed force back to reserves
        if back:
            from ..state import remove_forces
            remove_forces(state, "richese", piece, 1, 0, 0, "reserves")
        what = f"{n - back} force{'s' if n - back != 1 else ''} placed"
    state["board"].pop("nofield", None)
    state["private"]["richese"]["nofield"] = None
    state["factions"]["richese"]["nofield_faceup"] = token
    return f"Richese reveal the No-Field in {territory}: {token} ({what})"


@action("nofield.reveal", NoFieldReveal,
        public=("faction", "cause"), summary=lambda p: f"Richese reveal the No-Field ({p.cause})")
def nofield_reveal(ctx: Ctx, state: dict, p: NoFieldReveal) -> None:
    present(state, "richese")
    if p.cause == "voluntary":
        ctx.check(state["phase"] not in ("battle", "collection", "mentat_pause"),
                  "A No-Field is revealed by choice only before the Battle phase; in battle it is revealed with "
                  "the battle plan.", RULE_NOFIELD)
    ctx.summary = reveal_nofield(state, p.cause)


# battles: a No-Field fights as one force until revealed; Richese cannot dial more forces than it
# can reveal; the token is revealed with the battle plans.

def _battle_territory(state: dict, battle_id: str) -> str | None:
    for b in state.get("battles", []) or []:
        if b.get("id") == battle_id:
            return b["territory"]
    return None


def _nofield_in(state: dict, territory: str | None) -> dict | None:
    hidden = _nofield(state)
    if hidden and territory and split_piece(hidden["piece"])[0] == territory:
        return hidden
    return None


def _phantom(state: dict, piece: str, n: int) -> None:
    """Count ``n`` more Richese forces on ``piece`` for a check only (taken away right after)."""
    stacks = state["board"]["forces"].setdefault(piece, {})
    s = stacks.setdefault("richese", {"forces": 0, "starred": 0, "advisors": 0})
    s["forces"] += n
    if not any(s.values()):
        del stacks["richese"]
    if not stacks:
        del state["board"]["forces"][piece]


def _with_nofield(territory_of):
    at_name = territory_of

    def wrap(type_: str, inner_count) -> None:
        at = REGISTRY[type_]
        inner = at.handler

        def handler(ctx: Ctx, state: dict, p) -> None:
            hidden = _nofield_in(state, at_name(state, p))
            n = inner_count(state, hidden, p) if hidden else 0
            if not n:
                return inner(ctx, state, p)
            _phantom(state, hidden["piece"], n)
            try:
                inner(ctx, state, p)
            finally:
                _phantom(state, hidden["piece"], -n)
        at.handler = handler
    return wrap


def _open_territory(state: dict, p) -> str | None:
    try:
        from ..rules.board import load_board
        return load_board().resolve(p.territory)
    except Exception:  # noqa: BLE001 - the entry's own handler refuses bad names
        return None


def _plan_count(state: dict, hidden: dict, p) -> int:
    if p.faction != "richese":
        return 0
    from ..state import territory_forces
    reserves = state["factions"]["richese"]["reserves"]["forces"]
    territory = split_piece(hidden["piece"])[0]
    real = territory_forces(state, territory).get("richese", {"forces": 0})["forces"]
    # Richese cannot dial more forces than it can actually reveal (CHOAM & Richese rules, No-Field)
    richese.check_nofield_dial(p.forces, hidden["token"], reserves, real)
    return richese.reveal_forces(hidden["token"], reserves)


_with_nofield(_open_territory)("battle.open", lambda state, hidden, p: 1)
_with_nofield(lambda state, p: _battle_territory(state, p.battle))("battle.plan", _plan_count)


def _reveal_before_plans(ctx: Ctx, state: dict, p):
    territory = _battle_territory(state, p.battle)
    if _nofield_in(state, territory):
        b = next(b for b in state["battles"] if b["id"] == p.battle)
        if "richese" in b["sides"] and b["status"] == "planning" and len(b["sealed"]) == len(b["sides"]):
            state["last_revealed"] = {"by": "richese", "territory": territory,
                                      "marker": reveal_nofield(state, "battle")}
    return None


_wrap("battle.reveal", before=_reveal_before_plans)


def _with_token(state: dict) -> dict:
    """The state as the storm and worm rules should see it: the No-Field as one Richese force."""
    from ..state import forces_with_nofield
    return dict(state, board=dict(state["board"], forces=forces_with_nofield(state)))


def _storm_hits_nofield(ctx: Ctx, state: dict, p):
    hidden = _nofield(state)
    if not hidden:
        return False
    try:
        return hidden["piece"] in preview_storm(ctx.board, state, p.sectors, p.adjust).pieces_hit
    except RuleViolation:
        return False


def _worm_eats_nofield(ctx: Ctx, state: dict, p):
    hidden = _nofield(state)
    if not hidden:
        return False
    try:
        b = preview_blow(ctx.board, _with_token(state), p.card, p.pile, p.worm_territory, p.protect_ally)
    except RuleViolation:
        return False
    return b.kind == "worm" and bool((b.devoured or {}).get(hidden["piece"], {}).get("richese"))


def _reveal_by(cause: str):
    def after(ctx: Ctx, state: dict, p, hit) -> None:
        if hit and _nofield(state):
            territory = split_piece(_nofield(state)["piece"])[0]
            state["last_revealed"] = {"by": "richese", "territory": territory,
                                      "marker": reveal_nofield(state, cause)}
    return after


# a storm or worm reveals the token and destroys that many forces from reserves
_wrap("storm.move", before=_storm_hits_nofield, after=_reveal_by("storm"))
_wrap("spice.blow", before=_worm_eats_nofield, after=_reveal_by("worm"))
_wrap("nofield.ship", before=_order_before, after=_in_storm_order("ship"))
_wrap("nofield.move", before=_order_before, after=_in_storm_order("move"))


__all__ = ["RULE_NOFIELD", "reveal_nofield"]
