"""The storm and the spice blow. The storm (``storm.*``): set by hand, dialled on turn 1, drawn
(with the Fremen at the table: their secret storm card, recorded and revealed) and moved. The spice
blow: spice cards turned (``spice.blow``) with their worms, and the Fremen forces the storm or a
worm would have killed, sent on (``fremen.send_saved``). The arithmetic is the pure rules'
(rules/storm.py, spice.py); these handlers only gather their inputs and apply their results. Every
computed effect has a preview (``preview_*``) that the phones show before anyone applies it.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import phase_steps, spice, storm
from ..rules.board import Board, piece_id
from ..rules.errors import RuleViolation, hard
from ..rules.occupancy import check_destination_occupancy, in_storm
from ..rules.phases import storm_order
from ..rules.storm import validate_storm_card
from .. import announce
from . import Ctx, FactionId, Payload, action
from .bookkeeping import _wrap, ambassador_home, discard_card, kill, name, present, remove_spice, resolve_place
from .moves import position


# -- helpers ---------------------------------------------------------------------------------------

def deck(state: dict) -> dict:
    d = state.setdefault("spice_deck", {"seen": [], "piles": {"A": None, "B": None}, "this_phase": [],
                                        "unspawned": 0})
    d.setdefault("set_aside", 0)  # turn-1 worms set aside this phase (shuffled back after it)
    d.setdefault("worm_run", {"A": 0, "B": 0})  # worms on each pile since its last territory card
    return d


def end_spice_phase(state: dict) -> None:
    """The Spice Blow & Nexus phase is over: the turn-1 worms set aside go back into the deck
    (base-spice-blow), and the per-phase records start afresh."""
    if "spice_deck" not in state:
        return
    d = deck(state)
    if d["set_aside"]:
        d["seen"] = spice.return_set_aside(d["seen"], d["set_aside"])
    d["set_aside"] = 0
    d["this_phase"] = []
    d["worm_run"] = {"A": 0, "B": 0}


def blows_this_turn(state: dict) -> list[tuple[str, str]]:
    return [(b["pile"], b["card"]) for b in state.get("blows", []) if b["turn"] == state["turn"]]


def save_fremen(state: dict, saved: dict) -> None:
    """Wormriders: Fremen forces the storm or a worm would have killed stay where they are and
    are marked as saved; until the Spice Blow & Nexus phase ends the Fremen may send some or
    all of them to a single destination."""
    if not saved:  # also: no Fremen at the table
        return
    marks = state["factions"]["fremen"]["saved"]
    for piece, c in saved.items():
        s = state["board"]["forces"].get(piece, {}).get("fremen")
        if not s:
            continue
        m = marks.setdefault(piece, {"forces": 0, "starred": 0})
        m["forces"] = min(s["forces"], m["forces"] + c.get("forces", 0))
        m["starred"] = min(s["starred"], m["starred"] + c.get("starred", 0))


def storm_dialers(state: dict) -> list[str]:
    """Turn 1: the two players whose dots are nearest the storm's start, one on either side."""
    dots = {f: d for f, d in state["player_dots"].items() if d}
    if len(dots) < 2:
        return list(dots)
    order = storm_order(18, dots)  # the storm starts at sector 18
    return [order[0], order[-1]] if order[0] != order[-1] else order[:2]


# -- storm -----------------------------------------------------------------------------------------

class StormSet(Payload):
    type: Literal["storm.set"]
    sector: int = Field(ge=1, le=18)


@action("storm.set", StormSet,
        public=("sector",), faction_field=None, summary=lambda p: f"storm set to sector {p.sector}")
def storm_set(ctx: Ctx, state: dict, p: StormSet) -> None:
    state["storm"]["sector"] = p.sector


class StormDial(Payload):
    type: Literal["storm.dial"]
    faction: FactionId
    dial: int = Field(ge=0, le=20)


@action("storm.dial", StormDial, public=(), secret=True, summary=lambda p: f"{name(p.faction)} dials the storm")
def storm_dial(ctx: Ctx, state: dict, p: StormDial) -> None:
    present(state, p.faction)
    ctx.check(state["turn"] == 1 and state["phase"] == "storm",
              "The storm is dialled only in the Storm phase of turn 1; later the storm card moves it.", "base-storm")
    ctx.rules(phase_steps.check_storm_not_moved, state.get("storm_moved"), state["turn"])
    dialers = storm_dialers(state)
    ctx.check(p.faction in dialers,
              f"On turn 1 the storm is dialled by {' and '.join(name(f) for f in dialers)}, the players nearest "
              f"the storm's start.", "base-storm")
    state["private"][p.faction]["storm_dial"] = p.dial
    dialled = state.setdefault("storm_dials", {})
    dialled[p.faction] = True  # public: who has dialled, not what
    if len(dialers) == 2 and all(f in dialled for f in dialers):
        a, b = (state["private"][f].get("storm_dial", 0) for f in dialers)
        state["storm_pending"] = {"sectors": storm.first_storm_move(a, b), "source": "dials"}


