"""Alliances and the Nexus where they are made: ``alliance.form`` and ``alliance.break`` (in a Nexus,
at the end of the Spice Blow phase), and ``nexus.close``."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules.errors import hard
from ..state import PHASES
from . import Ctx, FactionId, Payload, action
from .bookkeeping import name, present


class AllianceEntry(Payload):
    type: Literal["alliance.form", "alliance.break"]
    factions: list[FactionId] = Field(min_length=2, max_length=2)


def _alliance_summary(p) -> str:
    a, b = p.factions
    return f"{name(a)} and {name(b)} {'ally' if p.type == 'alliance.form' else 'break their alliance'}"


@action("alliance.form", AllianceEntry, public=("factions",), faction_field="factions", summary=_alliance_summary)
def alliance_form(ctx: Ctx, state: dict, p: AllianceEntry) -> None:
    a, b = p.factions
    present(state, a), present(state, b)
    if a == b:
        raise hard("A faction cannot ally with itself.", "base-alliances")
    for f in (a, b):
        other = state["alliances"].get(f)
        if other and other != ({a, b} - {f}).pop():
            raise hard(f"{name(f)} is already allied with {name(other)}: break that alliance first.",
                       "base-alliances")
    if "guild" in (a, b):
        ctx.check(not (state["turn"] == state["last_turn"] and PHASES.index(state["phase"]) > 1),
                  "The Spacing Guild cannot ally after the Spice Blow of the last turn.", "guild-special-victory")
    ctx.check(state["phase"] == "spice_blow",
              "Alliances are made and broken in a Nexus, at the end of the Spice Blow phase.", "base-nexus")
    state["alliances"][a] = b
    state["alliances"][b] = a


@action("alliance.break", AllianceEntry, public=("factions",), faction_field="factions", summary=_alliance_summary)
def alliance_break(ctx: Ctx, state: dict, p: AllianceEntry) -> None:
    a, b = p.factions
    if state["alliances"].get(a) != b:
        raise hard(f"{name(a)} and {name(b)} are not allied.", "base-alliances")
    del state["alliances"][a]
    del state["alliances"][b]


class NexusClose(Payload):
    type: Literal["nexus.close"]


@action("nexus.close", NexusClose,
        public=(), faction_field=None, summary=lambda p: "the Nexus is over: alliances stand")
def nexus_close(ctx: Ctx, state: dict, p: NexusClose) -> None:
    if not state.get("nexus"):
        raise hard("No Nexus is open.", "base-nexus")
    state["nexus"] = False
