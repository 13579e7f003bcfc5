"""Core entries: spice, forces, leaders, cards, alliances, storm, phases, setup and secrets."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ..rules.board import POLAR_SINK, piece_id
from ..rules.errors import hard
from ..rules.factions import faction, faction_name
from ..rules.storm import validate_storm_card
from ..state import (
    PHASES, position_of, apply_reading_start, place_forces, remove_forces, stack, territory_forces,
)
from . import Ctx, FactionId, Name, Payload, PhaseId, action

Count = Field(default=0, ge=0, le=20)


def present(state: dict, f: str) -> str:
    if f not in state["factions_present"]:
        raise hard(f"{faction_name(f)} is not playing at this table.")
    return f


def resolve_place(ctx: Ctx, state: dict, territory: str, sector: int | None) -> tuple[str, int | None]:
    """(territory, sector) of a board territory or a revealed Discovery territory, from any case
    or slug; a one-sector territory may omit the sector. Unknown names are hard refusals."""
    from ..rules.occupancy import resolve_piece_sector, resolve_territory
    pos = position_of(state)
    name = resolve_territory(ctx.board, pos, territory)
    return name, resolve_piece_sector(ctx.board, pos, name, sector)


def resolve_piece(ctx: Ctx, territory: str, sector: int | None, state: dict | None = None) -> str:
    if state is not None:
        return piece_id(*resolve_place(ctx, state, territory, sector))
    name = ctx.board.resolve(territory)
    return piece_id(name, ctx.board.resolve_sector(name, sector))


def name(f: str) -> str:
    return faction_name(f)


# -- spice -----------------------------------------------------------------------------------

class SpiceSet(Payload):
    type: Literal["spice.set"]
    faction: FactionId
    amount: int = Field(ge=0, le=999)


@action("spice.set", SpiceSet, secret=True, summary=lambda p: f"{name(p.faction)} spice set to {p.amount}")
def spice_set(ctx: Ctx, state: dict, p: SpiceSet) -> None:
    present(state, p.faction)
    state["private"][p.faction]["spice"] = p.amount


class SpiceAdd(Payload):
    type: Literal["spice.add"]
    faction: FactionId
    amount: int = Field(ge=-999, le=999)


@action("spice.add", SpiceAdd, secret=True,
        summary=lambda p: f"{name(p.faction)} {'gains' if p.amount >= 0 else 'pays'} {abs(p.amount)} spice")
def spice_add(ctx: Ctx, state: dict, p: SpiceAdd) -> None:
    present(state, p.faction)
    add_spice(state, p.faction, p.amount)


def add_spice(state: dict, f: str, amount: int) -> None:
    have = state["private"][f]["spice"]
    if have + amount < 0:
        raise hard(f"{name(f)} has only {have} spice behind the shield; cannot pay {-amount}.", "base-spice")
    state["private"][f]["spice"] = have + amount


class SpiceFront(Payload):
    type: Literal["spice.front"]
    faction: FactionId
    amount: int = Field(ge=0, le=999)


@action("spice.front", SpiceFront, summary=lambda p: f"{name(p.faction)} has {p.amount} spice in front of the shield")
def spice_front(ctx: Ctx, state: dict, p: SpiceFront) -> None:
    present(state, p.faction)
    state["factions"][p.faction]["spice_front"] = p.amount


class BoardSpice(Payload):
    type: Literal["board.spice"]
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    amount: int = Field(ge=0, le=99)


@action("board.spice", BoardSpice, faction_field=None,
        summary=lambda p: f"spice in {p.territory} set to {p.amount}")
def board_spice(ctx: Ctx, state: dict, p: BoardSpice) -> None:
    piece = resolve_piece(ctx, p.territory, p.sector)
    if piece == POLAR_SINK:
        raise hard("Spice never lies in the Polar Sink.", "base-polar-sink")
    if p.amount:
        state["board"]["spice"][piece] = p.amount
    else:
        state["board"]["spice"].pop(piece, None)


# -- forces (corrections: these bypass movement rules) ----------------------------------------

class _Stack(Payload):
    """Some of one faction's forces on one piece of the board."""
    faction: FactionId
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Count
    starred: int = Count
    advisors: int = Count


