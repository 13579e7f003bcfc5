"""What the board screen announces to the room (issue 24): a storm move, a worm, a Nexus, a battle's
reveal and outcome, a win. The entries that cause them call ``announce``; the public state keeps the
last few (``announcements``: a running number and the items), the board screen shows each new one once
as a large overlay (templates/dune/announcements.html, static/announce.js) and may speak it.

Only public facts go in: a storm's move and losses, a worm's victims, the revealed plans' totals."""
from __future__ import annotations

from .rules.factions import faction_name

KEEP = 5  # the items the state keeps (the board screen shows only those newer than it has seen)


def announce(state: dict, kind: str, title: str, text: str = "", speech: str | None = None) -> None:
    a = state.setdefault("announcements", {"seq": 0, "items": []})
    a["seq"] += 1
    item = {"id": a["seq"], "turn": state.get("turn"), "kind": kind, "title": title, "text": text,
            "speech": speech or " ".join(x for x in (title, text) if x)}
    a["items"] = (a["items"] + [item])[-KEEP:]


def announcements(view: dict) -> list[dict]:
    """The items a (public) view carries, oldest first."""
    return list((view.get("announcements") or {}).get("items", []))


def losses(killed: dict) -> str:
    """'Harkonnen 3, Fremen 2 (1 starred)' from piece -> faction -> counts; '' when nothing died."""
    per: dict[str, list[int]] = {}
    for counts in killed.values():
        for f, c in counts.items():
            n = per.setdefault(f, [0, 0])
            n[0] += c.get("forces", 0) + c.get("advisors", 0)
            n[1] += c.get("starred", 0)
    parts = [f"{faction_name(f)} {a + b}" + (f" ({b} starred)" if b else "")
             for f, (a, b) in sorted(per.items()) if a + b]
    return ", ".join(parts)


def storm_moved(state: dict, start: int, move: int, end: int, killed: dict, spice_removed: dict) -> None:
    dead = losses(killed)
    spice = sum(spice_removed.values())
    bits = [f"Killed: {dead}." if dead else "Nobody caught in it."]
    if spice:
        bits.append(f"{spice} spice blown away.")
    speech = f"Storm moves {move} sectors, to sector {end}."
    if dead:
        speech += f" It kills {dead}."
    if "fremen" in state.get("factions_present", []):
        speech += " Fremen, look at the next storm card."
    announce(state, "storm", f"Storm moves {move}: sector {start} → {end}", " ".join(bits), speech)


def worm(state: dict, territory: str | None, devoured: dict, nexus: bool) -> None:
    dead = losses(devoured)
    where = territory or "nowhere (set aside)"
    text = f"Eaten: {dead}." if dead else "Nothing eaten."
    announce(state, "worm", f"Shai-Hulud in {where}", text,
             f"A worm in {where}. " + (f"It eats {dead}." if dead else "It eats nothing."))
    if nexus:
        announce(state, "nexus", "Nexus", "Alliances may be made and broken now.",
                 "Nexus! Alliances may be made and broken now.")


def battle_revealed(state: dict, b: dict, outcome) -> None:
    sides = " vs ".join(faction_name(f) for f in b["sides"])
    totals = ", ".join(f"{faction_name(f)} {(outcome.totals if outcome else {}).get(f, '?')}" for f in b["sides"])
    if outcome is None:
        result = "the table works out the outcome"
    elif outcome.winner:
        result = f"{faction_name(outcome.winner)} win"
    elif outcome.explosion:
        result = "Lasgun and shield: everything explodes"
    else:
        result = "no winner yet"
    announce(state, "battle", f"Battle in {b['territory']}: {sides}", f"Plans revealed: {totals}. {result}.",
             f"Battle in {b['territory']}. {totals}. {result}.")


def won(state: dict, summary: str) -> None:
    announce(state, "win", summary, "", summary + "!")
