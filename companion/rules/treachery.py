"""The Treachery deck the KISS rules use, by name and kind (``companion/data/treachery.json``).

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
    text = resources.files("companion").joinpath("data/treachery.json").read_text(encoding="utf-8")
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