class ForcesPlace(_Stack):
    type: Literal["forces.place"]
    from_: Literal["reserves", "tanks"] = Field(default="reserves", alias="from")


class ForcesRemove(_Stack):
    type: Literal["forces.remove"]
    to: Literal["reserves", "tanks"] = "tanks"


def _stack_piece(ctx: Ctx, state: dict, p: _Stack, verb: str) -> str:
    present(state, p.faction)
    piece = resolve_piece(ctx, p.territory, p.sector, state)
    if p.forces + p.starred + p.advisors == 0:
        raise hard(f"{verb} at least one force.")
    return piece


def _forces_text(p) -> str:
    bits = [f"{p.forces}"]
    if p.starred:
        bits.append(f"{p.starred}*")
    if getattr(p, "advisors", 0):
        bits.append(f"{p.advisors} advisors")
    return " + ".join(bits)


@action("forces.place", ForcesPlace,
        summary=lambda p: f"{name(p.faction)} places {_forces_text(p)} in {p.territory} from {p.from_}")
def forces_place(ctx: Ctx, state: dict, p: ForcesPlace) -> None:
    piece = _stack_piece(ctx, state, p, "Place")
    place_forces(state, p.faction, piece, p.forces, p.starred, p.advisors, p.from_)


@action("forces.remove", ForcesRemove,
        summary=lambda p: f"{name(p.faction)} removes {_forces_text(p)} from {p.territory} to {p.to}")
def forces_remove(ctx: Ctx, state: dict, p: ForcesRemove) -> None:
    piece = _stack_piece(ctx, state, p, "Remove")
    remove_forces(state, p.faction, piece, p.forces, p.starred, p.advisors, p.to)


# forces.flip (Bene Gesserit advisors and fighters) lives in moves.py with the rules/bg.py checks.


# -- leaders ---------------------------------------------------------------------------------

class LeaderEntry(Payload):
    type: Literal["leader.tanks", "leader.revive", "leader.capture", "leader.return", "leader.used"]
    faction: FactionId
    leader: str = Field(min_length=1, max_length=60)
    by: FactionId | None = None
    paid: int | None = Field(default=None, ge=0, le=20)

    @property
    def parties(self) -> list[str]:
        """Who may record a capture: the leader's faction or the capturing one."""
        return [self.faction] + ([self.by] if self.by and self.by != self.faction else [])


def find_leader(state: dict, f: str, leader: str) -> dict:
    wanted = leader.strip().lower()
    for ld in state["factions"][f]["leaders"]:
        if ld["name"].lower() == wanted or ld["name"].lower().split()[0] == wanted:
            return ld
    names = ", ".join(ld["name"] for ld in state["factions"][f]["leaders"])
    raise hard(f"{name(f)} has no leader called {leader!r}: {names}.")


def revive_leader(ctx: Ctx, state: dict, p, ld: dict) -> None:
    """In the Revival phase the rules price it (its strength, paid to the Tleilaxu when they play)
    and check when it is allowed; elsewhere it is a correction, paid only if ``paid`` says so."""
    from ..rules.economy import leader_revival
    payee = "tleilaxu" if "tleilaxu" in state["factions_present"] and p.faction != "tleilaxu" else "bank"
    amount = p.paid or 0
    if p.paid is None and state["phase"] == "revival":
        leaders = state["factions"][p.faction]["leaders"]
        revived = state.setdefault("leaders_revived", {})
        key = f"{state['turn']}:{p.faction}"
        priced = ctx.rules(leader_revival, p.faction, ld["strength"] or 0, state["factions_present"],
                           leaders_outside_tanks=sum(1 for x in leaders if x["status"] != "tanks"),
                           leaders_in_tanks=sum(1 for x in leaders if x["status"] == "tanks"),
                           revived_this_turn=revived.get(key, 0), leader=ld["name"])
        amount = priced["cost"] if priced else 0
        revived[key] = revived.get(key, 0) + 1
    if amount:
        add_spice(state, p.faction, -amount)
        if payee == "tleilaxu":
            add_spice(state, "tleilaxu", amount)
    ld.update(status="alive", captured_by=None)


