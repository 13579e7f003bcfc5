"""Stronghold Cards (an optional module of the CHOAM & Richese add-on, Advanced): at every Mentat
Pause each stronghold's card goes to its sole occupant, or is set aside."""
from __future__ import annotations

from . import Ctx
from . import phases  # noqa: F401  (phase.next and phase.set are wrapped here)
from .bookkeeping import _wrap


def _stronghold_cards(ctx: Ctx, state: dict, p, _seen=None) -> None:
    """At every Mentat Pause each stronghold's card goes to its sole occupant (Bene Gesserit
    advisors ignored; a No-Field counts) or is set aside; it is kept until the next Mentat Pause."""
    if state["phase"] != "mentat_pause" or not state["options"].get("stronghold_cards"):
        return
    from ..state import occupants
    occ = occupants(state)
    cards = {}
    for name_ in sorted(ctx.board.strongholds()):
        here = [f for f, n in occ.get(name_, {}).items() if n > 0]
        cards[name_] = here[0] if len(here) == 1 else None
    state["stronghold_cards"] = {"turn": state["turn"], "holders": cards}


_wrap("phase.next", after=_stronghold_cards)
_wrap("phase.set", after=_stronghold_cards)
