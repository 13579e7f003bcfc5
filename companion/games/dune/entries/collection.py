"""The Spice Collection phase: what each faction collects (``preview_collection``, the arithmetic of
rules/economy.py) and ``collection.apply``."""
from __future__ import annotations

from typing import Literal

from ..rules import economy
from ..rules.board import Board, piece_id
from ..rules.errors import hard
from ..rules.phases import storm_order
from ..state import occupants
from . import Ctx, Payload, action
from .bookkeeping import add_spice, remove_spice
from .storm_spice import deck


class Collect(Payload):
    type: Literal["collection.apply"]


def preview_collection(board: Board, state: dict) -> list[dict]:
    occ = {t: set(per) for t, per in occupants(state).items()}
    dots = {f: d for f, d in state["player_dots"].items() if d}
    order = storm_order(state["storm"]["sector"], dots) if dots else None
    from ..state import forces_with_nofield  # a face-down No-Field collects as one force
    return economy.collection(board, forces_with_nofield(state), state["board"]["spice"], occ, state["alliances"],
                              factions_present=state["factions_present"], order=order,
                              unspawned_blows=deck(state)["unspawned"],
                              protected_territories=tuple(state.get("token_territories", {})))


@action("collection.apply", Collect, public=(), faction_field=None, summary=lambda p: "spice collected")
def collection_apply(ctx: Ctx, state: dict, p: Collect) -> None:
    ctx.check(state["phase"] == "collection", "Spice is collected in the Spice Collection phase.", "base-collection")
    key = f"collected:{state['turn']}"
    if state.get(key):
        raise hard("Spice was already collected this turn.", "base-collection")
    for item in preview_collection(ctx.board, state):
        amount = item["amount"]
        if amount <= 0:
            continue
        if item.get("source") in ("collection", "orgiz") and item.get("territory"):
            # spice taken from the board; stronghold, Cistern and Substitute incomes come from the bank
            piece = piece_id(item["territory"], item.get("sector"))
            left = state["board"]["spice"].get(piece, 0)
            amount = min(amount, left)
            remove_spice(state, {piece: amount})
        add_spice(state, item["faction"], amount)
    state[key] = True
    deck(state)["unspawned"] = 0


__all__ = ["preview_collection"]