def return_captives(state: dict) -> list[str]:
    """KISS Captured Leaders: a captor whose own leaders are all in the tanks returns every leader it
    holds captive at once. Returns the public note for the history line (empty when nothing moved)."""
    notes = []
    for captor, data in state["factions"].items():
        own = data.get("leaders") or []
        if not own or any(ld["status"] != "tanks" for ld in own):
            continue
        home = [ld for other in state["factions"].values() for ld in other.get("leaders") or []
                if ld["status"] == "captured" and ld.get("captured_by") == captor]
        for ld in home:
            ld.update(status="alive", captured_by=None)
        if home:
            notes.append(f"all {name(captor)} leaders are dead: {', '.join(ld['name'] for ld in home)} "
                         f"{'go' if len(home) > 1 else 'goes'} home")
    return notes


def _leader_entry(kind: str):
    def handler(ctx: Ctx, state: dict, p: LeaderEntry) -> None:
        present(state, p.faction)
        ld = find_leader(state, p.faction, p.leader)
        if kind == "leader.tanks":
            if ld["status"] == "tanks":
                raise hard(f"{ld['name']} is already in the Tleilaxu Tanks.", "base-tanks")
            ld.update(status="tanks", captured_by=None)
            notes = return_captives(state)
            if notes:
                ctx.summary = f"{ld['name']} goes to the tanks; " + "; ".join(notes)
        elif kind == "leader.revive":
            if ld["status"] != "tanks":
                raise hard(f"{ld['name']} is not in the Tleilaxu Tanks.", "base-leader-revival")
            revive_leader(ctx, state, p, ld)
        elif kind == "leader.capture":
            if not p.by or p.by == p.faction:
                raise hard("Say which other faction captures the leader ('by').", "harkonnen-captured-leaders")
            present(state, p.by)
            if ld["status"] != "alive":
                raise hard(f"{ld['name']} is not available to capture.", "harkonnen-captured-leaders")
            ctx.check(p.by in ("harkonnen", "tleilaxu"),
                      f"Only the Harkonnen capture leaders, not {name(p.by)}.", "harkonnen-captured-leaders")
            ld.update(status="captured", captured_by=p.by)
        elif kind == "leader.return":
            if ld["status"] != "captured":
                raise hard(f"{ld['name']} is not captured.", "harkonnen-captured-leaders")
            ld.update(status="alive", captured_by=None)
        elif kind == "leader.used":
            ld["used"] = True
    return handler


for _kind, _verb in (("leader.tanks", "goes to the tanks"), ("leader.revive", "is revived"),
                     ("leader.capture", "is captured"), ("leader.return", "returns home"),
                     ("leader.used", "is used this turn")):
    action(_kind, LeaderEntry, faction_field="parties" if _kind == "leader.capture" else "faction",
           summary=lambda p, v=_verb: f"{name(p.faction)}: {p.leader} {v}")(_leader_entry(_kind))


# -- cards -----------------------------------------------------------------------------------

class HandSet(Payload):
    type: Literal["hand.set"]
    faction: FactionId
    size: int = Field(ge=0, le=12)


@action("hand.set", HandSet, summary=lambda p: f"{name(p.faction)} holds {p.size} treachery cards")
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


@action("cards.set", CardsSet, secret=True, summary=lambda p: f"{name(p.faction)} updates its cards")
def cards_set(ctx: Ctx, state: dict, p: CardsSet) -> None:
    present(state, p.faction)
    limit = state["factions"][p.faction]["hand_limit"]
    ctx.check(len(p.cards) <= limit, f"{name(p.faction)} may hold at most {limit} treachery cards.",
              "base-hand-limit")
    state["private"][p.faction]["cards"] = list(p.cards)
    state["factions"][p.faction]["hand_size"] = len(p.cards)
    _clamp_prompts(state, p.faction)


def _clamp_prompts(state: dict, f: str) -> None:
    """Never more "name the card you got" prompts than unnamed cards in the hand."""
    mine = state["private"][f]
    if mine.get("to_name"):
        mine["to_name"] = max(0, min(mine["to_name"], state["factions"][f]["hand_size"] - len(mine.get("cards", []))))


