"""Leader entries (``leader.*``): a leader goes to the tanks, is revived (priced by the rules in the
Revival phase), is captured, returns home or is marked used this turn."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules.errors import hard
from . import Ctx, FactionId, Payload, action
from .bookkeeping import add_spice, find_leader, name, present, return_captives


class LeaderEntry(Payload):
    type: Literal["leader.tanks", "leader.revive", "leader.capture", "leader.return", "leader.used"]
    faction: FactionId
    leader: str = Field(min_length=1, max_length=60)
    by: FactionId | None = None
    paid: int | None = Field(default=None, ge=0, le=20)

    @property
    def parties(self) -> list[str]:
        """Who may record a capture: the leader's faction or the capturing one."""
        return [self.faction] + ([self.by] if self.by and self.by != self.faction else [])


def revive_leader(ctx: Ctx, state: dict, p, ld: dict) -> None:
    """In the Revival phase the rules price it (its strength, paid to the Tleilaxu when they play)
    and check when it is allowed; elsewhere it is a correction, paid only if ``paid`` says so."""
    from ..rules.economy import leader_revival
    payee = "tleilaxu" if "tleilaxu" in state["factions_present"] and p.faction != "tleilaxu" else "bank"
    amount = p.paid or 0
    if p.paid is None and state["phase"] == "revival":
        leaders = state["factions"][p.faction]["leaders"]
        revived = state.setdefault("leaders_revived", {})
        key = f"{state['turn']}:{p.faction}"
        priced = ctx.rules(leader_revival, p.faction, ld["strength"] or 0, state["factions_present"],
                           leaders_outside_tanks=sum(1 for x in leaders if x["status"] != "tanks"),
                           leaders_in_tanks=sum(1 for x in leaders if x["status"] == "tanks"),
                           revived_this_turn=revived.get(key, 0), leader=ld["name"])
        amount = priced["cost"] if priced else 0
        revived[key] = revived.get(key, 0) + 1
    if amount:
        add_spice(state, p.faction, -amount)
        if payee == "tleilaxu":
            add_spice(state, "tleilaxu", amount)
    ld.update(status="alive", captured_by=None)


def _leader_entry(kind: str):
    def handler(ctx: Ctx, state: dict, p: LeaderEntry) -> None:
        present(state, p.faction)
        if p.faction == "atreides" and p.leader.strip().lower() == "kwisatz haderach" and kind in (
                "leader.revive", "leader.tanks"):
            # the Kwisatz Haderach dies only in an explosion and is revived like a leader (atreides-kwisatz-haderach)
            from .battle import kh_record
            ld = kh_record(state)
        else:
            ld = find_leader(state, p.faction, p.leader)
        if kind == "leader.tanks":
            if ld["status"] == "tanks":
                raise hard(f"{ld['name']} is already in the Tleilaxu Tanks.", "base-tanks")
            ld.update(status="tanks", captured_by=None)
            notes = return_captives(state)
            if notes:
                ctx.summary = f"{ld['name']} goes to the tanks; " + "; ".join(notes)
        elif kind == "leader.revive":
            if ld["status"] != "tanks":
                raise hard(f"{ld['name']} is not in the Tleilaxu Tanks.", "base-leader-revival")
            revive_leader(ctx, state, p, ld)
        elif kind == "leader.capture":
            if not p.by or p.by == p.faction:
                raise hard("Say which other faction captures the leader ('by').", "harkonnen-captured-leaders")
            present(state, p.by)
            if ld["status"] != "alive":
                raise hard(f"{ld['name']} is not available to capture.", "harkonnen-captured-leaders")
            ctx.check(p.by in ("harkonnen", "tleilaxu"),
                      f"Only the Harkonnen capture leaders, not {name(p.by)}.", "harkonnen-captured-leaders")
            ld.update(status="captured", captured_by=p.by)
        elif kind == "leader.return":
            if ld["status"] != "captured":
                raise hard(f"{ld['name']} is not captured.", "harkonnen-captured-leaders")
            ld.update(status="alive", captured_by=None)
        elif kind == "leader.used":
            ld["used"] = True
    return handler


for _kind, _verb in (("leader.tanks", "goes to the tanks"), ("leader.revive", "is revived"),
                     ("leader.capture", "is captured"), ("leader.return", "returns home"),
                     ("leader.used", "is used this turn")):
    action(_kind, LeaderEntry, faction_field="parties" if _kind == "leader.capture" else "faction",
           public=("faction", "leader", "by", "paid"),
           summary=lambda p, v=_verb: f"{name(p.faction)}: {p.leader} {v}")(_leader_entry(_kind))
