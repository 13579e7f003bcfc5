"""Entry types: each one a pydantic payload model plus a handler that checks and applies it.

A handler receives a ``Ctx`` and the state (already a private copy) and either mutates the
state or raises ``RuleViolation``. Handlers must be deterministic: the state is rebuilt by
replaying the stored events through the same handlers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field

from ....table.entries import (ActionType, Name, Payload, form_types, input_problem, no_controls)  # noqa: F401

from ..rules.board import Board, load_board
from ..rules.errors import RuleViolation

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
    # who keeps card records: the Atreides (the rule) or every seat, of what it saw (a house rule)
    card_records: Literal["atreides", "everyone"] = "atreides"


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
            self.waived.extend(e.to_dict() for e in exc.every())
            return
        raise exc


REGISTRY: dict[str, ActionType] = {}


def action(name: str, model: type[Payload], *, faction_field: str | None = "faction", secret: bool = False,
           host_only: bool = False, summary: Callable[[Any], str] | None = None, public: tuple[str, ...] = ()):
    """Register an entry type. ``public``: the payload fields any seat and the board may read in the
    history (the rest only the host and the faction that made it): name every field that is public."""
    unknown = set(public) - {f.alias or k for k, f in model.model_fields.items()}
    assert not unknown, f"{name}: public names fields its payload does not have: {sorted(unknown)}"

    def deco(fn):
        REGISTRY[name] = ActionType(name, model, fn, faction_field, secret, host_only, summary,
                                    frozenset(public))
        return fn
    return deco


def load_all() -> dict[str, ActionType]:
    # importing the modules registers their entry types. A module that checks or records around
    # entries of another module (``bookkeeping._wrap``: the CHOAM & Richese add-on around the turn's
    # and the battles' entries) imports that module first, so the order here changes nothing.
    from . import (  # noqa: F401
        alliances, bidding, board_events, cards, charity, collection, consent, leaders, markers, moves, phases,
        revival, setup, spice, storm_spice, victory,
        battle, battle_apply, battle_powers, battle_after,
        addon_karama, choam, leader_skills, nofield, richese, stronghold_cards, records, game_end,
    )
    records.install(REGISTRY)  # the card records follow every entry (records.py)
    return REGISTRY


FactionId = AnyFaction
PhaseId = Literal["storm", "spice_blow", "charity", "bidding", "revival", "shipment_movement", "battle",
                  "collection", "mentat_pause"]

__all__ = ["Payload", "Ctx", "action", "REGISTRY", "load_all", "FactionId", "PhaseId", "Name", "TableOptions",
           "TableConfig", "form_types", "input_problem", "load_board"]
