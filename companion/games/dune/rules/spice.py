"""The KISS spice deck, spice blows, worms and Discovery tokens (previews only).

Data: ``companion/games/dune/data/spice_deck.json`` (deck composition, Discovery tokens) and
``board.json`` (blow amount and sector per territory, Discovery token spots).

Decisions
- Deck: 20 cards = 5 Shai-Hulud + the 15 territory cards (kiss-less-worms). With Discovery
  tokens on, the six 6-spice cards *are* the Discovery cards (same blow, plus a token), so the
  deck is the same 20 cards either way (kiss-discovery-tokens). No Great Maker.
- ``deck_status``: the caller passes every card drawn since the last shuffle that is not back
  in the deck. Turn-1 worms are set aside and shuffled back after the phase: while set aside
  they are "seen"; once back the caller drops them (``return_set_aside``). The list is read in
  order; each time 20 cards have been seen the deck is reshuffled (both discard piles go back),
  so a 21st card starts a fresh deck and neither pile has a territory card below it.
- The deck record follows the table: a physically drawn card is never refused for good. A draw
  the record thinks impossible (a card already out since the last reshuffle) is an overridable
  refusal (``check_draw``); once recorded it counts as one more card out of the deck, that card
  stays at 0 left (never below) and the worm count is capped by the cards left.
- Territory card: its spice lands on the blow piece, added to any spice already there; no
  spice if the blow sector is in storm (``spawned`` False - that counts for the Tleilaxu Spice
  Substitute). Under KISS blows never kill troops.
- Discovery card: besides the blow, one face-down token of its kind goes to the spot in
  board.json, even if the blow itself is in storm (the token is not spice). Only 3 tokens of
  each kind ever come out. KISS: "After reshuffle, if a 4th Hiereg/Smuggler card is revealed,
  it does not spawn." Reading: the *card* does not spawn - no token and no spice - so it is a
  blow that could not spawn (``spawned`` False, ``not_spawned`` "fourth token": the Tleilaxu
  Spice Substitute counts it once, like a blow in storm). It still lies on its pile, so a worm
  after it surfaces in its territory. Jacurutu Sietch is always among the 3 Hiereg tokens
  (``discovery_supply``).
- Shai-Hulud (turn 2 on): devours every force in the whole territory of the previous
  territory card on that pile (all its sectors), BG advisors included, and all spice there.
  Fremen forces are saved (Wormriders, reported in ``saved_fremen``); the Fremen ally's forces
  are spared when Fremen protects it (``protected_ally``). Revealed Discovery territories are
  separate places and are never devoured. A second or later worm in the same blow may be
  placed by the Fremen in any sand territory (``fremen_worm_territory``); without a choice it
  devours the same territory again. No previous territory card -> nothing devoured.
- Turn 1: worms are set aside (``set_aside``), nothing is devoured, no Nexus; draw again.
- Nexus: a worm after turn 1 calls for a Nexus; KISS holds a single Nexus at the end of the
  phase however many worms came (``nexus_after``).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Iterable, Mapping, Sequence

from .board import Board, piece_id
from .errors import RuleViolation, hard
from .factions import faction_name
from .storm import check_spice, counts, parse_piece

SHAI_HULUD = "Shai-Hulud"
DECK_SIZE = 20


# -- data --------------------------------------------------------------------------------
@dataclass(frozen=True)
class DiscoveryToken:
    id: str
    name: str
    kind: str  # "hiereg" | "smuggler"
    type: str  # "territory" | "stash"
    peek: str  # faction that may look at it while face down
    effect: str
    rule: str


@dataclass(frozen=True)
class SpiceCard:
    name: str
    kind: str  # "worm" | "territory" | "discovery"
    amount: int = 0
    sector: int | None = None
    token_kind: str | None = None  # "hiereg" | "smuggler" for Discovery cards
    token_territory: str | None = None
    token_sector: int | None = None

    @property
    def token_piece(self) -> str | None:
        return piece_id(self.token_territory, self.token_sector) if self.token_territory else None


@lru_cache(maxsize=1)
def load_spice_data() -> dict:
    text = resources.files("companion.games.dune").joinpath("data/spice_deck.json").read_text(encoding="utf-8")
    return json.loads(text)


def discovery_tokens() -> list[DiscoveryToken]:
    d = load_spice_data()
    peek = d["discovery"]["peek"]
    return [
        DiscoveryToken(t["id"], t["name"], t["kind"], t["type"], peek[t["kind"]], t["effect"], t["rule"])
        for t in d["discovery_tokens"]
    ]


def discovery_token(name_or_id: str) -> DiscoveryToken:
    key = (name_or_id or "").strip().lower()
    for t in discovery_tokens():
        if key in (t.id, t.name.lower()):
            return t
    raise hard(f"There is no Discovery token called {name_or_id!r}.", "kiss-discovery-tokens")


def discovery_territories() -> tuple[str, ...]:
    """Names of the token territories (places of their own once revealed)."""
    return tuple(t.name for t in discovery_tokens() if t.type == "territory")


def may_peek(faction: str, token_kind: str) -> bool:
    """Fremen may look at face-down Hiereg tokens, the Guild at Smuggler tokens."""
    return load_spice_data()["discovery"]["peek"].get(token_kind) == faction


def discovery_supply(kind: str, rng: random.Random | None = None) -> list[str]:
    """The 3 token ids of ``kind`` that will come out this game (Jacurutu always for Hiereg)."""
    d = load_spice_data()
    n = d["discovery"]["tokens_out_per_kind"]
    pool = [t.id for t in discovery_tokens() if t.kind == kind]
    if not pool:
        raise hard(f"Unknown Discovery token kind {kind!r}.", "kiss-discovery-tokens")
    rng = rng or random.Random()
    sure = d["discovery"]["guaranteed"].get(kind)
    rest = [t for t in pool if t != sure]
    picked = ([sure] if sure else []) + rng.sample(rest, n - (1 if sure else 0))
    rng.shuffle(picked)
    return picked


def deck_cards(board: Board, discovery: bool = False) -> list[SpiceCard]:
    """The 20 KISS spice cards (worms listed once per copy)."""
    d = load_spice_data()
    spots = {t["card"]: t for t in board.discovery_tokens}
    cards: list[SpiceCard] = []
    for name in d["territory_cards"]:
        t = board.territories[name]
        kind = d["discovery_cards"].get(name) if discovery else None
        spot = spots.get(name) if kind else None
        cards.append(
            SpiceCard(
                name=name,
                kind="discovery" if kind else "territory",
                amount=t.spice_blow["amount"],
                sector=t.spice_blow["sector"],
                token_kind=kind,
                token_territory=spot["territory"] if spot else None,
                token_sector=spot["sector"] if spot else None,
            )
        )
    cards += [SpiceCard(SHAI_HULUD, "worm")] * d["shai_hulud"]["count"]
    return cards


def _composition() -> dict[str, int]:
    d = load_spice_data()
    comp = {name: 1 for name in d["territory_cards"]}
    comp[SHAI_HULUD] = d["shai_hulud"]["count"]
    return comp


def card_name(board: Board, card: str) -> str:
    """Canonical card id: "Shai-Hulud" or a territory-card name (any case or slug)."""
    if not isinstance(card, str) or not card.strip():
        raise hard("A spice card name is required.", "base-spice-blow")
    if card.strip().lower().replace(" ", "-") in ("shai-hulud", "shaihulud", "worm", "sandworm"):
        return SHAI_HULUD
    try:
        name = board.resolve(card)
    except RuleViolation:
        raise hard(f"There is no spice card called {card!r}.", "base-spice-blow") from None
    if name not in _composition():
        raise hard(f"{name} has no spice card: its territory gets no spice blow.", "base-spice-blow")
    return name


def _walk(seen_cards_since_shuffle: Sequence[str]) -> tuple[dict[str, int], int, list[str]]:
    """Read the draws in order: (cards left by name, cards drawn from the current deck, the draws
    the record says were impossible). Every 20 draws the deck is reshuffled. A draw of a card the
    record thinks is already gone is still a draw (the table saw it): it takes one card from the
    deck and the record follows the table (that card stays at 0 left, never below)."""
    from .board import load_board

    board = load_board()
    comp = _composition()
    left = dict(comp)
    drawn = 0
    misfits: list[str] = []
    for raw in seen_cards_since_shuffle:
        name = card_name(board, raw)
        if drawn == DECK_SIZE:  # every card was seen: the deck was reshuffled
            left, drawn, misfits = dict(comp), 0, []
        if left[name] == 0:
            misfits.append(name)
        else:
            left[name] -= 1
        drawn += 1
    if drawn == DECK_SIZE:
        left, drawn, misfits = dict(comp), 0, []
    return left, drawn, misfits


def deck_status(seen_cards_since_shuffle: Sequence[str], discovery: bool = False) -> dict:
    """{"remaining", "worms_remaining", "next_worm_probability"} of the draw deck.

    Never refuses a card that exists: the deck record follows the table (see ``check_draw``)."""
    left, drawn, _ = _walk(seen_cards_since_shuffle)
    remaining = DECK_SIZE - drawn
    worms = min(left[SHAI_HULUD], remaining)
    return {
        "remaining": remaining,
        "worms_remaining": worms,
        "next_worm_probability": worms / remaining,
    }


def cards_in_deck(seen_cards_since_shuffle: Sequence[str]) -> list[str]:
    """The cards still in the draw deck, by name, a card once per copy left (worms last), as the
    record reads the table's draws (see ``_walk``)."""
    left, _, _ = _walk(seen_cards_since_shuffle)
    names = [n for n in left if n != SHAI_HULUD for _ in range(left[n])]
    return names + [SHAI_HULUD] * left.get(SHAI_HULUD, 0)


