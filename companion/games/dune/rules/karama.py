"""KISS karama: the options open to one player.

Pure rules, no Flask. The list is data: ``companion/games/dune/data/karama.json`` (effects in our own
words, per faction, with the phases where each applies and the power it cancels).

The KISS rules (``kiss-karama``) this module applies:

- a Karama cancels one advantage from the list, or invokes its player's Special Karama;
  it has no other use;
- a player can never cancel its own faction's advantage, but may cancel its ally's;
- "in one battle" effects are battle-plan karamas, playable any time after the battling
  factions are known and before battle plans are revealed;
- the Emperor's "refuse to pay for a card you are buying" and the Guild's "ship at the Guild
  rate and pay the bank" stay open when that faction is not in the game (never to the Emperor
  or the Guild itself);
- each Special Karama once per game; for the Bene Gesserit the Special Karama *is* playing a
  Worthless Card as a Karama once per game, and that play cannot be cancelled by a Karama;
- the Shrine Discovery token lets its occupant play a Truthtrance as a Karama and back
  (and the Bene Gesserit a Worthless Card as a Truthtrance);
- Truthtrance answers are never binding on the future (``kiss-truthtrance``).
"""
from __future__ import annotations

import json
from copy import deepcopy
from functools import lru_cache
from importlib import resources
from typing import Iterable

from .dialing import FACTION_NAMES, FACTIONS, faction_id
from .errors import RuleViolation, hard
from .phases import PHASES

__all__ = ["PHASES", "check_karama_use", "faction_effects", "karama_options", "load_karama", "phase_id"]



@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("companion.games.dune").joinpath("data/karama.json").read_text(encoding="utf-8")
    return json.loads(text)


def load_karama() -> dict:
    """A copy of the whole karama data file."""
    return deepcopy(_data())


def faction_effects(faction: str) -> list[dict]:
    """The listed karama effects against ``faction`` (copies of the data entries)."""
    return deepcopy(_data()["factions"][faction_id(faction)]["effects"])


