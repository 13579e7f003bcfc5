"""CHOAM (the CHOAM & Richese add-on, not KISS): its Charity (which takes over the KISS
``charity.claim``), Inflation, discards for spice, the card trade with its ally, bribes (barred
while Inflation shows Double), and in the Advanced game its support income from battles and the
Auditor."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import choam as choam_rules
from ..rules import economy
from ..rules.errors import RuleViolation, hard
from . import REGISTRY, Ctx, FactionId, Payload, action
from . import battle_apply, leaders  # noqa: F401  (battle.apply and leader.capture are wrapped here)
from .bookkeeping import _wrap, add_spice, discard_card, name, present
from .charity import charity_gate
from .karama_stops import _stopped, karama_stopped, spend_karama


# -- Charity and Inflation -------------------------------------------------------------------------

def _inflation(state: dict) -> dict | None:
    return state["factions"].get("choam", {}).get("inflation")


def charity_side(state: dict) -> str | None:
    return choam_rules.inflation_side(_inflation(state), state["turn"])


_charity_inner = REGISTRY["charity.claim"].handler


def _charity(ctx: Ctx, state: dict, p) -> None:
    """With CHOAM at the table: CHOAM first takes 2 per faction from the bank, then pays the
    others' ordinary Charity from its own spice; Inflation doubles or cancels every Charity."""
    if "choam" not in state["factions_present"]:
        return _charity_inner(ctx, state, p)
    f, claimed, key = charity_gate(ctx, state, p.faction)
    side = charity_side(state)
    if side == "cancel":
        raise RuleViolation("CHOAM's Inflation shows Cancel: no Charity is paid this turn.", "choam-inflation")
    stopped = karama_stopped(state, "charity")
    if f == "choam" and not stopped:
        amount = choam_rules.special_charity(len(state["factions_present"]), side)
        add_spice(state, "choam", amount)
        claimed[key] = amount
        return
    if not stopped:
        ctx.check(bool(claimed.get(f"{state['turn']}:choam")),
                  "CHOAM collects its Charity before anyone else does.", "choam-charity")
    amount = economy.charity(state["turn"], f, state["private"][f]["spice"])
    if amount <= 0 and f == "choam":
        raise hard(f"A Karama stopped CHOAM's special Charity, and with {state['private']['choam']['spice']} "
                   f"spice CHOAM gets no ordinary Charity: only factions with 0 or 1 spice may claim it.",
                   "karama-choam")
    if amount <= 0:
        return _charity_inner(ctx, state, p)  # the ordinary refusal, word for word
    amount = choam_rules.scale(amount, side)
    payer = choam_rules.charity_payer(f, state["factions_present"], karama_on_choam=bool(stopped))
    if payer == "choam":
        have = state["private"]["choam"]["spice"]
        ctx.check(have >= amount, f"CHOAM has {have} spice and cannot pay {name(f)}'s Charity of {amount}.",
                  "choam-charity")
        add_spice(state, "choam", -min(have, amount))
    add_spice(state, f, amount)
    claimed[key] = amount


REGISTRY["charity.claim"].handler = _charity


class InflationPlace(Payload):
    type: Literal["inflation.place"]
    faction: Literal["choam"] = "choam"
    side: Literal["double", "cancel"]


@action("inflation.place", InflationPlace,
        public=("faction", "side"), summary=lambda p: f"CHOAM place Inflation, {p.side.title()} side up")
def inflation_place(ctx: Ctx, state: dict, p: InflationPlace) -> None:
    present(state, "choam")
    inflation = _inflation(state)
    if inflation:
        raise hard("CHOAM has already used Inflation: it is placed once, flipped once, then removed.",
                   "choam-inflation")
    ctx.rules(choam_rules.check_inflation_place, None, p.side, state["phase"])
    _stopped(state, "choam-inflation")
    state["factions"]["choam"]["inflation"] = {"placed_turn": state["turn"], "side": p.side}


