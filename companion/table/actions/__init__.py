"""Entry types: each one a pydantic payload model plus a handler that checks and applies it.

A handler receives a ``Ctx`` and the state (already a private copy) and either mutates the
state or raises ``RuleViolation``. Handlers must be deterministic: the state is rebuilt by
replaying the stored events through the same handlers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...rules.board import Board, load_board
from ...rules.errors import RuleViolation


class Payload(BaseModel):
    """Base for entry payloads: unknown fields are refused, so typos are caught."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    type: str
    revision: int | None = None
    override: bool = False
    reason: str | None = Field(default=None, max_length=300)


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
    from . import board_events, core, markers, moves, turn  # noqa: F401
    return REGISTRY


FactionId = Literal["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu"]
PhaseId = Literal["storm", "spice_blow", "charity", "bidding", "revival", "shipment_movement", "battle",
                  "collection", "mentat_pause"]

__all__ = ["Payload", "Ctx", "action", "REGISTRY", "load_all", "FactionId", "PhaseId",
           "load_board"]
