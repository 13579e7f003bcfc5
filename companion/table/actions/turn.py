"""The turn's entries: storm, spice blow, Fremen saved forces, charity, bidding, revival,
collection and victory. The arithmetic is the pure rules' (rules/storm.py, spice.py,
economy.py, victory.py); these handlers only gather their inputs and apply their results.
Every computed effect has a preview (``preview_*``) that the phones show before anyone applies it.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...rules import economy, karama, spice, storm, victory
from ...rules.board import Board, piece_id
from ...rules.errors import RuleViolation, hard
from ...rules.occupancy import check_destination_occupancy, in_storm
from ...rules.phases import storm_order
from ..state import occupants
from . import Ctx, FactionId, Payload, action
from .core import add_spice, name, present, resolve_place
from .moves import position

# -- helpers -----------------------------------------------------------------------------------


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


def kill(state: dict, killed: dict) -> None:
    """Send forces to the tanks: piece -> faction -> {"forces","starred","advisors"}."""
    for piece, per in killed.items():
        for f, c in per.items():
            s = state["board"]["forces"].get(piece, {}).get(f)
            if not s:
                continue
            n, st, adv = (min(c.get(k, 0), s[k]) for k in ("forces", "starred", "advisors"))
            s["forces"] -= n
            s["starred"] -= st
            s["advisors"] -= adv
            state["factions"][f]["tanks"]["forces"] += n + adv
            state["factions"][f]["tanks"]["starred"] += st
            if not any(s.values()):
                del state["board"]["forces"][piece][f]
                if not state["board"]["forces"][piece]:
                    del state["board"]["forces"][piece]


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


def remove_spice(state: dict, removed: dict) -> None:
    for piece, n in removed.items():
        left = state["board"]["spice"].get(piece, 0) - n
        if left > 0:
            state["board"]["spice"][piece] = left
        else:
            state["board"]["spice"].pop(piece, None)


def storm_dialers(state: dict) -> list[str]:
    """Turn 1: the two players whose dots are nearest the storm's start, one on either side."""
    dots = {f: d for f, d in state["player_dots"].items() if d}
    if len(dots) < 2:
        return list(dots)
    order = storm_order(18, dots)  # the storm starts at sector 18
    return [order[0], order[-1]] if order[0] != order[-1] else order[:2]


# -- storm -------------------------------------------------------------------------------------

class StormDial(Payload):
    type: Literal["storm.dial"]
    faction: FactionId
    dial: int = Field(ge=0, le=20)


@action("storm.dial", StormDial, secret=True, summary=lambda p: f"{name(p.faction)} dials the storm")
def storm_dial(ctx: Ctx, state: dict, p: StormDial) -> None:
    present(state, p.faction)
    ctx.check(state["turn"] == 1 and state["phase"] == "storm",
              "The storm is dialled only in the Storm phase of turn 1; later the storm card moves it.", "base-storm")
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


@action("storm.reveal", StormReveal, summary=lambda p: "Fremen reveal the storm card")
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


@action("storm.draw", StormDraw, faction_field=None, summary=lambda p: f"storm card drawn: {p.card}")
def storm_draw(ctx: Ctx, state: dict, p: StormDraw) -> None:
    ctx.rules(storm.validate_storm_card, p.card)
    ctx.check("fremen" not in state["factions_present"],
              "With the Fremen at the table, the Fremen draw the storm card privately.", "fremen-storm-deck")
    state["storm_pending"] = {"sectors": p.card, "source": "storm card"}


class StormMove(Payload):
    type: Literal["storm.move"]
    sectors: int = Field(ge=0, le=40)
    adjust: int = Field(default=0, ge=-1, le=1)  # Ecological Testing Station
    weather_control: bool = False  # a Weather Control play: ``sectors`` (0-10) replaces the storm's move


def preview_storm(board: Board, state: dict, sectors: int, adjust: int = 0) -> storm.StormPreview:
    return storm.storm_effects(board, state["storm"]["sector"], sectors, state["board"]["forces"],
                               state["board"]["spice"], shield_wall_standing=state.get("shield_wall", True),
                               fremen_in_game="fremen" in state["factions_present"], adjust=adjust,
                               protected_territories=tuple(state.get("token_territories", {})))


@action("storm.move", StormMove, faction_field=None,
        summary=lambda p: f"storm moves {p.sectors + p.adjust} sectors" + (" (Weather Control)" if p.weather_control
                                                                           else ""))