def phase_id(value: object) -> str:
    """Canonical phase id (any case; "spice blow" / "spice-blow" accepted); hard error otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise hard(f"A phase is required (one of: {', '.join(PHASES)}).", "base-turn-sequence")
    key = value.strip().lower().replace("-", "_").replace(" ", "_")
    key = {"shipment": "shipment_movement", "movement": "shipment_movement",
           "shipment_and_movement": "shipment_movement"}.get(key, key)
    if key not in PHASES:
        raise hard(f"Unknown phase {value.strip()!r}: use one of {', '.join(PHASES)}.",
                   "base-turn-sequence")
    return key


def _factions(values: Iterable[str] | str) -> list[str]:
    if isinstance(values, str):
        values = [v for v in values.split(",") if v.strip()]
    out: list[str] = []
    for v in values:
        f = faction_id(v)
        if f not in out:
            out.append(f)
    return out


def _option(target: str, effect: dict, *, present: bool, is_ally: bool) -> dict:
    fdata = _data()["factions"][target]
    opt = {
        "id": effect["id"],
        "target": target,
        "effect": effect["effect"],
        "battle_plan": effect["battle_plan"],
        "rule": fdata["rule"],
        "phases": list(effect["phases"]),
        "subverts": effect["subverts"],
        "target_present": present,
        "ally": is_ally,
    }
    if effect.get("note"):
        opt["note"] = effect["note"]
    return opt


def karama_options(player: str, factions_present: Iterable[str] | str, ally: str | None = None,
                   used_special: bool = False, bg_worthless_used: bool = False,
                   occupies_shrine: bool = False, phase: str | None = None) -> dict:
    """What ``player`` can do with a Karama card now.

    ``factions_present`` are the factions in the game (the player is counted in whether or not
    it is listed). ``ally`` is the player's ally, if any (must be in the game).
    ``used_special`` / ``bg_worthless_used``: the once-per-game plays already made (for the
    Bene Gesserit they are the same thing: its Special Karama is the Worthless-as-Karama play).
    ``occupies_shrine``: the player occupies the revealed Shrine Discovery token.
    ``phase``: the current phase id; options that apply in it come first and carry
    ``applies_now``.

    Returns ``{"player", "ally", "phase", "options": [...], "special": {...},
    "worthless_karama": {...} | None, "shrine": {...} | None, "notes": [...]}``; each option is
    ``{"id", "target", "effect", "battle_plan", "rule", "phases", "subverts",
    "target_present", "ally"[, "note"][, "applies_now"]}``.

    Raises a hard RuleViolation for an unknown faction or phase, or an impossible ally.
    """
    player = faction_id(player, "player")
    present = _factions(factions_present)
    if player not in present:
        present.append(player)
    if ally is not None and ally != "":
        ally = faction_id(ally, "ally")
        if ally == player:
            raise hard(f"{FACTION_NAMES[ally]} cannot be allied with itself.", "base-alliances")
        if ally not in present:
            raise hard(f"The ally {FACTION_NAMES[ally]} is not among the factions in the game "
                       f"({', '.join(FACTION_NAMES[f] for f in present)}).", "base-alliances")
    else:
        ally = None
    if phase is not None and phase != "":
        phase = phase_id(phase)
    else:
        phase = None

    data = _data()
    options: list[dict] = []
    for target in FACTIONS:  # canonical order, then the list order
        if target == player:
            continue  # never your own faction's advantage
        in_game = target in present
        for effect in data["factions"][target]["effects"]:
            if in_game or effect["open_when_absent"]:
                options.append(_option(target, effect, present=in_game, is_ally=target == ally))

    if phase is not None:
        for opt in options:
            opt["applies_now"] = phase in opt["phases"]
        options.sort(key=lambda o: not o["applies_now"])  # stable: list order otherwise

    own = data["factions"][player]["special"]
    special_used = bool(used_special) or (player == "bg" and bool(bg_worthless_used))
    special = {
        "effect": own["effect"],
        "rule": own["rule"],
        "phases": list(own["phases"]),
        "available": not special_used,
        "used": special_used,
    }

    worthless = None
    if player == "bg":
        w = data["bg_worthless"]
        worthless = {
            "effect": w["effect"],
            "rule": w["rule"],
            "available": not special_used,
            "not_vulnerable": True,
        }

    shrine = None
    if occupies_shrine:
        s = data["shrine"]
        shrine = {"effect": s["effect"], "rule": s["rule"], "available": True}
        if player == "bg":
            shrine["bg_effect"] = s["bg_effect"]

    note_data = data["notes"]
    notes = [note_data["only_list"], note_data["own_ally"]]
    if any(o["battle_plan"] for o in options):
        notes.append(note_data["battle_plan"])
    notes.append(note_data["truthtrance"])

    return {
        "player": player,
        "ally": ally,
        "phase": phase,
        "options": options,
        "special": special,
        "worthless_karama": worthless,
        "shrine": shrine,
        "notes": deepcopy(notes),
    }


def _effect(effect_id: str) -> tuple[str, dict]:
    for target, fdata in _data()["factions"].items():
        for effect in fdata["effects"]:
            if effect["id"] == effect_id:
                return target, effect
    raise hard(f"There is no karama effect {effect_id!r}.", _data()["rule"])


def check_karama_use(player: str, effect_id: str, factions_present: Iterable[str] | str,
                     ally: str | None = None, what: str = "use that effect") -> dict:
    """Check that ``player`` may play a Karama for ``effect_id`` (an id of karama.json) and return
    the option, exactly as ``karama_options`` lists it (the one source of truth ``/api/karama``
    uses): never against one's own faction's advantage, and against an absent faction only for
    the effects that stay open then. ``what`` completes "cannot play one to ..." in the refusal.
    Raises an overridable RuleViolation otherwise."""
    player = faction_id(player, "player")
    target, effect = _effect(effect_id)
    opts = karama_options(player, factions_present, ally=ally)
    for opt in opts["options"]:
        if opt["id"] == effect_id:
            return opt
    who = FACTION_NAMES[player]
    rule = _data()["factions"][target]["rule"]
    if target == player:
        raise RuleViolation(
            f"A Karama cancels only another faction's advantage, never its player's own: "
            f"{who} cannot play one to {what}.",
            _data()["rule"],
        )
    raise RuleViolation(
        f"{FACTION_NAMES[target]} is not in the game, so {who} has no {FACTION_NAMES[target]} "
        f"advantage to cancel with a Karama.", rule,
    )
