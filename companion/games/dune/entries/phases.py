"""The turn's flow: what the current phase asks before the next one (``steps_for``,
rules/phase_steps.py), whose turn it is (``whose_turn``), the next phase (``phase.next``, refused,
overridable, while a blocking step is open) or a correction of it (``phase.set``) and the
bookkeeping as a phase begins; and the rule the table shows everyone (``rule.show``)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import economy, phase_steps
from ..rules.board import Board
from ..rules.errors import RuleViolation, hard
from ..rules.phases import next_phase, phase_name
from ..state import PHASES
from . import Ctx, Payload, PhaseId, action
from .bidding import _eligible_buyers, auction, auction_opener
from .bookkeeping import current_order, name
from .choam import addon_charity_entitled
from .collection import preview_collection
from .moves import shipment_turn
from .richese import cache_steps
from .storm_spice import blows_this_turn, end_spice_phase, storm_dialers
from .victory import preview_victory


# -- the next phase --------------------------------------------------------------------------------

class PhaseNext(Payload):
    type: Literal["phase.next"]


def start_phase(state: dict, turn: int, phase: str) -> list[str]:
    """Bookkeeping that happens whenever a phase begins; returns the notes for the history line."""
    previous = state["phase"]
    notes = []
    if (previous == "spice_blow" and state["turn"] == state["last_turn"] and
            (turn, PHASES.index(phase)) > (state["turn"], PHASES.index("spice_blow"))):
        from .alliances import guild_alliance_ends
        note = guild_alliance_ends(state)
        if note:
            notes.append(note)
    if previous == "spice_blow" and phase != "spice_blow":
        from .alliances import tleilaxu_paranoid
        note = tleilaxu_paranoid(state)
        if note:
            notes.append(note)
    state["turn"], state["phase"] = turn, phase
    if previous == "spice_blow" and phase != "spice_blow":
        if "fremen" in state["factions"]:
            state["factions"]["fremen"]["saved"] = {}
        state.pop("fremen_sent_to", None)
        state["nexus"] = False
        end_spice_phase(state)  # turn-1 worms set aside go back into the deck
    if phase == "shipment_movement":
        state["last_shipment"] = None
    if phase == "storm":
        for f in state["factions"].values():
            for ld in f["leaders"]:
                ld["used"] = False
                ld.pop("used_in", None)
    if phase == "shipment_movement":
        for flags in state["turn_flags"].values():
            flags.update(shipped=False, moved=False)
    return notes


@action("phase.next", PhaseNext, public=(), faction_field=None, summary=lambda p: "next phase")
def phase_next(ctx: Ctx, state: dict, p: PhaseNext) -> None:
    """Refused (overridable) while the phase has unfinished blocking steps (``phase_gate``)."""
    notes = start_phase(state, *phase_gate(ctx, state))
    if notes:
        ctx.summary = "next phase; " + "; ".join(notes)


class PhaseSet(Payload):
    type: Literal["phase.set"]
    turn: int = Field(ge=1, le=20)
    phase: PhaseId


@action("phase.set", PhaseSet, public=("turn", "phase"), faction_field=None, host_only=True,
        summary=lambda p: f"phase corrected to turn {p.turn}, {p.phase}")
def phase_set(ctx: Ctx, state: dict, p: PhaseSet) -> None:
    if p.turn > state["last_turn"]:
        raise hard(f"This game has {state['last_turn']} turns.", "base-turn-sequence")
    notes = start_phase(state, p.turn, p.phase)
    if notes:
        ctx.summary = f"phase corrected to turn {p.turn}, {p.phase}; " + "; ".join(notes)


# -- what each phase asks, whose turn it is (rules/phase_steps.py) ---------------------------------

def open_battles(board: Board, state: dict) -> list[tuple[str, list[str]]]:
    """(territory, factions) still to fight: the table layer's ``battles_for`` on the board's
    territories; a revealed Discovery territory (a place of its own, never split by the storm)
    holds a battle when two non-allied factions' fighters stand in it."""
    from ..battles import battles_for
    from ..rules.board import split_piece
    from ..state import forces_with_nofield  # a face-down No-Field fights as one force until revealed
    forces = forces_with_nofield(state)
    on_board = {p: v for p, v in forces.items() if split_piece(p)[0] in board.territories}
    board_only = dict(state, board=dict(state["board"], forces=on_board, nofield=None))
    found: dict[str, list[str]] = {}

    def add(territory: str, factions: list[str]) -> None:
        involved = found.setdefault(territory, [])
        involved += [x for x in factions if x not in involved]

    for f in current_order(state):
        for b in battles_for(board_only, board, f):
            add(b["territory"], [f] + list(b["opponents"]))
    for piece, stacks in forces.items():
        if piece in on_board:
            continue
        fighters = [f for f in current_order(state) if f in stacks and stacks[f]["forces"] + stacks[f]["starred"] > 0]
        enemies = [f for f in fighters if any(g != f and state["alliances"].get(f) != g for g in fighters)]
        if enemies:
            add(split_piece(piece)[0], enemies)
    return sorted(found.items())


