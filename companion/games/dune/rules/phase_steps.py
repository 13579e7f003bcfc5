"""What each phase asks of the table, and whether it is done: the steps a table can see.

Pure rules over plain data (no state objects, no Flask): the table layer gathers the facts
(``companion/games/dune/entries/phases.py``, ``steps_for``) and these functions say which steps
are open, who must act, whose turn it is in Shipment & Movement and Bidding, and why a
"Next phase" is refused.

A step is *blocking* when the phase cannot end without it (the storm has not moved, a pile has
no card, a Nexus is open, a battle is not fought, collection not applied...). Optional steps
(charity, revival, BG prediction, traitors, Fremen saved forces, next turn's storm card) are
shown but never stop the table. Blocking steps are read only from public facts, so every
phone sees the same reason a "Next phase" is refused.

Decisions (documented here because the table relies on them)
- Storm: the storm moves once per turn (``base-storm``); a second move in the same turn is
  refused (overridable: a table ruling can still record it). Weather Control *replaces* the
  move, it is not a second one.
- Spice Blow: each pile A and B is done once a territory (or Discovery) card is the last card
  turned onto it this phase; a worm on a pile means "draw again onto the same pile"
  (``base-spice-blow``). The next pile is A until A is done, then B.
- Nexus: once a worm calls one (turn 2 on), it stays open until the table closes it
  (``nexus.close``); KISS holds a single Nexus per turn (``kiss-single-nexus``).
- Bidding: the cards up for auction are fixed when the first card of the turn is sold (one per
  faction with room in its hand, ``base-bidding``); the step is done when they are all sold,
  when no faction can still buy, or when the table records that everyone passed on a card
  (the rest go back and bidding ends). Opener of card 1: the first eligible faction in storm
  order; each later card: the next eligible faction after the previous opener.
- Shipment & Movement: in storm order each faction ships then moves (``base-shipment``). A
  faction has finished its turn once it has moved or said it is done. The faction whose turn
  it is: a faction that has started (shipped) and not finished, else the first faction in storm
  order that has not finished. The Guild acts when it wishes (``guild-ship-when-you-wish``):
  first, last or between two other factions' turns, never in the middle of one; once it starts,
  it is the Guild's turn until it has finished ("the Guild goes now"). When everyone else is
  done the Guild must go.
- Battle: done when no territory holds two non-allied factions' fighters outside the Polar
  Sink and not split by the storm (the table records each battle's losses with the force
  entries; the table layer's ``battles_for`` finds what is left).
- Collection: done once applied this turn, or when there is nothing to collect.
- Mentat Pause: blocking only when the rules see a winner the table has not confirmed, or
  once a win is confirmed (the game is over).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from .errors import RuleViolation, hard
from .factions import faction_name

GUILD = "guild"
PILES = ("A", "B")
WORM = "Shai-Hulud"


@dataclass(frozen=True)
class Step:
    """``text`` is a short phrase starting in lower case (unless with a name), ready to be joined
    into the refusal sentence or shown as a line of the phase card."""
    id: str
    text: str
    done: bool
    factions: tuple[str, ...] = ()
    rule: str | None = None
    blocking: bool = True

    def to_dict(self) -> dict:
        return {"id": self.id, "text": self.text, "done": self.done, "factions": list(self.factions),
                "rule": self.rule, "blocking": self.blocking}


def _names(factions: Iterable[str]) -> str:
    names = [faction_name(f) for f in factions]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def missing(steps: Iterable[Step]) -> list[Step]:
    """The blocking steps not done yet, in the phase's order."""
    return [s for s in steps if s.blocking and not s.done]


def refusal(phase_name: str, steps: Iterable[Step], next_name: str) -> RuleViolation | None:
    """Why "Next phase" is refused (overridable), or None when the phase is done.

    One sentence: the missing steps, the phase it would go to, and the rule of the first."""
    open_ = missing(steps)
    if not open_:
        return None
    what = "; ".join(s.text for s in open_)
    return RuleViolation(f"{what[0].upper()}{what[1:]}: finish {phase_name} before {next_name}, or override.",
                         open_[0].rule)


