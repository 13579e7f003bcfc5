"""Moritani terror tokens and Ecaz ambassadors: each owner's secret supply (``terror.set``,
``ambassadors.set``) and the face-down markers in strongholds.

Everyone sees that a stronghold holds a marker; only its owner (and the host) knows which one
it is, until it is revealed."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules.errors import hard
from ..rules.factions import faction_name
from ..rules.occupancy import resolve_territory
from ..state import position_of
from . import Ctx, FactionId, Name, Payload, action
from .bookkeeping import add_spice, discard_card, draw_cards, present, resolve_place


AMBASSADOR_COST = 2  # KISS cheaper ambassadors: the first each turn is free, then 2 spice each


# -- the supplies (secret) -------------------------------------------------------------------------

class Ambassadors(Payload):
    type: Literal["ambassadors.set"]
    faction: Literal["ecaz"] = "ecaz"
    ambassadors: list[str] = Field(max_length=11)


def _set_known_list(state: dict, f: str, key: str, values: list[str], known_key: str, what: str, rule: str) -> None:
    from ..rules.factions import load_factions
    present(state, f)
    known = load_factions()[known_key]
    bad = [a for a in values if a not in known]
    if bad:
        raise hard(f"Unknown {what} {bad[0]!r}: use {', '.join(known)}.", rule)
    state["private"][f][key] = list(values)


@action("ambassadors.set", Ambassadors,
        public=(), secret=True, summary=lambda p: "Ecaz update their ambassador supply")
def ambassadors_set(ctx: Ctx, state: dict, p: Ambassadors) -> None:
    _set_known_list(state, "ecaz", "ambassadors", p.ambassadors, "ambassadors", "ambassador", "ecaz-ambassadors")


class Terror(Payload):
    type: Literal["terror.set"]
    faction: Literal["moritani"] = "moritani"
    tokens: list[str] = Field(max_length=6)


@action("terror.set", Terror, public=(), secret=True, summary=lambda p: "Moritani update their terror tokens")
def terror_set(ctx: Ctx, state: dict, p: Terror) -> None:
    _set_known_list(state, "moritani", "terror_tokens", p.tokens, "terror_tokens", "terror token",
                    "moritani-terror-tokens")


# -- the markers -----------------------------------------------------------------------------------

def markers(state: dict) -> dict:
    return state["board"].setdefault("markers", {})


def take_marker(ctx: Ctx, state: dict, owner: str, kind: str, territory: str, rule: str) -> tuple[str, str]:
    """Lift the owner's face-down marker of ``kind`` from a stronghold: (territory, what it was)."""
    name, _ = resolve_place(ctx, state, territory, None)
    placed = state["private"][owner].get(f"{kind}_placed", {})
    if name not in placed:
        raise hard(f"There is no {PRINTED[kind]} in {name}.", rule)
    what = placed.pop(name)
    here = markers(state)[name]
    here.pop(MARKER[kind], None)
    if not here:
        del markers(state)[name]
    state["last_revealed"] = {"by": owner, "territory": name, "marker": f"{PRINTED[kind]}: {what}"}
    return name, what


MARKER = {"terror": "terror", "ambassadors": "ambassador"}
PRINTED = {"terror": "terror token", "ambassadors": "ambassador"}


def a(noun: str) -> str:
    """"a terror token", "an ambassador"."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def put_marker(state: dict, owner: str, kind: str, name: str, what: str, supply_key: str, rule: str) -> None:
    """Move ``what`` from the owner's private supply face down into stronghold ``name``."""
    supply = state["private"][owner][supply_key]
    if what not in supply:
        raise hard(f"{faction_name(owner)} have no {what!r} {PRINTED[kind]} in their supply "
                   f"({', '.join(supply) or 'none left'}).", rule)
    here = markers(state).setdefault(name, {})
    if here.get(MARKER[kind]):
        raise hard(f"{name} already holds {a(PRINTED[kind])}.", rule)
    supply.remove(what)
    here[MARKER[kind]] = True
    state["private"][owner].setdefault(f"{kind}_placed", {})[name] = what


def _stronghold(ctx: Ctx, state: dict, territory: str, rule: str) -> tuple[str, int | None]:
    name = resolve_territory(ctx.board, position_of(state), territory)
    t = ctx.board.territories.get(name)
    if not (t and t.is_stronghold) and name != "Jacurutu Sietch":
        raise hard(f"{name} is not a stronghold: these markers go only into strongholds.", rule)
    return resolve_place(ctx, state, name, None)


class TerrorPlace(Payload):
    type: Literal["terror.place"]
    faction: Literal["moritani"] = "moritani"
    territory: str
    token: str = Field(min_length=1, max_length=30)


@action("terror.place", TerrorPlace,
        public=(), secret=True, summary=lambda p: f"Moritani place a terror token in {p.territory}")
def terror_place(ctx: Ctx, state: dict, p: TerrorPlace) -> None:
    present(state, "moritani")
    name, _ = _stronghold(ctx, state, p.territory, "moritani-terrorize")
    ctx.check(state["phase"] == "mentat_pause", "Terror tokens are placed during the Mentat Pause.",
              "moritani-terrorize")
    rule = "moritani-terrorize" if p.token in state["private"]["moritani"]["terror_tokens"] \
        else "moritani-terror-tokens"
    put_marker(state, "moritani", "terror", name, p.token, "terror_tokens", rule)


