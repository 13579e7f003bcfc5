"""The end of the game: a confirmed win (``victory.confirm``) or the host's ``game.end`` (the table
stops early, or plays on no longer; undoable like any entry). Once the game is over, its story may be
told (``companion/games/dune/story.py``): every secret, every hand, every plan."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules.errors import hard
from . import Ctx, Payload, action


class GameEnd(Payload):
    type: Literal["game.end"]
    reason: str = Field(min_length=1, max_length=200)


@action("game.end", GameEnd, faction_field=None, host_only=True, summary=lambda p: f"the game ends: {p.reason}")
def game_end(ctx: Ctx, state: dict, p: GameEnd) -> None:
    if state.get("ended"):
        raise hard("The game has already ended.", "base-victory")
    state["ended"] = {"reason": p.reason, "turn": state["turn"], "phase": state["phase"]}


def game_over(state: dict) -> bool:
    """A confirmed win, or the host ended the game."""
    return bool(state.get("winner") or state.get("ended"))


__all__ = ["game_over"]
