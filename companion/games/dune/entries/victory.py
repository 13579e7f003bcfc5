"""Victory: who the rules say has won (``preview_victory``, rules/victory.py) and the table's
confirmation (``victory.confirm``)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import victory
from ..rules.board import Board
from ..rules.phases import storm_order
from ..state import occupants
from .. import announce
from . import Ctx, FactionId, Payload, action
from .bookkeeping import name, present


def preview_victory(board: Board, state: dict, bg_prediction=None) -> victory.VictoryResult:
    occ: dict = {}
    for t, per in occupants(state).items():
        if (board.territories.get(t) and board.territories[t].is_stronghold) or t == victory.JACURUTU:
            occ[t] = set(per)
    dots = {f: d for f, d in state["player_dots"].items() if d}
    order = storm_order(state["storm"]["sector"], dots) if dots else None
    return victory.check_victory(state["turn"], state["last_turn"], occ, state["alliances"],
                                 state["factions_present"], jacurutu_revealed=bool(state.get("jacurutu")),
                                 bg_prediction=bg_prediction, storm_order=order, board=board)


class Victory(Payload):
    type: Literal["victory.confirm"]
    winners: list[FactionId] = Field(min_length=1, max_length=3)
    reason: str = Field(default="", max_length=200)


@action("victory.confirm", Victory, public=("winners",), faction_field=None, host_only=True,
        summary=lambda p: f"the table confirms the win of {', '.join(name(f) for f in p.winners)}")
def victory_confirm(ctx: Ctx, state: dict, p: Victory) -> None:
    for f in p.winners:
        present(state, f)
    result = preview_victory(ctx.board, state,
                             state["private"].get("bg", {}).get("prediction") if "bg" in state["private"] else None)
    ctx.check(sorted(result.winners) == sorted(p.winners),
              f"The rules say: {result.reason or 'nobody has won yet'}.", result.rule or "base-victory")
    state["winner"] = {"factions": list(p.winners),
                       "summary": f"{' and '.join(name(f) for f in p.winners)} win"
                                  + (f": {p.reason or result.reason}" if (p.reason or result.reason) else "")}
    announce.won(state, f"{' and '.join(name(f) for f in p.winners)} win")


__all__ = ["preview_victory"]
