"""The CHOAM Charity phase (KISS): ``charity.claim``. With CHOAM at the table the add-on's Charity
takes over this handler (choam.py)."""
from __future__ import annotations

from typing import Literal

from ..rules import economy
from ..rules.errors import hard
from . import Ctx, FactionId, Payload, action
from .bookkeeping import add_spice, name, present


class Charity(Payload):
    type: Literal["charity.claim"]
    faction: FactionId


def charity_gate(ctx: Ctx, state: dict, faction: str) -> tuple[str, dict, str]:
    """A charity claim's checks, shared with the CHOAM add-on: the phase (overridable) and once per
    faction and turn (never twice). Returns (faction, the claims record, this claim's key)."""
    f = present(state, faction)
    ctx.check(state["phase"] == "charity", "Charity is claimed in the CHOAM Charity phase.", "base-charity")
    claimed = state.setdefault("charity_claimed", {})
    key = f"{state['turn']}:{f}"
    if claimed.get(key):
        raise hard(f"{name(f)} has already claimed charity this turn.", "base-charity")
    return f, claimed, key


@action("charity.claim", Charity, public=("faction",), summary=lambda p: f"{name(p.faction)} claims CHOAM charity")
def charity_claim(ctx: Ctx, state: dict, p: Charity) -> None:
    f, claimed, key = charity_gate(ctx, state, p.faction)
    amount = economy.charity(state["turn"], f, state["private"][f]["spice"])
    if amount <= 0:
        if f == "bg" and state["turn"] == 1:
            raise hard("The Bene Gesserit take no charity on turn 1 under KISS; from turn 2 they always get 2.",
                       "bg-charity")
        raise hard(f"{name(f)} gets no charity with {state['private'][f]['spice']} spice: only factions "
                   f"with 0 or 1 spice may claim it.", economy.charity_rule(f))
    add_spice(state, f, amount)
    claimed[key] = amount
