"""Entries of the CHOAM & Richese add-on (not KISS): the Richese cache auction, No-Field tokens,
CHOAM's charity, Inflation, discards for spice and the allied card trade.

Hidden numbers (a face-down No-Field's number, sealed cache bids) live only under
``state["private"]["richese"]`` / ``state["private"][bidder]``; the public state carries the
marker and who has bid, never the amounts, until they are revealed together."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import choam as choam_rules
from ..rules import economy, richese, shipment
from ..rules.board import piece_id, split_piece
from ..rules.errors import RuleViolation, hard
from ..state import position_of
from . import REGISTRY, Ctx, FactionId, Payload, action
from .core import add_spice, discard_card, draw_cards, name, play_karama, present, resolve_place
from .turn import _in_storm_order, _order_before, _wrap, charity_gate, current_order

RULE_CACHE = "richese-cache-auction"
RULE_SILENT = "richese-silent-auction"
RULE_NOFIELD = "richese-no-field"


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


@action("cache.announce", CacheAnnounce,
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
    from .turn import auction
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


@action("cache.pledge", CachePledge, secret=True,
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


@action("cache.bid", CacheBid,
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


@action("cache.silent_bid", CacheSilentBid, secret=True,
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


@action("cache.take", CacheTake,
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


# -- Black Market (Advanced) ------------------------------------------------------------------

class BlackMarketSell(Payload):
    type: Literal["blackmarket.sell"]
    faction: Literal["richese"] = "richese"
    buyer: FactionId
    price: int = Field(ge=1, le=999)
    card: str | None = Field(default=None, max_length=60)  # the card from Richese's hand, if named there


@action("blackmarket.sell", BlackMarketSell,
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
    from .turn import auction
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


# -- No-Field tokens -------------------------------------------------------------------------

def _nofield(state: dict) -> dict | None:
    return state["private"]["richese"].get("nofield") if "richese" in state["private"] else None


class NoFieldShip(Payload):
    type: Literal["nofield.ship"]
    faction: Literal["richese"] = "richese"
    territory: str = Field(min_length=1, max_length=60)
    sector: int | None = Field(default=None, ge=1, le=18)
    token: int = Field(ge=0, le=5)  # 0, 3 or 5 (rules/richese.check_nofield_ship refuses the others)


@action("nofield.ship", NoFieldShip, secret=True, summary=lambda p: f"Richese ship a No-Field to {p.territory}")
def nofield_ship(ctx: Ctx, state: dict, p: NoFieldShip) -> None:
    present(state, "richese")
    _stopped(state, "richese-no-field")
    territory, sector = resolve_place(ctx, state, p.territory, p.sector)
    ctx.check(state["phase"] == "shipment_movement", "A No-Field is shipped in the Shipment & Movement phase.",
              RULE_NOFIELD)
    here = _nofield(state)
    ctx.rules(richese.check_nofield_ship, p.token, on_planet=here["token"] if here else None,
              last_used=state["factions"]["richese"]["nofield_faceup"])
    if here:  # an override: the token on the planet goes back, unrevealed
        state["board"].pop("nofield", None)
    pos = position_of(state)
    spice = state["private"]["richese"]["spice"]
    cost = ctx.rules(shipment.check_ship, ctx.board, pos, "richese", territory, sector, 1, 0, reserves=1,
                     reserves_starred=0, spice=spice, guild_in_game="guild" in state["factions_present"],
                     ally=state["alliances"].get("richese"),
                     shipped_this_turn=state["turn_flags"]["richese"]["shipped"])
    if cost is None:
        cost = shipment.ShipCost(1 if ctx.board.territories.get(territory) and
                                 ctx.board.territories[territory].is_stronghold else 2,
                                 "guild" if "guild" in state["factions_present"] else "bank")
    if cost.amount > spice:
        raise hard(f"Richese has {spice} spice; shipping a No-Field costs {cost.amount}.", "base-shipment-cost")
    add_spice(state, "richese", -cost.amount)
    if cost.payee == "guild" and "guild" in state["factions_present"]:
        add_spice(state, "guild", cost.amount)
    piece = piece_id(territory, sector)
    state["board"]["nofield"] = {"piece": piece}
    state["private"]["richese"]["nofield"] = {"piece": piece, "token": p.token}
    state["factions"]["richese"]["nofield_faceup"] = None  # the face-up token returns when another is placed
    state["private"]["richese"]["nofield_last"] = p.token
    state["turn_flags"]["richese"]["shipped"] = True
    state["last_shipment"] = {"faction": "richese", "territory": territory, "cost": cost.amount,
                              "payee": cost.payee}


class NoFieldAlly(Payload):
    type: Literal["nofield.ally_ship"]
    faction: Literal["richese"] = "richese"
    territory: str = Field(min_length=1, max_length=60)
    sector: int | None = Field(default=None, ge=1, le=18)
    token: int = Field(ge=0, le=5)
    payer: Literal["richese", "ally"] = "richese"


@action("nofield.ally_ship", NoFieldAlly,
        summary=lambda p: f"Richese ship their ally's forces to {p.territory} with the {p.token} No-Field")
def nofield_ally_ship(ctx: Ctx, state: dict, p: NoFieldAlly) -> None:
    """A No-Field shipment for the ally's forces, revealed at once: any token already on the planet
    is revealed first; one force's price (1 to a stronghold, 2 elsewhere, to the Guild or the bank)
    paid by either ally; up to the token's number of the ally's reserves are placed."""
    present(state, "richese")
    _stopped(state, "richese-no-field")
    _stopped(state, "richese-ally-benefit")
    ally = state["alliances"].get("richese")
    if not ally:
        raise hard("Richese offer a No-Field shipment only to an ally.", "richese-alliance")
    territory, sector = resolve_place(ctx, state, p.territory, p.sector)
    ctx.check(state["phase"] == "shipment_movement", "A No-Field is shipped in the Shipment & Movement phase.",
              RULE_NOFIELD)
    if _nofield(state):  # reveal the token already on the planet first
        state["last_revealed"] = {"by": "richese", "territory": split_piece(_nofield(state)["piece"])[0],
                                  "marker": reveal_nofield(state, "voluntary")}
    ctx.rules(richese.check_nofield_ship, p.token, on_planet=None,
              last_used=state["factions"]["richese"]["nofield_faceup"])
    payer = "richese" if p.payer == "richese" else ally
    pos = position_of(state)
    reserves = state["factions"][ally]["reserves"]
    n = richese.reveal_forces(p.token, reserves["forces"])
    cost = ctx.rules(shipment.check_ship, ctx.board, pos, ally, territory, sector, max(n, 1), 0,
                     reserves=max(reserves["forces"], 1), reserves_starred=0, spice=10 ** 6,
                     guild_in_game="guild" in state["factions_present"], ally="richese",
                     shipped_this_turn=state["turn_flags"][ally]["shipped"])
    t = ctx.board.territories.get(territory)
    amount = 1 if t and t.is_stronghold else 2  # one force's price, whatever number is revealed
    payee = "guild" if "guild" in state["factions_present"] and payer != "guild" else "bank"
    if cost is not None and cost.payee == "bank":
        payee = "bank"
    have = state["private"][payer]["spice"]
    if amount > have:
        raise hard(f"{name(payer)} has {have} spice; the No-Field shipment costs {amount}.", "base-shipment-cost")
    add_spice(state, payer, -amount)
    if payee == "guild":
        add_spice(state, "guild", amount)
    if n:
        from ..state import place_forces
        place_forces(state, ally, piece_id(territory, sector), n, 0, 0, "reserves")
    state["factions"]["richese"]["nofield_faceup"] = p.token
    state["turn_flags"][ally]["shipped"] = True
    ctx.summary = (f"Richese ship {n} {name(ally)} force{'s' if n != 1 else ''} to {territory} with the "
                   f"{p.token} No-Field ({name(payer)} pays {amount})")


class NoFieldMove(Payload):
    type: Literal["nofield.move"]
    faction: Literal["richese"] = "richese"
    to: str = Field(min_length=1, max_length=60)
    to_sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Field(default=0, ge=0, le=20)  # Richese forces moving with it, from the same piece


@action("nofield.move", NoFieldMove, summary=lambda p: f"Richese move the No-Field to {p.to}"
        + (f" with {p.forces} forces" if p.forces else ""))
def nofield_move(ctx: Ctx, state: dict, p: NoFieldMove) -> None:
    """A face-down No-Field moves like a force: it is Richese's one group move of the turn."""
    from ..rules import movement
    from ..state import shift_forces
    from .moves import allowance_for
    present(state, "richese")
    hidden = _nofield(state)
    if not hidden:
        raise hard("Richese has no No-Field on the planet.", RULE_NOFIELD)
    src_t, src_s = split_piece(hidden["piece"])
    dst_t, dst_s = resolve_place(ctx, state, p.to, p.to_sector)
    ctx.check(state["phase"] == "shipment_movement", "Movement happens in the Shipment & Movement phase.",
              "base-movement")
    ctx.check(not state["turn_flags"]["richese"]["moved"], "Richese has already moved a group this turn.",
              "base-movement")
    ctx.rules(movement.check_move, ctx.board, position_of(state), "richese", src_t, src_s, dst_t, dst_s,
              allowance_for(state, "richese"))
    dst = piece_id(dst_t, dst_s)
    if p.forces:
        shift_forces(state, "richese", hidden["piece"], dst, p.forces, 0)
    hidden["piece"] = dst
    state["board"]["nofield"] = {"piece": dst}
    state["turn_flags"]["richese"]["moved"] = True