def steps_for(board: Board, state: dict, viewer: str = "host") -> list[phase_steps.Step]:
    """The current phase's steps as ``viewer`` may see them (blocking steps read only public facts)."""
    phase, turn = state["phase"], state["turn"]
    present = state["factions_present"]
    if phase == "storm":
        bg = state["private"].get("bg")
        return phase_steps.storm_steps(
            turn, setup_pending=[x["faction"] for x in state["setup"]["pending"]],
            storm_moved=state.get("storm_moved") == turn, dialers=storm_dialers(state) if turn == 1 else (),
            dialled=list(state.get("storm_dials", {})), storm_pending=bool(state.get("storm_pending")),
            fremen_present="fremen" in present,
            bg_prediction=None if bg is None else bool(bg.get("prediction")),
            traitors_missing=[f for f in present if not state["private"][f]["traitors"]] if turn == 1 else ())
    if phase == "spice_blow":
        saved = bool(state["factions"].get("fremen", {}).get("saved"))
        return phase_steps.spice_blow_steps(blows_this_turn(state), nexus_open=bool(state.get("nexus")),
                                            saved_fremen=saved)
    if phase == "charity":
        visible = [f for f in present if viewer in ("host", f) or (f == "bg" and turn > 1)]
        entitled = [f for f in visible if economy.charity(turn, f, state["private"][f]["spice"]) > 0]
        claimed = [f for f in present if state.get("charity_claimed", {}).get(f"{turn}:{f}")]
        if "choam" in present:  # the CHOAM & Richese add-on: CHOAM collects first; Inflation may cancel
            entitled = addon_charity_entitled(state, entitled)
        return phase_steps.charity_steps(entitled, claimed)
    if phase == "bidding":
        b = auction(state)
        eligible = _eligible_buyers(state)
        steps = phase_steps.bidding_steps(b["cards"], b["sold"], ended=b["ended"], eligible=eligible,
                                          opener=auction_opener(state, b))
        if "richese" in present:  # the CHOAM & Richese add-on: one cache card a round
            steps = cache_steps(state) + steps
        return steps
    if phase == "revival":
        in_tanks = [f for f in present if sum(state["factions"][f]["tanks"].values()) > 0]
        revived = [f for f in present if state.get("revived", {}).get(f"{turn}:{f}")]
        return phase_steps.revival_steps(in_tanks, revived)
    if phase == "shipment_movement":
        return phase_steps.shipment_steps(shipment_turn(state))
    if phase == "battle":
        return phase_steps.battle_steps(open_battles(board, state))
    if phase == "collection":
        applied = bool(state.get(f"collected:{turn}"))
        try:
            anything = any(item["amount"] > 0 for item in preview_collection(board, state))
        except RuleViolation:
            anything = True
        return phase_steps.collection_steps(applied, anything)
    if phase == "mentat_pause":
        winners = list(preview_victory(board, state).winners)
        confirmed = (state.get("winner") or {}).get("factions", [])
        fremen = state["private"].get("fremen")
        return phase_steps.mentat_steps(winners=winners, confirmed=confirmed,
                                        last_turn=turn >= state["last_turn"],
                                        fremen_card=None if fremen is None else bool(fremen.get("storm_card")))
    return []


def whose_turn(state: dict) -> dict | None:
    """``{"faction", "order", "done", "note"}`` in Shipment & Movement and Bidding, else None."""
    if state["phase"] == "shipment_movement":
        return shipment_turn(state).to_dict()
    if state["phase"] == "bidding":
        b = auction(state)
        opener = auction_opener(state, b)
        left = b["cards"] - b["sold"]
        over = b["ended"] or left <= 0 or opener is None
        return {"faction": None if over else opener, "order": current_order(state), "done": list(b["buyers"]),
                "note": "Bidding is over." if over else
                f"Card {b['sold'] + 1} of {b['cards']}: {name(opener)} opens the bidding."}
    return None


def upcoming(state: dict) -> tuple[int, str] | None:
    try:
        return next_phase(state["turn"], state["phase"], state["last_turn"])
    except RuleViolation:
        return None  # the last turn's Mentat Pause: the game is over


def upcoming_name(state: dict, nxt: tuple[int, str]) -> str:
    turn, phase = nxt
    return phase_name(phase) + (f" (turn {turn})" if turn != state["turn"] else "")


def next_phase_info(board: Board, state: dict, steps: list | None = None) -> dict:
    nxt = upcoming(state)
    steps = steps if steps is not None else steps_for(board, state)
    return {"phase": nxt[1] if nxt else None, "name": upcoming_name(state, nxt) if nxt else "End of the game",
            "missing": [s.text for s in phase_steps.missing(steps)]}


def phase_gate(ctx: Ctx, state: dict) -> tuple[int, str]:
    """phase.next: the (turn, phase) it goes to; refused (overridable) while a blocking step of
    the current phase is open. The history line names both phases."""
    turn, phase = next_phase(state["turn"], state["phase"], state["last_turn"])  # hard at the game's end
    going = upcoming_name(state, (turn, phase))
    refusal = phase_steps.refusal(phase_name(state["phase"]), steps_for(ctx.board, state), going)
    if refusal is not None:
        ctx.waive(refusal)
    ctx.summary = f"next phase: {phase_name(state['phase'])} → {going}"
    return turn, phase


# -- the table's banner ----------------------------------------------------------------------------

class RuleShow(Payload):
    type: Literal["rule.show"]
    rule: str = Field(min_length=1, max_length=80, pattern=r"^[a-z0-9-]+$")
    title: str | None = Field(default=None, max_length=120)


@action("rule.show", RuleShow,
        public=("rule", "title"),
        faction_field=None, summary=lambda p: f"rule shown to the table: {p.title or p.rule}")
def rule_show(ctx: Ctx, state: dict, p: RuleShow) -> None:
    state["banner"] = {"rule": p.rule, "title": p.title or p.rule, "by": ctx.actor}


__all__ = ["start_phase", "open_battles", "steps_for", "whose_turn", "next_phase_info", "phase_gate"]
