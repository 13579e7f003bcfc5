"""A battle's outcome applied as one entry (``battle.apply``; one undo takes it all back): forces and
leaders lost, spice paid for the dials and to the winner, cards discarded, the Kwisatz Haderach
counter, captured leaders home. The host may adjust a disputed outcome (with an override)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import battle as rules
from ..rules.errors import hard
from ..state import remove_forces
from .. import announce
from . import Ctx, FactionId, Payload, action
from .battle import KH_NAME, RULE, BattleId, _only_sides, find_battle, kh_record, name, outcome_of
from .bookkeeping import add_spice, ambassador_home, return_captives


class Adjust(Payload):
    """The host's corrections to a disputed outcome (each replaces the computed figure)."""
    type: Literal["adjust"] = "adjust"
    forces_lost: dict[FactionId, dict[Literal["forces", "starred"], int]] | None = None
    spice_paid: dict[FactionId, int] | None = None
    spice_to_winner: int | None = Field(default=None, ge=0, le=60)


class BattleApply(Payload):
    type: Literal["battle.apply"]
    battle: str = BattleId
    adjust: Adjust | None = None


def _take_losses(state: dict, f: str, territory: str, forces: int, starred: int) -> None:
    """Send ``forces``/``starred`` of ``f`` from the territory's pieces to the tanks."""
    from ..rules.board import load_board
    for piece in load_board().territory(territory).pieces():
        s = state["board"]["forces"].get(piece, {}).get(f)
        if not s:
            continue
        take_f, take_s = min(forces, s["forces"]), min(starred, s["starred"])
        if take_f or take_s:
            remove_forces(state, f, piece, take_f, take_s, 0, "tanks")
            forces, starred = forces - take_f, starred - take_s
    if forces or starred:
        raise hard(f"{name(f)} does not have those forces in {territory} any more.", RULE)


def _explode(state: dict, territory: str) -> dict:
    """A Lasgun/Shield explosion: every force of every faction left in the territory (BG advisors
    too: "still susceptible to storms, worms and explosions") goes to the tanks, and the spice there
    is lost. Returns what it took beyond the two sides' losses."""
    from ..rules.board import load_board
    taken: dict = {}
    for piece in load_board().territory(territory).pieces():
        for f, s in list(state["board"]["forces"].get(piece, {}).items()):
            n = (s.get("forces", 0), s.get("starred", 0), s.get("advisors", 0))
            if sum(n):
                remove_forces(state, f, piece, *n, "tanks")
                t = taken.setdefault(f, {"forces": 0, "starred": 0, "advisors": 0})
                t["forces"], t["starred"], t["advisors"] = t["forces"] + n[0], t["starred"] + n[1], t["advisors"] + n[2]
        spice = state["board"]["spice"].pop(piece, 0)
        if spice:
            taken["spice"] = taken.get("spice", 0) + spice
    if ambassador_home(state, territory):
        taken["ambassador"] = 1
    return taken


def _kill_leader(state: dict, leader: str) -> None:
    for data in state["factions"].values():
        for ld in data["leaders"]:
            if ld["name"] == leader:
                ld.update(status="tanks", captured_by=None)
                return


def _discard(state: dict, f: str, cards: list[str]) -> None:
    pile = state.setdefault("treachery", {"discard": []})["discard"]
    hand = state["private"][f].setdefault("cards", [])
    for c in cards:
        match = next((h for h in hand if h.lower() == c.lower()
                      or (c == "Cheap Hero" and h.lower() in ("cheap hero", "cheap heroine"))), None)
        if match:
            hand.remove(match)
            c = match
        pile.append(c)
        state["factions"][f]["hand_size"] = max(0, state["factions"][f]["hand_size"] - 1)


def _taken(f: str, n: int) -> str:
    return f"{n} spice" if f == "spice" else "the Ecaz Ambassador there" if f == "ambassador" else name(f)


def _apply_summary(p) -> str:
    return f"Battle {p.battle}: outcome applied" + (" (adjusted)" if p.adjust else "")


@action("battle.apply", BattleApply, public=("battle", "adjust"), faction_field=None, summary=_apply_summary)
def battle_apply(ctx: Ctx, state: dict, p: BattleApply) -> None:
    b = find_battle(state, p.battle)
    _only_sides(ctx, b)
    if b["status"] != "revealed":
        raise hard("Reveal both plans before applying the outcome." if b["status"] == "planning"
                   else "This battle's outcome is already applied.", RULE)
    if not ctx.is_host:
        waiting = [f for f in b["sides"] if f not in b["confirmed"] and f != ctx.actor]
        ctx.check(not waiting, f"Waiting for {' and '.join(name(f) for f in waiting)} to confirm the outcome.", RULE)
    o = outcome_of(state, b).to_dict()
    if p.adjust:
        ctx.check(False, "The outcome was edited by hand.", RULE)  # only with an override and its reason
        for key in ("forces_lost", "spice_paid"):
            for f, v in (getattr(p.adjust, key) or {}).items():
                if f not in b["sides"]:
                    raise hard(f"{name(f)} is not in this battle.", RULE)
                o[key][f] = dict(o[key].get(f, {}), **v) if key == "forces_lost" else v
        if p.adjust.spice_to_winner is not None:
            o["spice_to_winner"] = p.adjust.spice_to_winner
    for f, lost in o["forces_lost"].items():
        _take_losses(state, f, b["territory"], lost.get("forces", 0), lost.get("starred", 0))
    if o.get("explosion") and not (p.adjust and p.adjust.forces_lost):
        o["explosion_lost"] = _explode(state, b["territory"])
    for leader in o["leaders_killed"]:
        if leader == KH_NAME:
            kh_record(state)["status"] = "tanks"
        else:
            _kill_leader(state, leader)
    if b.get("kh") and "atreides" in state["factions"]:
        kh_record(state).update(turn=state["turn"], territory=b["territory"])
    for f in b["sides"]:
        leader = b["plans"][f].get("leader")
        if leader and leader not in o["leaders_killed"]:
            for data in state["factions"].values():
                for ld in data["leaders"]:
                    if ld["name"] == leader:
                        ld["used"] = True
                        ld["used_in"] = b["territory"]
                        if ld["status"] == "captured" and ld.get("captured_by") == f:
                            # a captured leader fights once for its captor, then goes home if it lives
                            ld.update(status="alive", captured_by=None)
    for f, cost in o["spice_paid"].items():
        if cost and state["private"][f]["spice"] < cost:  # never say how much the other side holds
            raise hard(f"{name(f)} can no longer pay {cost} spice for the dial: correct the spice first.",
                       rules.RULE_DIAL)
        if cost:
            add_spice(state, f, -cost)
    if o["winner"] and o["spice_to_winner"]:
        add_spice(state, o["winner"], o["spice_to_winner"])
    for f, cards in o["discard"].items():
        _discard(state, f, cards)
    if o.get("kh_losses") and "atreides" in state["private"]:
        state["private"]["atreides"]["kh_losses"] = state["private"]["atreides"].get("kh_losses", 0) + o["kh_losses"]
    b["outcome"] = o
    b["status"] = "applied"
    notes = return_captives(state)
    lost = o.get("explosion_lost") or {}
    if lost:
        notes = [f"the explosion also takes {', '.join(_taken(f, n) for f, n in lost.items())}"
                 ] + notes
    if notes:
        ctx.summary = _apply_summary(p) + "; " + "; ".join(notes)
    announce.battle_outcome(state, b, o)
