"""The Bidding phase: this turn's auction (cards up, who opens each, who bought), a card bought
(``bid.buy``: the Harkonnen bonus card, a Karama not to pay) and the end of the bidding
(``bid.unsold``). The Richese cache auction and Black Market are in richese.py."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import economy, karama, phase_steps
from ..rules.errors import hard
from . import Ctx, FactionId, Payload, action
from .bookkeeping import add_spice, current_order, draw_cards, name, play_karama, present


def _eligible_buyers(state: dict) -> list[str]:
    return [f for f, x in state["factions"].items() if x["hand_size"] < x["hand_limit"]]


def auction(state: dict) -> dict:
    """This turn's auction: {"turn", "cards", "sold", "openers", "buyers", "ended"}. Before the
    first sale the cards up are those the hands allow now (one per faction with room)."""
    b = state.get("bidding")
    if b and b.get("turn") == state["turn"]:
        return b
    hands = {f: x["hand_size"] for f, x in state["factions"].items()}
    limits = {f: x["hand_limit"] for f, x in state["factions"].items()}
    return {"turn": state["turn"], "cards": economy.cards_for_auction(hands, limits), "sold": 0, "openers": [],
            "buyers": [], "ended": False}


def auction_opener(state: dict, b: dict | None = None) -> str | None:
    b = b or auction(state)
    previous = b["openers"][-1] if b["openers"] else None
    return phase_steps.bidding_opener(current_order(state), _eligible_buyers(state), previous)


def record_sale(state: dict, buyer: str) -> None:
    """A card of this turn's auction is sold (called before the buyer's hand grows); a purchase
    recorded outside the Bidding phase (an override) is not one of the auction's cards."""
    if state["phase"] != "bidding":
        return
    b = auction(state)
    b["openers"].append(auction_opener(state, b))
    b["buyers"].append(buyer)
    b["sold"] += 1
    state["bidding"] = b


class Buy(Payload):
    type: Literal["bid.buy"]
    faction: FactionId
    price: int = Field(ge=0, le=99)
    karama: bool = False  # Karama: refuse to pay for the card
    bonus_karama: FactionId | None = None  # who plays a Karama to stop the Harkonnen bonus card (karama-harkonnen)


def _buy_summary(p) -> str:
    return f"{name(p.faction)} buys a card for {p.price}" + (" (Karama: does not pay)" if p.karama else "")


@action("bid.buy", Buy, public=("faction", "price", "karama"), summary=_buy_summary)
def bid_buy(ctx: Ctx, state: dict, p: Buy) -> None:
    """A card bought at auction (and the Harkonnen bonus card) comes from the deck, unnamed: the
    buyer's phone then offers to name it (secret ``cards.name``); this public entry never names it.
    An empty deck is refilled from the discard pile first (a public line of the history)."""
    f = present(state, p.faction)
    ctx.check(state["phase"] == "bidding", "Treachery cards are bought in the Bidding phase.", "base-bidding")
    record_sale(state, f)
    hand = state["factions"][f]["hand_size"]
    limit = state["factions"][f]["hand_limit"]
    ctx.rules(economy.check_purchase, f, hand, limit)
    extra = []
    if p.karama:  # the same rules /api/karama lists: never against one's own advantage
        ctx.rules(karama.check_karama_use, f, "emperor-free-card", state["factions_present"],
                  ally=state["alliances"].get(f), what="take a card without paying for it")
        played = play_karama(ctx, state, f)
        if played:
            extra.append(f"{played} discarded")
    if not p.karama:
        payee = economy.purchase_payee(f, state["factions_present"])
        add_spice(state, f, -p.price)
        if payee == "emperor":
            add_spice(state, "emperor", p.price)
    hand = state["factions"][f]["hand_size"]
    new = hand + 1
    if p.bonus_karama:
        # kiss-rules.txt, Harkonnen: "Karama can prevent you from taking a bonus free treachery card, once"
        present(state, p.bonus_karama)
        if f != "harkonnen" or p.bonus_karama == "harkonnen":
            raise hard("A Karama stops the Harkonnen bonus card: another faction plays it on a Harkonnen buy.",
                       "karama-harkonnen")
        ctx.check(economy.harkonnen_bonus_card(new, limit), "The Harkonnen take no bonus card on this buy.",
                  "karama-harkonnen")
        played = play_karama(ctx, state, p.bonus_karama)
        extra.append(f"{name(p.bonus_karama)} play a Karama: no bonus card" + (f" ({played} discarded)" if played else ""))
    elif f == "harkonnen" and economy.harkonnen_bonus_card(new, limit):
        new += 1
    extra += draw_cards(ctx, state, f, min(new, max(limit, hand + 1)) - hand)
    ctx.summary = _buy_summary(p) + "".join(f"; {x}" for x in extra)


class BidUnsold(Payload):
    type: Literal["bid.unsold"]


@action("bid.unsold", BidUnsold, public=(), faction_field=None,
        summary=lambda p: "everyone passed on the card up for auction: bidding ends")
def bid_unsold(ctx: Ctx, state: dict, p: BidUnsold) -> None:
    ctx.check(state["phase"] == "bidding", "Bidding ends in the Bidding phase.", "base-bidding")
    b = auction(state)
    if b["ended"]:
        raise hard("Bidding has already ended this turn.", "base-bidding")
    b["ended"] = True
    state["bidding"] = b


__all__ = ["auction", "auction_opener", "record_sale"]