class NoFieldReveal(Payload):
    type: Literal["nofield.reveal"]
    faction: Literal["richese"] = "richese"
    cause: Literal["voluntary", "battle", "storm", "worm", "gamont"] = "voluntary"


def reveal_nofield(state: dict, cause: str) -> str:
    """Turn the token face up: place its number of forces from reserves (or destroy them, for a
    storm or worm), never more than the reserves hold. Returns the history line."""
    hidden = _nofield(state)
    if not hidden:
        raise hard("Richese has no No-Field on the planet.", RULE_NOFIELD)
    piece, token = hidden["piece"], hidden["token"]
    reserves = state["factions"]["richese"]["reserves"]
    n = richese.reveal_forces(token, reserves["forces"])
    territory, _ = split_piece(piece)
    if cause in ("storm", "worm"):
        reserves["forces"] -= n
        state["factions"]["richese"]["tanks"]["forces"] += n
        what = f"{n} force{'s' if n != 1 else ''} destroyed by the {cause}"
    else:
        from ..state import place_forces
        if n:
            place_forces(state, "richese", piece, n, 0, 0, "reserves")
        back = 1 if cause == "gamont" and n else 0  # Trip to Gamont: one revealed force back to reserves
        if back:
            from ..state import remove_forces
            remove_forces(state, "richese", piece, 1, 0, 0, "reserves")
        what = f"{n - back} force{'s' if n - back != 1 else ''} placed"
    state["board"].pop("nofield", None)
    state["private"]["richese"]["nofield"] = None
    state["factions"]["richese"]["nofield_faceup"] = token
    return f"Richese reveal the No-Field in {territory}: {token} ({what})"