# -- storm ---------------------------------------------------------------------------------------

def storm_steps(turn: int, *, setup_pending: Sequence[str] = (), storm_moved: bool = False,
                dialers: Sequence[str] = (), dialled: Sequence[str] = (), storm_pending: bool = False,
                fremen_present: bool = False, bg_prediction: bool | None = None,
                traitors_missing: Sequence[str] = ()) -> list[Step]:
    """``setup_pending``: factions still to place their starting forces (turn 1);
    ``bg_prediction``: None without the Bene Gesserit, else whether it is recorded;
    ``traitors_missing``: factions that have not recorded their traitors (turn 1, optional)."""
    steps: list[Step] = []
    if turn == 1:
        steps.append(Step("setup", "setup is not finished: waiting for " + ", ".join(faction_name(f) for f in setup_pending)
                          if setup_pending else "setup placements done", not setup_pending,
                          tuple(setup_pending), "base-setup"))
        if bg_prediction is not None:
            steps.append(Step("bg_prediction", "Bene Gesserit write down their prediction", bg_prediction,
                              () if bg_prediction else ("bg",), "bg-prediction", blocking=False))
        if traitors_missing:
            steps.append(Step("traitors", "traitors recorded (" + _names(traitors_missing) + " to go)", False,
                              tuple(traitors_missing), "base-setup", blocking=False))
        waiting = [f for f in dialers if f not in dialled]
        steps.append(Step("storm_dials", f"{_names(dialers)} dial the storm" if dialers else "dial the storm",
                          storm_moved or storm_pending or not waiting, () if storm_moved else tuple(waiting),
                          "base-storm", blocking=False))
    elif fremen_present:
        steps.append(Step("storm_card", "Fremen reveal the storm card", storm_moved or storm_pending,
                          () if storm_moved or storm_pending else ("fremen",), "fremen-storm-deck", blocking=False))
    else:
        steps.append(Step("storm_card", "turn a storm card", storm_moved or storm_pending, (), "base-storm",
                          blocking=False))
    steps.append(Step("storm_moved", "the storm has moved" if storm_moved else "the storm has not moved yet",
                      storm_moved, (), "base-storm"))
    return steps


def check_storm_not_moved(storm_moved_turn: int | None, turn: int) -> None:
    """The storm moves once a turn (turn 1: the two dials; later: the storm card)."""
    if storm_moved_turn == turn:
        raise RuleViolation(f"The storm has already moved this turn (turn {turn}); it moves once a turn.",
                            "base-storm")


# -- spice blow ----------------------------------------------------------------------------------

def piles_done(blows: Iterable[tuple[str, str]]) -> dict[str, bool]:
    """``blows``: (pile, card) turned this phase, in order. A pile is done once a card landed on
    it and the last one is not a worm (after a worm the table draws again onto the same pile)."""
    done = {p: False for p in PILES}
    for pile, card in blows:
        if pile in done:
            done[pile] = card != WORM
    return done


def next_pile(blows: Iterable[tuple[str, str]]) -> str:
    """The pile the next card goes onto: A until A has its territory card, then B."""
    return "B" if piles_done(blows)["A"] else "A"


def spice_blow_steps(blows: Sequence[tuple[str, str]], *, nexus_open: bool = False, saved_fremen: bool = False
                     ) -> list[Step]:
    done = piles_done(blows)
    steps = [Step(f"blow_{p}", f"a card turned on pile {p}" if done[p] else f"no card turned on pile {p} yet",
                  done[p], (), "base-spice-blow") for p in PILES]
    if nexus_open:
        steps.append(Step("nexus", "the Nexus is open (alliances are made and broken, then the table closes it)", False, (),
                          "base-nexus"))
    if saved_fremen:
        steps.append(Step("fremen_saved", "Fremen may send their saved forces to one place", False, ("fremen",),
                          "fremen-wormriders", blocking=False))
    return steps