def addon_charity_entitled(state: dict, entitled: list[str]) -> list[str]:
    """Who is owed Charity this turn with CHOAM at the table: CHOAM first, none under Cancel; after
    a Karama on CHOAM's Charity, CHOAM only if it qualifies for the ordinary one."""
    if charity_side(state) == "cancel":
        return []
    if karama_stopped(state, "charity"):
        return list(entitled)
    return ["choam"] + [f for f in entitled if f != "choam"]


def choam_charity_now(state: dict) -> int:
    """What CHOAM may claim in this Charity phase (its phone's number): 2 per faction, Inflation
    applied; after a Karama on it, only the ordinary Charity if CHOAM qualifies."""
    side = charity_side(state)
    if karama_stopped(state, "charity"):
        return choam_rules.scale(economy.charity(state["turn"], "choam", state["private"]["choam"]["spice"]), side)
    return choam_rules.special_charity(len(state["factions_present"]), side)


def inflation_info(state: dict) -> dict | None:
    """For the views: the Inflation side ruling now and whether bribes are barred."""
    if "choam" not in state["factions_present"]:
        return None
    inf = _inflation(state)
    return {"placed": inf, "side_now": charity_side(state),
            "no_bribes": choam_rules.double_face_up(inf, state["turn"], state["phase"])}


# -- CHOAM's cards: discards for spice, the trade with its ally ------------------------------------

class ChoamDiscard(Payload):
    type: Literal["choam.discard"]
    faction: Literal["choam"] = "choam"
    card: str = Field(min_length=1, max_length=60)
    effect: bool = False  # a Worthless Card discarded for its own CHOAM effect instead of spice


@action("choam.discard", ChoamDiscard,
        public=("faction", "card", "effect"), summary=lambda p: f"CHOAM discard {p.card} for "
        + ("its CHOAM effect" if p.effect else "spice"))
def choam_discard(ctx: Ctx, state: dict, p: ChoamDiscard) -> None:
    """At the end of a phase: a surplus exact duplicate for 3 spice, a Worthless card for 2 - or a
    Worthless card for its named CHOAM effect (when the move, storm, revival or Karama it answers is
    attempted): no spice then; the table applies the effect."""
    present(state, "choam")
    _stopped(state, "choam-discard")
    hand = state["private"]["choam"].setdefault("cards", [])
    card = next((c for c in hand if c.lower() == p.card.lower()), None)
    if card is None:
        raise hard(f"CHOAM does not hold {p.card!r} (name it in the hand first).", "choam-discard")
    if p.effect:
        ctx.rules(choam_rules.check_worthless_effect, card)
        value = 0
    else:
        value = ctx.rules(choam_rules.discard_value, card, hand)
    discard_card(ctx, state, "choam", card, "choam-discard", strict=False)  # held: checked above
    add_spice(state, "choam", value or 0)
    ctx.summary = (f"CHOAM discard {card} for its CHOAM effect" if p.effect
                   else f"CHOAM discard {card} for {value or 0} spice")


class ChoamTrade(Payload):
    type: Literal["choam.trade"]
    faction: Literal["choam"] = "choam"
    gives: str = Field(min_length=1, max_length=60)
    receives: str = Field(min_length=1, max_length=60)


@action("choam.trade", ChoamTrade, public=(), secret=True, summary=lambda p: "CHOAM and its ally trade one card each")
def choam_trade(ctx: Ctx, state: dict, p: ChoamTrade) -> None:
    """Once a turn, at a phase end: CHOAM and its ally each give one card and receive one."""
    present(state, "choam")
    _stopped(state, "choam-ally-trade")
    ally = state["alliances"].get("choam")
    if not ally:
        raise hard("CHOAM trades cards only with an ally.", "choam-alliance")
    done = state["factions"]["choam"].setdefault("traded_turn", 0)
    ctx.check(done != state["turn"], "CHOAM and its ally have already traded this turn.", "choam-alliance")
    mine = state["private"]["choam"].setdefault("cards", [])
    card = next((c for c in mine if c.lower() == p.gives.lower()), None)
    if card is None:
        raise hard(f"CHOAM does not hold {p.gives!r}.", "choam-alliance")
    theirs = state["private"][ally].setdefault("cards", [])
    got = next((c for c in theirs if c.lower() == p.receives.lower()), p.receives)
    ctx.check(state["factions"][ally]["hand_size"] >= 1, f"{name(ally)} has no card to give.", "choam-alliance")
    mine.remove(card)
    if got in theirs:
        theirs.remove(got)
    mine.append(got)
    theirs.append(card)
    state["factions"]["choam"]["traded_turn"] = state["turn"]


