"""CHOAM (CHOAM & Richese add-on, not KISS): charity, Inflation, discards for spice, support income.

Pure rules, no Flask. Source: shared/seeds/choam-richese.txt (rule ids ``choam-*``).

Inflation is placed once, at a Mentat Pause, with the side the player picks up; that side rules the
next turn; at the following Mentat Pause it is flipped and the other side rules the turn after;
at the next Mentat Pause it leaves the game. Double: every Charity payment is doubled and no spice
bribes may be made (from placement on). Cancel: no Charity at all is paid that turn.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

from .errors import RuleViolation, hard

SPECIAL_CHARITY_PER_FACTION = 2
DUPLICATE_PRICE = 3
WORTHLESS_PRICE = 2
SIDES = ("double", "cancel")
WORTHLESS = ("Baliset", "Jubba Cloak", "Kulon", "La La La", "Trip to Gamont")


def inflation_side(inflation: dict | None, turn: int) -> str | None:
    """The side ruling ``turn``: placed at the Mentat Pause of turn t with side S, S rules t+1,
    the other side rules t+2, then the token is gone."""
    if not inflation:
        return None
    placed, side = inflation["placed_turn"], inflation["side"]
    if turn == placed + 1:
        return side
    if turn == placed + 2:
        return other_side(side)
    return None


def other_side(side: str) -> str:
    return "cancel" if side == "double" else "double"


def double_face_up(inflation: dict | None, turn: int, phase: str) -> bool:
    """Double is face up: from its placement (the rest of the Mentat Pause) or its flip onwards."""
    if not inflation:
        return False
    side = inflation_side(inflation, turn)
    if side == "double":
        return True
    placed = inflation["placed_turn"]
    if phase == "mentat_pause":  # the interval after placing (or flipping to) Double
        if turn == placed and inflation["side"] == "double":
            return True
        if turn == placed + 1 and inflation["side"] == "cancel":
            return True
    return False


def check_bribe(inflation: dict | None, turn: int, phase: str) -> None:
    if double_face_up(inflation, turn, phase):
        raise RuleViolation("No spice bribes while CHOAM's Inflation shows Double.", "choam-inflation")


def check_inflation_place(inflation: dict | None, side: str, phase: str) -> None:
    if side not in SIDES:
        raise hard(f"Inflation is placed Double or Cancel side up, not {side!r}.", "choam-inflation")
    if inflation:
        raise RuleViolation("CHOAM has already used Inflation: it is placed once, flipped once, then removed.",
                            "choam-inflation")
    if phase != "mentat_pause":
        raise RuleViolation("Inflation is placed during the Mentat Pause.", "choam-inflation")


def special_charity(n_factions: int, side: str | None = None) -> int:
    """CHOAM's own Charity: 2 per faction in the game, from the bank, before anyone collects."""
    return scale(SPECIAL_CHARITY_PER_FACTION * n_factions, side)


def scale(amount: int, side: str | None) -> int:
    if side == "cancel":
        return 0
    if side == "double":
        return 2 * amount
    return amount


def charity_payer(f: str, factions_present: Iterable[str], *, karama_on_choam: bool = False) -> str:
    """Who pays a faction's ordinary Charity: CHOAM when it plays (the bank when CHOAM's Charity is
    stopped by Karama, and for CHOAM itself)."""
    if f != "choam" and "choam" in set(factions_present) and not karama_on_choam:
        return "choam"
    return "bank"


def duplicates(cards: Iterable[str]) -> dict[str, int]:
    """Exact duplicates in a hand: name -> surplus copies (Snooper and Portable Snooper differ)."""
    return {c: n - 1 for c, n in Counter(cards).items() if n > 1}


def discard_value(card: str, hand: list[str]) -> int:
    """Spice for discarding ``card`` at a phase end: 3 for a surplus copy, 2 for a Worthless card."""
    if hand.count(card) > 1:
        return DUPLICATE_PRICE
    if card in WORTHLESS:
        return WORTHLESS_PRICE
    raise RuleViolation(f"{card!r} is neither a surplus copy nor a Worthless card: CHOAM cannot sell it.",
                        "choam-discard")


def check_worthless_effect(card: str) -> None:
    """Only a Worthless Card has a named CHOAM effect (each a different one)."""
    if card not in WORTHLESS:
        raise RuleViolation(f"{card!r} is not a Worthless Card: only those have a CHOAM effect "
                            f"({', '.join(WORTHLESS)}).", "choam-discard")


def support_income(paid: int, traitor_revealed: bool = False) -> int:
    """Advanced: half (rounded down) of another faction's battle support payment, none after a traitor."""
    return 0 if traitor_revealed else paid // 2


def audit_cards(auditor_survived: bool, available: int) -> int:
    """Cards the Auditor inspects: 2 if it survived, 1 if it died, never more than there are."""
    return min(2 if auditor_survived else 1, max(0, available))


__all__ = ["inflation_side", "double_face_up", "check_bribe", "check_inflation_place", "special_charity",
           "scale", "charity_payer", "duplicates", "discard_value", "check_worthless_effect", "support_income", "audit_cards"]


# -- the Auditor (Advanced) ------------------------------------------------------------------

AUDITOR = "The Auditor"


def audit_pick(hand: list[str], hand_size: int, used: Iterable[str], n: int, seed: str) -> list[str]:
    """The cards CHOAM sees: ``n`` drawn at random (reproducibly from ``seed``) from the opponent's
    hand without the cards it used in the battle; an unnamed card shows as ``"(unnamed card)"``."""
    import random
    pool = list(hand) + ["(unnamed card)"] * max(0, hand_size - len(hand))
    for c in used:
        match = next((x for x in pool if x.lower() == c.lower()), None)
        if match:
            pool.remove(match)
    return random.Random(seed).sample(pool, min(n, len(pool)))


# -- Leader Skills (optional module) ---------------------------------------------------------

def skill_names() -> list[str]:
    import json
    from importlib import resources
    data = json.loads(resources.files("companion.games.dune").joinpath("data/leader_skills.json").read_text("utf-8"))
    return [s["name"] for s in data["skills"]]


def skill_name(wanted: str) -> str:
    """The Skill Card called ``wanted`` (any case), or a hard refusal listing the deck."""
    names = skill_names()
    for s in names:
        if s.lower() == wanted.strip().lower():
            return s
    raise hard(f"{wanted!r} is not a Leader Skill card: {', '.join(names)}.", "choam-richese-leader-skills")


def check_skill_assign(skill: str, leader: str, leader_status: str, *, held: str | None,
                       taken: Iterable[str]) -> None:
    """One skill a faction, on one of its own living leaders (never the Auditor), a card nobody else holds."""
    if leader == AUDITOR:
        raise RuleViolation("The Auditor cannot be assigned a Leader Skill.", "choam-auditor")
    if held:
        raise RuleViolation(f"This faction already holds a Leader Skill ({held}): one skill a faction.",
                            "choam-richese-leader-skills")
    if skill in set(taken):
        raise hard(f"{skill} is already out of the Skill deck.", "choam-richese-leader-skills")
    if leader_status != "alive":
        raise RuleViolation(f"{leader} is not at home to take a skill ({leader_status}).",
                            "choam-richese-leader-skills")


def bribe_check(inflation: dict | None, turn: int, phase: str, payer: str, to: str) -> None:
    if payer == to:
        raise hard("A faction cannot bribe itself.", "choam-richese-bribes")
    check_bribe(inflation, turn, phase)


__all__ += ["AUDITOR", "audit_pick", "skill_names", "skill_name", "check_skill_assign", "bribe_check"]
