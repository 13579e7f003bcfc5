"""The battle powers' entries: Atreides Prescience (``battle.prescience``, answered by
``battle.answer``), the Bene Gesserit Voice (``battle.voice``), the Karama that stops a power in one
battle (``battle.karama``) and the Harkonnen capture after a battle they won (``battle.capture``).
Who owns each power, and what its records mean for a sealed plan, is in battle.py."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import battle as rules
from ..rules import battle_powers as powers
from ..rules.errors import hard
from . import Ctx, FactionId, Payload, action
from .battle import (
    AFTER_REVEAL, OWN_SIDE_ONLY, POWER_NAME, POWER_OWNER, POWER_RULE, BattleId, _check_cards, _leader_available,
    _not_stopped, fighters, find_battle, name, power_side, side_of,
)
from .bookkeeping import add_spice, play_karama, present


def _power_battle(state: dict, p, power: str, rule: str, alliance_rule: str) -> tuple[dict, str]:
    """The battle a Prescience or Voice entry is for, and the side it serves: only its owner uses
    it, in its own battle or its ally's, before the plans are revealed, unless a Karama stopped it."""
    b = find_battle(state, p.battle)
    owner = POWER_OWNER[power]
    what = {"prescience": "Prescience", "voice": "The Voice"}[power]
    if p.faction != owner:
        raise hard(f"Only the {name(owner)} use {what.replace('The ', 'the ')}.", rule)
    side = power_side(state, b, owner)
    if side is None:
        whose = name(owner) + ("'" if name(owner).endswith("s") else "'s")
        raise hard(f"{what} is used in the {whose} own battle or in their ally's.", alliance_rule)
    _planning(b, what, rule)
    _not_stopped(b, power)
    return b, side


def _planning(b: dict, what: str, rule: str) -> None:
    if b["status"] != "planning":
        raise hard(f"{what} comes before the plans are revealed.", rule)


class BattlePrescience(Payload):
    type: Literal["battle.prescience"]
    battle: str = BattleId
    faction: FactionId
    element: Literal["leader", "weapon", "defense", "dial"]


@action("battle.prescience", BattlePrescience, public=("battle", "faction", "element"),
        summary=lambda p: f"Battle {p.battle}: Atreides Prescience asks for the {p.element}")
def battle_prescience(ctx: Ctx, state: dict, p: BattlePrescience) -> None:
    b, side = _power_battle(state, p, "prescience", powers.RULE_PRESCIENCE, "atreides-alliance")
    asked = b.get("prescience")
    if asked:
        mine = state["private"]["atreides"].get("prescience", {}).get(b["id"])
        none = bool(mine) and mine["element"] in ("weapon", "defense") and not mine["value"].get(mine["element"])
        raise powers.ask_problem(dict(asked, none=none), p.element)
    target = next(x for x in b["sides"] if x != side)
    if p.element == "dial" and target == "richese":
        # choam-richese.txt, No-Field: "In a battle involving the token ... Atreides may not ask to see
        # your number dialed in that battle."
        from ..rules.board import split_piece
        hidden = (state["private"].get("richese") or {}).get("nofield")
        ctx.check(not (hidden and split_piece(hidden["piece"])[0] == b["territory"]),
                  "A No-Field token fights in this battle: the Atreides may not ask Richese for the dial.",
                  "richese-no-field")
    b["prescience"] = {"by": "atreides", "for": side, "target": target, "element": p.element, "answered": False}


class BattleAnswer(Payload):
    type: Literal["battle.answer"]
    battle: str = BattleId
    faction: FactionId
    leader: str | None = Field(default=None, max_length=60)
    weapon: str | None = Field(default=None, max_length=60)
    defense: str | None = Field(default=None, max_length=60)
    forces: int | None = Field(default=None, ge=0, le=20)
    starred: int | None = Field(default=None, ge=0, le=20)


@action("battle.answer", BattleAnswer, public=(), secret=True,
        summary=lambda p: f"Battle {p.battle}: {name(p.faction)} answer the Prescience question")
