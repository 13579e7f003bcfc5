"""The bottom layer every entry module builds on (it defines no entry type): who is at the table,
places and leaders by name, spice paid and received, the Treachery deck (draws, reshuffles,
discards, a Karama played), forces killed and spice removed from the board, the storm order, and
``_wrap``, which puts a check or a record around an entry type defined in another module."""
from __future__ import annotations

from ..rules.board import piece_id
from ..rules.errors import hard
from ..rules.factions import faction, faction_name
from ..rules.phases import storm_order
from ..state import position_of
from . import REGISTRY, Ctx


def present(state: dict, f: str) -> str:
    if f not in state["factions_present"]:
        raise hard(f"{faction_name(f)} is not playing at this table.")
    return f


def resolve_place(ctx: Ctx, state: dict, territory: str, sector: int | None) -> tuple[str, int | None]:
    """(territory, sector) of a board territory or a revealed Discovery territory, from any case
    or slug; a one-sector territory may omit the sector. Unknown names are hard refusals."""
    from ..rules.occupancy import resolve_piece_sector, resolve_territory
    pos = position_of(state)
    name = resolve_territory(ctx.board, pos, territory)
    return name, resolve_piece_sector(ctx.board, pos, name, sector)


def resolve_piece(ctx: Ctx, territory: str, sector: int | None, state: dict | None = None) -> str:
    if state is not None:
        return piece_id(*resolve_place(ctx, state, territory, sector))
    name = ctx.board.resolve(territory)
    return piece_id(name, ctx.board.resolve_sector(name, sector))


def name(f: str) -> str:
    return faction_name(f)


# -- spice -----------------------------------------------------------------------------------------

def add_spice(state: dict, f: str, amount: int) -> None:
    have = state["private"][f]["spice"]
    if have + amount < 0:
        raise hard(f"{name(f)} has only {have} spice behind the shield; cannot pay {-amount}.", "base-spice")
    state["private"][f]["spice"] = have + amount


# -- leaders ---------------------------------------------------------------------------------------

def find_leader(state: dict, f: str, leader: str) -> dict:
    wanted = leader.strip().lower()
    for ld in state["factions"][f]["leaders"]:
        if ld["name"].lower() == wanted or ld["name"].lower().split()[0] == wanted:
            return ld
    names = ", ".join(ld["name"] for ld in state["factions"][f]["leaders"])
    raise hard(f"{name(f)} has no leader called {leader!r}: {names}.")


def return_captives(state: dict) -> list[str]:
    """KISS Captured Leaders: a captor whose own leaders are all in the tanks returns every leader it
    holds captive at once. Returns the public note for the history line (empty when nothing moved)."""
    notes = []
    for captor, data in state["factions"].items():
        own = data.get("leaders") or []
        if not own or any(ld["status"] != "tanks" for ld in own):
            continue
        home = [ld for other in state["factions"].values() for ld in other.get("leaders") or []
                if ld["status"] == "captured" and ld.get("captured_by") == captor]
        for ld in home:
            ld.update(status="alive", captured_by=None)
        if home:
            notes.append(f"all {name(captor)} leaders are dead: {', '.join(ld['name'] for ld in home)} "
                         f"{'go' if len(home) > 1 else 'goes'} home")
    return notes


# -- the Treachery deck: draws, reshuffles, discards -----------------------------------------------

def _clamp_prompts(state: dict, f: str) -> None:
    """Never more "name the card you got" prompts than unnamed cards in the hand."""
    mine = state["private"][f]
    if mine.get("to_name"):
        mine["to_name"] = max(0, min(mine["to_name"], state["factions"][f]["hand_size"] - len(mine.get("cards", []))))


def read_treachery(state: dict) -> dict:
    """The public Treachery record as it stands, or the opening one (read only: views use it)."""
    from ..rules import treachery
    return state.get("treachery") or treachery.initial_record(state["options"].get("kiss_cards_in_discard", False))


def treachery_record(state: dict) -> dict:
    """The public Treachery record (discard pile, KISS cards added, reshuffles), made on first use."""
    tr = state.get("treachery")
    if tr is None:
        tr = state["treachery"] = read_treachery(state)
    tr.setdefault("discard", [])
    tr.setdefault("kiss_added", False)
    tr.setdefault("reshuffles", 0)
    return tr


def cache_out(state: dict) -> int:
    """Richese cache cards that left the cache (the add-on): they join the ordinary cards for good."""
    if "richese" not in state["factions"]:
        return 0
    return len(faction("richese").get("cache", [])) - len(state["factions"]["richese"].get("cache", []))


def draw_pile(state: dict) -> int:
    """Cards left in the Treachery deck (the game's cards less those in hands and discarded)."""
    from ..rules import treachery
    tr = read_treachery(state)
    return treachery.draw_count(bool(tr.get("kiss_added")), sum(f["hand_size"] for f in state["factions"].values()),
                                len(tr.get("discard", [])), cache_out(state))


def reshuffle(state: dict) -> str:
    """Shuffle the discard pile into the deck (the first time with the 5 KISS cards): the public
    sentence for the history."""
    from ..rules import treachery
    record, text = treachery.reshuffled(treachery_record(state))
    record["last"] = {"turn": state["turn"], "phase": state["phase"]}
    state["treachery"] = record
    return text


