"""The Treachery deck the KISS rules use, by name and kind (``companion/games/dune/data/treachery.json``).

Pure rules, no Flask. A card is looked up by its printed name in any case, or by its slug
("maula-pistol"). Kinds: ``weapon-projectile``, ``weapon-poison``, ``weapon-lasgun``,
``defense-projectile`` (shields), ``defense-poison`` (snoopers), ``cheap-hero``, ``special``,
``worthless``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .errors import hard

RULE = "kiss-treachery-deck"


@dataclass(frozen=True)
class Card:
    name: str
    kind: str
    count: int
    kiss_added: bool = False

    @property
    def is_weapon(self) -> bool:
        return self.kind.startswith("weapon-")

    @property
    def is_defense(self) -> bool:
        return self.kind.startswith("defense-")

    @property
    def slug(self) -> str:
        return slug(self.name)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("companion.games.dune").joinpath("data/treachery.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def cards() -> tuple[Card, ...]:
    d = _data()
    return tuple([Card(c["name"], c["kind"], c["count"]) for c in d["base"]]
                 + [Card(c["name"], c["kind"], c["count"], True) for c in d["kiss_added"]])


@lru_cache(maxsize=1)
def _index() -> dict[str, Card]:
    out: dict[str, Card] = {}
    for c in cards():
        out[c.name.lower()] = c
        out[c.slug] = c
    return out


def deck_size(with_kiss_cards: bool = False) -> int:
    return sum(c.count for c in cards() if with_kiss_cards or not c.kiss_added)


def card(name: object, what: str = "card") -> Card:
    """The card called ``name`` (any case, or its slug); a hard refusal for anything else."""
    if not isinstance(name, str) or not name.strip():
        raise hard(f"Name the {what}: a Treachery card such as Crysknife or Shield.", RULE)
    found = _index().get(name.strip().lower()) or _index().get(slug(name))
    if found is None:
        raise hard(f"There is no Treachery card called {name.strip()!r} in the KISS deck.", RULE)
    return found


# -- the deck as the table tracks it ----------------------------------------------------------
#
# The companion never knows the order of the deck: it tracks the public discard pile (named
# cards, face up), how many cards each hand holds, whether the 5 KISS cards have joined, and how
# many reshuffles there were. The draw pile's size follows: every card of the game less those in
# hands and in the discard pile.

GROUPS = (("Weapons", ("weapon-projectile", "weapon-poison", "weapon-lasgun")),
          ("Defenses", ("defense-projectile", "defense-poison")),
          ("Cheap heroes", ("cheap-hero",)),
          ("Special", ("special",)),
          ("Worthless", ("worthless",)))


def kiss_card_names() -> list[str]:
    """The 5 cards KISS adds at the first reshuffle, one name per physical card."""
    return [c.name for c in cards() if c.kiss_added for _ in range(c.count)]


def initial_record(kiss_cards_in_discard: bool = False) -> dict:
    """The public Treachery record of a new table. With the KISS suggestion the 5 added cards
    start in the discard pile, so they count as part of the game from the start and join the
    deck at the first reshuffle anyway."""
    return {"discard": kiss_card_names() if kiss_cards_in_discard else [],
            "kiss_added": bool(kiss_cards_in_discard), "reshuffles": 0}


def draw_count(kiss_added: bool, in_hands: int, discard: int, extra: int = 0) -> int:
    """Cards left to draw: the game's cards (``extra``: cards that joined from outside the deck,
    e.g. used Richese cache cards) less those in hands and in the discard pile."""
    return max(0, deck_size(kiss_added) + extra - in_hands - discard)


def reshuffled(record: dict) -> tuple[dict, str]:
    """The record after the discard pile is shuffled into a new deck (the first time, with the
    5 KISS cards), and the public sentence that says so."""
    out = dict(record)
    n = len(record.get("discard", []))
    first = not record.get("kiss_added")
    out["discard"] = []
    out["kiss_added"] = True
    out["reshuffles"] = record.get("reshuffles", 0) + 1
    text = f"the Treachery discard pile ({n} card{'s' if n != 1 else ''}) is shuffled into a new deck"
    if first:
        text += " with the 5 KISS cards"
    return out, text


def kind_of(name: str) -> str | None:
    """The kind of the card called ``name``, or None for a name outside the deck."""
    found = _index().get(name.strip().lower()) or _index().get(slug(name))
    return found.kind if found else None


def is_karama(name: str) -> bool:
    return name.lower().startswith("karama")


def copies_left(name: str, discard: list[str], held: list[str], kiss_added: bool) -> int:
    """How many copies of card ``name`` could still be in the deck, from what one seat knows: the
    game's copies less those face up in the discard pile and those in its own hand."""
    c = card(name)
    if c.kiss_added and not kiss_added:
        return 0
    gone = sum(1 for x in discard if x.lower() == c.name.lower()) + sum(1 for x in held if x.lower() == c.name.lower())
    return max(0, c.count - gone)


def name_choices(discard: list[str], held: list[str], kiss_added: bool) -> list[tuple[str, list[str]]]:
    """The card names a seat may give a card it just drew, grouped by kind (weapons first):
    every card of the game that is not all face up in the discard pile or already in its hand.
    The KISS cards appear once they are in the deck (after the first reshuffle)."""
    out = []
    for label, kinds in GROUPS:
        names = [c.name for c in cards() if c.kind in kinds and copies_left(c.name, discard, held, kiss_added)]
        if names:
            out.append((label, names))
    return out
