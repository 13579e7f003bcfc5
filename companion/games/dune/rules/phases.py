"""The turn sequence: the nine phases in order, what happens in each, and storm order.

Pure rules: plain inputs, plain outputs, no state objects.

Decisions (documented here because the table relies on them)
- ``next_phase`` after the Mentat Pause of the last turn raises a hard ``RuleViolation``
  (rule ``base-turn-sequence``): the game is over, there is no next phase.
- ``storm_order``: the first player is the one whose dot the storm *will next reach*, moving
  counter-clockwise (increasing sector numbers, 18 wraps to 1). A dot in the sector the storm
  is in right now has just been reached, so the storm reaches it again only after a full lap:
  that player is **last**. Two factions on the same dot keep the order in which ``seats``
  lists them (tables of 7-9 set their own dots; any list of sectors 1..18 is accepted).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from .board import SECTORS
from .errors import RuleViolation, hard

PHASES: tuple[str, ...] = (
    "storm",
    "spice_blow",
    "charity",
    "bidding",
    "revival",
    "shipment_movement",
    "battle",
    "collection",
    "mentat_pause",
)

DEFAULT_PLAYER_DOTS: tuple[int, ...] = (1, 4, 7, 10, 13, 16)


@dataclass(frozen=True)
class PhaseInfo:
    id: str
    name: str
    summary: str  # one line: what happens now
    rule: str  # rules-corpus id to link


PHASE_INFO: dict[str, PhaseInfo] = {
    p.id: p
    for p in (
        PhaseInfo(
            "storm",
            "Storm",
            "The storm moves counter-clockwise; sand it crosses loses its forces and spice "
            "(turn 1: two dials of 0-20; later: the storm card).",
            "base-storm",
        ),
        PhaseInfo(
            "spice_blow",
            "Spice Blow & Nexus",
            "Turn the top spice card of piles A and B: spice lands on its territory, a worm "
            "devours the last territory; one Nexus if any worm came.",
            "base-spice-blow",
        ),
        PhaseInfo(
            "charity",
            "CHOAM Charity",
            "Factions with 0 or 1 spice may claim charity up to 2; the Bene Gesserit take 2 "
            "from turn 2 on.",
            "base-charity",
        ),
        PhaseInfo(
            "bidding",
            "Bidding",
            "One Treachery Card is auctioned per faction that can still take a card; full "
            "hands must pass.",
            "base-bidding",
        ),
        PhaseInfo(
            "revival",
            "Revival",
            "Each faction revives its free forces, may buy more at 2 spice each (3 in all per "
            "turn) and may revive a leader.",
            "base-revival",
        ),
        PhaseInfo(
            "shipment_movement",
            "Shipment & Movement",
            "In storm order each faction ships forces onto Dune, then makes one move.",
            "base-shipment",
        ),
        PhaseInfo(
            "battle",
            "Battle",
            "In storm order, factions sharing a territory outside the storm fight it out with "
            "battle plans.",
            "base-battle",
        ),
        PhaseInfo(
            "collection",
            "Spice Collection",
            "Forces on spice collect 2 each (3 with Arrakeen or Carthag), up to the spice there.",
            "base-collection",
        ),
        PhaseInfo(
            "mentat_pause",
            "Mentat Pause",
            "Check for a winner; otherwise the next turn begins (special victories after the "
            "last turn).",
            "base-mentat-pause",
        ),
    )
}


def phase_info(phase: str) -> PhaseInfo:
    check_phase(phase)
    return PHASE_INFO[phase]


def phase_name(phase: str) -> str:
    return phase_info(phase).name


def check_phase(phase: str) -> str:
    if phase not in PHASE_INFO:
        raise hard(
            f"{phase!r} is not a phase; the phases are {', '.join(PHASES)}.",
            "base-turn-sequence",
        )
    return phase


def check_turn(turn: int, last_turn: int) -> int:
    if not isinstance(last_turn, int) or last_turn < 1:
        raise hard(f"The last turn must be 1 or more, not {last_turn!r}.", "base-turn-sequence")
    if not isinstance(turn, int) or not 1 <= turn <= last_turn:
        raise hard(
            f"Turn {turn!r} is outside this game's turns 1 to {last_turn}.", "base-turn-sequence"
        )
    return turn


def next_phase(turn: int, phase: str, last_turn: int) -> tuple[int, str]:
    """The (turn, phase) after ``phase`` of ``turn``.

    After the Mentat Pause the next turn starts with the Storm; after the Mentat Pause of
    ``last_turn`` the game is over and a hard RuleViolation is raised."""
    check_turn(turn, last_turn)
    i = PHASES.index(check_phase(phase))
    if i + 1 < len(PHASES):
        return turn, PHASES[i + 1]
    if turn >= last_turn:
        raise hard(
            f"Turn {turn} was the last turn: the game ends after its Mentat Pause.",
            "base-turn-sequence",
        )
    return turn + 1, PHASES[0]


def default_dots(
    factions_in_seating_order: Sequence[str], dots: Sequence[int] = DEFAULT_PLAYER_DOTS
) -> dict[str, int]:
    """Assign the board's player dots to the factions in seating order.

    ``dots`` normally comes from ``board.json`` ``player_dots`` (1, 4, 7, 10, 13, 16). With
    more factions than dots the table must set the dots itself (RuleViolation)."""
    factions = list(factions_in_seating_order)
    if len(set(factions)) != len(factions):
        raise hard("A faction can only have one seat.", "base-setup")
    if len(factions) > len(dots):
        raise RuleViolation(
            f"{len(factions)} factions but only {len(dots)} player dots: the table must set "
            "each faction's dot.",
            "base-setup",
        )
    return {f: int(d) for f, d in zip(factions, dots)}


def _check_sector(sector: int, what: str, faction: str | None = None) -> int:
    """``sector`` if it is a sector of the board, else a refusal naming ``what`` (with ``{}`` for
    the name of ``faction``: looked up only for a refusal)."""
    if isinstance(sector, bool) or not isinstance(sector, int) or not 1 <= sector <= SECTORS:
        if faction is not None:
            from .factions import faction_name  # late: factions.py loads data
            what = what.format(faction_name(faction))
        raise hard(f"{what} must be a sector from 1 to {SECTORS}, not {sector!r}.", "base-board")
    return sector


def storm_distance(storm_sector: int, dot: int, sectors: int = SECTORS) -> int:
    """How many sectors the storm must still move to reach ``dot`` (1..sectors).

    A dot in the storm's own sector is ``sectors`` away: reached again only after a full lap."""
    d = (dot - storm_sector) % sectors
    return d if d else sectors


def storm_order(storm_sector: int, seats: Mapping[str, int]) -> list[str]:
    """Factions in storm order: first the one whose dot the storm reaches next.

    ``seats`` maps faction -> player-dot sector. Ties keep the order of ``seats``."""
    _check_sector(storm_sector, "The storm")
    keyed = []
    for i, (faction, dot) in enumerate(seats.items()):
        _check_sector(dot, "The player dot of {}", faction)
        keyed.append((storm_distance(storm_sector, dot), i, faction))
    return [f for _, _, f in sorted(keyed)]
