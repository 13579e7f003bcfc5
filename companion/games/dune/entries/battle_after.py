"""Powers used once a battle's outcome is applied (kiss-rules.txt faction sheets):

- ``battle.assassinate``: the Moritani, having lost, reveal a Traitor Card of the winner's faction
  and kill that leader (Assassinate Leaders).
- ``battle.keep``: the Moritani's ally, having lost, keeps one card it played (Moritani alliance).
- ``battle.ally_return``: the Tleilaxu's ally, having won, sends up to 2 of its lost forces back to
  its reserves (Tleilaxu alliance).

The Tleilaxu's own False Flag (``battle.false_flag``) is in battle_powers.py."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import treachery
from ..rules.errors import hard
from . import Ctx, FactionId, Name, Payload, action
from .battle import BattleId, find_battle, name
from .bookkeeping import add_spice, present, return_captives

RULE_ASSASSINATE = "moritani-assassinate"
RULE_MORITANI_ALLY = "moritani-alliance"
RULE_TLEILAXU_ALLY = "tleilaxu-alliance"
ZOAL_SPICE = 3  # "Collect spice for the killed leader (3 for Zoal)" (Moritani, Terror: Assassination)


def _applied(state: dict, battle_id: str, rule: str, what: str) -> dict:
    b = find_battle(state, battle_id)
    if b["status"] != "applied":
        raise hard(f"{what} comes after the battle: apply its outcome first.", rule)
    return b


def _owner_of(state: dict, leader: str) -> tuple[str, dict] | None:
    wanted = leader.strip().lower()
    for f, data in state["factions"].items():
        for ld in data["leaders"]:
            if ld["name"].lower() == wanted:
                return f, ld
    return None


# -- Moritani: Assassinate Leaders -------------------------------------------------------------------

class BattleAssassinate(Payload):
    type: Literal["battle.assassinate"]
    battle: str = BattleId
    faction: Literal["moritani"] = "moritani"
    leader: str = Field(min_length=1, max_length=60)  # the Traitor Card revealed


def assassinated(state: dict) -> dict:
    """Public: faction -> the leader whose Traitor Card the Moritani revealed against it (or
    ``None`` when the advantage against that faction was lost by revealing a traitor normally:
    ``battle.traitor`` records that)."""
    return state["factions"]["moritani"].setdefault("assassinated", {})


@action("battle.assassinate", BattleAssassinate, public=("battle", "faction", "leader"),
        summary=lambda p: f"Battle {p.battle}: Moritani reveal {p.leader} and assassinate them")
def battle_assassinate(ctx: Ctx, state: dict, p: BattleAssassinate) -> None:
    """kiss-rules.txt, Moritani: "When you lose a battle in which the opposing player had a leader disc
    that was not killed (and no Traitor was called), you may reveal a Traitor Card for the same faction
    (other than the leader you opposed). If they are not in the Tanks, kill that leader and collect
    spice for them. [...] This advantage may only be used once against each faction in the game. You
    may reveal a Traitor Card normally, but then this advantage is lost." """
    rule = RULE_ASSASSINATE
    present(state, "moritani")
    b = _applied(state, p.battle, rule, "Assassinate Leaders")
    o = b["outcome"] or {}
    if "moritani" not in b["sides"] or o.get("loser") != "moritani" or not o.get("winner"):
        raise hard("The Moritani assassinate a leader after losing a battle they fought.", rule)
    if b["traitors"]:
        raise hard("A traitor was called in this battle: there is no assassination after it.", rule)
    winner = o["winner"]
    opposed = (b["plans"].get(winner) or {}).get("leader")
    if not opposed or opposed in o.get("leaders_killed", []):
        raise hard(f"{name(winner)} had no leader disc that survived this battle: no assassination.", rule)
    found = _owner_of(state, p.leader)
    if not found or found[0] != winner:
        raise hard(f"The Traitor Card revealed must be a leader of {name(winner)}, the faction opposed.", rule)
    owner, ld = found
    if ld["name"] == opposed:
        raise hard(f"{opposed} is the leader the Moritani opposed: reveal another {name(winner)} Traitor Card.", rule)
    done = assassinated(state)
    if owner in done:
        lost = done[owner] is None
        raise hard(f"The Moritani {'revealed a traitor of' if lost else 'already assassinated a leader of'} "
                   f"{name(owner)}: the advantage against them is {'lost' if lost else 'used'}.", rule)
    held = state["private"]["moritani"].setdefault("traitors", [])
    match = next((t for t in held if t.lower() == ld["name"].lower()), None)
    ctx.check(match is not None, f"{ld['name']} is not among the Traitor Cards the Moritani recorded.", rule)
    if match:
        held.remove(match)  # revealed: set aside face up (a new card is drawn in the Mentat Pause)
    done[owner] = ld["name"]
    if ld["status"] == "tanks":
        ctx.summary = f"Battle {p.battle}: Moritani reveal {ld['name']}, already in the tanks: nobody dies"
        return
    ld.update(status="tanks", captured_by=None)
    gain = ZOAL_SPICE if ld.get("strength") is None else int(ld["strength"])
    add_spice(state, "moritani", gain)
    notes = return_captives(state)
    ctx.summary = (f"Battle {p.battle}: Moritani reveal {ld['name']} and assassinate them, collecting {gain} spice"
                   + "".join(f"; {n}" for n in notes))


