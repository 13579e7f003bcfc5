"""KISS Simple Dialing: what a dial is worth and what it costs.

Pure rules, no Flask. Facts come from ``companion/games/dune/data/dialing.json``.

The rule (``kiss-simple-dialing``):

- no fractions: whole troops only;
- the first 2 troops dialed are free, every further troop costs 1 spice
  (so 3 troops cost 1, 20 troops cost 18);
- the Fremen never pay for dialing (``fremen-battles``);
- strength is what the troops are worth: a regular force 1, a Sardaukar or a Fedaykin 2,
  except that a Sardaukar is worth 1 against the Fremen (``emperor-sardaukar``,
  ``fremen-fedaykin``); the cost counts *troops*, not strength, so 3 Sardaukar dialed for
  strength 6 cost the Emperor 1 spice;
- no one ever dials more than 20;
- you cannot dial what you cannot pay for.

The Ecaz alliance bonus (``ecaz-occupy``): when Ecaz and its ally share the territory of a
battle, the ally's forces are the ones dialed and half of Ecaz's forces there, rounded up,
are added to the number dialed without spice. **Decision:** the bonus is part of the number
dialed, so it counts toward the cap of 20 (the KISS text caps what anyone "dials in a
battle", and the Ecaz text adds the bonus "to the number dialed"). It adds no troops, so it
never changes the cost.

Public functions: :func:`faction_id`, :func:`whole_count`, :func:`starred_worth`, :func:`troop_cost`,
:func:`dial_cost`, :func:`best_dial`, :func:`ecaz_bonus`, :func:`breakdown`.
"""
from __future__ import annotations

import json
import math
import numbers
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources

from .errors import hard
from .factions import FACTION_IDS, FACTION_NAMES

RULE = "kiss-simple-dialing"

FACTIONS: tuple[str, ...] = FACTION_IDS  # the nine KISS ids, then the CHOAM & Richese add-on
_ALIASES: dict[str, str] = {
    "bene gesserit": "bg",
    "bene-gesserit": "bg",
    "benegesserit": "bg",
    "spacing guild": "guild",
    "spacing-guild": "guild",
    "bene tleilax": "tleilaxu",
    "bene-tleilax": "tleilaxu",
    "tleilax": "tleilaxu",
}


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("companion.games.dune").joinpath("data/dialing.json").read_text(encoding="utf-8")
    return json.loads(text)


def faction_id(value: object, what: str = "faction") -> str:
    """Canonical faction id from an id in any case (or a printed name such as "Bene Gesserit").

    Raises a hard RuleViolation for anything else."""
    if not isinstance(value, str) or not value.strip():
        raise hard(f"A {what} is required (one of: {', '.join(FACTIONS)}).")
    key = value.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in FACTIONS:
        raise hard(f"Unknown {what} {value.strip()!r}: use one of {', '.join(FACTIONS)}.")
    return key


def _name(faction: str) -> str:
    return FACTION_NAMES[faction]


_SINGULAR = {"emperor": "the Emperor", "guild": "the Spacing Guild"}


def _cap1(text: str) -> str:
    return text[:1].upper() + text[1:]


def _can(faction: str) -> str:
    return _SINGULAR.get(faction, _name(faction)) + " can"


def _has(faction: str) -> str:
    """"the Emperor has" / "Atreides have" (houses read as plural, as the rulebook does)."""
    if faction in _SINGULAR:
        return f"{_SINGULAR[faction]} has"
    return f"{_name(faction)} have"