def reshuffle_before(seen_cards_since_shuffle: Sequence[str]) -> bool:
    """Does the next draw come from a freshly reshuffled deck? (all 20 cards were drawn, so both
    discard piles were shuffled back: no territory card lies on either pile any more)."""
    return bool(seen_cards_since_shuffle) and _walk(seen_cards_since_shuffle)[1] == 0


def check_draw(seen_cards_since_shuffle: Sequence[str], card: str) -> str:
    """The canonical card, if the deck record says it can be drawn now.

    A card the record says is already out of the deck (e.g. a sixth worm before a reshuffle) is
    an *overridable* refusal: the physical draw is the truth, so an override records it and the
    record follows the table. Only names that are no spice card at all are hard refusals."""
    from .board import load_board

    name = card_name(load_board(), card)
    left, drawn, _ = _walk(seen_cards_since_shuffle)
    if left[name] == 0:
        comp = _composition()[name]
        if name == SHAI_HULUD:
            msg = (f"All {comp} Shai-Hulud cards of the KISS deck were already drawn since the last "
                   f"reshuffle; if a worm really came up, record it with an override and the deck "
                   f"record will follow the table.")
        else:
            msg = (f"{name} was already drawn since the last reshuffle; if it really came up, record "
                   f"it with an override and the deck record will follow the table.")
        raise RuleViolation(msg, "kiss-less-worms" if name == SHAI_HULUD else "base-spice-blow")
    return name


