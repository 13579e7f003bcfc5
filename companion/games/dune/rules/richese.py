"""Richese (CHOAM & Richese add-on, not KISS): the cache auction and the No-Field tokens.

Pure rules, no Flask. Source: shared/seeds/choam-richese.txt (rule ids ``richese-*``).
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from .errors import RuleViolation, hard
from .factions import faction_name, load_factions

NOFIELD_TOKENS = (0, 3, 5)
METHODS = ("once_around", "silent")
WHEN = ("first", "last")


def cache_cards() -> list[str]:
    return list(load_factions()["factions"]["richese"]["cache"])


# -- the cache auction ----------------------------------------------------------------------

def cache_payee(buyer: str, factions_present: Iterable[str]) -> str:
    """Others pay Richese; Richese buying its own card pays the Emperor, or the bank without one."""
    if buyer != "richese":
        return "richese"
    return "emperor" if "emperor" in set(factions_present) else "bank"


def check_cache_bidder(f: str, hand_size: int, hand_limit: int, *, karama: bool = False) -> None:
    """A full hand cannot enter the cache auction; a Karama cannot buy a cache card."""
    if karama:
        raise RuleViolation("A Karama cannot buy or take a card from the Richese cache auction.",
                            "richese-cache-auction")
    if hand_size >= hand_limit:
        raise RuleViolation(f"{faction_name(f)} holds {hand_size} cards, its limit: a full hand cannot enter "
                            f"the cache auction.", "richese-cache-auction")


def once_around_order(storm_order: Sequence[str], eligible: Iterable[str], clockwise: bool = True) -> list[str]:
    """Once Around: starting with the faction next to Richese on the chosen side, each eligible
    faction gets one turn, Richese last. ``storm_order`` is the table's seating read
    counterclockwise from the storm (the order factions sit in round the board)."""
    seats = list(storm_order)
    ok = set(eligible)
    if "richese" not in seats:
        return [f for f in seats if f in ok]
    i = seats.index("richese")
    n = len(seats)
    step = 1 if clockwise else -1
    ring = [seats[(i + step * k) % n] for k in range(1, n)] + ["richese"]
    return [f for f in ring if f in ok]


def silent_winner(bids: Mapping[str, int], storm_order: Sequence[str]) -> tuple[str | None, int]:
    """Sealed bids revealed together: the largest wins, ties go to the first in storm order.
    All zero: (None, 0) - Richese may take the card free or remove it from the game."""
    if not bids:
        return None, 0
    rank = {f: i for i, f in enumerate(storm_order)}
    top = max(bids.values())
    if top <= 0:
        return None, 0
    tied = sorted((f for f, b in bids.items() if b == top), key=lambda f: rank.get(f, 99))
    return tied[0], top


def check_bid_amount(f: str, amount: int, spice: int) -> None:
    if amount < 0:
        raise hard("A bid is 0 spice or more.", "richese-silent-auction")
    if amount > spice:
        raise hard(f"{faction_name(f)} has {spice} spice and cannot bid {amount}.", "richese-silent-auction")


# -- No-Field tokens --------------------------------------------------------------------------

def check_nofield_ship(token: int, *, on_planet: int | None, last_used: int | None) -> None:
    """One No-Field on the planet at a time; never the same number twice in a row."""
    if token not in NOFIELD_TOKENS:
        raise hard(f"No-Field tokens are numbered 0, 3 and 5, not {token!r}.", "richese-no-field")
    if on_planet is not None:
        raise RuleViolation("Only one No-Field token may be on the planet at once: reveal the one there first.",
                            "richese-no-field")
    if last_used is not None and token == last_used:
        raise RuleViolation(f"The {token} No-Field was the last one used: never use the same number twice in a "
                            f"row.", "richese-no-field")


def reveal_forces(token: int, reserves: int) -> int:
    """Forces placed (or destroyed, by storm or worm) when a token is revealed: its number, or all
    that remain in reserve if fewer."""
    return max(0, min(token, reserves))


def max_dial(token: int, reserves: int, other_forces: int = 0) -> int:
    """Richese cannot dial more forces than it can actually reveal in a No-Field battle."""
    return other_forces + reveal_forces(token, reserves)


def check_nofield_dial(dialled: int, token: int, reserves: int, other_forces: int = 0) -> None:
    most = max_dial(token, reserves, other_forces)
    if dialled > most:
        raise RuleViolation(f"Richese can reveal only {most} force{'s' if most != 1 else ''} here (the No-Field "
                            f"shows {token}, reserves hold {reserves}): it cannot dial {dialled}.",
                            "richese-no-field")


__all__ = ["NOFIELD_TOKENS", "cache_cards", "cache_payee", "check_cache_bidder", "once_around_order",
           "silent_winner", "check_nofield_ship", "reveal_forces", "max_dial", "check_nofield_dial"]