def battle_answer(ctx: Ctx, state: dict, p: BattleAnswer) -> None:
    b = side_of(state, p.battle, p.faction, powers.RULE_PRESCIENCE)
    q = b.get("prescience")
    if not q:
        raise hard("Nobody asked a Prescience question in this battle.", powers.RULE_PRESCIENCE)
    if q["target"] != p.faction:
        raise hard(f"The Prescience question is for {name(q['target'])}, not {name(p.faction)}.",
                   powers.RULE_PRESCIENCE)
    if q["answered"]:
        raise hard("The Prescience question is already answered.", powers.RULE_PRESCIENCE)
    _planning(b, "The Prescience answer", powers.RULE_PRESCIENCE)
    element = q["element"]
    value = powers.read_answer(element, p.model_dump())
    f = p.faction
    opponent = next(x for x in b["sides"] if x != f)
    if element == "leader" and value["leader"] and value["leader"] != "Cheap Hero":
        value["leader"] = _leader_available(state, f, value["leader"])[0]
    plan = {"leader": None, "cheap_hero": False, "forces": 0, "starred": 0, "weapon": None, "defense": None}
    if element == "leader":
        plan.update(leader=None if value["leader"] == "Cheap Hero" else value["leader"],
                    cheap_hero=value["leader"] == "Cheap Hero")
    elif element == "dial":
        plan.update(value)
    else:
        plan[element] = value[element]
    if element != "dial":  # the cards it names must be in the hand (a Cheap Hero included)
        checked = rules.Plan(f, cheap_hero=plan["cheap_hero"], weapon=plan["weapon"], defense=plan["defense"])
        _check_cards(ctx, state, f, checked)
    else:
        dial = rules.read_plan(f, {"forces": value["forces"], "starred": value["starred"]})
        dial.spice = state["private"][f]["spice"]
        rules.check_dial(dial, opponent, fighters(state, b["territory"]).get(f, {"forces": 0, "starred": 0}))
    sealed = state["private"][f].get("battle_plans", {}).get(b["id"])
    if sealed:  # the answer is the sealed plan's element: it never contradicts what is sealed
        shown = powers.plan_value(element, sealed)
        if powers.answer_problem(element, value, sealed):
            raise hard(f"Your sealed plan plays {powers.answer_text(element, shown)}: that is the answer "
                       f"(change the plan first to answer otherwise).", powers.RULE_PRESCIENCE)
    answer = {"element": element, "value": value}
    for seat in {f, "atreides", q["for"]}:
        state["private"][seat].setdefault("prescience", {})[b["id"]] = dict(answer)
    q["answered"] = True


class BattleVoice(Payload):
    type: Literal["battle.voice"]
    battle: str = BattleId
    faction: FactionId
    command: Literal["play", "not_play"]
    card: str = Field(min_length=1, max_length=60)


def _voice_summary(p: BattleVoice) -> str:
    try:
        return f"Battle {p.battle}: Voice — {powers.read_voice(p.command, p.card)['text']}"
    except Exception:
        return f"Battle {p.battle}: Voice"


@action("battle.voice", BattleVoice, public=("battle", "faction", "command", "card"), summary=_voice_summary)
def battle_voice(ctx: Ctx, state: dict, p: BattleVoice) -> None:
    b, side = _power_battle(state, p, "voice", powers.RULE_VOICE, "bg-alliance")
    if b.get("voice"):
        raise hard(f"The Voice was already used in this battle: {b['voice']['text']}.", powers.RULE_VOICE)
    voice = powers.read_voice(p.command, p.card)
    target = next(x for x in b["sides"] if x != side)
    if target in b["sealed"]:
        ctx.check(False, f"{name(target)} already sealed a plan: the Voice comes before it (with an override "
                         f"{name(target)} seal again under the Voice).", powers.RULE_VOICE)
        state["private"][target].get("battle_plans", {}).pop(b["id"], None)
        b["sealed"].remove(target)
    b["voice"] = dict(voice, by="bg", target=target, **{"for": side})


class BattleKarama(Payload):
    type: Literal["battle.karama"]
    battle: str = BattleId
    faction: FactionId
    power: Literal["prescience", "voice", "kh", "sardaukar", "fedaykin", "facedancers", "capture"]


@action("battle.karama", BattleKarama, public=("battle", "faction", "power"),
        summary=lambda p: f"Battle {p.battle}: {name(p.faction)} play a Karama against {POWER_NAME[p.power]}")
def battle_karama(ctx: Ctx, state: dict, p: BattleKarama) -> None:
    b = find_battle(state, p.battle)
    present(state, p.faction)
    owner = POWER_OWNER[p.power]
    rule = POWER_RULE[p.power]
    if p.faction == owner:
        raise hard(f"A Karama cannot stop a faction's own power: {name(owner)} cannot stop their own "
                   f"{POWER_NAME[p.power].removeprefix('the ')}.", "kiss-karama")
    side = (owner if owner in b["sides"] else None) if p.power in OWN_SIDE_ONLY else power_side(state, b, owner)
    if side is None:
        raise hard(f"{name(owner)} cannot use {POWER_NAME[p.power]} in this battle: there is nothing to stop.", rule)
    if p.power in AFTER_REVEAL:
        if b.get("captured"):
            raise hard(f"The Harkonnen already took {b['captured']['leader']}: a Karama stops the capture "
                       "before it is made.", rule)
        if b["status"] == "applied" and not (b.get("outcome") or {}).get("capture"):
            raise hard("The Harkonnen did not win this battle: there is no capture to stop.", rule)
    else:
        _planning(b, "A battle-plan Karama", "qa-battle-karama-timing")
    karama = b.setdefault("karama", {})
    if p.power in karama:
        raise hard(f"{POWER_NAME[p.power]} is already stopped in this battle.", rule)
    used = {"prescience": b.get("prescience"), "voice": b.get("voice")}.get(p.power)
    if used:
        raise hard(f"{POWER_NAME[p.power]} was already used in this battle: a Karama stops it before it is used.",
                   rule)
    karama[p.power] = p.faction
    play_karama(ctx, state, p.faction, rule)