class StormReveal(Payload):
    type: Literal["storm.reveal"]
    faction: Literal["fremen"] = "fremen"


@action("storm.reveal", StormReveal, public=("faction",), summary=lambda p: "Fremen reveal the storm card")
def storm_reveal(ctx: Ctx, state: dict, p: StormReveal) -> None:
    present(state, "fremen")
    card = state["private"]["fremen"].get("storm_card")
    if not card:
        raise hard("The Fremen have not recorded a storm card.", "fremen-storm-deck")
    ctx.check(state["phase"] == "storm", "The storm card is revealed in the Storm phase.", "fremen-storm-deck")
    state["storm_pending"] = {"sectors": card, "source": "fremen card"}
    state["private"]["fremen"]["storm_card"] = None


class StormDraw(Payload):
    type: Literal["storm.draw"]
    card: int = Field(ge=1, le=6)


@action("storm.draw", StormDraw,
        public=("card",), faction_field=None, summary=lambda p: f"storm card drawn: {p.card}")
def storm_draw(ctx: Ctx, state: dict, p: StormDraw) -> None:
    ctx.rules(storm.validate_storm_card, p.card)
    ctx.check("fremen" not in state["factions_present"],
              "With the Fremen at the table, the Fremen draw the storm card privately.", "fremen-storm-deck")
    ctx.rules(phase_steps.check_storm_not_moved, state.get("storm_moved"), state["turn"])
    state["storm_pending"] = {"sectors": p.card, "source": "storm card"}


class StormMove(Payload):
    type: Literal["storm.move"]
    sectors: int = Field(ge=0, le=40)
    adjust: int = Field(default=0, ge=-1, le=1)  # Ecological Testing Station
    weather_control: bool = False  # a Weather Control play: ``sectors`` (0-10) replaces the storm's move
    faction: FactionId | None = None  # who played Weather Control: the card goes to the discard pile


def preview_storm(board: Board, state: dict, sectors: int, adjust: int = 0) -> storm.StormPreview:
    return storm.storm_effects(board, state["storm"]["sector"], sectors, state["board"]["forces"],
                               state["board"]["spice"], shield_wall_standing=state.get("shield_wall", True),
                               fremen_in_game="fremen" in state["factions_present"], adjust=adjust,
                               protected_territories=tuple(state.get("token_territories", {})),
                               ambassador_territories=[t for t, m in state["board"].get("markers", {}).items()
                                                       if m.get("ambassador")])


@action("storm.move", StormMove, public=("sectors", "adjust", "weather_control", "faction"), faction_field=None,
        summary=lambda p: f"storm moves {p.sectors + p.adjust} sectors" + (" (Weather Control)" if p.weather_control
                                                                           else ""))
def storm_move(ctx: Ctx, state: dict, p: StormMove) -> None:
    pending = state.get("storm_pending")
    if p.weather_control:
        ctx.rules(storm.storm_move, 0, p.adjust, p.sectors)
        if p.faction:
            present(state, p.faction)
            if not (ctx.is_host or ctx.actor == p.faction):
                raise hard(f"Only {name(p.faction)} (or the host) can say {name(p.faction)} played Weather Control.",
                           "base-storm")
            if discard_card(ctx, state, p.faction, "Weather Control", "base-storm", strict=False):
                ctx.summary = f"storm moves {p.sectors + p.adjust} sectors (Weather Control, {name(p.faction)})"
    elif pending:
        ctx.check(pending["sectors"] == p.sectors,
                  f"The storm should move {pending['sectors']} sectors ({pending['source']}), not {p.sectors}.",
                  "base-storm")
    ctx.check(state["phase"] == "storm", "The storm moves in the Storm phase.", "base-storm")
    ctx.rules(phase_steps.check_storm_not_moved, state.get("storm_moved"), state["turn"])
    preview = preview_storm(ctx.board, state, p.sectors, p.adjust)
    announce.storm_moved(state, preview.start_sector, p.sectors + p.adjust, preview.end_sector, preview.killed,
                         preview.spice_removed, preview.ambassadors_lost)
    kill(state, preview.killed)
    # "Ambassadors are vulnerable to game effects like Storm [...], returning to your supply": the
    # history line names the stronghold, never which Ambassador it was (Ecaz's secret)
    home = [t for t in preview.ambassadors_lost if ambassador_home(state, t)]
    if home:
        ctx.summary = (ctx.summary or f"storm moves {p.sectors + p.adjust} sectors"
                                     + (" (Weather Control)" if p.weather_control else "")) + "; " + "; ".join(
            f"the Ambassador in {t} returns to Ecaz's supply" for t in home)
    save_fremen(state, preview.saved_fremen)
    remove_spice(state, preview.spice_removed)
    state["storm"]["sector"] = preview.end_sector
    state["storm_moved"] = state["turn"]
    state["storm_pending"] = None
    state.pop("storm_dials", None)
    for f in state["private"].values():
        f.pop("storm_dial", None)


