"""Richese (the CHOAM & Richese add-on, not KISS): the cache auction, Once Around or by Silent
Auction, an ally's pledge toward a cache bid, and the Black Market (Advanced). The No-Field tokens
are in nofield.py.

Sealed cache bids live only under ``state["private"][bidder]``; the public state carries who has
bid, never the amounts, until they are revealed together."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import economy, richese
from ..rules.errors import hard
from . import Ctx, FactionId, Payload, action
from .bidding import auction
from .bookkeeping import add_spice, current_order, draw_cards, name, present
from .karama_stops import _stopped


RULE_CACHE = "richese-cache-auction"
RULE_SILENT = "richese-silent-auction"


# -- the Richese cache auction ---------------------------------------------------------------

def cache_auction(state: dict) -> dict | None:
    a = state.get("cache_auction")
    return a if a and a["turn"] == state["turn"] else None


def _eligible(state: dict) -> list[str]:
    return [f for f in current_order(state)
            if state["factions"][f]["hand_size"] < state["factions"][f]["hand_limit"]]


class CacheAnnounce(Payload):
    type: Literal["cache.announce"]
    faction: Literal["richese"] = "richese"
    card: str = Field(min_length=1, max_length=40)
    when: Literal["first", "last"]
    method: Literal["once_around", "silent"]
    clockwise: bool = True  # Once Around: which neighbour of Richese starts


@action("cache.announce", CacheAnnounce, public=("faction", "card", "when", "method", "clockwise"),
        summary=lambda p: f"Richese auction {p.card} from the cache {p.when}, by "
                          f"{'Once Around' if p.method == 'once_around' else 'Silent Auction'}")
def cache_announce(ctx: Ctx, state: dict, p: CacheAnnounce) -> None:
    present(state, "richese")
    _stopped(state, "richese-cache-auction")
    ctx.check(state["phase"] == "bidding", "The cache auction happens in the Bidding phase.", RULE_CACHE)
    if cache_auction(state):
        raise hard("Richese already auctioned a cache card this turn: one a Bidding round.", RULE_CACHE)
    cache = state["factions"]["richese"]["cache"]
    card = next((c for c in cache if c.lower() == p.card.lower()), None)
    if card is None:
        raise hard(f"{p.card!r} is not in the Richese cache ({', '.join(cache) or 'empty'}).", RULE_CACHE)
    b = auction(state)  # the cache card replaces one normal auction card
    ctx.check(b["sold"] == 0 or p.when == "last", "A cache card auctioned first goes before any normal card.",
              RULE_CACHE)
    b["cards"] = max(0, b["cards"] - 1)
    state["bidding"] = b
    cache.remove(card)
    eligible = _eligible(state)
    order = (richese.once_around_order(current_order(state), eligible, p.clockwise)
             if p.method == "once_around" else [f for f in current_order(state) if f in eligible])
    state["cache_auction"] = {
        "turn": state["turn"], "card": card, "when": p.when, "method": p.method, "order": order,
        "status": "open", "high": None, "passed": [], "bids_in": [], "bids": None, "winner": None, "price": 0,
    }


def _settle(ctx: Ctx, state: dict, a: dict, buyer: str | None, price: int) -> None:
    """Hand the card over and pay: others pay Richese; Richese pays the Emperor or the bank."""
    if buyer is None:
        a["status"] = "unsold"  # Richese may take it free or remove it (cache.take)
        return
    a.update(status="sold", winner=buyer, price=price)
    payee = richese.cache_payee(buyer, state["factions_present"])
    part = min(price, _ally_part(state, a, buyer))
    if part:  # the ally's contribution first: incoming spice cannot fund it
        ally = state["alliances"][buyer]
        add_spice(state, ally, -part)
        to = richese.cache_payee(ally, state["factions_present"])  # Richese's own part: Emperor or bank
        if to != "bank":
            add_spice(state, to, part)
        a["ally_paid"] = part
    add_spice(state, buyer, -(price - part))
    if payee != "bank":
        add_spice(state, payee, price - part)
    for f in state["factions_present"]:
        state["private"][f].pop("cache_pledge", None)
        state["private"][f].pop("cache_ally_part", None)
    _give(ctx, state, buyer, a["card"])


def _ally_part(state: dict, a: dict, buyer: str) -> int:
    if a["method"] == "once_around":
        return (a.get("high") or {}).get("ally_spice", 0) or 0
    return state["private"][buyer].get("cache_ally_part", 0) or 0


def _pledge(state: dict, f: str) -> int:
    """What ``f``'s ally allows toward ``f``'s cache bid this auction (0: nothing pledged)."""
    ally = state["alliances"].get(f)
    got = state["private"][ally].get("cache_pledge") if ally else None
    a = cache_auction(state)
    if not got or not a or got["for"] != f or got["card"] != a["card"]:
        return 0
    return got["spice"]


def check_ally_part(state: dict, f: str, amount: int, ally_spice: int, rule: str) -> None:
    """A cache bid of ``amount`` with ``ally_spice`` of it from the bidder's ally: never beyond what
    the ally pledged, nor what the ally holds (the refusal never tells the ally's total)."""
    if not ally_spice:
        return
    ally = state["alliances"].get(f)
    if not ally:
        raise hard(f"{name(f)} has no ally to add spice to the bid.", "richese-cache-ally-bid")
    if ally_spice > amount:
        raise hard(f"The ally's part ({ally_spice}) cannot be more than the whole bid ({amount}).", rule)
    allowed = _pledge(state, f)
    if ally_spice > allowed:
        raise hard(f"{name(ally)} allow{'s' if ally != 'richese' else ''} at most {allowed} spice toward "
                   f"{name(f)}'s bid for this cache card: ask them to pledge more.", "richese-cache-ally-bid")
    if ally_spice > state["private"][ally]["spice"]:
        raise hard(f"{name(ally)} cannot cover {ally_spice} spice toward the bid now: ask them to pledge again.",
                   "richese-cache-ally-bid")


class CachePledge(Payload):
    type: Literal["cache.pledge"]
    faction: FactionId  # the ally who adds spice
    spice: int = Field(ge=0, le=999)  # 0 withdraws the pledge


@action("cache.pledge", CachePledge, public=(), secret=True,
        summary=lambda p: f"{name(p.faction)} pledge spice toward their ally's cache bid")
def cache_pledge(ctx: Ctx, state: dict, p: CachePledge) -> None:
    """From the ally's own phone: the most of its spice its ally may add to a cache bid (Once Around
    or sealed). Only the two allies see the number; it is spent only if that bid wins."""
    f = present(state, p.faction)
    ally = state["alliances"].get(f)
    if not ally:
        raise hard(f"{name(f)} has no ally to help with a cache bid.", "richese-cache-ally-bid")
    a = cache_auction(state)
    if not a or a["status"] != "open":
        raise hard("No cache auction is open.", RULE_CACHE)
    if p.spice > state["private"][f]["spice"]:
        raise hard(f"{name(f)} has {state['private'][f]['spice']} spice and cannot pledge {p.spice}.",
                   "richese-cache-ally-bid")
    if p.spice:
        state["private"][f]["cache_pledge"] = {"for": ally, "card": a["card"], "spice": p.spice}
        state["private"][ally]["cache_ally_pledge"] = p.spice
    else:
        state["private"][f].pop("cache_pledge", None)
        state["private"][ally].pop("cache_ally_pledge", None)


def _give(ctx: Ctx, state: dict, f: str, card: str) -> None:
    """A named card into ``f``'s hand; Harkonnen's usual free extra card, if the hand has room,
    comes from the top of the Treachery deck (unnamed until the phone names it)."""
    pub = state["factions"][f]
    pub["hand_size"] += 1
    state["private"][f].setdefault("cards", []).append(card)
    _harkonnen_bonus(ctx, state, f)


def _harkonnen_bonus(ctx: Ctx, state: dict, f: str) -> None:
    pub = state["factions"][f]
    if f == "harkonnen" and economy.harkonnen_bonus_card(pub["hand_size"], pub["hand_limit"]):
        draw_cards(ctx, state, f, 1)


class CacheBid(Payload):
    type: Literal["cache.bid"]
    faction: FactionId
    amount: int | None = Field(default=None, ge=1, le=999)  # None: pass
    karama: bool = False
    ally_spice: int = Field(default=0, ge=0, le=999)  # part of the bid the bidder's ally pays (pledged)


@action("cache.bid", CacheBid, public=("faction", "amount", "karama", "ally_spice"),
        summary=lambda p: f"{name(p.faction)} " + (f"bids {p.amount} for the cache card" if p.amount else "passes"))
def cache_bid(ctx: Ctx, state: dict, p: CacheBid) -> None:
    """Once Around: each eligible faction, from Richese's neighbour round to Richese, one chance."""
    f = present(state, p.faction)
    a = cache_auction(state)
    if not a or a["status"] != "open" or a["method"] != "once_around":
        raise hard("No Once Around cache auction is open.", RULE_CACHE)
    pub = state["factions"][f]
    ctx.rules(richese.check_cache_bidder, f, pub["hand_size"], pub["hand_limit"], karama=p.karama)
    done = a["passed"] + ([a["high"]["faction"]] if a["high"] else []) + a.get("spoke", [])
    waiting = [x for x in a["order"] if x not in done]
    if not waiting or waiting[0] != f:
        raise hard(f"It is {name(waiting[0])}'s chance to bid on the cache card." if waiting
                   else "Every faction has had its chance.", RULE_CACHE)
    a.setdefault("spoke", []).append(f)
    if p.amount is not None:
        high = a["high"]["amount"] if a["high"] else 0
        if p.amount <= high:
            raise hard(f"Outbid {high}: bid {high + 1} or more, or pass.", RULE_CACHE)
        check_ally_part(state, f, p.amount, p.ally_spice, RULE_CACHE)
        own = p.amount - p.ally_spice
        if own > state["private"][f]["spice"]:
            raise hard(f"{name(f)} has {state['private'][f]['spice']} spice and cannot bid {own} of its own.",
                       RULE_CACHE)
        a["high"] = {"faction": f, "amount": p.amount, "ally_spice": p.ally_spice}
    else:
        a["passed"].append(f)
    if len(a["spoke"]) >= len(a["order"]):
        high = a["high"]
        _settle(ctx, state, a, high["faction"] if high else None, high["amount"] if high else 0)


class CacheSilentBid(Payload):
    type: Literal["cache.silent_bid"]
    faction: FactionId
    amount: int = Field(ge=0, le=999)
    ally_spice: int = Field(default=0, ge=0, le=999)  # part of the sealed bid the bidder's ally pays


@action("cache.silent_bid", CacheSilentBid, public=(), secret=True,
        summary=lambda p: f"{name(p.faction)} seals a bid for the cache card")
def cache_silent_bid(ctx: Ctx, state: dict, p: CacheSilentBid) -> None:
    """A sealed bid: kept in the bidder's private part; when every eligible faction has bid, all are
    revealed together and the largest wins (ties by storm order)."""
    f = present(state, p.faction)
    a = cache_auction(state)
    if not a or a["status"] != "open" or a["method"] != "silent":
        raise hard("No Silent cache auction is open.", RULE_SILENT)
    if f not in a["order"]:
        pub = state["factions"][f]
        ctx.rules(richese.check_cache_bidder, f, pub["hand_size"], pub["hand_limit"])
        raise hard(f"{name(f)} cannot bid in this cache auction.", RULE_SILENT)
    if f in a["bids_in"]:
        raise hard(f"{name(f)} has already sealed a bid.", RULE_SILENT)
    check_ally_part(state, f, p.amount, p.ally_spice, RULE_SILENT)
    richese.check_bid_amount(f, p.amount - p.ally_spice, state["private"][f]["spice"])
    state["private"][f]["cache_bid"] = p.amount
    if p.ally_spice:
        state["private"][f]["cache_ally_part"] = p.ally_spice
    a["bids_in"].append(f)
    if set(a["bids_in"]) >= set(a["order"]):  # all in: reveal together
        bids = {x: state["private"][x].pop("cache_bid") for x in a["order"]}
        a["bids"] = bids
        winner, price = richese.silent_winner(bids, current_order(state))
        _settle(ctx, state, a, winner, price)
        ctx.summary = (f"{name(f)} seals a bid; all bids revealed: "
                       + ", ".join(f"{name(x)} {n}" for x, n in bids.items())
                       + (f"; {name(winner)} buys {a['card']} for {price}" if winner else "; nobody bid"))


class CacheTake(Payload):
    type: Literal["cache.take"]
    faction: Literal["richese"] = "richese"
    keep: bool  # True: Richese takes the card free; False: it is removed from the game


@action("cache.take", CacheTake, public=("faction", "keep"),
        summary=lambda p: "Richese take the unsold cache card free" if p.keep else "Richese remove the unsold "
                                                                                   "cache card from the game")
def cache_take(ctx: Ctx, state: dict, p: CacheTake) -> None:
    a = cache_auction(state)
    if not a or a["status"] != "unsold":
        raise hard("Only a cache card nobody bid on can be taken free or removed.", RULE_CACHE)
    if p.keep:
        pub = state["factions"]["richese"]
        ctx.check(pub["hand_size"] < pub["hand_limit"], "Richese's hand is full: remove the card instead.",
                  RULE_CACHE)
        _give(ctx, state, "richese", a["card"])
        a["status"] = "kept"
    else:
        a["status"] = "removed"


def cache_steps(state: dict) -> list:
    """The Bidding phase card's cache-auction line (rules/phase_steps.Step)."""
    from ..rules.phase_steps import Step
    a = cache_auction(state)
    if not state["factions"]["richese"]["cache"] and not a:
        return []
    if not a:
        return [Step("cache-auction", "Richese announce this round's cache card (first or last) and its method",
                     False, ("richese",), RULE_CACHE)]
    if a["status"] == "open":
        if a["method"] == "silent":
            waiting = tuple(f for f in a["order"] if f not in a["bids_in"])
            return [Step("cache-auction", f"sealed bids for {a['card']}: waiting for "
                         + ", ".join(name(f) for f in waiting), False, waiting, RULE_SILENT)]
        spoke = a.get("spoke", [])
        nxt = next((f for f in a["order"] if f not in spoke), None)
        return [Step("cache-auction", f"Once Around for {a['card']}: {name(nxt)} to bid or pass", False,
                     (nxt,) if nxt else (), "richese-once-around")]
    if a["status"] == "unsold":
        return [Step("cache-auction", f"nobody bid for {a['card']}: Richese take it free or remove it", False,
                     ("richese",), RULE_CACHE)]
    return [Step("cache-auction", f"cache card {a['card']}: {a['status']}", True, (), RULE_CACHE)]


# -- Black Market (Advanced) ------------------------------------------------------------------

class BlackMarketSell(Payload):
    type: Literal["blackmarket.sell"]
    faction: Literal["richese"] = "richese"
    buyer: FactionId
    price: int = Field(ge=1, le=999)
    card: str | None = Field(default=None, max_length=60)  # the card from Richese's hand, if named there


@action("blackmarket.sell", BlackMarketSell, public=("faction", "buyer", "price"),
        summary=lambda p: f"Richese sell a card on the Black Market to {name(p.buyer)} for {p.price}")
def blackmarket_sell(ctx: Ctx, state: dict, p: BlackMarketSell) -> None:
    """Advanced: before Declaration Richese sells one card from its hand; the buyer pays Richese and
    one fewer normal card is auctioned. (Nobody bidding: nothing to record, Richese keeps it.)"""
    present(state, "richese")
    _stopped(state, "richese-black-market")
    buyer = present(state, p.buyer)
    ctx.check(bool(state["options"].get("advanced")), "The Black Market is an Advanced power.",
              "richese-black-market")
    ctx.check(state["phase"] == "bidding", "The Black Market opens at the start of Bidding.",
              "richese-black-market")
    if buyer == "richese":
        raise hard("Richese cannot buy its own Black Market card.", "richese-black-market")
    pub = state["factions"]
    if pub["richese"]["hand_size"] < 1:
        raise hard("Richese holds no card to sell.", "richese-black-market")
    ctx.rules(richese.check_cache_bidder, buyer, pub[buyer]["hand_size"], pub[buyer]["hand_limit"])
    b = auction(state)  # counted before the hands change: one fewer normal card than that
    hand = state["private"]["richese"].setdefault("cards", [])
    card = next((c for c in hand if p.card and c.lower() == p.card.lower()), None)
    if card:
        hand.remove(card)
    pub["richese"]["hand_size"] -= 1
    add_spice(state, buyer, -p.price)
    add_spice(state, "richese", p.price)
    if card:
        _give(ctx, state, buyer, card)
    else:  # Richese's card was never named: it changes hands unnamed
        pub[buyer]["hand_size"] += 1
        _harkonnen_bonus(ctx, state, buyer)
    b["cards"] = max(0, b["cards"] - 1)
    state["bidding"] = b


__all__ = ["RULE_CACHE", "RULE_SILENT", "cache_auction", "cache_steps", "check_ally_part"]
