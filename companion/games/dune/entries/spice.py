"""Spice counts recorded directly: behind a faction's shield (``spice.set``, ``spice.add``), in
front of it (``spice.front``) and on the board (``board.spice``). The other entries pay and
receive spice through ``bookkeeping.add_spice``."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules.board import POLAR_SINK
from ..rules.errors import hard
from . import Ctx, FactionId, Payload, action
from .bookkeeping import add_spice, name, present, resolve_piece


class SpiceSet(Payload):
    type: Literal["spice.set"]
    faction: FactionId
    amount: int = Field(ge=0, le=999)


@action("spice.set", SpiceSet, public=(), secret=True, summary=lambda p: f"{name(p.faction)} spice set to {p.amount}")
def spice_set(ctx: Ctx, state: dict, p: SpiceSet) -> None:
    present(state, p.faction)
    state["private"][p.faction]["spice"] = p.amount


class SpiceAdd(Payload):
    type: Literal["spice.add"]
    faction: FactionId
    amount: int = Field(ge=-999, le=999)


@action("spice.add", SpiceAdd, public=(), secret=True,
        summary=lambda p: f"{name(p.faction)} {'gains' if p.amount >= 0 else 'pays'} {abs(p.amount)} spice")
def spice_add(ctx: Ctx, state: dict, p: SpiceAdd) -> None:
    present(state, p.faction)
    add_spice(state, p.faction, p.amount)


class SpiceFront(Payload):
    type: Literal["spice.front"]
    faction: FactionId
    amount: int = Field(ge=0, le=999)


@action("spice.front", SpiceFront,
        public=("faction", "amount"),
        summary=lambda p: f"{name(p.faction)} has {p.amount} spice in front of the shield")
def spice_front(ctx: Ctx, state: dict, p: SpiceFront) -> None:
    present(state, p.faction)
    state["factions"][p.faction]["spice_front"] = p.amount


class BoardSpice(Payload):
    type: Literal["board.spice"]
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    amount: int = Field(ge=0, le=99)


@action("board.spice", BoardSpice, public=("territory", "sector", "amount"), faction_field=None,
        summary=lambda p: f"spice in {p.territory} set to {p.amount}")
def board_spice(ctx: Ctx, state: dict, p: BoardSpice) -> None:
    piece = resolve_piece(ctx, p.territory, p.sector)
    if piece == POLAR_SINK:
        raise hard("Spice never lies in the Polar Sink.", "base-polar-sink")
    if p.amount:
        state["board"]["spice"][piece] = p.amount
    else:
        state["board"]["spice"].pop(piece, None)
