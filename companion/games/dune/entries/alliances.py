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
    offer = _paranoid_offer(state, a, b)
    if offer:
        raise hard(offer, PARANOID_RULE)
    for f in (a, b):
        other = state["alliances"].get(f)
        if other and other != ({a, b} - {f}).pop():
            if offer == "" and f != "tleilaxu":  # Paranoid: "with them breaking their current alliance"
                state["alliances"].pop(f)
                state["alliances"].pop(other, None)
                continue
            raise hard(f"{name(f)} is already allied with {name(other)}: break that alliance first.",
                       "base-alliances")
    if "guild" in (a, b):
        ctx.check(not (state["turn"] == state["last_turn"] and PHASES.index(state["phase"]) > 1),
                  "The Spacing Guild cannot ally after the Spice Blow of the last turn.", "guild-special-victory")
    if offer is None:
        _in_nexus(ctx, state)
    else:
        state.pop("paranoid", None)  # the one offer this Spice Blow's end allowed is taken
    state["alliances"][a] = b
    state["alliances"][b] = a


@action("alliance.break", AllianceEntry, public=("factions",), faction_field="factions", summary=_alliance_summary)
def alliance_break(ctx: Ctx, state: dict, p: AllianceEntry) -> None:
    a, b = p.factions
    if state["alliances"].get(a) != b:
        raise hard(f"{name(a)} and {name(b)} are not allied.", "base-alliances")
    _in_nexus(ctx, state)
    del state["alliances"][a]
    del state["alliances"][b]


def _in_nexus(ctx: Ctx, state: dict) -> None:
    """KISS Single Nexus: "There is only one Nexus at the end of the phase if Shai-Hulud spawned at
    any of the two Spice blows." Alliances are made and broken only while it is open (overridable:
    a faction power that allies outside a Nexus, or a correction)."""
    if state["phase"] != "spice_blow":
        ctx.check(False, "Alliances are made and broken in a Nexus, at the end of the Spice Blow phase.",
                  "base-nexus")
    elif not state.get("nexus"):
        ctx.check(False, "No Nexus is open: alliances change only in a Nexus, and only if Shai-Hulud spawned "
                  "at a Spice Blow this turn (or the Nexus is already closed).", "kiss-single-nexus")


GUILD_RULE = "guild-special-victory"


def guild_alliance_ends(state: dict) -> str | None:
    """KISS Guild: "You always break from any alliance that you have at the end of the Spice Blow
    phase of the last turn." Breaks it (when there is one) and returns the note for the history."""
    ally = state["alliances"].get("guild")
    if not ally:
        return None
    state["alliances"].pop("guild", None)
    if state["alliances"].get(ally) == "guild":
        state["alliances"].pop(ally)
    return f"the Guild's alliance with {name(ally)} breaks (last turn's Spice Blow is over)"


PARANOID_RULE = "tleilaxu-paranoid"


def tleilaxu_paranoid(state: dict) -> str | None:
    """kiss-rules.txt, Tleilaxu Paranoid: "Starting from the 2nd turn, at the end of each Spice Blow
    phase without a Nexus or a Sandtrout drawn, your current alliance breaks (if you had one) and you
    may offer factions other than your most recent ally to enter an alliance, with them breaking their
    current alliance if they accept." Called as the Spice Blow phase ends: breaks the alliance, opens
    the offer (``state.paranoid``) and returns the note for the history."""
    if "tleilaxu" not in state["factions"] or state["turn"] < 2:
        return None
    seen = (state.get("spice_deck") or {}).get("this_phase", [])
    if state.get("nexus") or any("hulud" in c.lower() or "sandtrout" in c.lower() for c in seen):
        return None
    ally = state["alliances"].pop("tleilaxu", None)
    if ally and state["alliances"].get(ally) == "tleilaxu":
        state["alliances"].pop(ally)
    state["paranoid"] = {"turn": state["turn"], "former": ally}
    return (f"Tleilaxu Paranoid: no Nexus this Spice Blow, the alliance with {name(ally)} breaks; "
            f"the Tleilaxu may offer an alliance to another faction" if ally else None)


def _paranoid_offer(state: dict, a: str, b: str) -> str | None:
    """For an alliance the Tleilaxu make right after Paranoid (the phase after that Spice Blow):
    "" when allowed outside a Nexus, the refusal when it is with their most recent ally, None when
    the ordinary Nexus rule applies."""
    offer = state.get("paranoid")
    if "tleilaxu" not in (a, b) or not offer or offer["turn"] != state["turn"] or state["phase"] != "charity":
        return None
    other = b if a == "tleilaxu" else a
    if other == offer.get("former"):
        return f"Paranoid: the Tleilaxu offer an alliance to factions other than their most recent ally, {name(other)}."
    return ""


class NexusOpen(Payload):
    type: Literal["nexus.open"]


@action("nexus.open", NexusOpen, faction_field=None, host_only=True,
        summary=lambda p: "a Nexus is open: alliances may change")
def nexus_open(ctx: Ctx, state: dict, p: NexusOpen) -> None:
    """The host records a Nexus the spice cards did not (a correction): refused, overridable,
    unless a Shai-Hulud came this Spice Blow phase."""
    if state.get("nexus"):
        raise hard("A Nexus is already open.", "base-nexus")
    ctx.check(state["phase"] == "spice_blow", "A Nexus is held at the end of the Spice Blow phase.", "base-nexus")
    seen = (state.get("spice_deck") or {}).get("this_phase", [])
    ctx.check(any("hulud" in c.lower() for c in seen),
              "No Shai-Hulud came this Spice Blow: KISS holds a Nexus only after a worm.", "kiss-single-nexus")
    state["nexus"] = True


class NexusClose(Payload):
    type: Literal["nexus.close"]


@action("nexus.close", NexusClose,
        public=(), faction_field=None, summary=lambda p: "the Nexus is over: alliances stand")
def nexus_close(ctx: Ctx, state: dict, p: NexusClose) -> None:
    if not state.get("nexus"):
        raise hard("No Nexus is open.", "base-nexus")
    state["nexus"] = False