class StormCard(Payload):
    type: Literal["storm.card"]
    faction: Literal["fremen"] = "fremen"
    card: int = Field(ge=1, le=6)


@action("storm.card", StormCard, public=(), secret=True, summary=lambda p: "Fremen draw next turn's storm card")
def storm_card(ctx: Ctx, state: dict, p: StormCard) -> None:
    present(state, "fremen")
    ctx.rules(validate_storm_card, p.card)
    state["private"]["fremen"]["storm_card"] = p.card


# -- spice blow --------------------------------------------------------------------------------

class SpiceBlow(Payload):
    type: Literal["spice.blow"]
    card: str = Field(min_length=1, max_length=40)
    pile: Literal["A", "B"] = "A"
    worm_territory: str | None = None  # Fremen place a worm after the first
    protect_ally: bool = True


def _tokens_out(state: dict) -> dict:
    placed = {"hiereg": 0, "smuggler": 0}
    for token in state["board"]["discovery"].values():
        placed[token["kind"]] = placed.get(token["kind"], 0) + 1
    for kind, n in state.get("discovery_spawned", {}).items():
        placed[kind] = placed.get(kind, 0) + n
    return placed


def preview_blow(board: Board, state: dict, card: str, pile: str, worm_territory: str | None = None,
                 protect_ally: bool = True, overridden: bool = False) -> spice.BlowPreview:
    d = deck(state)
    # a draw from a freshly reshuffled deck: both discard piles went back into it
    fresh = spice.reshuffle_before(d["seen"])
    fremen = "fremen" in state["factions_present"]
    return spice.blow_effects(
        board, card, None if fresh else d["piles"][pile], state["storm"]["sector"], state["board"]["forces"],
        state["board"]["spice"], fremen, protect_ally, state["alliances"].get("fremen"), state["turn"],
        discovery=state["options"].get("discovery_tokens", True), tokens_placed=_tokens_out(state),
        first_worm_this_blow=d["worm_run"].get(pile, 0) == 0, fremen_worm_territory=worm_territory,
        protected_territories=tuple(state.get("token_territories", {})), overridden=overridden)


@action("spice.blow", SpiceBlow,
        public=("card", "pile", "worm_territory", "protect_ally"),
        faction_field=None, summary=lambda p: f"spice blow {p.pile}: {p.card}")