# -- support income (Advanced) ---------------------------------------------------------------------

def _support_income(ctx: Ctx, state: dict, p, _seen=None) -> None:
    """Advanced: CHOAM takes half (rounded down) of what another faction paid for its forces in a
    battle; nothing when a traitor was revealed there. The rest stays with the bank."""
    if "choam" not in state["factions_present"] or not state["options"].get("advanced"):
        return
    b = next((x for x in state.get("battles", []) if x["id"] == p.battle), None)
    if not b or not b.get("outcome"):
        return
    if b.get("karama_support"):
        b["choam_income"] = 0  # a Karama stopped it for this battle
        return
    income = sum(choam_rules.support_income(cost or 0, bool(b["traitors"]))
                 for f, cost in b["outcome"].get("spice_paid", {}).items() if f != "choam")
    if income:
        add_spice(state, "choam", income)
    b["choam_income"] = income


_wrap("battle.apply", after=_support_income)


# -- bribes -------------------------------------------------------------------------------------

class Bribe(Payload):
    type: Literal["bribe"]
    payer: FactionId = Field(alias="from")
    to: FactionId
    spice: int = Field(ge=1, le=99)

    @property
    def parties(self) -> list[str]:
        return [self.payer, self.to]


@action("bribe", Bribe, public=("from", "to", "spice"), faction_field="parties",
        summary=lambda p: f"{name(p.payer)} bribe {name(p.to)} with {p.spice} spice")
def bribe(ctx: Ctx, state: dict, p: Bribe) -> None:
    """A public spice bribe from one faction to another: never while CHOAM's Inflation shows Double
    (from the moment it is placed). From the receiver's seat it needs the payer's consent."""
    present(state, p.payer), present(state, p.to)
    ctx.rules(choam_rules.bribe_check, _inflation(state), state["turn"], state["phase"], p.payer, p.to)
    add_spice(state, p.payer, -p.spice)
    add_spice(state, p.to, p.spice)


# -- the Auditor (Advanced) ---------------------------------------------------------------------

class AuditorEntry(Payload):
    type: Literal["auditor.inspect", "auditor.cancel"]
    faction: FactionId  # inspect: CHOAM; cancel: the audited opponent, who pays
    battle: str = Field(min_length=1, max_length=40)


def _audit(ctx: Ctx, state: dict, p: AuditorEntry) -> tuple[dict, str, int, list[str]]:
    """(the battle, the opponent, cards CHOAM may see, cards used in the battle) of an audit."""
    present(state, "choam")
    ctx.check(bool(state["options"].get("advanced")), "The Auditor plays only in the Advanced game.",
              "choam-auditor")
    b = next((x for x in state.get("battles", []) or [] if x["id"] == p.battle), None)
    if b is None:
        raise hard(f"There is no battle {p.battle!r}.", "choam-auditor")
    if "choam" not in b["sides"]:
        raise hard("CHOAM did not fight in that battle: no audit.", "choam-auditor")
    if b["status"] != "applied" or not b.get("outcome"):
        raise hard("The audit comes after the battle's outcome is applied.", "choam-auditor")
    if (b["plans"] or {}).get("choam", {}).get("leader") != choam_rules.AUDITOR:
        raise hard("CHOAM audits only after a battle it fought with the Auditor.", "choam-auditor")
    done = state["factions"]["choam"].setdefault("audits", [])
    if any(a["battle"] == b["id"] for a in done):
        raise hard("That battle was already audited (or the audit was paid off).", "choam-auditor")
    opponent = next(f for f in b["sides"] if f != "choam")
    plan = b["plans"][opponent]
    used = [c for c in (plan.get("weapon"), plan.get("defense")) if c]
    hand = state["private"][opponent].get("cards", [])
    kept = [c for c in used if any(h.lower() == c.lower() for h in hand)]  # used cards still in hand
    survived = choam_rules.AUDITOR not in b["outcome"].get("leaders_killed", [])
    n = choam_rules.audit_cards(survived, state["factions"][opponent]["hand_size"] - len(kept))
    return b, opponent, n, kept


