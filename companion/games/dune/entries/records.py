"""The Atreides' card records (KISS, Atreides sheet: during Bidding the Atreides look at each card as it
comes up, and "You, and only you, may keep written records about cards").

``cards.seen`` (secret, the Atreides only) notes the card up for auction; when it is bought it joins
the record of the buyer's hand. Every other entry keeps the records up to date from what the table
saw in public (``track``, put around every entry type by ``install``): discards, the cards played in
a revealed battle, trades and cards taken (a hand that loses cards nobody saw forgets what was known
of it), the Harkonnen bonus card (a card drawn is unknown), and the Atreides' own prescience answers.

The records live in ``state["card_records"][owner]`` (a private key: the views give each owner its
own records and nobody else anything, not even the host). The table option ``card_records``:
``"atreides"`` (the rule, the default) or ``"everyone"`` (a house rule: each seat keeps records of
what it saw itself: its own hand, the reveals in its battles, the public discards)."""
from __future__ import annotations

from typing import Literal

from ..rules import treachery
from ..rules.errors import hard
from . import Ctx, FactionId, Name, Payload, action
from .bidding import auction
from .bookkeeping import name, present, read_treachery

RULE = "atreides-prescience-bidding"
MODES = ("atreides", "everyone")


def owners(state: dict) -> list[str]:
    """The seats that keep card records at this table."""
    if state["options"].get("card_records", "atreides") == "everyone":
        return list(state["factions_present"])
    return ["atreides"] if "atreides" in state["factions_present"] else []


def _record(state: dict, owner: str) -> dict:
    recs = state.setdefault("card_records", {})
    return recs.setdefault(owner, {"hands": {}, "seen": None})


class CardsSeen(Payload):
    type: Literal["cards.seen"]
    faction: FactionId
    card: Name | None = None  # None: sealed (an export made while the game goes on carries no name)


@action("cards.seen", CardsSeen, secret=True, summary=lambda p: f"{name(p.faction)} note the card up for auction")
def cards_seen(ctx: Ctx, state: dict, p: CardsSeen) -> None:
    f = present(state, p.faction)
    if f != "atreides":
        raise hard("Only the Atreides look at the card up for auction.", RULE)
    ctx.check(state["phase"] == "bidding", "The Atreides see the cards up for auction in the Bidding phase.", RULE)
    if p.card is None:
        return
    printed = treachery.card(p.card).name
    b = auction(state)
    ctx.check(not b["ended"] and b["sold"] < b["cards"], "No card is up for auction now.", RULE)
    _record(state, f)["seen"] = {"turn": state["turn"], "card": b["sold"], "name": printed}


def seen_now(state: dict, owner: str) -> str | None:
    """The name the owner noted for the card up for auction now (None if not noted)."""
    rec = (state.get("card_records") or {}).get(owner) or {}
    seen = rec.get("seen")
    if not seen or state["phase"] != "bidding":
        return None
    b = auction(state)
    return seen["name"] if seen["turn"] == state["turn"] and seen["card"] == b["sold"] and not b["ended"] else None


# -- keeping the records up to date -----------------------------------------------------------------

def _pile(state: dict) -> list:
    return list((state.get("treachery") or {}).get("discard") or [])


def _before(state: dict, p) -> dict:
    return {"sizes": {f: x["hand_size"] for f, x in state["factions"].items()},
            "pile": _pile(state),
            "status": {b["id"]: b["status"] for b in state.get("battles", [])},
            "answers": set(((state["private"].get("atreides") or {}).get("prescience") or {})),
            "sold": auction(state)["sold"] if p.type == "bid.buy" and state["phase"] == "bidding" else None}


def _new_discards(before: list, after: list) -> list:
    if len(after) >= len(before) and after[:len(before)] == before:
        return after[len(before):]
    return list(after)  # reshuffled in between: what lies there now came after it


def _take(hand: list, card: str) -> bool:
    low = card.lower()
    for i, c in enumerate(hand):
        if c.lower() == low or (low == "cheap hero" and c.lower() in ("cheap hero", "cheap heroine")):
            del hand[i]
            return True
    return False


def _holds(hand: list, card: str) -> bool:
    low = card.lower()
    return any(c.lower() == low or (low == "cheap hero" and c.lower() in ("cheap hero", "cheap heroine")) for c in hand)


def _plan_cards(plan: dict) -> list[str]:
    cards = [plan.get(k) for k in ("weapon", "defense") if plan.get(k)]
    if plan.get("cheap_hero"):
        cards.append("Cheap Hero")
    return cards