@action("nofield.reveal", NoFieldReveal, summary=lambda p: f"Richese reveal the No-Field ({p.cause})")
def nofield_reveal(ctx: Ctx, state: dict, p: NoFieldReveal) -> None:
    present(state, "richese")
    if p.cause == "voluntary":
        ctx.check(state["phase"] not in ("battle", "collection", "mentat_pause"),
                  "A No-Field is revealed by choice only before the Battle phase; in battle it is revealed with "
                  "the battle plan.", RULE_NOFIELD)
    ctx.summary = reveal_nofield(state, p.cause)


# battles: a No-Field fights as one force until revealed; Richese cannot dial more forces than it
# can reveal; the token is revealed with the battle plans.

def _battle_territory(state: dict, battle_id: str) -> str | None:
    for b in state.get("battles", []) or []:
        if b.get("id") == battle_id:
            return b["territory"]
    return None


def _nofield_in(state: dict, territory: str | None) -> dict | None:
    hidden = _nofield(state)
    if hidden and territory and split_piece(hidden["piece"])[0] == territory:
        return hidden
    return None


def _phantom(state: dict, piece: str, n: int) -> None:
    """Count ``n`` more Richese forces on ``piece`` for a check only (taken away right after)."""
    stacks = state["board"]["forces"].setdefault(piece, {})
    s = stacks.setdefault("richese", {"forces": 0, "starred": 0, "advisors": 0})
    s["forces"] += n
    if not any(s.values()):
        del stacks["richese"]
    if not stacks:
        del state["board"]["forces"][piece]


