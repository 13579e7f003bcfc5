"""The Karama entries against the CHOAM & Richese advantages: ``karama.addon`` (CHOAM's discards,
Inflation, card trade and support income; Richese's cache auction, No-Field, Black Market and
allied shipment), ``karama.choam_charity`` and ``karama.choam_revival``. What each stops, and for
how long, is in karama_stops.py; the Karama against an audit is with the Auditor (choam.py)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules.errors import hard
from . import Ctx, FactionId, Payload, action
from .bookkeeping import name, present
from .karama_stops import KARAMA_ADDON, KARAMA_ON_CHOAM, addon_stop, karama_stopped, spend_karama
from .richese import cache_auction


class KaramaAddon(Payload):
    type: Literal["karama.addon"]
    faction: FactionId  # who plays the Karama
    effect: Literal["choam-discard", "choam-inflation", "choam-ally-trade", "richese-cache-auction",
                    "richese-no-field", "richese-black-market", "richese-ally-benefit", "choam-support-income"]
    battle: str | None = Field(default=None, max_length=40)  # choam-support-income: the battle


@action("karama.addon", KaramaAddon, public=("faction", "effect", "battle"),
        summary=lambda p: f"{name(p.faction)} play a Karama: no {KARAMA_ADDON[p.effect][2]}"
                          + (f" from battle {p.battle}" if p.effect == "choam-support-income"
                             else f" this {KARAMA_ADDON[p.effect][1]}"))
def karama_addon(ctx: Ctx, state: dict, p: KaramaAddon) -> None:
    from ..rules import karama
    f = present(state, p.faction)
    target, span, what = KARAMA_ADDON[p.effect]
    present(state, target)
    rule = "karama-choam" if target == "choam" else "karama-richese"
    opt = ctx.rules(karama.check_karama_use, f, p.effect, state["factions_present"], ally=state["alliances"].get(f),
                    what=f"stop {what}")
    phases = (opt or {}).get("phases") or []
    ctx.check(not phases or state["phase"] in phases,
              f"A Karama against {what} is played in the {' or '.join(x.replace('_', ' ').title() for x in phases)} "
              f"phase.", rule)
    if p.effect == "choam-support-income":
        ctx.check(bool(state["options"].get("advanced")), "Support income is Advanced play.", rule)
        b = next((x for x in state.get("battles", []) if x["id"] == p.battle), None)
        if b is None:
            raise hard("Say which battle's support income the Karama stops (battle).", rule)
        if b["status"] == "applied":
            raise hard("That battle's outcome is applied: a Karama stops the support income before it is paid.", rule)
        if b.get("karama_support"):
            raise hard("A Karama already stopped CHOAM's support income from this battle.", rule)
        spend_karama(ctx, state, f)
        b["karama_support"] = f
        return
    if p.effect == "richese-cache-auction":
        ctx.check(not cache_auction(state), "The cache auction is already under way: a Karama stops it at the start "
                                            "of Bidding.", rule)
    if addon_stop(state, p.effect):
        raise hard(f"A Karama already stopped {what} this {span}.", rule)
    spend_karama(ctx, state, f)
    state["factions"][target].setdefault("karama_stopped", {})[p.effect] = {
        "turn": state["turn"], "phase": state["phase"], "by": f}


class KaramaChoam(Payload):
    type: Literal["karama.choam_charity", "karama.choam_revival"]
    faction: FactionId  # who plays the Karama


def _karama_on_choam(ctx: Ctx, state: dict, p: KaramaChoam) -> None:
    from ..rules import karama
    f = present(state, p.faction)
    present(state, "choam")
    what = p.type.rsplit("_", 1)[1]
    effect, phase, verb = KARAMA_ON_CHOAM[what]
    ctx.rules(karama.check_karama_use, f, effect, state["factions_present"], ally=state["alliances"].get(f),
              what=verb)
    ctx.check(state["phase"] == phase, f"A Karama to {verb} is played in the {phase.title()} phase.",
              "karama-choam")
    if karama_stopped(state, what):
        raise hard(f"A Karama already stopped CHOAM's {what} advantage this turn.", "karama-choam")
    if what == "charity":
        ctx.check(not state.get("charity_claimed", {}).get(f"{state['turn']}:choam"),
                  "CHOAM has already collected its Charity this turn: a Karama stops it before it is collected.",
                  "karama-choam")
    if what == "revival":
        ctx.check(not state.get("revived", {}).get(f"{state['turn']}:choam"),
                  "CHOAM has already revived this turn: a Karama stops the advantage before it is used.",
                  "karama-choam")
    spend_karama(ctx, state, f)
    state["factions"]["choam"].setdefault("karama_stopped", {})[what] = {"turn": state["turn"], "by": f}


for _t, _what in (("karama.choam_charity", "special Charity"), ("karama.choam_revival", "revival advantage")):
    action(_t, KaramaChoam, public=("faction",),
           summary=lambda p, w=_what: f"{name(p.faction)} play a Karama: no CHOAM {w} this turn"
           )(_karama_on_choam)