def draw_cards(ctx: Ctx, state: dict, f: str, n: int) -> list[str]:
    """``n`` cards from the top of the deck into ``f``'s hand, unnamed (its phone then offers to
    name them). An empty deck is first refilled from the discard pile. Returns the public notes
    (reshuffles) for the history line."""
    from ..rules import treachery
    notes = []
    for _ in range(n):
        if draw_pile(state) <= 0:
            if treachery_record(state)["discard"] or not treachery_record(state)["kiss_added"]:
                notes.append(reshuffle(state))
            ctx.check(draw_pile(state) > 0, "The Treachery deck and its discard pile are empty: there is no card "
                                            "to draw.", treachery.RULE)
        state["factions"][f]["hand_size"] += 1
        mine = state["private"][f]
        if mine.get("to_name_at") != [state["turn"], state["phase"]]:
            mine["to_name"] = 0  # the prompt lives for the phase the cards came in
        mine["to_name"] = mine.get("to_name", 0) + 1
        mine["to_name_at"] = [state["turn"], state["phase"]]
    return notes


def card_name(state: dict, text: str) -> str:
    """The printed name of a Treachery card (any case or slug), or of a Richese cache card."""
    from ..rules import treachery
    if "richese" in state["factions"]:
        for c in faction("richese").get("cache", []):
            if c.lower() == text.strip().lower() or treachery.slug(c) == treachery.slug(text):
                return c
    return treachery.card(text).name


def discard_card(ctx: Ctx, state: dict, f: str, card: str, rule: str | None = None, *, strict: bool = True) -> str | None:
    """One card from ``f``'s hand face up onto the discard pile: the named card if the hand
    holds it, else one of its unnamed cards (named now, since discards are public). ``strict``:
    a hand without it is a hard refusal; otherwise an overridable one (the entry that plays the
    card is then recorded without a discard). Returns the printed name, or None."""
    from ..rules import treachery
    rule = rule or treachery.RULE
    printed = card_name(state, card)
    hand = state["private"][f].setdefault("cards", [])
    pub = state["factions"][f]
    match = next((h for h in hand if h.lower() == printed.lower()), None)
    if match is None and pub["hand_size"] <= len(hand):
        msg = (f"{name(f)} hold no {printed} (and no unnamed card): correct the hand first (My cards)."
               if hand else f"{name(f)} hold no cards to discard.")
        if strict:
            raise hard(msg, rule)
        ctx.check(False, msg, rule)
        return None
    tr = treachery_record(state)
    # an entry that plays the card (strict=False) records the play even then: the table saw the card
    if strict and ("richese" not in state["factions"] or printed not in faction("richese").get("cache", [])):
        c = treachery.card(printed)
        face_up = sum(1 for x in tr["discard"] if x.lower() == printed.lower())
        ctx.check(face_up < c.count, f"{'The only' if c.count == 1 else f'All {c.count}'} {printed} "
                                     f"{'is' if c.count == 1 else 'are'} already in the discard pile.", treachery.RULE)
    if match is not None:
        hand.remove(match)
    pub["hand_size"] -= 1
    tr["discard"].append(printed)
    _clamp_prompts(state, f)
    return printed


def play_karama(ctx: Ctx, state: dict, f: str, rule: str = "kiss-karama") -> str | None:
    """A Karama card played by ``f``: discard one (a named Karama, else an unnamed card)."""
    from ..rules import treachery
    hand = state["private"][f].get("cards", [])
    held = next((h for h in hand if treachery.kind_of(h) == "special" and treachery.is_karama(treachery.card(h).name)),
                "Karama")
    return discard_card(ctx, state, f, held, rule, strict=False)


# -- the board: forces killed, spice removed -------------------------------------------------------

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


def remove_spice(state: dict, removed: dict) -> None:
    for piece, n in removed.items():
        left = state["board"]["spice"].get(piece, 0) - n
        if left > 0:
            state["board"]["spice"][piece] = left
        else:
            state["board"]["spice"].pop(piece, None)


# -- the storm order -------------------------------------------------------------------------------

def current_order(state: dict) -> list[str]:
    dots = {f: d for f, d in state["player_dots"].items() if d}
    return storm_order(state["storm"]["sector"], dots) if dots else list(state["factions_present"])


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


def ambassador_home(state: dict, territory: str) -> bool:
    """kiss-rules.txt, Ecaz: "Ambassadors are vulnerable to game effects like Storm or explosions,
    returning to your supply." The face-down Ambassador in the territory goes back to Ecaz's supply
    (which one it was stays Ecaz's secret)."""
    here = state["board"].get("markers", {}).get(territory) or {}
    placed = state["private"].get("ecaz", {}).get("ambassadors_placed", {})
    if not here.get("ambassador") or territory not in placed:
        return False
    state["private"]["ecaz"]["ambassadors"].append(placed.pop(territory))
    here.pop("ambassador", None)
    if not here:
        del state["board"]["markers"][territory]
    return True


__all__ = ["present", "resolve_place", "resolve_piece", "name", "add_spice", "find_leader", "return_captives",
           "read_treachery", "treachery_record", "cache_out", "draw_pile", "reshuffle", "draw_cards", "card_name",
           "discard_card", "play_karama", "kill", "remove_spice", "current_order",
           "ambassador_home"]
