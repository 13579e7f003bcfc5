"""The turn's entries: storm, spice blow, Fremen saved forces, charity, bidding, revival,
collection and victory. The arithmetic is the pure rules' (rules/storm.py, spice.py,
economy.py, victory.py); these handlers only gather their inputs and apply their results.
Every computed effect has a preview (``preview_*``) that the phones show before anyone applies it.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import economy, karama, phase_steps, spice, storm, victory
from ..rules.board import Board, piece_id
from ..rules.errors import RuleViolation, hard
from ..rules.occupancy import check_destination_occupancy, in_storm
from ..rules.phases import next_phase, phase_name, storm_order
from ..state import occupants
from . import REGISTRY, Ctx, FactionId, Payload, action
from .core import add_spice, discard_card, draw_cards, name, play_karama, present, resolve_place, treachery_record
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
                               protected_territories=tuple(state.get("token_territories", {})))


@action("storm.move", StormMove, faction_field=None,
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
    kill(state, preview.killed)
    save_fremen(state, preview.saved_fremen)
    remove_spice(state, preview.spice_removed)
    state["storm"]["sector"] = preview.end_sector
    state["storm_moved"] = state["turn"]
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


def charity_gate(ctx: Ctx, state: dict, faction: str) -> tuple[str, dict, str]:
    """A charity claim's checks, shared with the CHOAM add-on: the phase (overridable) and once per
    faction and turn (never twice). Returns (faction, the claims record, this claim's key)."""
    f = present(state, faction)
    ctx.check(state["phase"] == "charity", "Charity is claimed in the CHOAM Charity phase.", "base-charity")
    claimed = state.setdefault("charity_claimed", {})
    key = f"{state['turn']}:{f}"
    if claimed.get(key):
        raise hard(f"{name(f)} has already claimed charity this turn.", "base-charity")
    return f, claimed, key


@action("charity.claim", Charity, summary=lambda p: f"{name(p.faction)} claims CHOAM charity")
def charity_claim(ctx: Ctx, state: dict, p: Charity) -> None:
    f, claimed, key = charity_gate(ctx, state, p.faction)
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


def _buy_summary(p) -> str:
    return f"{name(p.faction)} buys a card for {p.price}" + (" (Karama: does not pay)" if p.karama else "")


@action("bid.buy", Buy, summary=_buy_summary)
def bid_buy(ctx: Ctx, state: dict, p: Buy) -> None:
    """A card bought at auction (and the Harkonnen bonus card) comes from the deck, unnamed: the
    buyer's phone then offers to name it (secret ``cards.name``); this public entry never names it.
    An empty deck is refilled from the discard pile first (a public line of the history)."""
    f = present(state, p.faction)
    ctx.check(state["phase"] == "bidding", "Treachery cards are bought in the Bidding phase.", "base-bidding")
    record_sale(state, f)
    hand = state["factions"][f]["hand_size"]
    limit = state["factions"][f]["hand_limit"]
    ctx.rules(economy.check_purchase, f, hand, limit)
    extra = []
    if p.karama:  # the same rules /api/karama lists: never against one's own advantage
        ctx.rules(karama.check_karama_use, f, "emperor-free-card", state["factions_present"],
                  ally=state["alliances"].get(f), what="take a card without paying for it")
        played = play_karama(ctx, state, f)
        if played:
            extra.append(f"{played} discarded")
    if not p.karama:
        payee = economy.purchase_payee(f, state["factions_present"])
        add_spice(state, f, -p.price)
        if payee == "emperor":
            add_spice(state, "emperor", p.price)
    hand = state["factions"][f]["hand_size"]
    new = hand + 1
    if f == "harkonnen" and economy.harkonnen_bonus_card(new, limit):
        new += 1
    extra += draw_cards(ctx, state, f, min(new, max(limit, hand + 1)) - hand)
    ctx.summary = _buy_summary(p) + "".join(f"; {x}" for x in extra)


class CardsName(Payload):
    type: Literal["cards.name"]
    faction: FactionId
    card: str = Field(min_length=1, max_length=60)


@action("cards.name", CardsName, secret=True, summary=lambda p: f"{name(p.faction)} name a card in hand")
def cards_name(ctx: Ctx, state: dict, p: CardsName) -> None:
    """Name one of the hand's unnamed cards (a card bought at auction, the Harkonnen bonus card...):
    secret, so the public ``bid.buy`` never carries the name; the count does not change."""
    from ..rules import treachery
    f = present(state, p.faction)
    c = treachery.card(p.card)
    mine = state["private"][f]
    hand = mine.setdefault("cards", [])
    ctx.check(state["factions"][f]["hand_size"] > len(hand),
              f"Every card in {name(f)}'s hand is already named: correct the hand instead.", treachery.RULE)
    tr = treachery_record(state)
    ctx.check(treachery.copies_left(c.name, tr["discard"], hand, tr["kiss_added"]) > 0,
              f"Every {c.name} of the game is already face up in the discard pile or in {name(f)}'s hand"
              + ("" if tr["kiss_added"] or not c.kiss_added else " (the KISS cards join at the first reshuffle)")
              + ".", treachery.RULE)
    hand.append(c.name)
    if mine.get("to_name"):
        mine["to_name"] -= 1


class CardsKeepUnnamed(Payload):
    type: Literal["cards.keep_unnamed"]
    faction: FactionId


@action("cards.keep_unnamed", CardsKeepUnnamed, secret=True,
        summary=lambda p: f"{name(p.faction)} keep a card unnamed")
def cards_keep_unnamed(ctx: Ctx, state: dict, p: CardsKeepUnnamed) -> None:
    """Dismiss one "name the card you got" prompt: the card stays in the hand, unnamed."""
    f = present(state, p.faction)
    mine = state["private"][f]
    if not mine.get("to_name"):
        raise hard(f"{name(f)} have no new card to name.", "kiss-treachery-deck")
    mine["to_name"] -= 1


class Revive(Payload):
    type: Literal["revive"]
    faction: FactionId
    forces: int = Field(default=0, ge=0, le=10)
    starred: int = Field(default=0, ge=0, le=5)
    emperor_pays: int = Field(default=0, ge=0, le=3)
    fremen_grants_ally: bool = False
    tleilaxu_half: bool = False  # CHOAM add-on: the Tleilaxu ally's half-price offer (paid to the Tleilaxu)
    tleilaxu_raised: bool = False  # CHOAM add-on, under Karama: the Tleilaxu ally permit 5 forces


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
                     in_tanks=tanks["forces"], starred_in_tanks=tanks["starred"],
                     tleilaxu_half=p.tleilaxu_half, tleilaxu_raised=p.tleilaxu_raised,
                     karama_on_choam=f == "choam" and _karama_stopped(state, "revival"))
    if cost is not None:
        add_spice(state, f, -cost.cost)
        if cost.payee == "tleilaxu" and "tleilaxu" in state["private"]:
            add_spice(state, "tleilaxu", cost.cost)
        if cost.emperor_cost and "emperor" in state["private"]:
            add_spice(state, "emperor", -cost.emperor_cost)
    tanks["forces"] -= p.forces
    tanks["starred"] -= p.starred
    state["factions"][f]["reserves"]["forces"] += p.forces
    state["factions"][f]["reserves"]["starred"] += p.starred
    revived[key] = True


