"""Faction facts (KISS sheets, base game where a sheet is silent), loaded from data."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from .errors import hard

KISS_FACTION_IDS = ("atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu")
# the CHOAM & Richese add-on (not KISS): seated only when a table asks for them
ADDON_FACTION_IDS = ("choam", "richese")
FACTION_IDS = KISS_FACTION_IDS + ADDON_FACTION_IDS
MAX_FACTIONS = len(FACTION_IDS)  # 11


@lru_cache(maxsize=1)
def load_factions() -> dict:
    text = resources.files("companion.games.dune").joinpath("data/factions.json").read_text(encoding="utf-8")
    return json.loads(text)


FACTION_NAMES: dict[str, str] = {f: load_factions()["factions"][f]["name"] for f in FACTION_IDS}


def faction(fid: str) -> dict:
    data = load_factions()["factions"]
    if fid not in data:
        raise hard(f"Unknown faction {fid!r}: use one of {', '.join(FACTION_IDS)}.")
    return data[fid]


def faction_name(fid: str) -> str:
    return load_factions()["factions"].get(fid, {}).get("name", fid)


def check_faction(fid, present=None) -> str:
    """Return a valid faction id, refusing unknown ids and factions not at this table."""
    if not isinstance(fid, str) or fid not in FACTION_IDS:
        raise hard(f"Unknown faction {fid!r}: use one of {', '.join(FACTION_IDS)}.")
    if present is not None and fid not in present:
        raise hard(f"{faction_name(fid)} is not playing at this table.")
    return fid


def leader_strength(fid: str, name: str):
    for leader in faction(fid)["leaders"] + faction(fid).get("advanced_leaders", []):
        if leader["name"] == name:
            return leader["strength"]
    raise hard(f"{faction_name(fid)} has no leader called {name!r}.")
