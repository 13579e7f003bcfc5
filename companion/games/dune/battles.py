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


def _fighter_groups(state: dict, board: Board):
    """Each territory (not the Polar Sink) with fighters, split into the runs of sectors the storm
    does not separate: yields ``(territory, {faction: sectors there})`` per run (BG advisors do not
    fight; a face-down No-Field fights as one Richese force)."""
    storm = state["storm"]["sector"]
    by_territory: dict[str, dict[str, set]] = {}
    from .state import forces_with_nofield
    for piece, stacks in forces_with_nofield(state).items():
        territory, sector = split_piece(piece)
        if territory == "Polar Sink":
            continue
        for f, s in stacks.items():
            if s["forces"] + s["starred"] > 0:
                by_territory.setdefault(territory, {}).setdefault(f, set()).add(sector)
    for territory, per in sorted(by_territory.items()):
        t = board.territories.get(territory)
        groups = _groups(t.sectors, storm) if t and len(t.sectors) > 1 else [set(s for v in per.values() for s in v)]
        for g in groups:
            here = {f: per[f] & g for f in per if per[f] & g}
            if here:
                yield territory, here


def _sides(factions: list[str], alliances: dict) -> list[list[str]]:
    """Factions grouped into sides: allies never battle each other, so an alliance is one side."""
    sides: list[list[str]] = []
    for f in factions:
        joined = next((side for side in sides if any(alliances.get(x) == f for x in side)), None)
        if joined is not None:
            joined.append(f)
        else:
            sides.append([f])
    return sides


def battle_problem(state: dict, board: Board, territory: str, a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` cannot battle in ``territory`` (None when they can): the one rule the
    battle list and ``battle.open`` share. Allies never battle; a territory the storm splits is a
    battle only between forces on the same side of the storm."""
    if state["alliances"].get(a) == b:
        return "Allies do not battle each other."
    together = apart = False
    for t, here in _fighter_groups(state, board):
        if t != territory:
            continue
        if a in here and b in here:
            together = True
        elif a in here or b in here:
            apart = True
    if together:
        return None
    if apart:
        return f"The storm separates them in {territory}: no battle across the storm."
    return f"They do not both have forces that can fight in {territory}."


def implied_battles(state: dict, board: Board) -> list[dict]:
    """Every battle the board implies: territories (not the Polar Sink) where two or more sides
    have forces that can fight (BG advisors do not), not kept apart by the storm. Allies (Ecaz and
    its ally among them) count as one side. Each with its aggressor, the first of them in storm order."""
    order = faction_order(state)
    out = []
    seen = set()
    for territory, here in _fighter_groups(state, board):
        if territory in seen:
            continue
        factions = [f for f in order if f in here] + [f for f in here if f not in order]
        sides = _sides(factions, state["alliances"])
        if len(sides) >= 2:
            seen.add(territory)
            out.append({"territory": territory, "sides": sides, "factions": factions, "aggressor": factions[0]})
    return out


def faction_order(state: dict) -> list[str]:
    """The factions in storm order (the table's order when no player dot is set)."""
    from .rules.phases import storm_order
    dots = {f: d for f, d in state["player_dots"].items() if d}
    return storm_order(state["storm"]["sector"], dots) if dots else list(state["factions_present"])


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


__all__ = ["implied_battles", "battle_problem", "faction_order", "battles_for", "dial_for", "karama_for", "RuleViolation"]