def _after(state: dict, p, seen: dict) -> None:
    who = owners(state)
    if not who:
        return
    sizes = {f: x["hand_size"] for f, x in state["factions"].items()}
    discards = _new_discards(seen["pile"], _pile(state))
    shrunk = [f for f in sizes if sizes[f] < seen["sizes"].get(f, 0)]
    actor = getattr(p, "faction", None)
    revealed = [b for b in state.get("battles", []) if b["status"] == "revealed"
                and seen["status"].get(b["id"]) == "planning"]
    sides = [f for b in revealed for f in b["sides"]]
    for b in state.get("battles", []):  # an outcome applied: its sides discard
        if b["status"] == "applied" and seen["status"].get(b["id"]) == "revealed":
            sides += b["sides"]
    candidates = [x for x in [actor, *shrunk, *sides] if x in sizes]
    for owner in who:
        rec = _record(state, owner)
        hands = rec["hands"]
        for f in sizes:
            hands.setdefault(f, [])
        # 1. the cards played in a battle, face up: the table saw them in those hands
        for b in revealed:
            if owner != "atreides" and owner not in b["sides"]:
                continue  # the house rule: a seat records the reveals in its own battles
            for f in b["sides"]:
                for c in _plan_cards(b["plans"].get(f) or {}):
                    if f != owner and c.lower() not in [x.lower() for x in hands[f]]:
                        hands[f].append(c)
        # 2. discards, face up: out of the hand that held them (a hand that shrank first: two sides
        #    may discard in one entry, each from its own hand)
        lost_seen = {f: 0 for f in sizes}
        budget = {f: max(0, seen["sizes"].get(f, 0) - sizes[f]) for f in sizes}
        for c in discards:
            holds = [f for f in candidates if _holds(hands[f], c)]
            holder = next((f for f in holds if budget[f] > lost_seen[f]), None) \
                or next((f for f in candidates if budget[f] > lost_seen[f]), None) \
                or next(iter(holds), None) or next(iter(candidates), None)
            if holder is not None:
                _take(hands[holder], c)
                lost_seen[holder] += 1
        # 3. cards changing hands in public, or that the owner took part in
        moved: set = set()
        if p.type == "blackmarket.sell" and p.card:
            _take(hands["richese"], p.card)
            if p.buyer != owner:
                hands[p.buyer].append(p.card)
            moved |= {"richese"}
        if p.type == "choam.trade":
            ally = state["alliances"].get("choam")
            if owner in ("choam", ally):
                other = ally if owner == "choam" else "choam"
                _take(hands[other], p.receives if owner == "choam" else p.gives)
                hands[other].append(p.gives if owner == "choam" else p.receives)
            else:  # a card went each way, unseen: what was known of either hand may have moved
                hands["choam"].clear()
                if ally:
                    hands[ally].clear()
            moved |= {"choam", ally}
        # 4. a hand that lost cards nobody saw: the owner no longer knows which are left
        for f in sizes:
            unseen = seen["sizes"].get(f, 0) - sizes[f] - lost_seen[f]
            if unseen > 0 and f not in moved:
                hands[f].clear()
        # 5. the card the Atreides saw at auction joins the buyer's hand (the Harkonnen bonus card
        #    stays unknown: it is drawn, not seen)
        if p.type == "bid.buy" and rec.get("seen"):
            s = rec["seen"]
            if s["turn"] == state["turn"] and s["card"] == seen["sold"] and p.faction != owner:
                hands[p.faction].append(s["name"])
            rec["seen"] = None
        if p.type in ("bid.unsold", "phase.set", "phase.next"):
            rec["seen"] = None
        # 6. the Atreides' own prescience answers
        if owner == "atreides":
            answers = (state["private"].get("atreides") or {}).get("prescience") or {}
            for bid in set(answers) - seen["answers"]:
                a = answers[bid]
                b = next((x for x in state.get("battles", []) if x["id"] == bid), None)
                card = (a.get("value") or {}).get(a.get("element")) if a.get("element") in ("weapon", "defense") else None
                target = (b.get("prescience") or {}).get("target") if b else None
                if card and target and target != owner and card.lower() not in [x.lower() for x in hands[target]]:
                    hands[target].append(card)
        for f in sizes:  # never more known than held
            del hands[f][max(0, sizes[f]):]


def track(handler):
    def tracked(ctx: Ctx, state: dict, p) -> None:
        seen = _before(state, p) if owners(state) else None
        handler(ctx, state, p)
        if seen is not None:
            _after(state, p, seen)
    tracked.records_tracked = True
    return tracked


def install(registry: dict) -> None:
    """Put ``track`` around every entry type (once)."""
    for at in registry.values():
        if not getattr(at.handler, "records_tracked", False):
            at.handler = track(at.handler)


def records_view(state: dict, viewer: str) -> dict | None:
    """``{"hands": {F: [names]}, "unknown": {F: n}, "discarded": [...]}`` for an owner of records;
    None for every other seat, the host and the board."""
    if viewer not in owners(state):
        return None
    rec = (state.get("card_records") or {}).get(viewer) or {"hands": {}}
    hands, unknown = {}, {}
    for f in state["factions_present"]:
        held = state["factions"][f]["hand_size"]
        known = list(state["private"][f].get("cards", [])) if f == viewer else list(rec["hands"].get(f, []))
        known = known[:held]
        hands[f] = known
        unknown[f] = held - len(known)
    return {"hands": hands, "unknown": unknown, "discarded": list(read_treachery(state).get("discard", []))}


def card_seen_prompt(state: dict, viewer: str) -> dict | None:
    """The Atreides phone's buttons for the card up for auction (Bidding, a card up, the Atreides
    keeping records): which card of the auction it is, the name noted for it (None if not yet) and
    whether the 5 KISS cards are in the deck (the phone's buttons: every name the deck holds, grouped
    as on the naming prompt). None for every other seat and when nothing is up."""
    if viewer != "atreides" or "atreides" not in owners(state) or state["phase"] != "bidding":
        return None
    b = auction(state)
    if b["ended"] or b["sold"] >= b["cards"]:
        return None
    return {"card": b["sold"] + 1, "noted": seen_now(state, viewer),
            "kiss_added": bool(read_treachery(state).get("kiss_added"))}


__all__ = ["MODES", "owners", "install", "records_view", "seen_now", "card_seen_prompt"]