# -- the Treachery deck: draws, reshuffles, discards ------------------------------------------

def read_treachery(state: dict) -> dict:
    """The public Treachery record as it stands, or the opening one (read only: views use it)."""
    from ..rules import treachery
    return state.get("treachery") or treachery.initial_record(state["options"].get("kiss_cards_in_discard", False))


def treachery_record(state: dict) -> dict:
    """The public Treachery record (discard pile, KISS cards added, reshuffles), made on first use."""
    tr = state.get("treachery")
    if tr is None:
        tr = state["treachery"] = read_treachery(state)
    tr.setdefault("discard", [])
    tr.setdefault("kiss_added", False)
    tr.setdefault("reshuffles", 0)
    return tr


def cache_out(state: dict) -> int:
    """Richese cache cards that left the cache (the add-on): they join the ordinary cards for good."""
    if "richese" not in state["factions"]:
        return 0
    return len(faction("richese").get("cache", [])) - len(state["factions"]["richese"].get("cache", []))


def draw_pile(state: dict) -> int:
    """Cards left in the Treachery deck (the game's cards less those in hands and discarded)."""
    from ..rules import treachery
    tr = read_treachery(state)
    return treachery.draw_count(bool(tr.get("kiss_added")), sum(f["hand_size"] for f in state["factions"].values()),
                                len(tr.get("discard", [])), cache_out(state))


def reshuffle(state: dict) -> str:
    """Shuffle the discard pile into the deck (the first time with the 5 KISS cards): the public
    sentence for the history."""
    from ..rules import treachery
    record, text = treachery.reshuffled(treachery_record(state))
    record["last"] = {"turn": state["turn"], "phase": state["phase"]}
    state["treachery"] = record
    return text


def draw_cards(ctx: Ctx, state: dict, f: str, n: int) -> list[str]:
    """``n`` cards from the top of the deck into ``f``'s hand, unnamed (its phone then offers to
    name them). An empty deck is first refilled from the discard pile. Returns the public notes
    (reshuffles) for the history line."""
    from ..rules import treachery
    notes = []
    for _ in range(n):
        if draw_pile(state) <= 0:
            if treachery_record(state)["discard"] or not treachery_record(state)["kiss_added"]:
                notes.append(reshuffle(state))
            ctx.check(draw_pile(state) > 0, "The Treachery deck and its discard pile are empty: there is no card "
                                            "to draw.", treachery.RULE)
        state["factions"][f]["hand_size"] += 1
        mine = state["private"][f]
        if mine.get("to_name_at") != [state["turn"], state["phase"]]:
            mine["to_name"] = 0  # the prompt lives for the phase the cards came in
        mine["to_name"] = mine.get("to_name", 0) + 1
        mine["to_name_at"] = [state["turn"], state["phase"]]
    return notes


def card_name(state: dict, text: str) -> str:
    """The printed name of a Treachery card (any case or slug), or of a Richese cache card."""
    from ..rules import treachery
    if "richese" in state["factions"]:
        for c in faction("richese").get("cache", []):
            if c.lower() == text.strip().lower() or treachery.slug(c) == treachery.slug(text):
                return c
    return treachery.card(text).name


def discard_card(ctx: Ctx, state: dict, f: str, card: str, rule: str | None = None, *, strict: bool = True) -> str | None:
    """One card from ``f``'s hand face up onto the discard pile: the named card if the hand
    holds it, else one of its unnamed cards (named now, since discards are public). ``strict``:
    a hand without it is a hard refusal; otherwise an overridable one (the entry that plays the
    card is then recorded without a discard). Returns the printed name, or None."""
    from ..rules import treachery
    rule = rule or treachery.RULE
    printed = card_name(state, card)
    hand = state["private"][f].setdefault("cards", [])
    pub = state["factions"][f]
    match = next((h for h in hand if h.lower() == printed.lower()), None)
    if match is None and pub["hand_size"] <= len(hand):
        msg = (f"{name(f)} hold no {printed} (and no unnamed card): correct the hand first (My cards)."
               if hand else f"{name(f)} hold no cards to discard.")
        if strict:
            raise hard(msg, rule)
        ctx.check(False, msg, rule)
        return None
    tr = treachery_record(state)
    # an entry that plays the card (strict=False) records the play even then: the table saw the card
    if strict and ("richese" not in state["factions"] or printed not in faction("richese").get("cache", [])):
        c = treachery.card(printed)
        face_up = sum(1 for x in tr["discard"] if x.lower() == printed.lower())
        ctx.check(face_up < c.count, f"{'The only' if c.count == 1 else f'All {c.count}'} {printed} "
                                     f"{'is' if c.count == 1 else 'are'} already in the discard pile.", treachery.RULE)
    if match is not None:
        hand.remove(match)
    pub["hand_size"] -= 1
    tr["discard"].append(printed)
    _clamp_prompts(state, f)
    return printed