# -- charity, bidding, revival ---------------------------------------------------------------------

def charity_steps(entitled: Sequence[str], claimed: Sequence[str]) -> list[Step]:
    """``entitled``: factions (as far as the viewer may know) that may claim charity now."""
    open_ = [f for f in entitled if f not in claimed]
    text = (f"{_names(open_)} may claim CHOAM charity" if open_ else "charity claimed by all who may")
    return [Step("charity", text, not open_, tuple(open_), "base-charity", blocking=False)]


def bidding_opener(order: Sequence[str], eligible: Iterable[str], previous: str | None = None) -> str | None:
    """Who opens the bidding on the next card: the first eligible faction in storm order for
    the first card, then the next eligible faction after the previous opener."""
    ok = set(eligible)
    if not ok:
        return None
    order = list(order)
    start = order.index(previous) + 1 if previous in order else 0
    for f in order[start:] + order[:start]:
        if f in ok:
            return f
    return None


def bidding_steps(cards: int, sold: int, *, ended: bool = False, eligible: Sequence[str] = (),
                  opener: str | None = None) -> list[Step]:
    left = max(0, cards - sold)
    done = ended or left == 0 or not eligible
    if done:
        text = "bidding is over" + (": the rest went back after everyone passed" if ended and left else "")
    else:
        text = f"{left} of {cards} card{'s' if cards != 1 else ''} still up for auction"
    return [Step("auction", text, done, (opener,) if opener and not done else (), "base-bidding")]


def revival_steps(in_tanks: Sequence[str], revived: Sequence[str]) -> list[Step]:
    open_ = [f for f in in_tanks if f not in revived]
    return [Step("revival", f"{_names(open_)} may revive forces" if open_ else "revivals done", not open_,
                 tuple(open_), "base-revival", blocking=False)]


# -- shipment and movement ----------------------------------------------------------------------------

@dataclass(frozen=True)
class ShipmentTurn:
    order: tuple[str, ...]
    done: tuple[str, ...]
    acting: str | None  # started its turn (shipped) and not finished
    next: str | None  # first in storm order (the Guild aside) still to go
    guild_waiting: bool = False  # the Guild has not gone yet and may go now

    @property
    def current(self) -> str | None:
        return self.acting or self.next

    def to_dict(self) -> dict:
        note = None
        if self.current == GUILD:
            note = "The Spacing Guild is taking its turn now." if self.acting == GUILD else \
                "Everyone else is done: the Spacing Guild goes now."
        elif self.guild_waiting:
            note = "The Spacing Guild may ship and move when it wishes (first, last or between two turns)."
        return {"faction": self.current, "order": list(self.order), "done": list(self.done), "note": note}


def shipment_turn(order: Sequence[str], shipped: Iterable[str], moved: Iterable[str], passed: Iterable[str]
                  ) -> ShipmentTurn:
    """Whose turn it is in Shipment & Movement. ``order``: storm order; ``passed``: factions that
    said they are done."""
    order = tuple(order)
    shipped, finished = set(shipped), set(moved) | set(passed)
    done = tuple(f for f in order if f in finished)
    acting = next((f for f in order if f in shipped and f not in finished), None)
    waiting = [f for f in order if f not in finished and f != GUILD]
    guild_left = GUILD in order and GUILD not in finished
    nxt = waiting[0] if waiting else (GUILD if guild_left else None)
    return ShipmentTurn(order, done, acting, nxt, guild_waiting=guild_left and acting != GUILD)


