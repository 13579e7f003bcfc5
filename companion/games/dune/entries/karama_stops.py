"""What a Karama has stopped (the CHOAM & Richese add-on): CHOAM's Charity and revival advantages
for a turn, and the add-on's other advantages (karama.json ids) for a turn, a phase or one battle;
the refusal an entry gets while its advantage is stopped, and the Karama card spent. The entries
that play these Karamas are in addon_karama.py."""
from __future__ import annotations

from ..rules.errors import hard
from . import Ctx
from .bookkeeping import name, play_karama


KARAMA_ON_CHOAM = {"charity": ("choam-charity", "charity", "stop CHOAM's special Charity"),
                   "revival": ("choam-revival", "revival", "stop CHOAM's revival advantage")}


def karama_stopped(state: dict, what: str) -> str | None:
    """The faction whose Karama stopped CHOAM's ``what`` advantage this turn, or None."""
    if "choam" not in state["factions_present"]:
        return None
    x = (state["factions"]["choam"].get("karama_stopped") or {}).get(what)
    return x["by"] if x and x["turn"] == state["turn"] else None


def spend_karama(ctx: Ctx, state: dict, f: str) -> None:
    """The Karama card leaves ``f``'s hand for the discard pile (a named Karama, else an unnamed card;
    a hand with neither is an overridable refusal)."""
    if state["factions"][f]["hand_size"] < 1:
        raise hard(f"{name(f)} holds no card to play as a Karama.", "kiss-karama")
    play_karama(ctx, state, f)


# the other CHOAM & Richese advantages a Karama stops (karama.json ids), and how long the stop lasts
KARAMA_ADDON = {
    "choam-discard": ("choam", "phase", "CHOAM discards for spice"),
    "choam-inflation": ("choam", "turn", "Inflation placed"),
    "choam-ally-trade": ("choam", "turn", "CHOAM card trade"),
    "richese-cache-auction": ("richese", "turn", "cache auction"),
    "richese-no-field": ("richese", "turn", "No-Field shipment"),
    "richese-black-market": ("richese", "turn", "Black Market sale"),
    "richese-ally-benefit": ("richese", "turn", "allied No-Field shipment"),
    "choam-support-income": ("choam", "battle", "CHOAM support income"),  # one battle (Advanced)
}


def addon_stop(state: dict, effect: str) -> dict | None:
    """The Karama stop on ``effect`` still in force (``{"turn", "phase", "by"}``), or None: a stop
    lasts its turn, or only its phase for the ``phase`` ones."""
    target, span, _what = KARAMA_ADDON[effect]
    x = (state["factions"][target].get("karama_stopped") or {}).get(effect)
    return x if x and x["turn"] == state["turn"] and (span == "turn" or x.get("phase") == state["phase"]) else None


def _stopped(state: dict, effect: str) -> None:
    """Refuse an entry whose advantage a Karama stopped (``karama.addon``)."""
    target, span, what = KARAMA_ADDON[effect]
    x = addon_stop(state, effect)
    if x:
        raise hard(f"{name(x['by'])} played a Karama: no {what} this {span}.",
                   "karama-choam" if target == "choam" else "karama-richese")


__all__ = ["KARAMA_ON_CHOAM", "KARAMA_ADDON", "karama_stopped", "addon_stop", "spend_karama"]
