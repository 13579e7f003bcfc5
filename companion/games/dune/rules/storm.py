"""Storm arithmetic and storm losses (preview only: nothing is mutated).

Inputs
- ``forces_by_piece``: ``{piece_id: {faction: {"forces": n, "starred": n, "advisors": n}}}``
  (missing keys count 0; ``advisors`` only matters for the Bene Gesserit).
- ``spice_by_piece``: ``{piece_id: n}``.
Piece ids are ``"Territory@sector"`` or ``"Polar Sink"``; a revealed Discovery territory
(``"Jacurutu Sietch"``, ``"Cistern"`` ...) may appear as a piece id of its own, without sector.

Decisions
- The sectors hit are the ones the storm passes over or stops in; the sector it starts in is
  not hit again. A move of more than 18 sectors hits every sector once.
- What is safe: rock, the Polar Sink, the three sietch strongholds (they stand on rock),
  Discovery territories (``protected_territories`` plus any piece id the board does not know
  that is listed there), and - while the Shield Wall stands - Imperial Basin, Arrakeen and
  Carthag. After Family Atomics destroys the wall these three are exposed like sand
  (base-shield-wall, following shared/reference/dune-map.md).
- Spice is removed exactly where forces would die: spice only ever lies on sand blow
  territories, so this equals "spice in sand the storm crosses".
- KISS Wormriders: Fremen forces never die to the storm; they are reported in
  ``saved_fremen`` and stay where they are (the table moves them at the end of the Spice Blow &
  Nexus phase). A Karama can cancel this in one territory (``fremen_karama_territory``).
  Bene Gesserit advisors die like fighters.
- Ecaz Ambassadors (kiss-rules.txt, Ecaz: "Ambassadors are vulnerable to game effects like Storm or
  explosions, returning to your supply"): an Ambassador stands only in a stronghold, so only one in
  Arrakeen or Carthag once Family Atomics has destroyed the Shield Wall can be caught; the storm
  catches it when it passes over or stops in a sector of that territory (``ambassadors_lost``,
  from ``ambassador_territories``: where a face-down Ambassador stands, a public fact).
- Ecological Testing Station (``adjust`` -1/0/+1) changes the storm *move*, not the deck:
  KISS removes the 1 card from the deck, but the token may still turn a 2 into 1 or a 6 into 7,
  and may add to (or subtract from) the turn-1 dial total too. A move below 0 is refused.
  The token has no effect on a Weather Control move (``storm_move``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from .board import POLAR_SINK, SECTORS, Board, storm_sectors_passed
from .errors import RuleViolation, hard
from .factions import faction_name

FORCE_KEYS = ("forces", "starred", "advisors")
STORM_DIAL_MAX = 20
KISS_STORM_CARDS = (2, 3, 4, 5, 6)
WEATHER_CONTROL_MAX = 10


def first_storm_move(dial_a: int, dial_b: int) -> int:
    """Turn 1: the two dials (each 0-20) are added; the storm moves that far from sector 18."""
    for d in (dial_a, dial_b):
        if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= STORM_DIAL_MAX:
            raise RuleViolation(
                f"A storm dial is a number from 0 to {STORM_DIAL_MAX}, not {d!r}.", "base-storm"
            )
    return dial_a + dial_b


def validate_storm_card(n: int) -> int:
    """KISS Faster Storm: the storm deck holds only the 2-6 cards."""
    if isinstance(n, bool) or not isinstance(n, int) or n not in KISS_STORM_CARDS:
        raise RuleViolation(
            f"Under KISS the storm deck holds only the cards 2 to 6, so {n!r} cannot be drawn.",
            "kiss-faster-storm",
        )
    return n


def storm_move(base: int, adjust: int = 0, weather_control: int | None = None) -> int:
    """The number of sectors the storm moves this phase.

    ``base`` is the dial total (turn 1) or the storm card; ``adjust`` the Ecological Testing
    Station's -1/0/+1; ``weather_control`` the 0-10 move chosen with Weather Control, which
    replaces the base move and ignores the token."""
    if adjust not in (-1, 0, 1):
        raise RuleViolation(
            "The Ecological Testing Station changes the storm by 1 sector at most.",
            "discovery-ecological-testing-station",
        )
    if weather_control is not None:
        if not isinstance(weather_control, int) or not 0 <= weather_control <= WEATHER_CONTROL_MAX:
            raise RuleViolation(
                f"Weather Control moves the storm 0 to {WEATHER_CONTROL_MAX} sectors, "
                f"not {weather_control!r}.",
                "base-storm",
            )
        if adjust:
            raise RuleViolation(
                "The Ecological Testing Station has no effect on a Weather Control move.",
                "discovery-ecological-testing-station",
            )
        return weather_control
    if isinstance(base, bool) or not isinstance(base, int) or base < 0:
        raise hard(f"The storm move must be 0 or more sectors, not {base!r}.", "base-storm")
    if base + adjust < 0:
        raise RuleViolation(
            "The storm cannot move fewer than 0 sectors.", "discovery-ecological-testing-station"
        )
    return base + adjust


def end_sector(start_sector: int, move: int, sectors: int = SECTORS) -> int:
    return ((start_sector - 1 + move) % sectors) + 1


def sectors_hit(start_sector: int, move: int, sectors: int = SECTORS) -> tuple[int, ...]:
    """Sectors passed over or stopped in, in storm order, each once."""
    out: list[int] = []
    for s in storm_sectors_passed(start_sector, min(move, sectors), sectors):
        if s not in out:
            out.append(s)
    return tuple(out)


@dataclass(frozen=True)
class StormPreview:
    start_sector: int
    move: int
    end_sector: int
    sectors_passed: tuple[int, ...]
    # piece -> faction -> {"forces", "starred", "advisors"} sent to the tanks
    killed: dict = field(default_factory=dict)
    # piece -> {"forces", "starred"} of Fremen forces the storm would have killed (Wormriders)
    saved_fremen: dict = field(default_factory=dict)
    # piece -> spice removed to the bank
    spice_removed: dict = field(default_factory=dict)
    # every exposed board piece (sand, or unshielded Arrakeen/Carthag/Imperial Basin) in the
    # sectors passed, whether or not anything is there
    pieces_hit: tuple[str, ...] = ()
    # territories whose face-down Ecaz Ambassador the storm sends back to Ecaz's supply
    ambassadors_lost: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("base-storm", "base-storm-losses")

    def total_killed(self) -> int:
        return sum(sum(c.values()) for per in self.killed.values() for c in per.values())


# -- helpers shared with spice.py ------------------------------------------------------
def parse_piece(board: Board, pid: str, protected: Iterable[str] = ()) -> tuple[str, int | None]:
    """(territory, sector) of a piece id; pieces of revealed Discovery territories (not on the
    board) are accepted when listed in ``protected``."""
    if pid == POLAR_SINK:
        return POLAR_SINK, None
    protected = set(protected)
    if "@" not in pid:
        if pid in protected:
            return pid, None
        t = board.territory(pid)  # raises for unknown names
        if len(t.sectors) == 1:
            return t.name, t.sectors[0]
        raise hard(f"Say which sector of {t.name} {pid!r} means.", "base-board")
    name, _, sec = pid.rpartition("@")
    if name in protected:
        return name, None
    try:
        sector = int(sec)
    except ValueError:
        raise hard(f"{pid!r} is not a piece id (Territory@sector).", "base-board") from None
    canonical = board.resolve(name)
    return canonical, board.resolve_sector(canonical, sector)


def counts(raw: Mapping | None, where: str = "") -> dict[str, int]:
    """Normalise a force entry to {"forces", "starred", "advisors"} (non-negative ints)."""
    raw = raw or {}
    out = {}
    for k in FORCE_KEYS:
        v = raw.get(k, 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise hard(f"Force counts must be whole numbers 0 or more ({where} {k}={v!r}).", "base-tanks")
        out[k] = v
    unknown = set(raw) - set(FORCE_KEYS)
    if unknown:
        raise hard(f"Unknown force kinds {sorted(unknown)} {where}.", "base-tanks")
    return out


def check_spice(n, where: str = "") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise hard(f"Spice on the board must be 0 or more, not {n!r} {where}.", "base-spice")
    return n


def is_exposed(board: Board, territory: str, shield_wall_standing: bool, protected: Iterable[str] = ()) -> bool:
    """True when storm (or a worm's territory) kills forces here: sand, and Arrakeen, Carthag,
    Imperial Basin once the Shield Wall is down."""
    if territory == POLAR_SINK or territory in set(protected) or territory not in board.territories:
        return False
    t = board.territories[territory]
    if t.shield_wall_protected:
        return not shield_wall_standing
    return t.type == "sand"


def storm_effects(
    board: Board,
    start_sector: int,
    move: int,
    forces_by_piece: Mapping[str, Mapping[str, Mapping[str, int]]],
    spice_by_piece: Mapping[str, int],
    shield_wall_standing: bool = True,
    fremen_in_game: bool = True,
    protected_territories: Iterable[str] = (),
    adjust: int = 0,
    fremen_karama_territory: str | None = None,
    ambassador_territories: Iterable[str] = (),
) -> StormPreview:
    """Preview what a storm move of ``move`` (+ ``adjust``) from ``start_sector`` does."""
    if isinstance(start_sector, bool) or not isinstance(start_sector, int) or not 1 <= start_sector <= board.sectors:
        raise hard(f"The storm must be in a sector from 1 to {board.sectors}.", "base-storm")
    eff = storm_move(move, adjust)
    protected = tuple(protected_territories)
    passed = sectors_hit(start_sector, eff, board.sectors)
    passed_set = set(passed)
    karama_t = board.resolve(fremen_karama_territory) if fremen_karama_territory else None

    killed: dict = {}
    saved: dict = {}
    hit = [
        pid
        for s in passed
        for pid in board.pieces_in_sector(s)
        if is_exposed(board, pid.rpartition("@")[0], shield_wall_standing, protected)
    ]

    def piece_hit(pid: str) -> bool:
        territory, sector = parse_piece(board, pid, protected)
        return (
            sector is not None
            and sector in passed_set
            and is_exposed(board, territory, shield_wall_standing, protected)
        )

    for pid, per_faction in forces_by_piece.items():
        if not piece_hit(pid):
            for f, c in per_faction.items():
                counts(c, f"in {pid} for {faction_name(f)}")
            continue
        territory, _ = parse_piece(board, pid, protected)
        for faction, raw in per_faction.items():
            c = counts(raw, f"in {pid} for {faction_name(faction)}")
            if not any(c.values()):
                continue
            if faction == "fremen" and fremen_in_game and territory != karama_t:
                saved[pid] = {"forces": c["forces"], "starred": c["starred"]}
                continue
            killed.setdefault(pid, {})[faction] = dict(c)

    removed: dict = {}
    for pid, n in spice_by_piece.items():
        check_spice(n, f"in {pid}")
        if n and piece_hit(pid):
            removed[pid] = n

    hit_territories = {pid.rpartition("@")[0] for pid in hit}
    caught = tuple(sorted(set(ambassador_territories) & hit_territories))  # canonical names, as the markers keep

    return StormPreview(
        start_sector=start_sector,
        move=eff,
        end_sector=end_sector(start_sector, eff, board.sectors),
        sectors_passed=passed,
        killed=killed,
        saved_fremen=saved,
        spice_removed=removed,
        pieces_hit=tuple(hit),
        ambassadors_lost=caught,
        rules=("base-storm", "base-storm-losses")
        + (("fremen-wormriders",) if saved else ())
        + (("ecaz-ambassadors",) if caught else ())
        + (("discovery-ecological-testing-station",) if adjust else ()),
    )