def spice_blow(ctx: Ctx, state: dict, p: SpiceBlow) -> None:
    ctx.check(state["phase"] == "spice_blow", "Spice cards are turned in the Spice Blow & Nexus phase.",
              "base-spice-blow")
    d = deck(state)
    if d["set_aside"] and state["turn"] > 1:  # a turn-1 phase left without the phase bookkeeping
        end_spice_phase(state)
    # The card was drawn: no hard refusal may stop the table from recording it. A card the deck
    # record thinks is gone is an overridable refusal; with the override the record follows.
    ctx.rules(spice.check_draw, d["seen"], p.card)
    try:
        b = preview_blow(ctx.board, state, p.card, p.pile, p.worm_territory, p.protect_ally)
    except RuleViolation as exc:
        ctx.waive(exc)  # raises unless overridden (and overridable)
        b = preview_blow(ctx.board, state, p.card, p.pile, p.worm_territory, p.protect_ally, overridden=True)
    if spice.reshuffle_before(d["seen"]):
        d["piles"] = {"A": None, "B": None}
    d["seen"].append(b.card)
    d["this_phase"].append(b.card)
    if b.kind == "worm":
        if b.set_aside:
            d["set_aside"] += 1
        else:
            d["worm_run"][p.pile] = d["worm_run"].get(p.pile, 0) + 1
        announce.worm(state, b.devoured_territory, b.devoured, bool(b.nexus))
        kill(state, b.devoured)
        save_fremen(state, b.saved_fremen)
        remove_spice(state, b.spice_removed)
        if b.nexus:
            state["nexus"] = True
    else:
        d["worm_run"][p.pile] = 0
        if b.spice_placed and b.piece:
            state["board"]["spice"][b.piece] = state["board"]["spice"].get(b.piece, 0) + b.spice_placed
        if not b.spawned:  # in storm, or a 4th Hiereg/Smuggler card: a blow that could not spawn
            d["unspawned"] += 1
        if b.discovery_token:
            tok = b.discovery_token
            state["board"]["discovery"][tok["piece"]] = {"kind": tok["kind"], "revealed": None}
    if b.pile_top_after is not None or b.kind != "worm":
        d["piles"][p.pile] = b.pile_top_after or b.card


class SavedSend(Payload):
    type: Literal["fremen.send_saved"]
    faction: Literal["fremen"] = "fremen"
    from_: str = Field(alias="from")
    from_sector: int | None = Field(default=None, ge=1, le=18)
    to: str  # "reserves" or a territory
    sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Field(default=0, ge=0, le=20)
    starred: int = Field(default=0, ge=0, le=3)


@action("fremen.send_saved", SavedSend,
        public=("faction", "from", "from_sector", "to", "sector", "forces", "starred"),
        summary=lambda p: f"Fremen send {p.forces + p.starred} saved forces from {p.from_} to {p.to}")
def fremen_send_saved(ctx: Ctx, state: dict, p: SavedSend) -> None:
    present(state, "fremen")
    src_t, src_s = resolve_place(ctx, state, p.from_, p.from_sector)
    src = piece_id(src_t, src_s)
    marks = state["factions"]["fremen"]["saved"]
    m = marks.get(src, {"forces": 0, "starred": 0})
    if p.forces + p.starred < 1:
        raise hard("Send at least one saved force.", "fremen-wormriders")
    if p.forces > m["forces"] or p.starred > m["starred"]:
        raise hard(f"Only {m['forces']} forces and {m['starred']} Fedaykin were saved in {src_t}.",
                   "fremen-wormriders")
    ctx.check(state["phase"] == "spice_blow",
              "Saved forces go to their destination at the end of the Spice Blow & Nexus phase.",
              "fremen-wormriders")
    sent = state.get("fremen_sent_to")
    if p.to.strip().lower() == "reserves":
        dest, dest_piece = "reserves", None
    else:
        territory, sector = resolve_place(ctx, state, p.to, p.sector)
        dest, dest_piece = territory, piece_id(territory, sector)
        pos = position(state)
        ctx.check(not in_storm(pos, territory, sector),
                  f"The storm is over sector {pos.storm_sector}: saved forces cannot go to {territory}.",
                  "fremen-wormriders")
        ctx.rules(check_destination_occupancy, ctx.board, pos, "fremen", territory, verb="send saved forces into")
    ctx.check(sent in (None, dest), f"All saved forces go to a single destination: this phase it is {sent}.",
              "fremen-wormriders")
    state["fremen_sent_to"] = dest
    m["forces"] -= p.forces
    m["starred"] -= p.starred
    if not any(m.values()):
        marks.pop(src, None)
    if dest_piece is None:
        from ..state import remove_forces
        remove_forces(state, "fremen", src, p.forces, p.starred, 0, "reserves")
    else:
        from ..state import shift_forces
        shift_forces(state, "fremen", src, dest_piece, p.forces, p.starred)


def _remember_pile(ctx: Ctx, state: dict, p, _seen=None) -> None:
    """The spice card just turned and its pile, for this turn's blow steps."""
    try:
        card = spice.card_name(ctx.board, p.card)
    except RuleViolation:
        card = p.card
    kept = [b for b in state.get("blows", []) if b["turn"] == state["turn"]]
    state["blows"] = kept + [{"turn": state["turn"], "pile": p.pile, "card": card}]


_wrap("spice.blow", after=_remember_pile)


__all__ = ["preview_storm", "preview_blow", "storm_dialers", "blows_this_turn", "deck", "end_spice_phase"]