def return_set_aside(seen_cards_since_shuffle: Sequence[str], set_aside: int) -> list[str]:
    """Shuffle the ``set_aside`` turn-1 worms back: drop that many of the last worms drawn."""
    out = list(seen_cards_since_shuffle)
    n = set_aside
    for i in range(len(out) - 1, -1, -1):
        if n <= 0:
            break
        if out[i] == SHAI_HULUD:
            del out[i]
            n -= 1
    return out


# -- blows -------------------------------------------------------------------------------
@dataclass(frozen=True)
class BlowPreview:
    card: str
    kind: str  # "territory" | "discovery" | "worm"
    turn: int
    # territory / discovery card
    territory: str | None = None
    piece: str | None = None
    amount: int = 0  # printed on the card
    spice_placed: int = 0
    spawned: bool = True  # False: the blow could not spawn, no spice (see not_spawned)
    not_spawned: str | None = None  # why: "storm" (blow sector in storm) | "fourth token"
    discovery_token: dict | None = None  # {"kind", "territory", "sector", "piece"}
    token_not_spawned: bool = False  # a 4th Hiereg/Smuggler card after a reshuffle: nothing spawns
    token_kind: str | None = None  # "hiereg" | "smuggler" on a Discovery card
    # worm
    devoured_territory: str | None = None
    devoured: dict = field(default_factory=dict)  # piece -> faction -> counts
    saved_fremen: dict = field(default_factory=dict)  # piece -> {"forces","starred"}
    protected_ally: dict = field(default_factory=dict)  # piece -> faction -> counts
    spice_removed: dict = field(default_factory=dict)  # piece -> n
    set_aside: bool = False  # turn-1 worm
    draw_again: bool = False
    nexus: bool = False
    pile_top_after: str | None = None
    rules: tuple[str, ...] = ()


def nexus_after(blows: Iterable[BlowPreview]) -> bool:
    """KISS Single Nexus: one Nexus at the end of the phase if any blow brought a worm."""
    return any(b.nexus for b in blows)


