"""Treachery cards in hand: the hand's size and names (``hand.set``, ``cards.set``, ``cards.name``,
``cards.keep_unnamed``), a discard (``cards.discard``) and the deck's reshuffle, and the card plays
that are entries of their own: the Tleilaxu Ghola, the Special Karama and the Bene Gesserit's
Worthless card as Karama. Draws and discards themselves are kept in bookkeeping.py."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ..rules.errors import hard
from . import Ctx, FactionId, Name, Payload, action
from .bookkeeping import (
    _clamp_prompts, discard_card, draw_pile, find_leader, name, play_karama, present, reshuffle, treachery_record,
)


# -- the hand --------------------------------------------------------------------------------------

class HandSet(Payload):
    type: Literal["hand.set"]
    faction: FactionId
    size: int = Field(ge=0, le=12)


@action("hand.set", HandSet,
        public=("faction", "size"), summary=lambda p: f"{name(p.faction)} holds {p.size} treachery cards")
def hand_set(ctx: Ctx, state: dict, p: HandSet) -> None:
    present(state, p.faction)
    limit = state["factions"][p.faction]["hand_limit"]
    ctx.check(p.size <= limit, f"{name(p.faction)} may hold at most {limit} treachery cards.", "base-hand-limit")
    state["factions"][p.faction]["hand_size"] = p.size
    cards = state["private"][p.faction]["cards"]
    if len(cards) > p.size:
        del cards[p.size:]
    _clamp_prompts(state, p.faction)


class CardsSet(Payload):
    type: Literal["cards.set"]
    faction: FactionId
    cards: list[str] = Field(max_length=12)

    @field_validator("cards")
    @classmethod
    def _names(cls, v):
        v = [c.strip() for c in v]
        if any(not c or len(c) > 60 for c in v):
            raise ValueError("each card is a name of 1 to 60 characters")
        return v


@action("cards.set", CardsSet, public=(), secret=True, summary=lambda p: f"{name(p.faction)} updates its cards")
def cards_set(ctx: Ctx, state: dict, p: CardsSet) -> None:
    from ..rules import treachery
    present(state, p.faction)
    cards = [treachery.card(c).name for c in p.cards]  # real cards only, as printed (a hard refusal)
    limit = state["factions"][p.faction]["hand_limit"]
    ctx.check(len(p.cards) <= limit, f"{name(p.faction)} may hold at most {limit} treachery cards.",
              "base-hand-limit")
    state["private"][p.faction]["cards"] = cards
    state["factions"][p.faction]["hand_size"] = len(cards)
    _clamp_prompts(state, p.faction)


class CardsName(Payload):
    type: Literal["cards.name"]
    faction: FactionId
    card: str = Field(min_length=1, max_length=60)


@action("cards.name", CardsName, public=(), secret=True, summary=lambda p: f"{name(p.faction)} name a card in hand")
def cards_name(ctx: Ctx, state: dict, p: CardsName) -> None:
    """Name one of the hand's unnamed cards (a card bought at auction, the Harkonnen bonus card...):
    secret, so the public ``bid.buy`` never carries the name; the count does not change."""
    from ..rules import treachery
    f = present(state, p.faction)
    c = treachery.card(p.card)
    mine = state["private"][f]
    hand = mine.setdefault("cards", [])
    if state["factions"][f]["hand_size"] <= len(hand):  # bookkeeping: no override names a card not held
        raise hard(f"Every card in {name(f)}'s hand is already named: correct the hand instead.", treachery.RULE)
    tr = treachery_record(state)
    ctx.check(treachery.copies_left(c.name, tr["discard"], hand, tr["kiss_added"]) > 0,
              f"Every {c.name} of the game is already face up in the discard pile or in {name(f)}'s hand"
              + ("" if tr["kiss_added"] or not c.kiss_added else " (the KISS cards join at the first reshuffle)")
              + ".", treachery.RULE)
    hand.append(c.name)
    if mine.get("to_name"):
        mine["to_name"] -= 1


class CardsKeepUnnamed(Payload):
    type: Literal["cards.keep_unnamed"]
    faction: FactionId


@action("cards.keep_unnamed", CardsKeepUnnamed, public=(), secret=True,
        summary=lambda p: f"{name(p.faction)} keep a card unnamed")
def cards_keep_unnamed(ctx: Ctx, state: dict, p: CardsKeepUnnamed) -> None:
    """Dismiss one "name the card you got" prompt: the card stays in the hand, unnamed."""
    f = present(state, p.faction)
    mine = state["private"][f]
    if not mine.get("to_name"):
        raise hard(f"{name(f)} have no new card to name.", "kiss-treachery-deck")
    mine["to_name"] -= 1


# -- discards and the deck -------------------------------------------------------------------------

class CardsDiscard(Payload):
    type: Literal["cards.discard"]
    faction: FactionId
    card: Name


@action("cards.discard", CardsDiscard,
        public=("faction", "card"), summary=lambda p: f"{name(p.faction)} discard {p.card}")
def cards_discard(ctx: Ctx, state: dict, p: CardsDiscard) -> None:
    """A card goes face up from the hand to the discard pile (public: discards are face up)."""
    f = present(state, p.faction)
    printed = discard_card(ctx, state, f, p.card)
    ctx.summary = f"{name(f)} discard {printed}"


class Ghola(Payload):
    type: Literal["cards.ghola"]
    faction: FactionId
    leader: Name | None = None
    forces: int = Field(default=0, ge=0, le=5)
    starred: int = Field(default=0, ge=0, le=5)


@action("cards.ghola", Ghola,
        public=("faction", "leader", "forces", "starred"),
        summary=lambda p: f"{name(p.faction)} play a Tleilaxu Ghola: "
        + (f"{p.leader} revived" if p.leader else f"{p.forces + p.starred} forces revived") + " for free")
def cards_ghola(ctx: Ctx, state: dict, p: Ghola) -> None:
    """Tleilaxu Ghola (base game): an extra revival at any time, free: one leader, or up to 5
    forces, from the tanks. The card goes face up to the discard pile."""
    f = present(state, p.faction)
    if bool(p.leader) == bool(p.forces + p.starred):
        raise hard("A Tleilaxu Ghola revives one leader or up to 5 forces: say which (leader, or forces).",
                   "base-revival")
    if p.forces + p.starred > 5:
        raise hard("A Tleilaxu Ghola revives at most 5 forces.", "base-revival")
    if p.leader:
        ld = find_leader(state, f, p.leader)
        if ld["status"] != "tanks":
            raise hard(f"{ld['name']} is not in the Tleilaxu Tanks.", "base-leader-revival")
        ld.update(status="alive", captured_by=None)
    else:
        tanks = state["factions"][f]["tanks"]
        if p.forces > tanks["forces"] or p.starred > tanks["starred"]:
            raise hard(f"{name(f)} has only {tanks['forces']} forces and {tanks['starred']} starred in the tanks.",
                       "base-revival")
        tanks["forces"] -= p.forces
        tanks["starred"] -= p.starred
        state["factions"][f]["reserves"]["forces"] += p.forces
        state["factions"][f]["reserves"]["starred"] += p.starred
    discard_card(ctx, state, f, "Tleilaxu Ghola", "base-revival", strict=False)


class TreacheryReshuffle(Payload):
    type: Literal["treachery.reshuffle"]


@action("treachery.reshuffle", TreacheryReshuffle, public=(), faction_field=None,
        summary=lambda p: "the Treachery discard pile is shuffled into a new deck")
def treachery_reshuffle(ctx: Ctx, state: dict, p: TreacheryReshuffle) -> None:
    from ..rules import treachery
    left = draw_pile(state)
    ctx.check(left == 0, f"The Treachery deck still has {left} card{'s' if left != 1 else ''} to draw: it is "
                         f"reshuffled only when it runs out.", treachery.RULE)
    text = reshuffle(state)
    ctx.summary = text[0].upper() + text[1:]


# -- cards played as entries of their own: Karama, Worthless as Karama -----------------------------

class KaramaSpecial(Payload):
    type: Literal["karama.special", "karama.worthless"]
    faction: FactionId
    card: Name | None = None  # the card played, when the hand holds it unnamed (default: a Karama / a Worthless card)
    battle: str | None = Field(default=None, min_length=1, max_length=20, pattern=r"^[0-9]+-[0-9]+$")  # Ecaz, Moritani
    discard: list[Name] = Field(default_factory=list, max_length=2)  # Moritani: the winner's cards forced out
    keep: list[Name] = Field(default_factory=list, max_length=2)     # Moritani: the winner's cards forced kept
    leader: str | None = Field(default=None, min_length=1, max_length=60)  # Tleilaxu: a leader in the tanks
    take: bool = False                                                     # Tleilaxu: take it (else return it)


def play_worthless(ctx: Ctx, state: dict, f: str, card: str | None) -> str | None:
    """A Worthless card played by ``f`` (the Bene Gesserit's Karama): the one named in the entry,
    else a named Worthless card of the hand, else an unnamed card, face up as "Worthless card"."""
    from ..rules import treachery
    if card:
        c = treachery.card(card)
        if c.kind != "worthless":
            raise hard(f"{c.name} is not a Worthless card.", "bg-special-karama")
        return discard_card(ctx, state, f, c.name, "bg-special-karama", strict=False)
    hand = state["private"][f].setdefault("cards", [])
    named = next((h for h in hand if treachery.kind_of(h) == "worthless"), None)
    if named:
        return discard_card(ctx, state, f, named, "bg-special-karama", strict=False)
    if state["factions"][f]["hand_size"] <= len(hand):
        ctx.check(False, f"{name(f)} hold no Worthless card (and no unnamed card): correct the hand first (My cards).",
                  "bg-special-karama")
        return None
    state["factions"][f]["hand_size"] -= 1
    treachery_record(state)["discard"].append("Worthless card")
    _clamp_prompts(state, f)
    return "Worthless card"


def _moritani_special(state: dict, p: KaramaSpecial) -> None:
    """kiss-rules.txt, Moritani Special Karama: "Once per game, if you lose a battle, force your
    opponent to discard or to keep any or all Treachery Cards they played." The winner's weapon and
    defence kept by the outcome go to the discard pile (``discard``) or stay kept (``keep``)."""
    from ..rules import treachery
    from .battle import find_battle
    rule = "moritani-special-karama"
    if not p.battle:
        raise hard("The Moritani Special Karama follows a battle they lost: say which (battle).", rule)
    b = find_battle(state, p.battle)
    o = b.get("outcome") or {}
    if b["status"] != "applied" or o.get("loser") != "moritani" or not o.get("winner"):
        raise hard("The Moritani Special Karama comes after a battle the Moritani lost, once its outcome is applied.",
                   rule)
    winner = o["winner"]
    played = o.get("may_keep", {}).get(winner, [])
    names = [treachery.card(c).name for c in p.discard + p.keep]
    if not names or any(c not in played for c in names) or len(set(names)) != len(names):
        raise hard(f"Name the cards {name(winner)} played and kept ({', '.join(played) or 'none'}): each "
                   f"to discard or to keep.", rule)
    hand = state["private"][winner].setdefault("cards", [])
    for c in names[:len(p.discard)]:
        if c in hand:
            hand.remove(c)
        state["factions"][winner]["hand_size"] = max(0, state["factions"][winner]["hand_size"] - 1)
        treachery_record(state)["discard"].append(c)
    b["moritani_karama"] = {"discard": names[:len(p.discard)], "keep": names[len(p.discard):]}


def _tleilaxu_special(ctx: Ctx, state: dict, p: KaramaSpecial) -> None:
    """kiss-rules.txt, Tleilaxu Special Karama: "Once per game, at any time, select any leader from the
    Tleilaxu tanks and take it yourself or return it to their faction." Taken, another faction's leader
    fights for the Tleilaxu (``captured_by`` the Tleilaxu)."""
    rule = "tleilaxu-special-karama"
    wanted = p.leader.strip().lower()
    found = next(((f, ld) for f, d in state["factions"].items() for ld in d["leaders"]
                  if ld["name"].lower() == wanted), None)
    if not found:
        raise hard(f"No faction at this table has a leader called {p.leader!r}.", rule)
    owner, ld = found
    if ld["status"] != "tanks":
        raise hard(f"{ld['name']} is not in the Tleilaxu tanks.", rule)
    if p.take and owner != "tleilaxu":
        ld.update(status="captured", captured_by="tleilaxu")
    else:
        ld.update(status="alive", captured_by=None)


def _special_in_battle(ctx: Ctx, state: dict, p: KaramaSpecial) -> None:
    """kiss-rules.txt, Ecaz Special Karama: "Once per game, when battle plans are revealed and if you
    played neither a weapon nor a defense, you may add the difference between your leader disc and
    your opponent's leader disc to your number dialed." Recorded on the battle; the outcome adds it."""
    from .battle import find_battle, outcome_of
    rule = "ecaz-special-karama"
    if p.faction != "ecaz":
        raise hard(f"Only the Ecaz Special Karama is played in a battle, not {name(p.faction)}'s.", rule)
    if not p.battle:
        ctx.check(False, "The Ecaz Special Karama is played in a battle once the plans are revealed: say which (battle).",
                  rule)
        return
    b = find_battle(state, p.battle)
    if "ecaz" not in b["sides"]:
        raise hard(f"Ecaz do not fight in the battle in {b['territory']}.", rule)
    if b["status"] != "revealed":
        raise hard("The Special Karama is played when the battle plans are revealed, before the outcome is applied.",
                   rule)
    b["special_karama"] = ["ecaz"]
    o = outcome_of(state, b)  # refuses (hard) a plan with a weapon or a defence, or without two leader discs
    added = next((ln for ln in o.lines if ln["rule"] == rule), None)
    ctx.check(added is None or " adds 0 " not in added["text"],
              "Your leader is not weaker than the opponent's: the Special Karama would add nothing.", rule)
    b["confirmed"] = []
    b["outcome"] = None


@action("karama.special", KaramaSpecial,
        public=("faction", "card", "battle", "discard", "keep", "leader", "take"), summary=lambda p: f"{name(p.faction)} play their Special Karama")
def karama_special(ctx: Ctx, state: dict, p: KaramaSpecial) -> None:
    """A Special Karama is played with a Karama card (the Bene Gesserit's, with a Worthless card):
    the card goes face up to the discard pile."""
    from ..rules import treachery
    present(state, p.faction)
    # the Bene Gesserit's Special Karama IS the Worthless-as-Karama play: either one uses it
    mine = state["factions"][p.faction]
    if mine["special_karama_used"] or mine.get("worthless_karama_used"):
        raise hard(f"{name(p.faction)} has already used its Special Karama this game.", f"{p.faction}-special-karama")
    if p.faction == "moritani" and (p.battle or p.discard or p.keep):
        _moritani_special(state, p)
    elif p.faction == "tleilaxu" and p.leader:
        _tleilaxu_special(ctx, state, p)
    elif p.faction == "ecaz" or p.battle:
        _special_in_battle(ctx, state, p)
    state["factions"][p.faction]["special_karama_used"] = True
    if p.faction == "bg":
        played = play_worthless(ctx, state, "bg", p.card)
    elif p.card:
        if not treachery.is_karama(treachery.card(p.card).name):
            raise hard(f"A Special Karama is played with a Karama card, not {treachery.card(p.card).name}.", "kiss-karama")
        played = discard_card(ctx, state, p.faction, p.card, "kiss-karama", strict=False)
    else:
        played = play_karama(ctx, state, p.faction)
    if played:
        ctx.summary = f"{name(p.faction)} play their Special Karama ({played} discarded)"


@action("karama.worthless", KaramaSpecial,
        public=("faction", "card"), summary=lambda p: "Bene Gesserit play a Worthless card as Karama")
def karama_worthless(ctx: Ctx, state: dict, p: KaramaSpecial) -> None:
    if p.faction != "bg":
        raise hard("Only the Bene Gesserit may play a Worthless card as Karama.", "bg-special-karama")
    present(state, "bg")
    if state["factions"]["bg"]["worthless_karama_used"] or state["factions"]["bg"]["special_karama_used"]:
        raise hard("The Bene Gesserit have already played a Worthless card as Karama this game.", "bg-special-karama")
    state["factions"]["bg"]["worthless_karama_used"] = True
    played = play_worthless(ctx, state, "bg", p.card)
    if played:
        ctx.summary = f"Bene Gesserit play {played} as Karama"
