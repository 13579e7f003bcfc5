"""Entry types as the spine sees them, for every game: a pydantic payload model (``Payload``:
strict types, bounded text), the form conversion, and ``ActionType`` (model, handler, who may
make it, whether it is a seat's secret). A game's entry types are ``ActionType``s in its registry.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from pydantic_core import PydanticCustomError

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


@dataclass
class ActionType:
    name: str
    model: type[Payload]
    handler: Callable[[Ctx, dict, Any], None]
    # which payload field names the seat acting (authorisation), or None for table-wide entries
    seat_field: str | None
    # whether the payload is a secret of that seat (history hides it from other seats)
    secret: bool
    host_only: bool
    summary: Callable[[Any], str] | None
    # the payload fields every seat and the board may read (besides ``SPINE_PUBLIC``); every other
    # field is private: only the host, the seat that made the entry and a seat the game lets read
    # its secret see it (``payload_for``). A new entry type shows nothing until it says what is public.
    public_fields: frozenset = field(default_factory=frozenset)


# the fields every entry has and the history shows anyway (its kind, an override and its reason)
SPINE_PUBLIC = frozenset({"type", "override", "reason"})
# the spine's own entries (no game's ActionType): an undo and what it undoes are public
SPINE_ENTRIES = {"undo": frozenset({"type", "target"}),
                 # a correction: which entry, the summaries before and after, why, what it forced (not the
                 # replacing payload itself: its own type says which of its fields are public)
                 "amend": frozenset({"type", "target", "reason", "override", "forced", "before", "after"})}


def public_part(at: ActionType | None, type_: str, payload: dict) -> dict:
    """The fields of an entry's payload that anyone at the table may read."""
    allowed = SPINE_ENTRIES.get(type_) if at is None else (SPINE_PUBLIC | at.public_fields)
    return {k: v for k, v in payload.items() if k in (allowed or SPINE_PUBLIC)}
