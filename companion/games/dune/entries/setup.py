"""Setup: the table's readings of the rules (``setup.reading``), the player dots (``dots.set``), the
starting placements the Fremen, the Bene Gesserit and the Moritani choose, and the secrets recorded
behind the shields: the Bene Gesserit prediction, the traitors, and the Atreides' Kwisatz Haderach
counter (``kh.set``)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules.board import piece_id
from ..rules.errors import hard
from ..rules.factions import faction
from ..state import apply_reading_start, place_forces, remove_forces, territory_forces
from . import Ctx, FactionId, Name, Payload, action
from .bookkeeping import name, present, resolve_piece

Count = Field(default=0, ge=0, le=20)


# -- setup -----------------------------------------------------------------------------------

class SetupReading(Payload):
    type: Literal["setup.reading"]
    reading: str
    choice: str


@action("setup.reading", SetupReading, public=("reading", "choice"), faction_field=None, host_only=True,
        summary=lambda p: f"the table reads {p.reading} as '{p.choice}'")
def setup_reading(ctx: Ctx, state: dict, p: SetupReading) -> None:
    for f in state["factions_present"]:
        reading = faction(f).get("readings")
        if reading and reading["id"] == p.reading:
            break
    else:
        raise hard(f"No setup question {p.reading!r} at this table.")
    if p.choice not in reading["options"]:
        raise hard(f"Choose one of: {', '.join(reading['options'])}.")
    ctx.check(state["turn"] == 1 and state["phase"] == "storm", "Setup readings are chosen before the game starts.",
              "base-setup")
    old = state["readings"].get(p.reading)
    if old == p.choice:
        return
    for placement in reading["options"][old].get("start", []):
        piece = piece_id(placement["territory"], placement["sector"])
        remove_forces(state, f, piece, placement["forces"], placement["starred"], 0, "reserves")
    apply_reading_start(state, f, reading, p.choice)
    state["readings"][p.reading] = p.choice


class Placement(Payload):
    type: str = "placement"
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    forces: int = Count
    starred: int = Count


class SetupFremen(Payload):
    type: Literal["setup.fremen"]
    faction: Literal["fremen"] = "fremen"
    placements: list[Placement] = Field(min_length=1, max_length=6)


def _setup_turn(ctx: Ctx, state: dict, f: str, kind: str) -> None:
    pending = state["setup"]["pending"]
    if not any(x["faction"] == f and x["kind"] == kind for x in pending):
        raise hard(f"{name(f)} has already placed its starting forces.", f"{f}-at-start")
    first = pending[0]
    ctx.check(first["faction"] == f, f"{name(first['faction'])} places before {name(f)}.", f"{f}-at-start")
    state["setup"]["pending"] = [x for x in pending if not (x["faction"] == f and x["kind"] == kind)]


@action("setup.fremen", SetupFremen,
        public=("faction", "placements"), summary=lambda p: "Fremen place their 10 starting forces")
def setup_fremen(ctx: Ctx, state: dict, p: SetupFremen) -> None:
    present(state, "fremen")
    allowed = faction("fremen")["setup_choice"]["territories"]
    total = sum(x.forces + x.starred for x in p.placements)
    if total != 10:
        raise hard(f"The Fremen place exactly 10 forces at the start, not {total}.", "fremen-at-start")
    _setup_turn(ctx, state, "fremen", "fremen_split")
    for x in p.placements:
        piece = resolve_piece(ctx, x.territory, x.sector)
        territory = piece.split("@")[0]
        ctx.check(territory in allowed,
                  f"The Fremen start only in {', '.join(allowed)}, not {territory}.", "fremen-at-start")
        place_forces(state, "fremen", piece, x.forces, x.starred, 0, "reserves")


class SetupPlace(Payload):
    type: Literal["setup.bg", "setup.moritani"]
    faction: Literal["bg", "moritani"]
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    advisor: bool = False


@action("setup.bg", SetupPlace,
        public=("faction", "territory", "sector", "advisor"),
        summary=lambda p: f"Bene Gesserit place their starting force in {p.territory}")
def setup_bg(ctx: Ctx, state: dict, p: SetupPlace) -> None:
    present(state, "bg")
    if p.faction != "bg":
        raise hard("Only the Bene Gesserit place their setup force this way.", "bg-at-start")
    piece = resolve_piece(ctx, p.territory, p.sector)
    _setup_turn(ctx, state, "bg", "bg_place")
    place_forces(state, "bg", piece, 0 if p.advisor else 1, 0, 1 if p.advisor else 0, "reserves")


@action("setup.moritani", SetupPlace,
        public=("faction", "territory", "sector", "advisor"),
        summary=lambda p: f"Moritani place 6 forces in {p.territory}")
def setup_moritani(ctx: Ctx, state: dict, p: SetupPlace) -> None:
    present(state, "moritani")
    if p.faction != "moritani":
        raise hard("Only the Moritani place their setup forces this way.", "moritani-at-start")
    piece = resolve_piece(ctx, p.territory, p.sector)
    territory = piece.split("@")[0]
    ctx.check(not territory_forces(state, territory),
              f"{territory} is occupied: the Moritani start in a territory holding no forces.", "moritani-at-start")
    _setup_turn(ctx, state, "moritani", "moritani_place")
    place_forces(state, "moritani", piece, 6, 0, 0, "reserves")


class DotsSet(Payload):
    type: Literal["dots.set"]
    dots: dict[FactionId, int]


@action("dots.set", DotsSet, public=("dots",), faction_field=None, host_only=True,
        summary=lambda p: "player dots: " + ", ".join(f"{name(f)} {d}" for f, d in p.dots.items()))
def dots_set(ctx: Ctx, state: dict, p: DotsSet) -> None:
    for f, dot in p.dots.items():
        present(state, f)
        if not 1 <= dot <= 18:
            raise hard(f"A player dot sits in a sector from 1 to 18, not {dot}.", "base-turn-sequence")
        state["player_dots"][f] = dot


# -- secrets ---------------------------------------------------------------------------------

class Prediction(Payload):
    type: Literal["prediction.set"]
    faction: Literal["bg"] = "bg"
    target: FactionId
    turn: int = Field(ge=1, le=20)


@action("prediction.set", Prediction,
        public=(), secret=True, summary=lambda p: "Bene Gesserit record their prediction")
def prediction_set(ctx: Ctx, state: dict, p: Prediction) -> None:
    present(state, "bg")
    present(state, p.target)
    if p.target == "bg":
        raise hard("The Bene Gesserit predict another faction's win.", "bg-prediction")
    if p.turn > state["last_turn"]:
        raise hard(f"This game has {state['last_turn']} turns.", "bg-prediction")
    state["private"]["bg"]["prediction"] = {"faction": p.target, "turn": p.turn}


class Traitors(Payload):
    type: Literal["traitors.set"]
    faction: FactionId
    traitors: list[Name] = Field(max_length=4)


@action("traitors.set", Traitors,
        public=(), secret=True, summary=lambda p: f"{name(p.faction)} record their traitors")
def traitors_set(ctx: Ctx, state: dict, p: Traitors) -> None:
    present(state, p.faction)
    keep = faction(p.faction).get("traitors_kept", 1)
    ctx.check(len(p.traitors) <= keep, f"{name(p.faction)} keeps {keep} traitor card{'s' if keep > 1 else ''}.",
              "harkonnen-traitors" if p.faction == "harkonnen" else "base-setup")
    known = {ld["name"].lower(): ld["name"] for data in state["factions"].values() for ld in data["leaders"]}
    traitors = []
    for t in (" ".join(t.split()) for t in p.traitors if t.strip()):
        if t.lower() not in known:
            raise hard(f"There is no leader called {t!r} at this table: a traitor card names a leader of a "
                       f"faction playing, such as Duncan Idaho or Piter de Vries.", "base-setup")
        traitors.append(known[t.lower()])
    state["private"][p.faction]["traitors"] = traitors


class KhSet(Payload):
    type: Literal["kh.set"]
    faction: Literal["atreides"] = "atreides"
    losses: int = Field(ge=0, le=40)


@action("kh.set", KhSet, public=(), secret=True, summary=lambda p: "Atreides update the Kwisatz Haderach counter")
def kh_set(ctx: Ctx, state: dict, p: KhSet) -> None:
    present(state, "atreides")
    state["private"]["atreides"]["kh_losses"] = p.losses