class BattleCapture(Payload):
    type: Literal["battle.capture"]
    battle: str = BattleId
    leader: str = Field(min_length=1, max_length=60)
    keep: bool


@action("battle.capture", BattleCapture, public=("battle", "leader", "keep"), faction_field=None,
        summary=lambda p: f"Battle {p.battle}: Harkonnen {'keep' if p.keep else 'kill'} {p.leader}"
                          + ("" if p.keep else " for 2 spice"))
def battle_capture(ctx: Ctx, state: dict, p: BattleCapture) -> None:
    b = find_battle(state, p.battle)
    rule = rules.RULE_CAPTURE
    if not ctx.is_host and ctx.actor != "harkonnen":
        raise hard("Only the Harkonnen capture leaders.", rule)
    if b["status"] != "applied" or not (b.get("outcome") or {}).get("capture"):
        raise hard("A leader is captured after a battle the Harkonnen won, once its outcome is applied.", rule)
    if b.get("captured"):
        raise hard(f"The Harkonnen already took {b['captured']['leader']} from this battle.", rule)
    _not_stopped(b, "capture")
    loser = b["outcome"]["capture"]["from"]
    fought = (b["plans"].get(loser) or {}).get("leader")
    wanted = p.leader.strip().lower()
    ld = next((x for x in state["factions"][loser]["leaders"] if x["name"].lower() == wanted), None)
    if ld is None:
        raise hard(f"{name(loser)} have no leader called {p.leader!r}.", rule)
    if ld["status"] != "alive":
        raise hard(f"{ld['name']} is not among {name(loser)}'s living leaders: pick another.", rule)
    ctx.check(not ld.get("used") or ld["name"] == fought,
              f"{ld['name']} was used in another battle this turn: the capture draws among the others.", rule)
    if p.keep:
        ld.update(status="captured", captured_by="harkonnen")
    else:
        ld.update(status="tanks", captured_by=None)
        add_spice(state, "harkonnen", 2)
    b["captured"] = {"leader": ld["name"], "keep": p.keep}


# -- Tleilaxu False Flag ---------------------------------------------------------------------------

class BattleFalseFlag(Payload):
    type: Literal["battle.false_flag"]
    battle: str = BattleId
    faction: Literal["tleilaxu"] = "tleilaxu"
    forces: int = Field(ge=1, le=2)


@action("battle.false_flag", BattleFalseFlag,
        summary=lambda p: f"Battle {p.battle}: Tleilaxu False Flag, {p.forces} lost force{'s' if p.forces > 1 else ''} "
                          f"back to reserves")
def battle_false_flag(ctx: Ctx, state: dict, p: BattleFalseFlag) -> None:
    """kiss-rules.txt, Tleilaxu: "After a battle, you may send up to 2 forces you lost in that battle
    to your reserves instead of Tleilaxu tanks." Once per battle, from what the applied outcome took."""
    rule = "tleilaxu-false-flag"
    b = find_battle(state, p.battle)
    if "tleilaxu" not in b["sides"]:
        raise hard("False Flag saves Tleilaxu forces lost in a battle the Tleilaxu fought.", rule)
    if b["status"] != "applied":
        raise hard("False Flag comes after the battle: apply its outcome first.", rule)
    if b.get("false_flag"):
        raise hard("The Tleilaxu already used False Flag for this battle.", rule)
    lost = (b["outcome"] or {}).get("forces_lost", {}).get("tleilaxu", {})
    n = lost.get("forces", 0) + lost.get("starred", 0)
    if p.forces > n:
        raise hard(f"The Tleilaxu lost {n} force{'s' if n != 1 else ''} in this battle.", rule)
    tanks = state["factions"]["tleilaxu"]["tanks"]
    if tanks["forces"] < p.forces:
        raise hard("Those forces are no longer in the tanks.", rule)
    tanks["forces"] -= p.forces
    state["factions"]["tleilaxu"]["reserves"]["forces"] += p.forces
    b["false_flag"] = p.forces
