"""Battles and karama as seen from one seat: which battles it is in, what it may dial there,
and which karama options are open right now. Read-only: nothing here is an entry, so what a
seat tries on its dial control is never stored and never reaches another phone."""
from __future__ import annotations

from .rules import dialing, karama
from .rules.board import Board, split_piece
from .rules.errors import RuleViolation


def _groups(sectors: tuple[int, ...], storm: int) -> list[set[int]]:
    """The territory's sectors split into runs not separated by the storm sector."""
    groups: list[set[int]] = []
    current: set[int] = set()
    for s in sectors:
        if s == storm:
            if current:
                groups.append(current)
            current = set()
        else:
            current.add(s)
    if current:
        groups.append(current)
    return groups


def battles_for(state: dict, board: Board, faction: str) -> list[dict]:
    """Territories where ``faction`` shares ground with another non-allied faction's fighters,
    not separated by the storm, with its own forces there."""
    storm = state["storm"]["sector"]
    ally = state["alliances"].get(faction)
    by_territory: dict[str, dict[str, dict]] = {}
    from .state import forces_with_nofield  # a face-down No-Field fights as one Richese force
    for piece, stacks in forces_with_nofield(state).items():
        territory, sector = split_piece(piece)
        for f, s in stacks.items():
            if s["forces"] + s["starred"] <= 0:
                continue
            entry = by_territory.setdefault(territory, {}).setdefault(f, {"forces": 0, "starred": 0, "sectors": set()})
            entry["forces"] += s["forces"]
            entry["starred"] += s["starred"]
            entry["sectors"].add(sector)
    out = []
    for territory, per in sorted(by_territory.items()):
        if faction not in per or territory == "Polar Sink":
            continue
        t = board.territories[territory]
        groups = _groups(t.sectors, storm) if len(t.sectors) > 1 else [set(t.sectors)]
        for g in groups:
            mine = per[faction]["sectors"] & g
            if not mine:
                continue
            opponents = [f for f, e in per.items()
                         if f not in (faction, ally) and e["sectors"] & g]
            if opponents:
                ecaz = per.get("ecaz", {}) if ally == "ecaz" else {}
                item = {"territory": territory, "opponents": opponents,
                        "forces": per[faction]["forces"], "starred": per[faction]["starred"],
                        "ecaz_forces": ecaz.get("forces", 0) if ecaz else 0}
                hidden = (state["private"].get("richese") or {}).get("nofield") if faction == "richese" else None
                if hidden and split_piece(hidden["piece"])[0] == territory:
                    # the most Richese can dial: the forces there plus what the token can reveal
                    from .rules.richese import reveal_forces
                    item["forces"] += reveal_forces(hidden["token"],
                                                    state["factions"]["richese"]["reserves"]["forces"]) - 1
                    item["nofield"] = True
                out.append(item)
                break
    return out


def implied_battles(state: dict, board: Board) -> list[dict]:
    """Every battle the board implies: territories (not the Polar Sink) where two or more sides
    have forces that can fight (BG advisors do not), not kept apart by the storm. Ecaz and its
    ally count as one side. Each with its aggressor, the first of them in storm order."""
    from .rules.phases import storm_order
    storm = state["storm"]["sector"]
    dots = {f: d for f, d in state["player_dots"].items() if d}
    order = storm_order(storm, dots) if dots else list(state["factions_present"])
    ecaz_ally = state["alliances"].get("ecaz")
    by_territory: dict[str, dict[str, set]] = {}
    from .state import forces_with_nofield  # a face-down No-Field fights as one Richese force
    for piece, stacks in forces_with_nofield(state).items():
        territory, sector = split_piece(piece)
        if territory == "Polar Sink":
            continue
        for f, s in stacks.items():
            if s["forces"] + s["starred"] > 0:
                by_territory.setdefault(territory, {}).setdefault(f, set()).add(sector)
    out = []
    for territory, per in sorted(by_territory.items()):
        t = board.territories.get(territory)
        groups = _groups(t.sectors, storm) if t and len(t.sectors) > 1 else [set(s for v in per.values() for s in v)]
        for g in groups:
            here = [f for f in order if f in per and per[f] & g]
            sides: list[list[str]] = []
            for f in here:
                joined = next((side for side in sides if ecaz_ally and {f, side[0]} <= {"ecaz", ecaz_ally}), None)
                if joined is not None:
                    joined.append(f)
                else:
                    sides.append([f])
            if len(sides) >= 2:
                out.append({"territory": territory, "sides": sides, "factions": here, "aggressor": here[0]})
                break
    return out


def dial_for(state: dict, faction: str, opponent: str | None, forces: int, starred: int,
             want: int | None = None, ecaz_forces: int = 0) -> dict:
    spice = state["private"][faction]["spice"]
    bonus = dialing.ecaz_bonus(ecaz_forces) if ecaz_forces and faction != "ecaz" else 0
    if want is not None:
        best = dialing.best_dial(faction, opponent, want, forces, starred, spice, bonus=bonus)
        return {"best": best.mix(), **best.to_dict()}
    return dialing.dial_cost(faction, opponent, forces, starred, spice, bonus=bonus).mix()


def karama_for(state: dict, faction: str) -> dict:
    f = state["factions"][faction]
    occupies_shrine = any(
        tok.get("revealed") == "Shrine" and faction in tok.get("occupants", [])
        for tok in state["board"]["discovery"].values())
    return karama.karama_options(
        faction, state["factions_present"], ally=state["alliances"].get(faction),
        used_special=f["special_karama_used"], bg_worthless_used=f.get("worthless_karama_used", False),
        occupies_shrine=occupies_shrine, phase=state["phase"])


__all__ = ["implied_battles", "battles_for", "dial_for", "karama_for", "RuleViolation"]