def play_karama(ctx: Ctx, state: dict, f: str, rule: str = "kiss-karama") -> str | None:
    """A Karama card played by ``f``: discard one (a named Karama, else an unnamed card)."""
    from ..rules import treachery
    hand = state["private"][f].get("cards", [])
    held = next((h for h in hand if treachery.kind_of(h) == "special" and treachery.is_karama(treachery.card(h).name)),
                "Karama")
    return discard_card(ctx, state, f, held, rule, strict=False)


class CardsDiscard(Payload):
    type: Literal["cards.discard"]
    faction: FactionId
    card: Name


@action("cards.discard", CardsDiscard, summary=lambda p: f"{name(p.faction)} discard {p.card}")
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


@action("cards.ghola", Ghola, summary=lambda p: f"{name(p.faction)} play a Tleilaxu Ghola: "
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


@action("treachery.reshuffle", TreacheryReshuffle, faction_field=None,
        summary=lambda p: "the Treachery discard pile is shuffled into a new deck")
def treachery_reshuffle(ctx: Ctx, state: dict, p: TreacheryReshuffle) -> None:
    from ..rules import treachery
    left = draw_pile(state)
    ctx.check(left == 0, f"The Treachery deck still has {left} card{'s' if left != 1 else ''} to draw: it is "
                         f"reshuffled only when it runs out.", treachery.RULE)
    text = reshuffle(state)
    ctx.summary = text[0].upper() + text[1:]


# -- alliances -------------------------------------------------------------------------------

class AllianceEntry(Payload):
    type: Literal["alliance.form", "alliance.break"]
    factions: list[FactionId] = Field(min_length=2, max_length=2)


def _alliance_summary(p) -> str:
    a, b = p.factions
    return f"{name(a)} and {name(b)} {'ally' if p.type == 'alliance.form' else 'break their alliance'}"


@action("alliance.form", AllianceEntry, faction_field="factions", summary=_alliance_summary)
def alliance_form(ctx: Ctx, state: dict, p: AllianceEntry) -> None:
    a, b = p.factions
    present(state, a), present(state, b)
    if a == b:
        raise hard("A faction cannot ally with itself.", "base-alliances")
    for f in (a, b):
        other = state["alliances"].get(f)
        if other and other != ({a, b} - {f}).pop():
            raise hard(f"{name(f)} is already allied with {name(other)}: break that alliance first.",
                       "base-alliances")
    if "guild" in (a, b):
        ctx.check(not (state["turn"] == state["last_turn"] and PHASES.index(state["phase"]) > 1),
                  "The Spacing Guild cannot ally after the Spice Blow of the last turn.", "guild-special-victory")
    ctx.check(state["phase"] == "spice_blow",
              "Alliances are made and broken in a Nexus, at the end of the Spice Blow phase.", "base-nexus")
    state["alliances"][a] = b
    state["alliances"][b] = a


@action("alliance.break", AllianceEntry, faction_field="factions", summary=_alliance_summary)
def alliance_break(ctx: Ctx, state: dict, p: AllianceEntry) -> None:
    a, b = p.factions
    if state["alliances"].get(a) != b:
        raise hard(f"{name(a)} and {name(b)} are not allied.", "base-alliances")
    del state["alliances"][a]
    del state["alliances"][b]


# -- storm and phases ------------------------------------------------------------------------

class StormSet(Payload):
    type: Literal["storm.set"]
    sector: int = Field(ge=1, le=18)


@action("storm.set", StormSet, faction_field=None, summary=lambda p: f"storm set to sector {p.sector}")
def storm_set(ctx: Ctx, state: dict, p: StormSet) -> None:
    state["storm"]["sector"] = p.sector


class DotsSet(Payload):
    type: Literal["dots.set"]
    dots: dict[FactionId, int]


@action("dots.set", DotsSet, faction_field=None, host_only=True,
        summary=lambda p: "player dots: " + ", ".join(f"{name(f)} {d}" for f, d in p.dots.items()))
def dots_set(ctx: Ctx, state: dict, p: DotsSet) -> None:
    for f, dot in p.dots.items():
        present(state, f)
        if not 1 <= dot <= 18:
            raise hard(f"A player dot sits in a sector from 1 to 18, not {dot}.", "base-turn-sequence")
        state["player_dots"][f] = dot


class PhaseNext(Payload):
    type: Literal["phase.next"]


def start_phase(state: dict, turn: int, phase: str) -> None:
    """Bookkeeping that happens whenever a phase begins."""
    previous = state["phase"]
    state["turn"], state["phase"] = turn, phase
    if previous == "spice_blow" and phase != "spice_blow":
        if "fremen" in state["factions"]:
            state["factions"]["fremen"]["saved"] = {}
        state.pop("fremen_sent_to", None)
        state["nexus"] = False
        from .turn import end_spice_phase  # turn-1 worms set aside go back into the deck
        end_spice_phase(state)
    if phase == "shipment_movement":
        state["last_shipment"] = None
    if phase == "storm":
        for f in state["factions"].values():
            for ld in f["leaders"]:
                ld["used"] = False
    if phase == "shipment_movement":
        for flags in state["turn_flags"].values():
            flags.update(shipped=False, moved=False)


@action("phase.next", PhaseNext, faction_field=None, summary=lambda p: "next phase")
def phase_next(ctx: Ctx, state: dict, p: PhaseNext) -> None:
    """Refused (overridable) while the phase has unfinished blocking steps (turn.py)."""
    from .turn import phase_gate
    start_phase(state, *phase_gate(ctx, state))


class PhaseSet(Payload):
    type: Literal["phase.set"]
    turn: int = Field(ge=1, le=20)
    phase: PhaseId


@action("phase.set", PhaseSet, faction_field=None, host_only=True,
        summary=lambda p: f"phase corrected to turn {p.turn}, {p.phase}")
def phase_set(ctx: Ctx, state: dict, p: PhaseSet) -> None:
    if p.turn > state["last_turn"]:
        raise hard(f"This game has {state['last_turn']} turns.", "base-turn-sequence")
    start_phase(state, p.turn, p.phase)


# -- setup -----------------------------------------------------------------------------------

class SetupReading(Payload):
    type: Literal["setup.reading"]
    reading: str
    choice: str


@action("setup.reading", SetupReading, faction_field=None, host_only=True,
        summary=lambda p: f"the table reads {p.reading} as '{p.choice}'")
def setup_reading(ctx: Ctx, state: dict, p: SetupReading) -> None:
    for f in state["factions_present"]:
        reading = faction(f).get("readings")
        if reading and reading["id"] == p.reading:
            break
    else:
        raise hard(f"No setup question {p.reading!r} at this table.")
    if p.choice not in reading["options"]:
        raise hard(f"Choose one of: {', '.join(reading['options'])}.")
    ctx.check(state["turn"] == 1 and state["phase"] == "storm", "Setup readings are chosen before the game starts.",
              "base-setup")
    old = state["readings"].get(p.reading)
    if old == p.choice:
        return
    for placement in reading["options"][old].get("start", []):
        piece = piece_id(placement["territory"], placement["sector"])
        remove_forces(state, f, piece, placement["forces"], placement["starred"], 0, "reserves")
    apply_reading_start(state, f, reading, p.choice)
    state["readings"][p.reading] = p.choice


class Placement(Payload):
    type: str = "placement"
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Count
    starred: int = Count


class SetupFremen(Payload):
    type: Literal["setup.fremen"]
    faction: Literal["fremen"] = "fremen"
    placements: list[Placement] = Field(min_length=1, max_length=6)


def _setup_turn(ctx: Ctx, state: dict, f: str, kind: str) -> None:
    pending = state["setup"]["pending"]
    if not any(x["faction"] == f and x["kind"] == kind for x in pending):
        raise hard(f"{name(f)} has already placed its starting forces.", f"{f}-at-start")
    first = pending[0]
    ctx.check(first["faction"] == f, f"{name(first['faction'])} places before {name(f)}.", f"{f}-at-start")
    state["setup"]["pending"] = [x for x in pending if not (x["faction"] == f and x["kind"] == kind)]


@action("setup.fremen", SetupFremen, summary=lambda p: "Fremen place their 10 starting forces")
def setup_fremen(ctx: Ctx, state: dict, p: SetupFremen) -> None:
    present(state, "fremen")
    allowed = faction("fremen")["setup_choice"]["territories"]
    total = sum(x.forces + x.starred for x in p.placements)
    if total != 10:
        raise hard(f"The Fremen place exactly 10 forces at the start, not {total}.", "fremen-at-start")
    _setup_turn(ctx, state, "fremen", "fremen_split")
    for x in p.placements:
        piece = resolve_piece(ctx, x.territory, x.sector)
        territory = piece.split("@")[0]
        ctx.check(territory in allowed,
                  f"The Fremen start only in {', '.join(allowed)}, not {territory}.", "fremen-at-start")
        place_forces(state, "fremen", piece, x.forces, x.starred, 0, "reserves")


class SetupPlace(Payload):
    type: Literal["setup.bg", "setup.moritani"]
    faction: Literal["bg", "moritani"]
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    advisor: bool = False


@action("setup.bg", SetupPlace, summary=lambda p: f"Bene Gesserit place their starting force in {p.territory}")
def setup_bg(ctx: Ctx, state: dict, p: SetupPlace) -> None:
    present(state, "bg")
    if p.faction != "bg":
        raise hard("Only the Bene Gesserit place their setup force this way.", "bg-at-start")
    piece = resolve_piece(ctx, p.territory, p.sector)
    _setup_turn(ctx, state, "bg", "bg_place")
    place_forces(state, "bg", piece, 0 if p.advisor else 1, 0, 1 if p.advisor else 0, "reserves")


@action("setup.moritani", SetupPlace, summary=lambda p: f"Moritani place 6 forces in {p.territory}")
def setup_moritani(ctx: Ctx, state: dict, p: SetupPlace) -> None:
    present(state, "moritani")
    if p.faction != "moritani":
        raise hard("Only the Moritani place their setup forces this way.", "moritani-at-start")
    piece = resolve_piece(ctx, p.territory, p.sector)
    territory = piece.split("@")[0]
    ctx.check(not territory_forces(state, territory),
              f"{territory} is occupied: the Moritani start in a territory holding no forces.", "moritani-at-start")
    _setup_turn(ctx, state, "moritani", "moritani_place")
    place_forces(state, "moritani", piece, 6, 0, 0, "reserves")


# -- secrets ---------------------------------------------------------------------------------

class Prediction(Payload):
    type: Literal["prediction.set"]
    faction: Literal["bg"] = "bg"
    target: FactionId
    turn: int = Field(ge=1, le=20)


@action("prediction.set", Prediction, secret=True, summary=lambda p: "Bene Gesserit record their prediction")
def prediction_set(ctx: Ctx, state: dict, p: Prediction) -> None:
    present(state, "bg")
    present(state, p.target)
    if p.target == "bg":
        raise hard("The Bene Gesserit predict another faction's win.", "bg-prediction")
    if p.turn > state["last_turn"]:
        raise hard(f"This game has {state['last_turn']} turns.", "bg-prediction")
    state["private"]["bg"]["prediction"] = {"faction": p.target, "turn": p.turn}


class Traitors(Payload):
    type: Literal["traitors.set"]
    faction: FactionId
    traitors: list[Name] = Field(max_length=4)


@action("traitors.set", Traitors, secret=True, summary=lambda p: f"{name(p.faction)} record their traitors")
def traitors_set(ctx: Ctx, state: dict, p: Traitors) -> None:
    present(state, p.faction)
    keep = faction(p.faction).get("traitors_kept", 1)
    ctx.check(len(p.traitors) <= keep, f"{name(p.faction)} keeps {keep} traitor card{'s' if keep > 1 else ''}.",
              "harkonnen-traitors" if p.faction == "harkonnen" else "base-setup")
    state["private"][p.faction]["traitors"] = [t.strip() for t in p.traitors if t.strip()]


class KhSet(Payload):
    type: Literal["kh.set"]
    faction: Literal["atreides"] = "atreides"
    losses: int = Field(ge=0, le=40)


@action("kh.set", KhSet, secret=True, summary=lambda p: "Atreides update the Kwisatz Haderach counter")
def kh_set(ctx: Ctx, state: dict, p: KhSet) -> None:
    present(state, "atreides")
    state["private"]["atreides"]["kh_losses"] = p.losses


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


@action("ambassadors.set", Ambassadors, secret=True, summary=lambda p: "Ecaz update their ambassador supply")
def ambassadors_set(ctx: Ctx, state: dict, p: Ambassadors) -> None:
    _set_known_list(state, "ecaz", "ambassadors", p.ambassadors, "ambassadors", "ambassador", "ecaz-ambassadors")


class Terror(Payload):
    type: Literal["terror.set"]
    faction: Literal["moritani"] = "moritani"
    tokens: list[str] = Field(max_length=6)


@action("terror.set", Terror, secret=True, summary=lambda p: "Moritani update their terror tokens")
def terror_set(ctx: Ctx, state: dict, p: Terror) -> None:
    _set_known_list(state, "moritani", "terror_tokens", p.tokens, "terror_tokens", "terror token",
                    "moritani-terror-tokens")


class StormCard(Payload):
    type: Literal["storm.card"]
    faction: Literal["fremen"] = "fremen"
    card: int = Field(ge=1, le=6)


@action("storm.card", StormCard, secret=True, summary=lambda p: "Fremen draw next turn's storm card")
def storm_card(ctx: Ctx, state: dict, p: StormCard) -> None:
    present(state, "fremen")
    ctx.rules(validate_storm_card, p.card)
    state["private"]["fremen"]["storm_card"] = p.card


# -- table-wide ------------------------------------------------------------------------------

class RuleShow(Payload):
    type: Literal["rule.show"]
    rule: str = Field(min_length=1, max_length=80, pattern=r"^[a-z0-9-]+$")
    title: str | None = Field(default=None, max_length=120)


@action("rule.show", RuleShow, faction_field=None, summary=lambda p: f"rule shown to the table: {p.title or p.rule}")
def rule_show(ctx: Ctx, state: dict, p: RuleShow) -> None:
    state["banner"] = {"rule": p.rule, "title": p.title or p.rule, "by": ctx.actor}


class KaramaSpecial(Payload):
    type: Literal["karama.special", "karama.worthless"]
    faction: FactionId
    card: Name | None = None  # the card played, when the hand holds it unnamed (default: a Karama / a Worthless card)


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


@action("karama.special", KaramaSpecial, summary=lambda p: f"{name(p.faction)} play their Special Karama")
def karama_special(ctx: Ctx, state: dict, p: KaramaSpecial) -> None:
    """A Special Karama is played with a Karama card (the Bene Gesserit's, with a Worthless card):
    the card goes face up to the discard pile."""
    from ..rules import treachery
    present(state, p.faction)
    # the Bene Gesserit's Special Karama IS the Worthless-as-Karama play: either one uses it
    mine = state["factions"][p.faction]
    if mine["special_karama_used"] or mine.get("worthless_karama_used"):
        raise hard(f"{name(p.faction)} has already used its Special Karama this game.", f"{p.faction}-special-karama")
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


@action("karama.worthless", KaramaSpecial, summary=lambda p: "Bene Gesserit play a Worthless card as Karama")
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


__all__ = ["add_spice", "present", "resolve_piece", "start_phase", "stack"]