def _karama_stopped(state: dict, what: str) -> bool:
    """CHOAM add-on: a Karama stopped CHOAM's ``what`` advantage this turn (see actions/addons.py)."""
    from .addons import karama_stopped
    return bool(karama_stopped(state, what))


# -- collection --------------------------------------------------------------------------------

class Collect(Payload):
    type: Literal["collection.apply"]


def preview_collection(board: Board, state: dict) -> list[dict]:
    occ = {t: set(per) for t, per in occupants(state).items()}
    dots = {f: d for f, d in state["player_dots"].items() if d}
    order = storm_order(state["storm"]["sector"], dots) if dots else None
    from ..state import forces_with_nofield  # a face-down No-Field collects as one force
    return economy.collection(board, forces_with_nofield(state), state["board"]["spice"], occ, state["alliances"],
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


# -- what each phase asks, whose turn it is (rules/phase_steps.py) ---------------------------------

def current_order(state: dict) -> list[str]:
    dots = {f: d for f, d in state["player_dots"].items() if d}
    return storm_order(state["storm"]["sector"], dots) if dots else list(state["factions_present"])


def _eligible_buyers(state: dict) -> list[str]:
    return [f for f, x in state["factions"].items() if x["hand_size"] < x["hand_limit"]]


def auction(state: dict) -> dict:
    """This turn's auction: {"turn", "cards", "sold", "openers", "buyers", "ended"}. Before the
    first sale the cards up are those the hands allow now (one per faction with room)."""
    b = state.get("bidding")
    if b and b.get("turn") == state["turn"]:
        return b
    hands = {f: x["hand_size"] for f, x in state["factions"].items()}
    limits = {f: x["hand_limit"] for f, x in state["factions"].items()}
    return {"turn": state["turn"], "cards": economy.cards_for_auction(hands, limits), "sold": 0, "openers": [],
            "buyers": [], "ended": False}


def auction_opener(state: dict, b: dict | None = None) -> str | None:
    b = b or auction(state)
    previous = b["openers"][-1] if b["openers"] else None
    return phase_steps.bidding_opener(current_order(state), _eligible_buyers(state), previous)


def record_sale(state: dict, buyer: str) -> None:
    """A card of this turn's auction is sold (called before the buyer's hand grows); a purchase
    recorded outside the Bidding phase (an override) is not one of the auction's cards."""
    if state["phase"] != "bidding":
        return
    b = auction(state)
    b["openers"].append(auction_opener(state, b))
    b["buyers"].append(buyer)
    b["sold"] += 1
    state["bidding"] = b


def shipment_turn(state: dict) -> phase_steps.ShipmentTurn:
    flags = state["turn_flags"]
    done = state.get("shipment_done") or {}
    passed = done.get("factions", []) if done.get("turn") == state["turn"] else []
    return phase_steps.shipment_turn(current_order(state), [f for f, x in flags.items() if x["shipped"]],
                                     [f for f, x in flags.items() if x["moved"]], passed)


def blows_this_turn(state: dict) -> list[tuple[str, str]]:
    return [(b["pile"], b["card"]) for b in state.get("blows", []) if b["turn"] == state["turn"]]


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
            from .addons import addon_charity_entitled
            entitled = addon_charity_entitled(state, entitled)
        return phase_steps.charity_steps(entitled, claimed)
    if phase == "bidding":
        b = auction(state)
        eligible = _eligible_buyers(state)
        steps = phase_steps.bidding_steps(b["cards"], b["sold"], ended=b["ended"], eligible=eligible,
                                          opener=auction_opener(state, b))
        if "richese" in present:  # the CHOAM & Richese add-on: one cache card a round
            from .addons import cache_steps
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


class TurnDone(Payload):
    type: Literal["turn.done"]
    faction: FactionId


@action("turn.done", TurnDone,
        summary=lambda p: f"{name(p.faction)} {'is' if p.faction == 'guild' else 'are'} done shipping and moving")
def turn_done(ctx: Ctx, state: dict, p: TurnDone) -> None:
    f = present(state, p.faction)
    ctx.check(state["phase"] == "shipment_movement",
              "A faction says it is done with its shipment and move in the Shipment & Movement phase.",
              "base-shipment")
    ctx.rules(phase_steps.check_shipment_turn, f, shipment_turn(state), "done")
    done = state.get("shipment_done") or {}
    if done.get("turn") != state["turn"]:
        done = {"turn": state["turn"], "factions": []}
    if f not in done["factions"]:
        done["factions"].append(f)
    state["shipment_done"] = done


class BidUnsold(Payload):
    type: Literal["bid.unsold"]


@action("bid.unsold", BidUnsold, faction_field=None,
        summary=lambda p: "everyone passed on the card up for auction: bidding ends")
def bid_unsold(ctx: Ctx, state: dict, p: BidUnsold) -> None:
    ctx.check(state["phase"] == "bidding", "Bidding ends in the Bidding phase.", "base-bidding")
    b = auction(state)
    if b["ended"]:
        raise hard("Bidding has already ended this turn.", "base-bidding")
    b["ended"] = True
    state["bidding"] = b


class NexusClose(Payload):
    type: Literal["nexus.close"]


@action("nexus.close", NexusClose, faction_field=None, summary=lambda p: "the Nexus is over: alliances stand")
def nexus_close(ctx: Ctx, state: dict, p: NexusClose) -> None:
    if not state.get("nexus"):
        raise hard("No Nexus is open.", "base-nexus")
    state["nexus"] = False


# -- checks run before (and records kept after) entries defined elsewhere --------------------------

def _wrap(type_: str, before=None, after=None) -> None:
    """``before(ctx, state, p)`` runs first and returns what ``after(ctx, state, p, seen)`` gets
    once the entry's own handler has applied it."""
    at = REGISTRY[type_]
    inner = at.handler

    def handler(ctx: Ctx, state: dict, p) -> None:
        seen = before(ctx, state, p) if before else None
        inner(ctx, state, p)
        if after:
            after(ctx, state, p, seen)

    at.handler = handler


def _order_before(ctx: Ctx, state: dict, p):
    if state["phase"] == "shipment_movement" and p.faction in state["factions_present"]:
        return shipment_turn(state)
    return None


def _in_storm_order(kind: str):
    """Shipment & Movement goes in storm order, the Guild when it wishes. Checked on the turn as
    it stood before the entry, once the shipment and movement rules (moves.py) accepted it, so a
    refusal says first what is wrong with the entry itself. A refusal discards the entry."""
    def check(ctx: Ctx, state: dict, p, turn) -> None:
        if turn is not None:
            ctx.rules(phase_steps.check_shipment_turn, p.faction, turn, kind)
    return check


def _remember_pile(ctx: Ctx, state: dict, p, _seen=None) -> None:
    """The spice card just turned and its pile, for this turn's blow steps."""
    try:
        card = spice.card_name(ctx.board, p.card)
    except RuleViolation:
        card = p.card
    kept = [b for b in state.get("blows", []) if b["turn"] == state["turn"]]
    state["blows"] = kept + [{"turn": state["turn"], "pile": p.pile, "card": card}]


for _type, _kind in (("ship", "ship"), ("ship.cross", "ship"), ("ship.reserves", "ship"), ("move", "move")):
    _wrap(_type, before=_order_before, after=_in_storm_order(_kind))
_wrap("spice.blow", after=_remember_pile)


__all__ = ["preview_storm", "preview_blow", "preview_collection", "preview_victory", "storm_dialers",
           "steps_for", "whose_turn", "next_phase_info", "phase_gate", "auction", "shipment_turn",
           "blows_this_turn"]