def blow_effects(
    board: Board,
    card: str,
    pile_top_before: str | None,
    storm_sector: int,
    forces_by_piece: Mapping[str, Mapping[str, Mapping[str, int]]],
    spice_by_piece: Mapping[str, int],
    fremen_in_game: bool,
    fremen_protects_ally: bool,
    fremen_ally: str | None,
    turn: int,
    *,
    discovery: bool = False,
    tokens_placed: Mapping[str, int] | None = None,
    first_worm_this_blow: bool = True,
    fremen_worm_territory: str | None = None,
    fremen_karama_territory: str | None = None,
    protected_territories: Iterable[str] = (),
    overridden: bool = False,
) -> BlowPreview:
    """Preview one spice card turned on one pile.

    ``tokens_placed``: {"hiereg": n, "smuggler": n} tokens already on the board or revealed.
    ``first_worm_this_blow``: no worm has come up on this pile since its last territory card
    this phase. ``overridden``: the table overrode the Fremen worm-placement checks, so the worm
    goes where the table says (the card was drawn: the record follows the table)."""
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise hard(f"Turn must be 1 or more, not {turn!r}.", "base-turn-sequence")
    if not isinstance(storm_sector, int) or not 1 <= storm_sector <= board.sectors:
        raise hard(f"The storm must be in a sector from 1 to {board.sectors}.", "base-storm")
    name = card_name(board, card)
    prev = card_name(board, pile_top_before) if pile_top_before else None
    if prev == SHAI_HULUD:
        raise hard("The previous card on a pile means the last territory card, not a worm.", "base-spice-blow")
    protected = tuple(protected_territories) + discovery_territories()
    for pid, per in forces_by_piece.items():
        for f, c in per.items():
            counts(c, f"in {pid} for {faction_name(f)}")
    for pid, n in spice_by_piece.items():
        check_spice(n, f"in {pid}")

    if name != SHAI_HULUD:
        c = next(x for x in deck_cards(board, discovery) if x.name == name)
        spawned = c.sector != storm_sector
        reason = None if spawned else "storm"
        token = None
        fourth = False
        rules = ["base-spice-blow"]
        if c.token_kind:
            rules.append("kiss-discovery-tokens")
            placed = (tokens_placed or {}).get(c.token_kind, 0)
            if placed >= load_spice_data()["discovery"]["tokens_out_per_kind"]:
                # KISS: "After reshuffle, if a 4th Hiereg/Smuggler card is revealed, it does not
                # spawn": no token and no spice, a blow that could not spawn.
                fourth, spawned, reason = True, False, "fourth token"
            else:
                token = {
                    "kind": c.token_kind,
                    "territory": c.token_territory,
                    "sector": c.token_sector,
                    "piece": c.token_piece,
                    "peek": load_spice_data()["discovery"]["peek"][c.token_kind],
                }
        return BlowPreview(
            card=name,
            kind=c.kind,
            turn=turn,
            territory=name,
            piece=piece_id(name, c.sector),
            amount=c.amount,
            spice_placed=c.amount if spawned else 0,
            spawned=spawned,
            not_spawned=reason,
            discovery_token=token,
            token_not_spawned=fourth,
            token_kind=c.token_kind,
            pile_top_after=name,
            rules=tuple(rules),
        )

    # Shai-Hulud
    if turn == 1:
        return BlowPreview(
            card=SHAI_HULUD, kind="worm", turn=turn, set_aside=True, draw_again=True,
            pile_top_after=prev, rules=("base-spice-blow",),
        )
    rules = ["base-spice-blow", "base-nexus", "kiss-single-nexus"]
    target = prev
    if fremen_worm_territory is not None:
        if (first_worm_this_blow or not fremen_in_game) and not overridden:
            raise RuleViolation(
                "Only a second or later worm in the same blow may be placed by the Fremen.",
                "fremen-sandworms",
            )
        t = board.territory(fremen_worm_territory)
        if t.type != "sand" and not overridden:
            raise RuleViolation(
                f"The Fremen may place an extra worm only in a sand territory; {t.name} is not sand.",
                "fremen-sandworms",
            )
        target = t.name
        rules.append("fremen-sandworms")
    devoured: dict = {}
    saved: dict = {}
    spared: dict = {}
    removed: dict = {}
    if target is not None:
        karama_t = board.resolve(fremen_karama_territory) if fremen_karama_territory else None
        for pid, per in forces_by_piece.items():
            territory, _ = parse_piece(board, pid, protected)
            if territory != target:
                continue
            for faction, raw in per.items():
                cnt = counts(raw)
                if not any(cnt.values()):
                    continue
                if fremen_in_game and target != karama_t:
                    if faction == "fremen":
                        saved[pid] = {"forces": cnt["forces"], "starred": cnt["starred"]}
                        continue
                    if fremen_protects_ally and fremen_ally and faction == fremen_ally:
                        spared.setdefault(pid, {})[faction] = cnt
                        continue
                devoured.setdefault(pid, {})[faction] = cnt
        for pid, n in spice_by_piece.items():
            territory, _ = parse_piece(board, pid, protected)
            if territory == target and n:
                removed[pid] = n
        if saved:
            rules.append("fremen-wormriders")
        if spared:
            rules.append("fremen-alliance")
    return BlowPreview(
        card=SHAI_HULUD,
        kind="worm",
        turn=turn,
        devoured_territory=target,
        devoured=devoured,
        saved_fremen=saved,
        protected_ally=spared,
        spice_removed=removed,
        draw_again=True,
        nexus=True,
        pile_top_after=prev,
        rules=tuple(rules),
    )
