"""A read-only snapshot of what the shipment and movement checks need to know.

The table layer builds it from the derived state; the pure rules never see the state itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Position:
    storm_sector: int
    # territory -> faction -> forces that count for occupancy (fighters + starred;
    # Bene Gesserit advisors are NOT counted)
    occupants: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    # territory -> Bene Gesserit advisors there
    advisors: Mapping[str, int] = field(default_factory=dict)
    # faction -> ally (both directions present)
    alliances: Mapping[str, str] = field(default_factory=dict)
    # territory no one may ever ship into (Atomics aftermath)
    atomics_aftermath: str | None = None
    # revealed Discovery territory -> host piece id ("Cielago East@2")
    token_territories: Mapping[str, str] = field(default_factory=dict)
    shield_wall_standing: bool = True

    def factions_in(self, territory: str) -> set[str]:
        return {f for f, n in self.occupants.get(territory, {}).items() if n > 0}

    def ally_of(self, faction: str) -> str | None:
        return self.alliances.get(faction)