# -- Moritani alliance: the losing ally keeps one card ------------------------------------------------

class BattleKeep(Payload):
    type: Literal["battle.keep"]
    battle: str = BattleId
    faction: FactionId
    card: Name


def keeps_one(state: dict, b: dict) -> str | None:
    """The loser that may keep one card it played (``moritani-alliance``), once the outcome is applied."""
    o = b.get("outcome") or {}
    loser = o.get("loser")
    if not loser or not o.get("winner") or o.get("explosion") or b.get("kept"):
        return None
    return loser if state["alliances"].get("moritani") == loser else None


def keepable(b: dict, f: str) -> list[str]:
    """The cards ``f`` played that it could have kept had it won: its weapon and defence."""
    plan = b["plans"].get(f) or {}
    return [c for c in (plan.get("weapon"), plan.get("defense")) if c]


@action("battle.keep", BattleKeep, public=("battle", "faction", "card"),
        summary=lambda p: f"Battle {p.battle}: {name(p.faction)} keep {p.card} (Moritani alliance)")
def battle_keep(ctx: Ctx, state: dict, p: BattleKeep) -> None:
    """kiss-rules.txt, Moritani alliance: "When your ally loses a battle that had a winner, they may
    keep one Treachery Card they played in the battle that they would have been able to keep had they
    won." The card comes back from the discard pile to the hand."""
    rule = RULE_MORITANI_ALLY
    b = _applied(state, p.battle, rule, "Keeping a card")
    if b.get("kept"):
        raise hard(f"{name(b['kept']['faction'])} already kept {b['kept']['card']} from this battle.", rule)
    o = b["outcome"] or {}
    if p.faction not in b["sides"] or o.get("loser") != p.faction or not o.get("winner") or o.get("explosion"):
        raise hard("Only the loser of a battle that had a winner keeps a card this way.", rule)
    if state["alliances"].get("moritani") != p.faction:
        raise hard(f"{name(p.faction)} are not the Moritani's ally.", rule)
    wanted = treachery.card(p.card).name
    cards = keepable(b, p.faction)
    if wanted not in cards:
        raise hard(f"{name(p.faction)} may keep only a card they played and could have kept had they won "
                   f"({', '.join(cards) or 'none: a Cheap Hero is always discarded'}).", rule)
    pile = state.setdefault("treachery", {"discard": []})["discard"]
    if wanted not in pile:
        raise hard(f"{wanted} is no longer on the discard pile.", rule)
    del pile[len(pile) - 1 - pile[::-1].index(wanted)]
    state["private"][p.faction].setdefault("cards", []).append(wanted)
    state["factions"][p.faction]["hand_size"] += 1
    b["kept"] = {"faction": p.faction, "card": wanted}


# -- Tleilaxu alliance: the winning ally returns up to 2 lost forces -----------------------------------

class BattleAllyReturn(Payload):
    type: Literal["battle.ally_return"]
    battle: str = BattleId
    faction: FactionId
    forces: int = Field(default=0, ge=0, le=2)
    starred: int = Field(default=0, ge=0, le=2)


@action("battle.ally_return", BattleAllyReturn, public=("battle", "faction", "forces", "starred"),
        summary=lambda p: f"Battle {p.battle}: {name(p.faction)} return {p.forces + p.starred} lost "
                          f"force{'s' if p.forces + p.starred != 1 else ''} to reserves (Tleilaxu alliance)")