def whole_count(value: object, what: str, rule: str = RULE) -> int:
    """A whole, non-negative number of troops / spice / strength."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise hard(f"The number of {what} must be a whole number, not {value!r}.", rule)
    if isinstance(value, numbers.Integral):
        n = int(value)
    else:
        as_float = float(value)
        if not math.isfinite(as_float) or as_float != int(as_float):
            raise hard(f"There is no fraction dialing: {value} {what} is not a whole number.", rule)
        n = int(as_float)
    if n < 0:
        raise hard(f"The number of {what} cannot be negative ({n}).", rule)
    return n


@dataclass(frozen=True)
class DialResult:
    """One dial: ``strength`` on the wheel, ``troops`` dialed, spice ``cost``.

    ``affordable`` is None when the spice was not given. ``regular`` / ``starred`` split the
    troops; ``bonus`` is the free Ecaz alliance strength included in ``strength``."""

    strength: int
    troops: int
    cost: int
    affordable: bool | None
    regular: int = 0
    starred: int = 0
    bonus: int = 0

    def to_dict(self) -> dict:
        """The four public figures (the ``/api/dial`` answer)."""
        return {
            "strength": self.strength,
            "troops": self.troops,
            "cost": self.cost,
            "affordable": self.affordable,
        }

    def mix(self) -> dict:
        """Everything, with the troop split named as the API names it (``forces``/``starred``)."""
        d = asdict(self)
        d["forces"] = d.pop("regular")
        return d


def starred_info(faction: str) -> dict | None:
    """The faction's starred-force facts from the data file, or None if it has none."""
    return _data()["starred"].get(faction_id(faction))


def starred_worth(faction: str, opponent: str | None = None) -> int:
    """Strength of one starred force of ``faction`` against ``opponent`` (0 if it has none)."""
    info = starred_info(faction)
    if info is None:
        return 0
    if opponent is not None:
        opponent = faction_id(opponent, "opponent")
        return int(info["worth_against"].get(opponent, info["worth"]))
    return int(info["worth"])


def pays_for_dialing(faction: str) -> bool:
    return faction_id(faction) not in _data()["never_pay"]


def troop_cost(faction: str, troops: int) -> int:
    """Spice owed for dialing ``troops`` troops: free up to 2, then 1 each; Fremen never pay."""
    troops = whole_count(troops, "troops")
    if not pays_for_dialing(faction):
        return 0
    d = _data()
    return max(0, troops - d["free_troops"]) * d["cost_per_further_troop"]


def ecaz_bonus(ecaz_forces_in_territory: int) -> int:
    """Free strength Ecaz adds to its ally's dial: half its forces in the territory, rounded up."""
    n = whole_count(ecaz_forces_in_territory, "Ecaz forces", "ecaz-occupy")
    return (n + 1) // 2


def breakdown(max_troops: int = 20) -> dict[int, int]:
    """The KISS breakdown: troops dialed -> spice, for 1..max_troops regular troops."""
    return {n: troop_cost("atreides", n) for n in range(1, max_troops + 1)}


def _check_sides(faction: object, opponent: object, bonus: int) -> tuple[str, str | None]:
    faction = faction_id(faction)
    if opponent is not None:
        opponent = faction_id(opponent, "opponent")
        if opponent == faction:
            raise hard(f"{_cap1(_SINGULAR.get(faction, _name(faction)))} cannot battle itself: the opponent must be another faction.",
                       "base-battle")
    if bonus:
        rule = _data()["ecaz_bonus"]["rule"]
        if faction == "ecaz":
            raise hard("With the Ecaz alliance bonus it is Ecaz's ally whose forces are dialed, "
                       "not Ecaz's own.", rule)
        if opponent == "ecaz":
            raise hard("The Ecaz alliance bonus goes to Ecaz's ally, never to Ecaz's opponent.", rule)
    return faction, opponent


def _check_starred(faction: str, starred: int, what: str = "dialed") -> None:
    if not starred:
        return
    info = _data()["starred"].get(faction)
    if info is None:
        raise hard(f"{_cap1(_has(faction))} no starred forces, so {starred} starred cannot be "
                   f"{what}.",
                   f"{faction}-at-start")
    if starred > info["count"]:
        raise hard(f"{_cap1(_has(faction))} only {info['count']} {info['name']}, "
                   f"so {starred} cannot be {what}.", info["rule"])


def _check_cap(strength: int, bonus: int) -> None:
    cap = _data()["max_dial"]
    if strength > cap:
        extra = f" (including {bonus} from the Ecaz alliance)" if bonus else ""
        raise hard(f"A dial of {strength}{extra} is over the limit: no one ever dials more than "
                   f"{cap} in a battle.", RULE)


