"""Entry types: each one a pydantic payload model plus a handler that checks and applies it.

A handler receives a ``Ctx`` and the state (already a private copy) and either mutates the
state or raises ``RuleViolation``. Handlers must be deterministic: the state is rebuilt by
replaying the stored events through the same handlers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from pydantic_core import PydanticCustomError

from ..rules.board import Board, load_board
from ..rules.errors import RuleViolation

# -- input bounds shared by every entry ----------------------------------------------------------
#
# Entries are validated strictly: a number field takes a JSON number (never ``true``, never a
# string), a yes/no field takes ``true``/``false`` (never ``"no"``). The phones' HTML forms post
# strings, so the form route converts them first (``form_types``). Before any field is looked at,
# the whole entry is walked once (``input_problem``): no text longer than MAX_TEXT characters
# (MAX_FREE_TEXT in the free-text fields FREE_TEXT_FIELDS), no list longer than MAX_ITEMS, no
# nesting deeper than MAX_DEPTH, no control characters (NUL, escape, bidirectional overrides...)
# anywhere, except line breaks and tabs in free text. Each field's own limit applies on top.

MAX_TEXT = 300
MAX_FREE_TEXT = 2000  # a free-text field (FREE_TEXT_FIELDS): a reason, a player's notes
MAX_ITEMS = 60
MAX_DEPTH = 6
NAME_LENGTH = 60
# C0/C1 controls, DEL, and the invisible bidirectional overrides that could disguise a name
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
NAME_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
FREE_TEXT_FIELDS = ("reason", "notes", "note")


def input_problem(value: Any, path: tuple = (), depth: int = 0) -> tuple[tuple, str] | None:
    """(where, what) of the first unbounded or unprintable part of an entry, or None."""
    if depth > MAX_DEPTH:
        return path, f"nested more than {MAX_DEPTH} levels deep"
    if isinstance(value, str):
        free = bool(path) and path[-1] in FREE_TEXT_FIELDS
        limit = MAX_FREE_TEXT if free else MAX_TEXT
        if len(value) > limit:
            return path, f"at most {limit} characters, not {len(value)}"
        if (CONTROL if free else NAME_CONTROL).search(value):
            return path, "control characters (such as NUL) are not allowed"
        return None
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            return path, f"at most {MAX_ITEMS} fields"
        for k, v in value.items():
            if not isinstance(k, str):
                return path, "field names are text"
            problem = input_problem(k, path + (k,), depth + 1) or input_problem(v, path + (k,), depth + 1)
            if problem:
                return problem
        return None
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_ITEMS:
            return path, f"at most {MAX_ITEMS} items"
        for i, v in enumerate(value):
            problem = input_problem(v, path + (i,), depth + 1)
            if problem:
                return problem
        return None
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return path, "a finite number"
    return None


def no_controls(value: str) -> str:
    if NAME_CONTROL.search(value):
        raise PydanticCustomError("control_characters", "control characters (such as NUL) are not allowed")
    return value


# A name typed by a player (a leader, a traitor, a card): 1 to 60 printable characters.
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=NAME_LENGTH)]


class Payload(BaseModel):
    """Base for entry payloads: unknown fields are refused, so typos are caught; types are strict
    and every text is bounded (see ``input_problem``)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)

    type: str
    revision: int | None = None
    override: bool = False
    reason: str | None = Field(default=None, max_length=MAX_TEXT)

    @classmethod
    def model_validate(cls, obj: Any, *args, **kwargs):
        problem = input_problem(obj)
        if problem:
            where, what = problem
            raise ValidationError.from_exception_data(cls.__name__, [{
                "type": PydanticCustomError("bounded_input", what), "loc": where or ("entry",), "input": None}])
        return super().model_validate(obj, *args, **kwargs)


def form_types(model: type[Payload], body: dict) -> dict:
    """An entry posted by an HTML form (every value a string) with its values converted to the
    entry's types ("3" -> 3, "on" -> true), so the strict check accepts it. A form that does not
    convert raises the ValidationError that explains why (as the strict check would)."""
    typed = model.model_validate(body, strict=False)
    return typed.model_dump(by_alias=True, exclude_unset=True)


AnyFaction = Literal["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu",
                     "choam", "richese"]


class TableOptions(BaseModel):
    """A table's options (``POST /api/tables`` ``options``, an export's ``config.options``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    discovery_tokens: bool = True
    player_dots: dict[AnyFaction, Annotated[int, Field(ge=1, le=18)]] | None = None
    # the CHOAM & Richese add-on (not KISS): Advanced powers, Leader Skills, Stronghold Cards
    advanced: bool = False
    leader_skills: bool = False
    stronghold_cards: bool = False
    # KISS suggestion: the 5 cards added at the first reshuffle start in the discard pile
    kiss_cards_in_discard: bool = False


class TableConfig(BaseModel):
    """What a table is made of: its factions, its length and its options."""

    model_config = ConfigDict(extra="forbid", strict=True)

    factions: list[AnyFaction] = Field(min_length=2, max_length=11)
    turns: int = Field(default=10, ge=1, le=20)
    options: TableOptions = Field(default_factory=TableOptions)


@dataclass
class Ctx:
    actor: str  # "host" or a faction id
    board: Board
    override: bool = False
    reason: str | None = None

    # rule refusals waived by the override, kept for the history
    waived: list | None = None
    # the history line, when the handler knows it better than the payload's summary
    summary: str | None = None

    @property
    def is_host(self) -> bool:
        return self.actor == "host"

    def check(self, condition: bool, message: str, rule: str | None = None) -> None:
        """Refuse the entry unless ``condition``; an explicit override waives the refusal."""
        if not condition:
            self.waive(RuleViolation(message, rule))

    def rules(self, fn: Callable, *args, **kwargs):
        """Run a pure-rules check; with an override, overridable refusals are waived."""
        try:
            return fn(*args, **kwargs)
        except RuleViolation as exc:
            self.waive(exc)
            return None

    def waive(self, exc: RuleViolation) -> None:
        if self.override and exc.overridable:
            if self.waived is None:
                self.waived = []
            self.waived.append(exc.to_dict())
            return
        raise exc


@dataclass
class ActionType:
    name: str
    model: type[Payload]
    handler: Callable[[Ctx, dict, Any], None]
    # which payload field names the faction acting (authorisation), or None for table-wide entries
    faction_field: str | None
    # whether the payload is a secret of that faction (history hides it from other seats)
    secret: bool
    host_only: bool
    summary: Callable[[Any], str] | None


REGISTRY: dict[str, ActionType] = {}


def action(name: str, model: type[Payload], *, faction_field: str | None = "faction", secret: bool = False,
           host_only: bool = False, summary: Callable[[Any], str] | None = None):
    def deco(fn):
        REGISTRY[name] = ActionType(name, model, fn, faction_field, secret, host_only, summary)
        return fn
    return deco


def load_all() -> dict[str, ActionType]:
    # importing the modules registers their entry types
    from . import battle, board_events, consent, core, markers, moves, turn  # noqa: F401
    from . import addons  # noqa: F401  (after turn and battle: it wraps some of their entries)
    return REGISTRY


FactionId = AnyFaction
PhaseId = Literal["storm", "spice_blow", "charity", "bidding", "revival", "shipment_movement", "battle",
                  "collection", "mentat_pause"]

__all__ = ["Payload", "Ctx", "action", "REGISTRY", "load_all", "FactionId", "PhaseId", "Name", "TableOptions",
           "TableConfig", "form_types", "input_problem", "load_board"]