def battle_ally_return(ctx: Ctx, state: dict, p: BattleAllyReturn) -> None:
    """kiss-rules.txt, Tleilaxu alliance: "when your ally wins a battle, they may return up to 2 of
    their forces of any type lost in that battle back to their reserves." Once per battle."""
    rule = RULE_TLEILAXU_ALLY
    n = p.forces + p.starred
    if not 1 <= n <= 2:
        raise hard("The Tleilaxu's ally returns 1 or 2 of the forces it lost.", rule)
    b = _applied(state, p.battle, rule, "Returning lost forces")
    if state["alliances"].get("tleilaxu") != p.faction or p.faction == "tleilaxu":
        raise hard(f"{name(p.faction)} are not the Tleilaxu's ally.", rule)
    o = b["outcome"] or {}
    if p.faction not in b["sides"] or o.get("winner") != p.faction:
        raise hard(f"The Tleilaxu's ally returns forces after a battle it won; {name(p.faction)} did not win this one.",
                   rule)
    if b.get("ally_returned"):
        raise hard(f"{name(p.faction)} already returned forces from this battle.", rule)
    lost = o.get("forces_lost", {}).get(p.faction, {})
    for kind, k in (("forces", p.forces), ("starred", p.starred)):
        if k > lost.get(kind, 0):
            raise hard(f"{name(p.faction)} lost {lost.get(kind, 0)} {'starred ' if kind == 'starred' else ''}"
                       f"force{'s' if lost.get(kind, 0) != 1 else ''} in this battle.", rule)
        tanks = state["factions"][p.faction]["tanks"]
        if tanks.get(kind, 0) < k:
            raise hard("Those forces are no longer in the tanks.", rule)
        tanks[kind] -= k
        reserves = state["factions"][p.faction]["reserves"]
        reserves[kind] = reserves.get(kind, 0) + k
    b["ally_returned"] = {"forces": p.forces, "starred": p.starred}


# -- what the phone offers after a battle (one seat's view) --------------------------------------------

def offers(state: dict, b: dict, viewer: str) -> dict:
    """The after-battle powers open to ``viewer`` on battle ``b``, for its phone's buttons:
    ``keep`` (cards the Moritani's ally may keep), ``assassinate`` (the Moritani's Traitor Cards of
    the winner's faction), ``ally_return`` (the Tleilaxu ally's choices), ``false_flag`` (how many the
    Tleilaxu may save) and, on a revealed battle, ``ecaz_karama`` (what the Ecaz Special Karama adds).
    The entries' own checks stay the judges."""
    out: dict = {}
    o = b.get("outcome") or {}
    if b["status"] == "revealed" and viewer == "ecaz" and "ecaz" in b["sides"] and not b.get("special_karama") \
            and not state["factions"]["ecaz"]["special_karama_used"]:
        opp = next(f for f in b["sides"] if f != "ecaz")
        mine, theirs = b["plans"].get("ecaz") or {}, b["plans"].get(opp) or {}
        if mine.get("leader") and theirs.get("leader") and not (mine.get("weapon") or mine.get("defense")):
            from ..rules.battle import read_plan
            try:
                own, other = read_plan("ecaz", mine).leader_strength, read_plan(opp, theirs).leader_strength
            except Exception:  # a plan the table no longer supports: the outcome box says so
                own = other = None
            if own is not None and other is not None and other > own:  # Zoal (None) meets his match: 0
                out["ecaz_karama"] = other - own
    if b["status"] != "applied" or not o.get("winner"):
        return out
    winner, loser = o["winner"], o["loser"]
    if viewer == loser and keeps_one(state, b):
        out["keep"] = [c for c in o.get("may_keep_one", {}).get(loser, []) if c in (state.get("treachery") or {}).get("discard", [])]
    opposed = (b["plans"].get(winner) or {}).get("leader")
    if (viewer == "moritani" == loser and not b["traitors"] and opposed and opposed not in o["leaders_killed"]
            and winner not in assassinated(state)):
        leaders = {ld["name"].lower(): ld["name"] for ld in state["factions"][winner]["leaders"]}
        out["assassinate"] = [leaders[t.lower()] for t in state["private"]["moritani"].get("traitors", [])
                              if t.lower() in leaders and leaders[t.lower()] != opposed]
    lost = o.get("forces_lost", {}).get(viewer, {})
    lf, ls = lost.get("forces", 0), lost.get("starred", 0)
    if viewer == winner and viewer != "tleilaxu" and state["alliances"].get("tleilaxu") == viewer \
            and not b.get("ally_returned") and lf + ls:
        n = min(2, lf + ls)
        out["ally_return"] = [{"forces": f, "starred": n - f} for f in range(n, -1, -1) if f <= lf and n - f <= ls]
    if viewer == "tleilaxu" and "tleilaxu" in b["sides"] and not b.get("false_flag") and lf + ls:
        out["false_flag"] = min(2, lf + ls)
    return out
