"""Bene Gesserit advisors and fighters: when the tokens may flip, and which side forces take when
they enter a territory. Pure; no Flask, no table state.

From the KISS Bene Gesserit sheet (ADVISORS AND FIGHTERS), which reverts to the Avalon Hill
reading ("can only flip to fighters at the start of S&M phase and when entering a new
territory; cannot flip to advisors on reinforcement"):

- *Entering a territory where the BG had no forces*: the entering forces choose their side
  (one side: a territory never holds both).
- *Entering a territory where BG forces stand*: "Your forces that enter a territory with
  Fighters or Advisors flip to that side." The newcomers take the side already there: fighters
  shipped or moved onto advisors arrive as advisors, an advisor (a spiritual advisor too, the
  Polar Sink included) sent onto fighters arrives as a fighter. Never a mixed stack.
- *Strongholds*: "You ignore occupancy limits when entering strongholds, but you must flip to
  Advisors if that causes an illegal state": fighters entering a stronghold already holding two
  other factions are refused with that sentence (occupancy.py), so the table records them as
  advisors; fighters joining BG advisors there are advisors anyway, so they may enter.
- *Flipping* (the ``forces.flip`` entry) is open only in the Shipment & Movement phase:
  - at its start (before anyone has shipped or moved), in any territory, either way;
  - when another, non-allied faction has just entered a territory held only by BG fighters
    (or, for a shipment from off-planet, where BG fighters stand, so a spiritual advisor may
    join it): the BG may then turn those fighters into advisors.
  Never under the storm, where allied forces are, nor to fighters in a full stronghold.
  Timing and place refusals are overridable (a table may have agreed otherwise).
"""
from __future__ import annotations

from .board import POLAR_SINK, Board
from .errors import RuleViolation
from .occupancy import full_for
from .position import Position

R_ADVISORS = "bg-advisors"


def entering_side(board: Board, pos: Position, territory: str, fighters: int, advisors: int
                  ) -> tuple[int, int, str | None]:
    """(fighters, advisors) that BG forces entering ``territory`` end up as, and why they changed
    side: "advisors there", "fighters there" (or None: as entered).

    ``pos`` is the position *before* the entry. Raises an overridable RuleViolation for an entry
    that would put both sides into a territory where the BG had no forces."""
    if fighters < 0 or advisors < 0:
        raise RuleViolation("Force counts cannot be negative.", R_ADVISORS, overridable=False)
    bg_fighters = pos.occupants.get(territory, {}).get("bg", 0)
    bg_advisors = pos.advisors.get(territory, 0)
    if bg_advisors and fighters:
        return 0, fighters + advisors, "advisors there"
    if bg_fighters and advisors:
        return fighters + advisors, 0, "fighters there"
    if fighters and advisors:
        raise RuleViolation(
            f"Bene Gesserit forces in one territory are all advisors or all fighters: enter {territory} "
            f"with one side only.", R_ADVISORS)
    return fighters, advisors, None


def may_choose_after_entry(pos: Position, entrant: str, territory: str, from_off_planet: bool) -> bool:
    """After ``entrant`` entered ``territory`` (``pos`` is the position *before* the entry): may
    the BG now flip their fighters there to advisors?"""
    if entrant == "bg" or pos.ally_of("bg") == entrant or territory == POLAR_SINK:
        return False
    bg_fighters = pos.occupants.get(territory, {}).get("bg", 0)
    if not bg_fighters:
        return False
    others = pos.factions_in(territory) - {"bg"}
    return not others or from_off_planet


def check_flip(
    board: Board,
    pos: Position,
    territory: str,
    to: str,
    *,
    phase: str,
    started: bool,
    chosen_territory: str | None = None,
    bg_sectors: tuple[int, ...] = (),
) -> None:
    """Refuse a BG flip (``to`` "advisors" or "fighters") in ``territory`` that the rules do not allow.

    ``started``: somebody has already shipped or moved this Shipment & Movement phase.
    ``chosen_territory``: the territory a non-allied faction has just entered where the BG may
    choose their side again (``may_choose_after_entry``). ``bg_sectors``: the sectors of the
    pieces holding BG forces in ``territory``."""
    if to not in ("advisors", "fighters"):
        raise RuleViolation("Flip to advisors or to fighters.", R_ADVISORS, overridable=False)
    when = phase.replace("_", " ").title().replace("Shipment Movement", "Shipment & Movement")
    if phase != "shipment_movement":
        raise RuleViolation(
            f"The Bene Gesserit flip only at the start of Shipment & Movement (or choose a side as they "
            f"enter a territory), not in the {when} phase.", R_ADVISORS)
    if started:
        reopened = to == "advisors" and chosen_territory == territory
        if not reopened:
            raise RuleViolation(
                "Shipment & Movement has begun: the Bene Gesserit flip only at its start, or turn their "
                "fighters into advisors where another faction has just entered"
                + (" (to fighters: never on reinforcement)." if to == "fighters" else "."), R_ADVISORS)
    if territory != POLAR_SINK and pos.storm_sector in bg_sectors:
        raise RuleViolation(
            f"The storm is over sector {pos.storm_sector}: the Bene Gesserit cannot flip in {territory}.",
            R_ADVISORS)
    ally = pos.ally_of("bg")
    if ally and ally in pos.factions_in(territory):
        raise RuleViolation(f"Allied forces are in {territory}: the Bene Gesserit cannot flip there.",
                            R_ADVISORS)
    if to == "fighters" and territory != POLAR_SINK and full_for(board, pos, "bg", territory):
        raise RuleViolation(
            f"{territory} already holds two other factions: the advisors there cannot become fighters.",
            R_ADVISORS)


__all__ = ["entering_side", "may_choose_after_entry", "check_flip", "R_ADVISORS"]
