"""The Arrakis board: territories, sector pieces and their adjacency.

Pure data access, no Flask. Loaded once from ``companion/games/dune/data/board.json``.

Vocabulary
- *territory*: a named area as printed on the board ("Tuek's Sietch").
- *sector*: 1..18 in storm order (counter-clockwise); the storm starts at 18.
- *piece*: the part of one territory inside one sector, id ``"Territory@sector"``;
  the Polar Sink is a single piece with id ``"Polar Sink"`` and no sector.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from .errors import hard

POLAR_SINK = "Polar Sink"
SECTORS = 18
SHIELD_WALL = "Shield Wall"


@dataclass(frozen=True)
class Territory:
    name: str
    type: str  # "sand" | "rock" | "stronghold" | "polar_sink"
    sectors: tuple[int, ...]
    spice_blow: dict | None  # {"amount": n, "sector": s}
    neighbours: tuple[str, ...]
    fremen_ship_range: bool
    shield_wall_protected: bool
    family_atomics_range: bool
    piece_labels: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def slug(self) -> str:
        return slugify(self.name)

    @property
    def is_stronghold(self) -> bool:
        return self.type == "stronghold"

    @property
    def is_sand(self) -> bool:
        return self.type == "sand"

    @property
    def is_polar_sink(self) -> bool:
        return self.type == "polar_sink"

    def pieces(self) -> list[str]:
        if self.is_polar_sink:
            return [POLAR_SINK]
        return [piece_id(self.name, s) for s in self.sectors]

    def label(self, sector: int | None) -> str:
        if sector is None or len(self.sectors) <= 1:
            return self.name
        part = self.piece_labels.get(str(sector))
        return f"{self.name} ({part}, sector {sector})" if part else f"{self.name} (sector {sector})"


def slugify(name: str) -> str:
    """"Tuek's Sietch" -> "tueks-sietch"."""
    s = name.lower().replace("'", "").replace("\u2019", "")
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-")


def piece_id(territory: str, sector: int | None) -> str:
    if territory == POLAR_SINK:
        return POLAR_SINK
    return f"{territory}@{sector}"


def split_piece(pid: str) -> tuple[str, int | None]:
    if pid == POLAR_SINK or "@" not in pid:
        return pid, None
    name, _, sector = pid.rpartition("@")
    return name, int(sector)


class Board:
    def __init__(self, data: dict):
        self.sectors: int = data["sectors"]
        self.storm_start: int = data["storm_start"]
        self.player_dots: tuple[int, ...] = tuple(data["player_dots"])
        self.territories: dict[str, Territory] = {}
        for t in data["territories"]:
            self.territories[t["name"]] = Territory(
                name=t["name"],
                type=t["type"],
                sectors=tuple(t["sectors"]),
                spice_blow=t["spice_blow"],
                neighbours=tuple(t["neighbours"]),
                fremen_ship_range=t["fremen_ship_range"],
                shield_wall_protected=t["shield_wall_protected"],
                family_atomics_range=t["family_atomics_range"],
                piece_labels=dict(t.get("piece_labels") or {}),
            )
        self.piece_neighbours: dict[str, tuple[str, ...]] = {
            p: tuple(ns) for p, ns in data["pieces"].items()
        }
        self.discovery_tokens: list[dict] = list(data.get("discovery_tokens", []))
        self._lookup: dict[str, str] = {}
        for name in self.territories:
            for key in (name.lower(), slugify(name), name.lower().replace("'", "")):
                self._lookup[key] = name

    # -- names -----------------------------------------------------------
    def resolve(self, name: str) -> str:
        """Canonical territory name from any case or the slug form.

        Raises RuleViolation (rule "board-territories") for an unknown name."""
        if not isinstance(name, str) or not name.strip():
            raise hard("A territory name is required.", "base-board")
        key = name.strip().lower()
        canonical = self._lookup.get(key) or self._lookup.get(slugify(key))
        if canonical is None:
            raise hard(f"There is no territory called {name!r} on the board.", "base-board")
        return canonical

    def territory(self, name: str) -> Territory:
        return self.territories[self.resolve(name)]

    def resolve_sector(self, territory: str, sector: int | None) -> int | None:
        """Check (or infer) the sector of a piece. One-sector territories may omit it."""
        t = self.territory(territory)
        if t.is_polar_sink:
            return None
        if sector is None:
            if len(t.sectors) == 1:
                return t.sectors[0]
            spans = ", ".join(str(s) for s in t.sectors)
            raise hard(
                f"{t.name} spans sectors {spans}: say which sector.", "base-board"
            )
        if sector not in t.sectors:
            spans = ", ".join(str(s) for s in t.sectors)
            raise hard(
                f"{t.name} has no part in sector {sector}; it spans sectors {spans}.", "base-board"
            )
        return sector

    # -- geometry --------------------------------------------------------
    def all_pieces(self) -> list[str]:
        return list(self.piece_neighbours)

    def pieces_in_sector(self, sector: int) -> list[str]:
        return [
            piece_id(t.name, sector)
            for t in self.territories.values()
            if sector in t.sectors
        ]

    def strongholds(self) -> list[str]:
        return [t.name for t in self.territories.values() if t.is_stronghold]

    def territory_distance(self, a: str, b: str) -> int:
        """Territory-level hops between two territories (storm ignored)."""
        a, b = self.resolve(a), self.resolve(b)
        if a == b:
            return 0
        seen = {a}
        frontier = [a]
        d = 0
        while frontier:
            d += 1
            nxt = []
            for t in frontier:
                for n in self.territories[t].neighbours:
                    if n == b:
                        return d
                    if n not in seen:
                        seen.add(n)
                        nxt.append(n)
            frontier = nxt
        return 10**6


def storm_sectors_passed(start: int, move: int, sectors: int = SECTORS) -> list[int]:
    """Sectors the storm passes over or stops in when moving ``move`` from ``start``
    (the start sector itself excluded), wrapping 18 -> 1."""
    return [((start - 1 + i) % sectors) + 1 for i in range(1, move + 1)]


@lru_cache(maxsize=1)
def load_board() -> Board:
    text = resources.files("companion.games.dune").joinpath("data/board.json").read_text(encoding="utf-8")
    return Board(json.loads(text))
