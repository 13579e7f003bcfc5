"""Board events that change the map itself: Family Atomics, the Atomics terror token, and
Discovery tokens (peeking and revealing)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules.board import SHIELD_WALL
from ..rules.errors import hard
from ..rules.spice import discovery_token, may_peek
from . import Ctx, FactionId, Payload, action
from .bookkeeping import add_spice, discard_card, draw_cards, kill, name, present, resolve_piece


def _kill_territory(state: dict, board, territory: str) -> None:
    killed = {}
    for piece in board.territory(territory).pieces():
        per = state["board"]["forces"].get(piece)
        if per:
            killed[piece] = {f: dict(s) for f, s in per.items()}
    kill(state, killed)


class FamilyAtomics(Payload):
    type: Literal["atomics.family"]
    faction: FactionId


@action("atomics.family", FamilyAtomics,
        public=("faction",), summary=lambda p: f"{name(p.faction)} play Family Atomics: the Shield Wall falls")
def family_atomics(ctx: Ctx, state: dict, p: FamilyAtomics) -> None:
    f = present(state, p.faction)
    if not state.get("shield_wall", True):
        raise hard("The Shield Wall is already destroyed.", "base-family-atomics")
    near = [SHIELD_WALL] + list(ctx.board.territory(SHIELD_WALL).neighbours)
    has_forces = any(
        (state["board"]["forces"].get(piece, {}).get(f, {}).get("forces", 0)
         + state["board"]["forces"].get(piece, {}).get(f, {}).get("starred", 0)) > 0
        for t in near for piece in ctx.board.territory(t).pieces())
    ctx.check(has_forces, f"{name(f)} needs forces in the Shield Wall or a territory next to it to play "
                          f"Family Atomics.", "base-family-atomics")
    # the card: "after the Storm movement is calculated, but before the Storm is moved"
    ctx.check(state["phase"] == "storm" and bool(state.get("storm_pending")) and state.get("storm_moved") != state["turn"],
              "Family Atomics is played in the Storm phase, once the storm's movement is known and before the storm "
              "moves.", "base-family-atomics")
    _kill_territory(state, ctx.board, SHIELD_WALL)
    state["shield_wall"] = False
    if discard_card(ctx, state, f, "Family Atomics", "base-family-atomics", strict=False):
        ctx.summary = f"{name(f)} play Family Atomics (discarded): the Shield Wall falls"


class AtomicsAftermath(Payload):
    type: Literal["atomics.terror"]
    faction: Literal["moritani"] = "moritani"
    territory: str


@action("atomics.terror", AtomicsAftermath, public=("faction", "territory"),
        summary=lambda p: f"Moritani trigger the Atomics terror token in {p.territory}")
def atomics_terror(ctx: Ctx, state: dict, p: AtomicsAftermath) -> None:
    present(state, "moritani")
    territory = ctx.board.resolve(p.territory)
    ctx.check(ctx.board.territory(territory).is_stronghold,
              "Terror tokens lie in strongholds; the Atomics aftermath goes where the token was.",
              "moritani-terror-tokens")
    if state.get("atomics_aftermath"):
        raise hard(f"The Atomics aftermath is already in {state['atomics_aftermath']}.", "moritani-terror-tokens")
    _kill_territory(state, ctx.board, territory)
    state["atomics_aftermath"] = territory
    for f in ["moritani", state["alliances"].get("moritani")]:
        if f:
            state["factions"][f]["hand_limit"] -= 1
    tokens = state["private"]["moritani"].get("terror_tokens", [])
    if "Atomics" in tokens:
        tokens.remove("Atomics")


class TokenAt(Payload):
    type: Literal["discovery.peek", "discovery.reveal"]
    faction: FactionId
    territory: str
    sector: int | None = Field(default=None, ge=1, le=18)
    token: str = Field(min_length=1, max_length=40)


def _token_piece(ctx: Ctx, state: dict, p: TokenAt) -> str:
    piece = resolve_piece(ctx, p.territory, p.sector)
    if piece not in state["board"]["discovery"]:
        raise hard(f"There is no Discovery token in {piece.split('@')[0]}.", "kiss-discovery-tokens")
    return piece


@action("discovery.peek", TokenAt,
        public=(), secret=True, summary=lambda p: f"{name(p.faction)} peek at a Discovery token")
def discovery_peek(ctx: Ctx, state: dict, p: TokenAt) -> None:
    f = present(state, p.faction)
    piece = _token_piece(ctx, state, p)
    slot = state["board"]["discovery"][piece]
    tok = discovery_token(p.token)
    if tok.kind != slot["kind"]:
        raise hard(f"{tok.name} is a {tok.kind.capitalize()} token; the token there is a {slot['kind'].capitalize()} one.",
                   "kiss-discovery-tokens")
    ctx.check(may_peek(f, slot["kind"]), f"{name(f)} may not look at face-down {slot['kind'].capitalize()} tokens.",
              "kiss-discovery-tokens")
    state["private"][f].setdefault("peeks", {})[piece] = tok.name


@action("discovery.reveal", TokenAt,
        public=("faction", "territory", "sector", "token"),
        summary=lambda p: f"{name(p.faction)} reveal {p.token} in {p.territory}")
def discovery_reveal(ctx: Ctx, state: dict, p: TokenAt) -> None:
    f = present(state, p.faction)
    piece = _token_piece(ctx, state, p)
    slot = state["board"]["discovery"][piece]
    if slot.get("revealed"):
        raise hard(f"That token was already revealed: {slot['revealed']}.", "kiss-discovery-tokens")
    tok = discovery_token(p.token)
    if tok.kind != slot["kind"]:
        raise hard(f"{tok.name} is a {tok.kind.capitalize()} token; the token there is a {slot['kind'].capitalize()} one.",
                   "kiss-discovery-tokens")
    territory = piece.split("@")[0]
    here = sum(s["forces"] + s["starred"] for pc in ctx.board.territory(territory).pieces()
               for g, s in state["board"]["forces"].get(pc, {}).items() if g == f)
    ctx.check(here > 0, f"Only a faction with forces (not advisors) in {territory} may reveal its token.",
              "kiss-discovery-tokens")
    ctx.check(state["phase"] == "collection", "Discovery tokens are looked at and revealed during Spice Collection.",
              "kiss-discovery-tokens")
    slot["revealed"] = tok.name
    slot["by"] = f
    if tok.name == "Spice Stash":
        add_spice(state, f, 7)
    elif tok.name == "Treachery Card Stash":  # a card from the deck, even into a full hand (then discard one)
        notes = draw_cards(ctx, state, f, 1)
        if notes:
            ctx.summary = f"{name(f)} reveal {tok.name} in {p.territory}; " + "; ".join(notes)
    elif tok.name == "Ornithopter":
        state["factions"][f]["ornithopter_token"] = True
    if tok.type == "territory":
        # a new territory, touching only the piece it lies on; it can be entered from next turn
        state.setdefault("token_territories", {})[tok.name] = piece
    if tok.name == "Jacurutu Sietch":
        state["jacurutu"] = piece
    if tok.type == "stash":
        del state["board"]["discovery"][piece]
        state.setdefault("discovery_spawned", {}).setdefault(tok.kind, 0)
        state["discovery_spawned"][tok.kind] += 1
    for private in state["private"].values():
        private.get("peeks", {}).pop(piece, None)