def storm_move(ctx: Ctx, state: dict, p: StormMove) -> None:
    pending = state.get("storm_pending")
    if p.weather_control:
        ctx.rules(storm.storm_move, 0, p.adjust, p.sectors)
    elif pending:
        ctx.check(pending["sectors"] == p.sectors,
                  f"The storm should move {pending['sectors']} sectors ({pending['source']}), not {p.sectors}.",
                  "base-storm")
    ctx.check(state["phase"] == "storm", "The storm moves in the Storm phase.", "base-storm")
    preview = preview_storm(ctx.board, state, p.sectors, p.adjust)
    kill(state, preview.killed)
    save_fremen(state, preview.saved_fremen)
    remove_spice(state, preview.spice_removed)
    state["storm"]["sector"] = preview.end_sector
    state["storm_pending"] = None
    state.pop("storm_dials", None)
    for f in state["private"].values():
        f.pop("storm_dial", None)


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


@action("spice.blow", SpiceBlow, faction_field=None, summary=lambda p: f"spice blow {p.pile}: {p.card}")
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


# -- charity, bidding, revival -----------------------------------------------------------------

class Charity(Payload):
    type: Literal["charity.claim"]
    faction: FactionId


@action("charity.claim", Charity, summary=lambda p: f"{name(p.faction)} claims CHOAM charity")
def charity_claim(ctx: Ctx, state: dict, p: Charity) -> None:
    f = present(state, p.faction)
    ctx.check(state["phase"] == "charity", "Charity is claimed in the CHOAM Charity phase.", "base-charity")
    claimed = state.setdefault("charity_claimed", {})
    key = f"{state['turn']}:{f}"
    if claimed.get(key):
        raise hard(f"{name(f)} has already claimed charity this turn.", "base-charity")
    amount = economy.charity(state["turn"], f, state["private"][f]["spice"])
    if amount <= 0:
        if f == "bg" and state["turn"] == 1:
            raise hard("The Bene Gesserit take no charity on turn 1 under KISS; from turn 2 they always get 2.",
                       "bg-charity")
        raise hard(f"{name(f)} gets no charity with {state['private'][f]['spice']} spice: only factions "
                   f"with 0 or 1 spice may claim it.", economy.charity_rule(f))
    add_spice(state, f, amount)
    claimed[key] = amount


class Buy(Payload):
    type: Literal["bid.buy"]
    faction: FactionId
    price: int = Field(ge=0, le=99)
    karama: bool = False  # Karama: refuse to pay for the card


@action("bid.buy", Buy, summary=lambda p: f"{name(p.faction)} buys a card for {p.price}"
        + (" (Karama: does not pay)" if p.karama else ""))
def bid_buy(ctx: Ctx, state: dict, p: Buy) -> None:
    f = present(state, p.faction)
    ctx.check(state["phase"] == "bidding", "Treachery cards are bought in the Bidding phase.", "base-bidding")
    hand = state["factions"][f]["hand_size"]
    limit = state["factions"][f]["hand_limit"]
    ctx.rules(economy.check_purchase, f, hand, limit)
    if p.karama:  # the same rules /api/karama lists: never against one's own advantage
        ctx.rules(karama.check_karama_use, f, "emperor-free-card", state["factions_present"],
                  ally=state["alliances"].get(f), what="take a card without paying for it")
    if not p.karama:
        payee = economy.purchase_payee(f, state["factions_present"])
        add_spice(state, f, -p.price)
        if payee == "emperor":
            add_spice(state, "emperor", p.price)
    new = hand + 1
    if f == "harkonnen" and economy.harkonnen_bonus_card(new, limit):
        new += 1
    state["factions"][f]["hand_size"] = min(new, max(limit, hand + 1))


class Revive(Payload):
    type: Literal["revive"]
    faction: FactionId
    forces: int = Field(default=0, ge=0, le=10)
    starred: int = Field(default=0, ge=0, le=5)
    emperor_pays: int = Field(default=0, ge=0, le=3)
    fremen_grants_ally: bool = False


