"""The Revival phase: forces brought back from the tanks (``revive``), priced by rules/economy.py
(with the alliance help of the Emperor and the Fremen and, in the add-on, of the Tleilaxu; a Karama
may stop CHOAM's advantage). Leaders are revived by ``leader.revive`` (leaders.py)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import economy
from ..rules.errors import hard
from . import Ctx, FactionId, Payload, action
from .bookkeeping import add_spice, name, present
from .karama_stops import karama_stopped


class Revive(Payload):
    type: Literal["revive"]
    faction: FactionId
    forces: int = Field(default=0, ge=0, le=10)
    starred: int = Field(default=0, ge=0, le=5)
    emperor_pays: int = Field(default=0, ge=0, le=3)
    fremen_grants_ally: bool = False
    tleilaxu_half: bool = False  # CHOAM add-on: the Tleilaxu ally's half-price offer (paid to the Tleilaxu)
    tleilaxu_raised: bool = False  # CHOAM add-on, under Karama: the Tleilaxu ally permit 5 forces


@action("revive", Revive,
        public=("faction", "forces", "starred", "emperor_pays", "fremen_grants_ally", "tleilaxu_half",
                "tleilaxu_raised"),
        summary=lambda p: f"{name(p.faction)} revives {p.forces + p.starred} forces")
def revive(ctx: Ctx, state: dict, p: Revive) -> None:
    f = present(state, p.faction)
    ctx.check(state["phase"] == "revival", "Forces are revived in the Revival phase.", "base-revival")
    revived = state.setdefault("revived", {})
    key = f"{state['turn']}:{f}"
    ctx.check(not revived.get(key), f"{name(f)} has already revived forces this turn.", "base-revival")
    tanks = state["factions"][f]["tanks"]
    if p.forces > tanks["forces"] or p.starred > tanks["starred"]:
        starred = f" and {tanks['starred']} starred" if tanks["starred"] or p.starred else ""
        raise hard(f"{name(f)} has only {tanks['forces']} force{'s' if tanks['forces'] != 1 else ''}{starred} "
                   f"in the tanks.", "base-revival")
    ally = state["alliances"].get(f)
    cost = ctx.rules(economy.check_revival, f, state["turn"], p.forces, p.starred, ally=ally,
                     fremen_grants_ally=p.fremen_grants_ally, emperor_pays=p.emperor_pays,
                     spice=state["private"][f]["spice"],
                     emperor_spice=state["private"]["emperor"]["spice"] if "emperor" in state["private"] else None,
                     in_tanks=tanks["forces"], starred_in_tanks=tanks["starred"],
                     tleilaxu_half=p.tleilaxu_half, tleilaxu_raised=p.tleilaxu_raised,
                     karama_on_choam=f == "choam" and _karama_stopped(state, "revival"))
    if cost is not None:
        add_spice(state, f, -cost.cost)
        if cost.payee == "tleilaxu" and "tleilaxu" in state["private"]:
            add_spice(state, "tleilaxu", cost.cost)
        if cost.emperor_cost and "emperor" in state["private"]:
            add_spice(state, "emperor", -cost.emperor_cost)
    tanks["forces"] -= p.forces
    tanks["starred"] -= p.starred
    state["factions"][f]["reserves"]["forces"] += p.forces
    state["factions"][f]["reserves"]["starred"] += p.starred
    revived[key] = True


def _karama_stopped(state: dict, what: str) -> bool:
    """CHOAM add-on: a Karama stopped CHOAM's ``what`` advantage this turn (see karama_stops.py)."""
    return bool(karama_stopped(state, what))