def check_shipment_turn(faction: str, turn: ShipmentTurn, action: str = "ship") -> None:
    """Refuse (overridable) a shipment, move or "done" by a faction whose turn it is not.
    ``action``: "ship", "move" or "done"."""
    name = faction_name(faction)
    if faction in turn.done:
        if action == "move" and turn.acting is None:
            return  # a second move: the movement rules say why
        if action == "done":
            raise hard(f"{name} has already finished its shipment and movement this turn.", "base-shipment")
        raise RuleViolation(f"{name} has already finished its shipment and movement this turn "
                            "(one shipment, then one move).", "base-shipment")
    if turn.acting == faction:
        return
    if faction == GUILD:
        if turn.acting is not None:
            raise RuleViolation(f"The Spacing Guild goes between other factions' turns, not in the middle of one: "
                                f"{faction_name(turn.acting)} has shipped and not finished yet.",
                                "guild-ship-when-you-wish")
        return
    if turn.acting is not None:
        if turn.acting == GUILD:
            raise RuleViolation(f"The Spacing Guild is taking its turn now: {name} waits until it has shipped "
                                "and moved.", "guild-ship-when-you-wish")
        raise RuleViolation(f"{faction_name(turn.acting)} is in the middle of its turn (shipped, not yet moved): "
                            f"{name} waits until it is done.", "base-shipment")
    if turn.next != faction:
        order = ", ".join(faction_name(f) for f in turn.order if f not in turn.done)
        raise RuleViolation(f"It is {faction_name(turn.next)}'s turn to ship and move, not {name}'s "
                            f"(storm order: {order}).", "base-shipment")


def shipment_steps(turn: ShipmentTurn) -> list[Step]:
    left = [f for f in turn.order if f not in turn.done]
    text = (f"{_names(left)} still to ship and move" if left else "every faction has shipped and moved")
    return [Step("ship_move", text, not left, tuple(left), "base-shipment")]


# -- battle, collection, mentat pause ------------------------------------------------------------

def battle_steps(battles: Sequence[tuple[str, Sequence[str]]]) -> list[Step]:
    """``battles``: (territory, factions in it) still to be fought."""
    if not battles:
        return [Step("battles", "no battle left to fight", True, (), "base-battle")]
    where = ", ".join(f"{t} ({' v '.join(faction_name(f) for f in fs)})" for t, fs in battles)
    involved: list[str] = []
    for _, fs in battles:
        involved += [f for f in fs if f not in involved]
    return [Step("battles", f"battles to fight: {where}", False, tuple(involved), "base-battle")]


def collection_steps(applied: bool, anything_to_collect: bool) -> list[Step]:
    done = applied or not anything_to_collect
    text = ("spice collected" if applied else "nothing to collect" if done else "spice collection not applied yet")
    return [Step("collection", text, done, (), "base-collection")]


def mentat_steps(*, winners: Sequence[str] = (), confirmed: Sequence[str] = (), last_turn: bool = False,
                 fremen_card: bool | None = None) -> list[Step]:
    """``fremen_card``: None without the Fremen (or on the last turn), else whether next turn's
    storm card is recorded."""
    steps: list[Step] = []
    if confirmed:
        steps.append(Step("victory", f"the game is over: {_names(confirmed)} won", False, (), "base-victory"))
    elif winners:
        steps.append(Step("victory", f"the rules see a win for {_names(winners)}: confirm it", False,
                          tuple(winners), "base-victory"))
    else:
        steps.append(Step("victory", "victory checked: no winner yet" + (" (last turn)" if last_turn else ""),
                          True, (), "base-victory"))
    if fremen_card is not None and not last_turn:
        steps.append(Step("storm_card", "Fremen draw next turn's storm card", fremen_card,
                          () if fremen_card else ("fremen",), "fremen-storm-deck", blocking=False))
    return steps


__all__ = [
    "Step", "ShipmentTurn", "missing", "refusal", "storm_steps", "check_storm_not_moved", "piles_done",
    "next_pile", "spice_blow_steps", "charity_steps", "bidding_opener", "bidding_steps", "revival_steps",
    "shipment_turn", "check_shipment_turn", "shipment_steps", "battle_steps", "collection_steps",
    "mentat_steps",
]