class TerrorReveal(Payload):
    type: Literal["terror.reveal"]
    faction: Literal["moritani"] = "moritani"
    territory: str
    take_card: bool = False  # Robbery: take the top card of the Treachery deck (rather than spice)


@action("terror.reveal", TerrorReveal,
        public=("faction", "territory", "take_card"),
        summary=lambda p: f"Moritani reveal the terror token in {p.territory}")
def terror_reveal(ctx: Ctx, state: dict, p: TerrorReveal) -> None:
    present(state, "moritani")
    name, token = take_marker(ctx, state, "moritani", "terror", p.territory, "moritani-terrorize")
    if p.take_card:
        if token != "Robbery":
            raise hard(f"Only Robbery takes a Treachery card; the token in {name} was {token}.", "moritani-terror-tokens")
        # the card comes even into a full hand: Moritani then discard one of their choice
        notes = draw_cards(ctx, state, "moritani", 1)
        ctx.summary = f"Moritani reveal Robbery in {name} and take the top Treachery card" + "".join(
            f"; {x}" for x in notes)


class AmbassadorPlace(Payload):
    type: Literal["ambassador.place"]
    faction: Literal["ecaz"] = "ecaz"
    territory: str
    ambassador: str = Field(min_length=1, max_length=30)


@action("ambassador.place", AmbassadorPlace, public=(), secret=True,
        summary=lambda p: f"Ecaz place an ambassador in {p.territory}")
def ambassador_place(ctx: Ctx, state: dict, p: AmbassadorPlace) -> None:
    present(state, "ecaz")
    name, sector = _stronghold(ctx, state, p.territory, "ecaz-ambassadors")
    ctx.check(sector != state["storm"]["sector"], f"The storm is over {name}: no ambassador can be placed there.",
              "ecaz-ambassadors")
    ctx.check(state["phase"] == "revival", "Ambassadors are placed at the end of the Revival phase.",
              "ecaz-ambassadors")
    sent = state.setdefault("ambassadors_sent", {})
    key = str(state["turn"])
    put_marker(state, "ecaz", "ambassadors", name, p.ambassador, "ambassadors", "ecaz-ambassadors")
    if sent.get(key, 0) >= 1:  # KISS: the first ambassador each turn is free
        add_spice(state, "ecaz", -AMBASSADOR_COST)
    sent[key] = sent.get(key, 0) + 1


class AmbassadorTrigger(Payload):
    type: Literal["ambassador.trigger"]
    faction: Literal["ecaz"] = "ecaz"
    territory: str
    # the card effects: Ixian (discard ``discard``, then draw one) and Richese (pay 3, draw one)
    take_card: bool = False
    discard: Name | None = None
    beneficiary: FactionId | None = None  # KISS: Ecaz may let its ally benefit from the effect


@action("ambassador.trigger", AmbassadorTrigger,
        public=("faction", "territory", "take_card", "discard", "beneficiary"),
        summary=lambda p: f"Ecaz trigger the ambassador in {p.territory}")
def ambassador_trigger(ctx: Ctx, state: dict, p: AmbassadorTrigger) -> None:
    present(state, "ecaz")
    _, ambassador = take_marker(ctx, state, "ecaz", "ambassadors", p.territory, "ecaz-ambassadors")
    if ambassador == "Ecaz":  # the Ecaz ambassador returns to the supply; the others go to the side
        state["private"]["ecaz"]["ambassadors"].append(ambassador)
    if p.take_card:
        _ambassador_card(ctx, state, ambassador, p)


def _ambassador_card(ctx: Ctx, state: dict, ambassador: str, p: AmbassadorTrigger) -> None:
    """Ixian: discard a Treachery card, then draw one. Richese: pay 3 spice to the bank and draw
    one if the hand is not full. The card drawn is unnamed: the phone offers to name it."""
    f = p.beneficiary or "ecaz"
    if f != "ecaz" and state["alliances"].get("ecaz") != f:
        raise hard(f"Only Ecaz or its ally can benefit from an Ecaz ambassador, not {faction_name(f)}.",
                   "ecaz-alliance")
    present(state, f)
    pub = state["factions"][f]
    notes = []
    if ambassador == "Ixian":
        if not p.discard:
            raise hard("The Ixian ambassador discards a Treachery card first: say which one (discard).",
                       "ecaz-ambassadors")
        notes.append(f"{discard_card(ctx, state, f, p.discard, 'ecaz-ambassadors')} discarded")
    elif ambassador == "Richese":
        ctx.check(pub["hand_size"] < pub["hand_limit"],
                  f"{faction_name(f)}'s hand is full: the Richese ambassador draws no card.", "ecaz-ambassadors")
        add_spice(state, f, -3)
        notes.append("3 spice paid")
    else:
        raise hard(f"The {ambassador} ambassador gives no Treachery card (only Ixian and Richese do).",
                   "ecaz-ambassadors")
    notes += draw_cards(ctx, state, f, 1)
    ctx.summary = (f"Ecaz trigger the {ambassador} ambassador in {p.territory}: {faction_name(f)} draw a "
                   f"Treachery card; " + "; ".join(notes))