def _with_nofield(territory_of):
    at_name = territory_of

    def wrap(type_: str, inner_count) -> None:
        at = REGISTRY[type_]
        inner = at.handler

        def handler(ctx: Ctx, state: dict, p) -> None:
            hidden = _nofield_in(state, at_name(state, p))
            n = inner_count(state, hidden, p) if hidden else 0
            if not n:
                return inner(ctx, state, p)
            _phantom(state, hidden["piece"], n)
            try:
                inner(ctx, state, p)
            finally:
                _phantom(state, hidden["piece"], -n)
        at.handler = handler
    return wrap


def _open_territory(state: dict, p) -> str | None:
    try:
        from ..rules.board import load_board
        return load_board().resolve(p.territory)
    except Exception:  # noqa: BLE001 - the entry's own handler refuses bad names
        return None


def _plan_count(state: dict, hidden: dict, p) -> int:
    if p.faction != "richese":
        return 0
    from ..state import territory_forces
    reserves = state["factions"]["richese"]["reserves"]["forces"]
    territory = split_piece(hidden["piece"])[0]
    real = territory_forces(state, territory).get("richese", {"forces": 0})["forces"]
    # Richese cannot dial more forces than it can actually reveal (CHOAM & Richese rules, No-Field)
    richese.check_nofield_dial(p.forces, hidden["token"], reserves, real)
    return richese.reveal_forces(hidden["token"], reserves)


_with_nofield(_open_territory)("battle.open", lambda state, hidden, p: 1)
_with_nofield(lambda state, p: _battle_territory(state, p.battle))("battle.plan", _plan_count)


def _reveal_before_plans(ctx: Ctx, state: dict, p):
    territory = _battle_territory(state, p.battle)
    if _nofield_in(state, territory):
        b = next(b for b in state["battles"] if b["id"] == p.battle)
        if "richese" in b["sides"] and b["status"] == "planning" and len(b["sealed"]) == len(b["sides"]):
            state["last_revealed"] = {"by": "richese", "territory": territory,
                                      "marker": reveal_nofield(state, "battle")}
    return None


_wrap("battle.reveal", before=_reveal_before_plans)


def _with_token(state: dict) -> dict:
    """The state as the storm and worm rules should see it: the No-Field as one Richese force."""
    from ..state import forces_with_nofield
    return dict(state, board=dict(state["board"], forces=forces_with_nofield(state)))


def _storm_hits_nofield(ctx: Ctx, state: dict, p):
    hidden = _nofield(state)
    if not hidden:
        return False
    from .turn import preview_storm
    try:
        return hidden["piece"] in preview_storm(ctx.board, state, p.sectors, p.adjust).pieces_hit
    except RuleViolation:
        return False


def _worm_eats_nofield(ctx: Ctx, state: dict, p):
    hidden = _nofield(state)
    if not hidden:
        return False
    from .turn import preview_blow
    try:
        b = preview_blow(ctx.board, _with_token(state), p.card, p.pile, p.worm_territory, p.protect_ally)
    except RuleViolation:
        return False
    return b.kind == "worm" and bool((b.devoured or {}).get(hidden["piece"], {}).get("richese"))


def _reveal_by(cause: str):
    def after(ctx: Ctx, state: dict, p, hit) -> None:
        if hit and _nofield(state):
            territory = split_piece(_nofield(state)["piece"])[0]
            state["last_revealed"] = {"by": "richese", "territory": territory,
                                      "marker": reveal_nofield(state, cause)}
    return after