def dial_cost(faction: str, opponent: str | None, forces: int, starred: int = 0,
              spice: int | None = None, *, bonus: int = 0) -> DialResult:
    """Strength and spice cost of dialing ``forces`` regular and ``starred`` starred troops.

    ``opponent`` matters for the Sardaukar (worth 1 against the Fremen); None means an
    opponent that is not the Fremen. ``spice``, if given, is what the faction holds:
    ``affordable`` tells whether it can pay. ``bonus`` is free strength added to the dial
    (the Ecaz alliance bonus, see :func:`ecaz_bonus`); it counts toward the cap of 20.

    Raises a hard RuleViolation for negative or fractional numbers, a faction or opponent
    that does not exist, starred forces the faction does not have, or a dial over 20.
    """
    forces = whole_count(forces, "forces")
    starred = whole_count(starred, "starred forces")
    bonus = whole_count(bonus, "bonus strength", _data()["ecaz_bonus"]["rule"])
    if spice is not None:
        spice = whole_count(spice, "spice", "base-spice")
    faction, opponent = _check_sides(faction, opponent, bonus)
    _check_starred(faction, starred)
    strength = forces + starred * starred_worth(faction, opponent) + bonus
    _check_cap(strength, bonus)
    troops = forces + starred
    cost = troop_cost(faction, troops)
    affordable = None if spice is None else cost <= spice
    return DialResult(strength, troops, cost, affordable, forces, starred, bonus)


def best_dial(faction: str, opponent: str | None, want_strength: int, forces_available: int,
              starred_available: int = 0, spice: int | None = None, *,
              bonus: int = 0) -> DialResult:
    """The cheapest mix of troops present that reaches ``want_strength``.

    Among the mixes that reach at least ``want_strength`` (and, with ``spice`` given, that the
    faction can pay for), the choice is: lowest cost, then an exact strength over an
    overshoot, then fewer starred troops (they are the ones a player keeps), then fewer
    troops. ``bonus`` (Ecaz alliance) counts toward the wanted strength and the cap of 20.

    Raises a hard RuleViolation when the wanted strength is over 20, cannot be reached with
    the forces present, or cannot be paid for with ``spice``.
    """
    want = whole_count(want_strength, "strength wanted")
    forces_available = whole_count(forces_available, "forces")
    starred_available = whole_count(starred_available, "starred forces")
    bonus = whole_count(bonus, "bonus strength", _data()["ecaz_bonus"]["rule"])
    if spice is not None:
        spice = whole_count(spice, "spice", "base-spice")
    faction, opponent = _check_sides(faction, opponent, bonus)
    _check_starred(faction, starred_available, "in the battle")
    _check_cap(want, 0)
    cap = _data()["max_dial"]
    worth = starred_worth(faction, opponent)

    reaching: list[DialResult] = []
    most = bonus
    for s in range(starred_available + 1):
        for r in range(forces_available + 1):
            strength = r + s * worth + bonus
            if strength > cap:
                break
            most = max(most, strength)
            if strength < want:
                continue
            cost = troop_cost(faction, r + s)
            affordable = None if spice is None else cost <= spice
            reaching.append(DialResult(strength, r + s, cost, affordable, r, s, bonus))
            break  # more regular troops only add cost

    if not reaching:
        have = f"{forces_available} forces"
        if starred_available:
            have += f" and {starred_available} {_data()['starred'][faction]['name']}"
        if bonus:
            have += f" plus {bonus} from the Ecaz alliance"
        raise hard(f"Strength {want} is out of reach: with {have} {_can(faction)} dial at "
                   f"most {most}.", RULE)
    options = reaching if spice is None else [d for d in reaching if d.affordable]
    if not options:
        cheapest = min(d.cost for d in reaching)
        raise hard(f"Strength {want} needs at least {cheapest} spice for the troops, and "
                   f"{_has(faction)} {spice}: you cannot dial what you cannot pay for.", RULE)
    return min(options, key=lambda d: (d.cost, d.strength != want, d.starred, d.troops, d.strength))