@action("revive", Revive, summary=lambda p: f"{name(p.faction)} revives {p.forces + p.starred} forces")
def revive(ctx: Ctx, state: dict, p: Revive) -> None:
    f = present(state, p.faction)
    ctx.check(state["phase"] == "revival", "Forces are revived in the Revival phase.", "base-revival")
    revived = state.setdefault("revived", {})
    key = f"{state['turn']}:{f}"
    ctx.check(not revived.get(key), f"{name(f)} has already revived forces this turn.", "base-revival")
    tanks = state["factions"][f]["tanks"]
    if p.forces > tanks["forces"] or p.starred > tanks["starred"]:
        starred = f" and {tanks['starred']} starred" if tanks["starred"] or p.starred else ""
        raise hard(f"{name(f)} has only {tanks['forces']} force{'s' if tanks['forces'] != 1 else ''}{starred} "
                   f"in the tanks.", "base-revival")
    ally = state["alliances"].get(f)
    cost = ctx.rules(economy.check_revival, f, state["turn"], p.forces, p.starred, ally=ally,
                     fremen_grants_ally=p.fremen_grants_ally, emperor_pays=p.emperor_pays,
                     spice=state["private"][f]["spice"],
                     emperor_spice=state["private"]["emperor"]["spice"] if "emperor" in state["private"] else None,
                     in_tanks=tanks["forces"], starred_in_tanks=tanks["starred"])
    if cost is not None:
        add_spice(state, f, -cost.cost)
        if cost.emperor_cost and "emperor" in state["private"]:
            add_spice(state, "emperor", -cost.emperor_cost)
    tanks["forces"] -= p.forces
    tanks["starred"] -= p.starred
    state["factions"][f]["reserves"]["forces"] += p.forces
    state["factions"][f]["reserves"]["starred"] += p.starred
    revived[key] = True


# -- collection --------------------------------------------------------------------------------

class Collect(Payload):
    type: Literal["collection.apply"]


def preview_collection(board: Board, state: dict) -> list[dict]:
    occ = {t: set(per) for t, per in occupants(state).items()}
    dots = {f: d for f, d in state["player_dots"].items() if d}
    order = storm_order(state["storm"]["sector"], dots) if dots else None
    return economy.collection(board, state["board"]["forces"], state["board"]["spice"], occ, state["alliances"],
                              factions_present=state["factions_present"], order=order,
                              unspawned_blows=deck(state)["unspawned"],
                              protected_territories=tuple(state.get("token_territories", {})))


@action("collection.apply", Collect, faction_field=None, summary=lambda p: "spice collected")
def collection_apply(ctx: Ctx, state: dict, p: Collect) -> None:
    ctx.check(state["phase"] == "collection", "Spice is collected in the Spice Collection phase.", "base-collection")
    key = f"collected:{state['turn']}"
    if state.get(key):
        raise hard("Spice was already collected this turn.", "base-collection")
    for item in preview_collection(ctx.board, state):
        amount = item["amount"]
        if amount <= 0:
            continue
        if item.get("source") in ("collection", "orgiz") and item.get("territory"):
            # spice taken from the board; stronghold, Cistern and Substitute incomes come from the bank
            piece = piece_id(item["territory"], item.get("sector"))
            left = state["board"]["spice"].get(piece, 0)
            amount = min(amount, left)
            remove_spice(state, {piece: amount})
        add_spice(state, item["faction"], amount)
    state[key] = True
    deck(state)["unspawned"] = 0


# -- victory -----------------------------------------------------------------------------------

def preview_victory(board: Board, state: dict, bg_prediction=None) -> victory.VictoryResult:
    occ: dict = {}
    for t, per in occupants(state).items():
        if (board.territories.get(t) and board.territories[t].is_stronghold) or t == victory.JACURUTU:
            occ[t] = set(per)
    dots = {f: d for f, d in state["player_dots"].items() if d}
    order = storm_order(state["storm"]["sector"], dots) if dots else None
    return victory.check_victory(state["turn"], state["last_turn"], occ, state["alliances"],
                                 state["factions_present"], jacurutu_revealed=bool(state.get("jacurutu")),
                                 bg_prediction=bg_prediction, storm_order=order, board=board)


class Victory(Payload):
    type: Literal["victory.confirm"]
    winners: list[FactionId] = Field(min_length=1, max_length=3)
    reason: str = Field(default="", max_length=200)


@action("victory.confirm", Victory, faction_field=None, host_only=True,
        summary=lambda p: f"the table confirms the win of {', '.join(name(f) for f in p.winners)}")
def victory_confirm(ctx: Ctx, state: dict, p: Victory) -> None:
    for f in p.winners:
        present(state, f)
    result = preview_victory(ctx.board, state,
                             state["private"].get("bg", {}).get("prediction") if "bg" in state["private"] else None)
    ctx.check(sorted(result.winners) == sorted(p.winners),
              f"The rules say: {result.reason or 'nobody has won yet'}.", result.rule or "base-victory")
    state["winner"] = {"factions": list(p.winners),
                       "summary": f"{' and '.join(name(f) for f in p.winners)} win"
                                  + (f": {p.reason or result.reason}" if (p.reason or result.reason) else "")}


__all__ = ["preview_storm", "preview_blow", "preview_collection", "preview_victory", "storm_dialers"]