# a storm or worm reveals the token and destroys that many forces from reserves
_wrap("storm.move", before=_storm_hits_nofield, after=_reveal_by("storm"))
_wrap("spice.blow", before=_worm_eats_nofield, after=_reveal_by("worm"))
_wrap("nofield.ship", before=_order_before, after=_in_storm_order("ship"))
_wrap("nofield.move", before=_order_before, after=_in_storm_order("move"))


# -- CHOAM -----------------------------------------------------------------------------------

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


@action("inflation.place", InflationPlace, summary=lambda p: f"CHOAM place Inflation, {p.side.title()} side up")
def inflation_place(ctx: Ctx, state: dict, p: InflationPlace) -> None:
    present(state, "choam")
    inflation = _inflation(state)
    if inflation:
        raise hard("CHOAM has already used Inflation: it is placed once, flipped once, then removed.",
                   "choam-inflation")
    ctx.rules(choam_rules.check_inflation_place, None, p.side, state["phase"])
    _stopped(state, "choam-inflation")
    state["factions"]["choam"]["inflation"] = {"placed_turn": state["turn"], "side": p.side}


class ChoamDiscard(Payload):
    type: Literal["choam.discard"]
    faction: Literal["choam"] = "choam"
    card: str = Field(min_length=1, max_length=60)
    effect: bool = False  # a Worthless Card discarded for its own CHOAM effect instead of spice