@action("auditor.inspect", AuditorEntry, public=("faction", "battle"),
        summary=lambda p: f"CHOAM's Auditor inspects cards after battle {p.battle}")
def auditor_inspect(ctx: Ctx, state: dict, p: AuditorEntry) -> None:
    """2 random cards of the opponent's hand (1 if the Auditor died), never those used in the battle,
    only as many as there are. The names go to CHOAM's private part only."""
    if p.faction != "choam":
        raise hard("Only CHOAM audits.", "choam-auditor")
    b, opponent, n, used = _audit(ctx, state, p)
    hand = state["private"][opponent].get("cards", [])
    seen = choam_rules.audit_pick(hand, state["factions"][opponent]["hand_size"], used, n,
                                  f"{state.get('table')}:{b['id']}:{state['turn']}:audit")
    state["factions"]["choam"]["audits"].append({"battle": b["id"], "turn": state["turn"], "opponent": opponent,
                                                 "cards": len(seen), "cancelled": False})
    state["private"]["choam"].setdefault("audited", []).append(
        {"battle": b["id"], "turn": state["turn"], "opponent": opponent, "cards": seen})
    ctx.summary = (f"CHOAM's Auditor inspects {len(seen)} card{'s' if len(seen) != 1 else ''} of "
                   f"{name(opponent)}'s hand (battle {b['id']})")


@action("auditor.cancel", AuditorEntry, public=("faction", "battle"),
        summary=lambda p: f"{name(p.faction)} pay CHOAM to cancel the audit of battle {p.battle}")
def auditor_cancel(ctx: Ctx, state: dict, p: AuditorEntry) -> None:
    """The opponent pays 1 spice per card CHOAM could see and the whole audit is off (no part payment)."""
    b, opponent, n, _used = _audit(ctx, state, p)
    if p.faction != opponent:
        raise hard(f"Only {name(opponent)}, the audited faction, can pay off the audit.", "choam-auditor")
    add_spice(state, opponent, -n)
    add_spice(state, "choam", n)
    state["factions"]["choam"]["audits"].append({"battle": b["id"], "turn": state["turn"], "opponent": opponent,
                                                 "cards": 0, "cancelled": True, "paid": n})
    ctx.summary = f"{name(opponent)} pay CHOAM {n} spice: no audit after battle {b['id']}"


class KaramaAudit(Payload):
    type: Literal["karama.choam_audit"]
    faction: FactionId  # who plays the Karama (the audited opponent, or anyone but CHOAM)
    battle: str = Field(min_length=1, max_length=40)


@action("karama.choam_audit", KaramaAudit, public=("faction", "battle"),
        summary=lambda p: f"{name(p.faction)} play a Karama: no audit after battle {p.battle}")
def karama_choam_audit(ctx: Ctx, state: dict, p: KaramaAudit) -> None:
    """Advanced: a Karama stops one audit (a use separate from stopping support income)."""
    from ..rules import karama
    f = present(state, p.faction)
    b, opponent, _n, _used = _audit(ctx, state, AuditorEntry(type="auditor.inspect", faction="choam",
                                                              battle=p.battle))
    ctx.rules(karama.check_karama_use, f, "choam-audit", state["factions_present"], ally=state["alliances"].get(f),
              what="stop the Auditor's audit")
    spend_karama(ctx, state, f)
    state["factions"]["choam"]["audits"].append({"battle": b["id"], "turn": state["turn"], "opponent": opponent,
                                                 "cards": 0, "cancelled": True, "karama": f})


def _auditor_not_captured(ctx: Ctx, state: dict, p) -> None:
    if p.faction == "choam" and p.leader.strip().lower() in ("the auditor", "auditor"):
        raise RuleViolation("The Auditor cannot be captured: it goes face up to the tanks.", "choam-auditor")


_wrap("leader.capture", before=_auditor_not_captured)


__all__ = ["charity_side", "addon_charity_entitled", "choam_charity_now", "inflation_info"]
