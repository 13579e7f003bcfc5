"""What the board screen announces to the room (issue 24): a storm move, a worm, a Nexus, a battle's
reveal (both plans), a traitor call, a battle's applied outcome, a win. The entries that cause them call ``announce``; the public state keeps the
last few (``announcements``: a running number and the items), the board screen shows each new one once
as a large overlay (templates/dune/announcements.html, static/announce.js) and may speak it.

Only public facts go in: a storm's move and losses, a worm's victims, the revealed plans' totals."""
from __future__ import annotations

from .rules.factions import faction_name

KEEP = 5  # the items the state keeps (the board screen shows only those newer than it has seen)


def announce(state: dict, kind: str, title: str, text: str = "", speech: str | None = None,
             lines: list[str] | None = None) -> None:
    """``lines``: shown one per line instead of ``text`` (a battle's two plans, each side's losses)."""
    a = state.setdefault("announcements", {"seq": 0, "items": []})
    a["seq"] += 1
    item = {"id": a["seq"], "turn": state.get("turn"), "kind": kind, "title": title, "text": text,
            "speech": speech or " ".join(x for x in (title, text) if x)}
    if lines:
        item["lines"] = list(lines)
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


def storm_moved(state: dict, start: int, move: int, end: int, killed: dict, spice_removed: dict,
                ambassadors=()) -> None:
    dead = losses(killed)
    spice = sum(spice_removed.values())
    bits = [f"Killed: {dead}." if dead else "Nobody caught in it."]
    if spice:
        bits.append(f"{spice} spice blown away.")
    back = f"The Ambassador in {' and in '.join(ambassadors)} returns to Ecaz's supply." if ambassadors else ""
    if back:
        bits.append(back)
    speech = f"Storm moves {move} sectors, to sector {end}."
    if dead:
        speech += f" It kills {dead}."
    if back:
        speech += " " + back
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


def plan_line(f: str, plan: dict, total, kh: bool = False) -> str:
    """'Harkonnen 9: Feyd-Rautha · dial 3 · Crysknife · no defense': one side's revealed plan (its total
    first), as the room reads it."""
    fighter = plan.get("leader") or ("Cheap Hero" if plan.get("cheap_hero") else "no leader")
    if kh and f == "atreides":
        fighter += " + Kwisatz Haderach"
    dial = plan.get("forces", 0) + plan.get("starred", 0)
    bits = [fighter, f"dial {dial}" + (f" ({plan.get('starred')} starred)" if plan.get("starred") else ""),
            plan.get("weapon") or "no weapon", plan.get("defense") or "no defense"]
    return f"{faction_name(f)} {total if total is not None else '?'}: {' · '.join(bits)}"


def _result(outcome) -> str:
    if outcome is None:
        return "the table works out the outcome"
    if outcome.winner:
        return f"{faction_name(outcome.winner)} win"
    if outcome.explosion:
        return "Lasgun and shield: everything explodes"
    return "no winner yet"


def battle_revealed(state: dict, b: dict, outcome) -> None:
    """Both plans, side by side, for the room: the board screen shows them first (the phones show the same
    revision's outcome card as it does)."""
    sides = " vs ".join(faction_name(f) for f in b["sides"])
    totals = (outcome.totals if outcome else {})
    lines = [plan_line(f, b["plans"].get(f) or {}, totals.get(f), b.get("kh")) for f in b["sides"]]
    summary = ", ".join(f"{faction_name(f)} {totals.get(f, '?')}" for f in b["sides"])
    result = _result(outcome)
    announce(state, "battle", f"Battle in {b['territory']}: {sides}", f"Plans revealed: {summary}. {result}.",
             f"Battle in {b['territory']}. " + ". ".join(x.replace(" · ", ", ") for x in lines) + f". {result}.",
             lines=lines + [f"{result[0].upper()}{result[1:]}."])


def traitor_called(state: dict, b: dict, caller: str, side: str, leader: str, outcome) -> None:
    opponent = next(f for f in b["sides"] if f != side)
    who = faction_name(caller) + (f" (for {faction_name(side)})" if caller != side else "")
    text = f"{who} call {leader}, the {faction_name(opponent)} leader, a traitor in {b['territory']}."
    result = _result(outcome)
    announce(state, "traitor", f"Traitor! {leader}", f"{text} {result[0].upper() + result[1:]}.",
             f"Traitor! {text} {result}.")


def battle_outcome(state: dict, b: dict, o: dict) -> None:
    """The applied outcome: who won, what each side lost, the spice paid and taken."""
    where = b["territory"]
    if o.get("winner"):
        title = f"{faction_name(o['winner'])} win in {where}"
    elif o.get("explosion"):
        title = f"Explosion in {where}"
    else:
        title = f"No winner in {where}"
    killed = set(o.get("leaders_killed") or [])
    lines = []
    for f in b["sides"]:
        lost = (o.get("forces_lost") or {}).get(f) or {}
        n, st = lost.get("forces", 0), lost.get("starred", 0)
        bits = []
        if n + st:
            bits.append(f"{n + st} force{'s' if n + st != 1 else ''}" + (f" ({st} starred)" if st else ""))
        leader = (b["plans"].get(f) or {}).get("leader")
        if leader and leader in killed:
            bits.append(leader)
        paid = (o.get("spice_paid") or {}).get(f)
        line = f"{faction_name(f)} lose {' and '.join(bits)}" if bits else f"{faction_name(f)} lose nothing"
        if paid:
            line += f"; pay {paid} spice"
        if f == o.get("winner") and o.get("spice_to_winner"):
            line += f"; take {o['spice_to_winner']} spice"
        lines.append(line)
    announce(state, "outcome", title, ". ".join(lines) + ".", f"{title}. " + ". ".join(lines) + ".", lines=lines)


def won(state: dict, summary: str) -> None:
    announce(state, "win", summary, "", summary + "!")