@action("choam.discard", ChoamDiscard, summary=lambda p: f"CHOAM discard {p.card} for "
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


@action("choam.trade", ChoamTrade, secret=True, summary=lambda p: "CHOAM and its ally trade one card each")
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


# -- Karama against CHOAM's advantages --------------------------------------------------------

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


class KaramaAddon(Payload):
    type: Literal["karama.addon"]
    faction: FactionId  # who plays the Karama
    effect: Literal["choam-discard", "choam-inflation", "choam-ally-trade", "richese-cache-auction",
                    "richese-no-field", "richese-black-market", "richese-ally-benefit", "choam-support-income"]
    battle: str | None = Field(default=None, max_length=40)  # choam-support-income: the battle


@action("karama.addon", KaramaAddon,
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
    action(_t, KaramaChoam, summary=lambda p, w=_what: f"{name(p.faction)} play a Karama: no CHOAM {w} this turn"
           )(_karama_on_choam)


# -- bribes -------------------------------------------------------------------------------------

class Bribe(Payload):
    type: Literal["bribe"]
    payer: FactionId = Field(alias="from")
    to: FactionId
    spice: int = Field(ge=1, le=99)

    @property
    def parties(self) -> list[str]:
        return [self.payer, self.to]


@action("bribe", Bribe, faction_field="parties",
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


@action("auditor.inspect", AuditorEntry,
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


@action("auditor.cancel", AuditorEntry,
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


@action("karama.choam_audit", KaramaAudit,
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


# -- Leader Skills (optional module) ------------------------------------------------------------

def _skills_taken(state: dict) -> list[str]:
    return [state["private"][f]["skill"]["name"] for f in state["factions_present"]
            if (state["private"][f].get("skill") or {}).get("name")]


def _deck_count(state: dict) -> None:
    state["skill_deck"] = {"size": len(choam_rules.skill_names()), "in_deck": len(choam_rules.skill_names())
                           - len(_skills_taken(state))}


def _publish_skill(state: dict, f: str) -> None:
    mine = state["private"][f].get("skill")
    if not mine:
        state["factions"][f]["skill"] = None
    elif mine.get("face_up", True):
        state["factions"][f]["skill"] = {"name": mine["name"], "leader": mine["leader"]}
    else:
        state["factions"][f]["skill"] = {"hidden": True}  # behind the shield: that it exists is public


class SkillAssign(Payload):
    type: Literal["skill.assign"]
    faction: FactionId
    leader: str = Field(min_length=1, max_length=60)
    skill: str = Field(min_length=1, max_length=60)
    hidden: bool = False  # kept behind the shield instead of face up in front of it


@action("skill.assign", SkillAssign, secret=True,
        summary=lambda p: f"{name(p.faction)} assign a Leader Skill")
def skill_assign(ctx: Ctx, state: dict, p: SkillAssign) -> None:
    """The kept Skill Card goes with one eligible leader (at setup, or after reviving one's own
    leader while holding none): face up in front of the shield (public) or behind it (private)."""
    from .core import find_leader
    f = present(state, p.faction)
    ctx.check(bool(state["options"].get("leader_skills")), "Leader Skills are an optional module this table "
              "did not choose.", "choam-richese-leader-skills")
    skill = choam_rules.skill_name(p.skill)
    ld = find_leader(state, f, p.leader)
    held = (state["private"][f].get("skill") or {}).get("name")
    ctx.rules(choam_rules.check_skill_assign, skill, ld["name"], ld["status"], held=held,
              taken=[x for x in _skills_taken(state) if x != held])
    state["private"][f]["skill"] = {"name": skill, "leader": ld["name"], "face_up": not p.hidden}
    _publish_skill(state, f)
    _deck_count(state)


class SkillShow(Payload):
    type: Literal["skill.show"]
    faction: FactionId
    face_up: bool


@action("skill.show", SkillShow, secret=True,
        summary=lambda p: f"{name(p.faction)} " + ("show their skilled leader" if p.face_up
                                                    else "take their skilled leader behind the shield"))
def skill_show(ctx: Ctx, state: dict, p: SkillShow) -> None:
    """Choosing a battle leader: leave the skilled leader and card face up, or take both behind the shield."""
    f = present(state, p.faction)
    mine = state["private"][f].get("skill")
    if not mine:
        raise hard(f"{name(f)} holds no Leader Skill.", "choam-richese-leader-skills")
    mine["face_up"] = p.face_up
    _publish_skill(state, f)


def leader_died(state: dict, faction: str, leader: str) -> None:
    """Hook for any code that sends a leader to the tanks: its Skill Card goes back to the deck."""
    mine = (state["private"].get(faction) or {}).get("skill")
    if mine and mine["leader"] == leader:
        state["private"][faction]["skill"] = None
        _publish_skill(state, faction)
        _deck_count(state)


def skills_sync(ctx: Ctx, state: dict, p, _seen=None) -> None:
    """After any entry that may kill leaders: a dead skilled leader's card returns to the deck."""
    if not state["options"].get("leader_skills"):
        return
    for f in state["factions_present"]:
        mine = state["private"][f].get("skill")
        if not mine:
            continue
        ld = next((x for x in state["factions"][f]["leaders"] if x["name"] == mine["leader"]), None)
        if ld is None or ld["status"] == "tanks":
            leader_died(state, f, mine["leader"])


_wrap("leader.tanks", after=skills_sync)
_wrap("battle.apply", after=skills_sync)


def skill_view(state: dict, f: str) -> dict | None:
    """A faction's Leader Skill as the table sees it, with the leader's capture (a captured leader
    takes its skill along)."""
    pub = (state["factions"].get(f) or {}).get("skill")
    if not pub or pub.get("hidden"):
        return pub
    ld = next((x for x in state["factions"][f]["leaders"] if x["name"] == pub["leader"]), None)
    return dict(pub, captured_by=(ld or {}).get("captured_by"))


# -- Stronghold Cards (optional module, Advanced) ----------------------------------------------

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


def inflation_info(state: dict) -> dict | None:
    """For the views: the Inflation side ruling now and whether bribes are barred."""
    if "choam" not in state["factions_present"]:
        return None
    inf = _inflation(state)
    return {"placed": inf, "side_now": charity_side(state),
            "no_bribes": choam_rules.double_face_up(inf, state["turn"], state["phase"])}


__all__ = ["cache_auction", "reveal_nofield", "charity_side", "addon_charity_entitled", "cache_steps",
           "inflation_info", "karama_stopped", "choam_charity_now", "leader_died", "skill_view"]
