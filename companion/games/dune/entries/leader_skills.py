"""Leader Skills (an optional module of the CHOAM & Richese add-on): the Skill Card kept with one
leader (``skill.assign``), face up in front of the shield or behind it (``skill.show``), back to
the deck when its leader dies."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import choam as choam_rules
from ..rules.errors import hard
from . import Ctx, FactionId, Payload, action
# leader.tanks and battle.apply are wrapped here, after CHOAM's own check on battle.apply (support
# income): the skills are synced once that has run, as they always were
from . import choam, leaders  # noqa: F401
from .bookkeeping import _wrap, find_leader, name, present


def _skills_taken(state: dict) -> list[str]:
    return [state["private"][f]["skill"]["name"] for f in state["factions_present"]
            if (state["private"][f].get("skill") or {}).get("name")]


def _deck_count(state: dict) -> None:
    state["skill_deck"] = {"size": len(choam_rules.skill_names()), "in_deck": len(choam_rules.skill_names())
                           - len(_skills_taken(state))}


def _publish_skill(state: dict, f: str) -> None:
    mine = state["private"][f].get("skill")
    if not mine:
        state["factions"][f]["skill"] = None
    elif mine.get("face_up", True):
        state["factions"][f]["skill"] = {"name": mine["name"], "leader": mine["leader"]}
    else:
        state["factions"][f]["skill"] = {"hidden": True}  # behind the shield: that it exists is public


class SkillAssign(Payload):
    type: Literal["skill.assign"]
    faction: FactionId
    leader: str = Field(min_length=1, max_length=60)
    skill: str = Field(min_length=1, max_length=60)
    hidden: bool = False  # kept behind the shield instead of face up in front of it


@action("skill.assign", SkillAssign, public=(), secret=True,
        summary=lambda p: f"{name(p.faction)} assign a Leader Skill")
def skill_assign(ctx: Ctx, state: dict, p: SkillAssign) -> None:
    """The kept Skill Card goes with one eligible leader (at setup, or after reviving one's own
    leader while holding none): face up in front of the shield (public) or behind it (private)."""
    f = present(state, p.faction)
    ctx.check(bool(state["options"].get("leader_skills")), "Leader Skills are an optional module this table "
              "did not choose.", "choam-richese-leader-skills")
    skill = choam_rules.skill_name(p.skill)
    ld = find_leader(state, f, p.leader)
    held = (state["private"][f].get("skill") or {}).get("name")
    ctx.rules(choam_rules.check_skill_assign, skill, ld["name"], ld["status"], held=held,
              taken=[x for x in _skills_taken(state) if x != held])
    state["private"][f]["skill"] = {"name": skill, "leader": ld["name"], "face_up": not p.hidden}
    _publish_skill(state, f)
    _deck_count(state)


class SkillShow(Payload):
    type: Literal["skill.show"]
    faction: FactionId
    face_up: bool


@action("skill.show", SkillShow, public=(), secret=True,
        summary=lambda p: f"{name(p.faction)} " + ("show their skilled leader" if p.face_up
                                                    else "take their skilled leader behind the shield"))
def skill_show(ctx: Ctx, state: dict, p: SkillShow) -> None:
    """Choosing a battle leader: leave the skilled leader and card face up, or take both behind the shield."""
    f = present(state, p.faction)
    mine = state["private"][f].get("skill")
    if not mine:
        raise hard(f"{name(f)} holds no Leader Skill.", "choam-richese-leader-skills")
    mine["face_up"] = p.face_up
    _publish_skill(state, f)


def leader_died(state: dict, faction: str, leader: str) -> None:
    """Hook for any code that sends a leader to the tanks: its Skill Card goes back to the deck."""
    mine = (state["private"].get(faction) or {}).get("skill")
    if mine and mine["leader"] == leader:
        state["private"][faction]["skill"] = None
        _publish_skill(state, faction)
        _deck_count(state)


def skills_sync(ctx: Ctx, state: dict, p, _seen=None) -> None:
    """After any entry that may kill leaders: a dead skilled leader's card returns to the deck."""
    if not state["options"].get("leader_skills"):
        return
    for f in state["factions_present"]:
        mine = state["private"][f].get("skill")
        if not mine:
            continue
        ld = next((x for x in state["factions"][f]["leaders"] if x["name"] == mine["leader"]), None)
        if ld is None or ld["status"] == "tanks":
            leader_died(state, f, mine["leader"])


_wrap("leader.tanks", after=skills_sync)
_wrap("battle.apply", after=skills_sync)


def skill_view(state: dict, f: str) -> dict | None:
    """A faction's Leader Skill as the table sees it, with the leader's capture (a captured leader
    takes its skill along)."""
    pub = (state["factions"].get(f) or {}).get("skill")
    if not pub or pub.get("hidden"):
        return pub
    ld = next((x for x in state["factions"][f]["leaders"] if x["name"] == pub["leader"]), None)
    return dict(pub, captured_by=(ld or {}).get("captured_by"))


__all__ = ["leader_died", "skill_view"]
