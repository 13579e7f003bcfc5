"""The Dune game (KISS rules, with the CHOAM & Richese add-on) behind the spine's game interface.

The whole game lives in this folder: its pure rules (``rules/``), its entry types (``entries/``), its
state (``state.py``), battles (``battles.py``), per-seat views (``views.py``), data files (``data/``)
and web part (``web/``: its routes and the hooks the shell hands a Dune table to); its templates are
``templates/dune/``. This module points the spine at them (see ``companion.games``)."""
from __future__ import annotations

import copy

from pydantic import ValidationError

from .. import ConfigError
from . import views

MAX_TURNS = 20


class DuneGame:
    id = "dune"
    name = "Dune (KISS rules)"
    templates = "dune"  # templates/dune/
    web = "companion.games.dune.web"
    seat_field = "faction"
    public_keys = frozenset(views.PUBLIC_KEYS)
    public_prefixes = tuple(views.PUBLIC_PREFIXES)
    private_keys = frozenset(views.PRIVATE_KEYS)

    @property
    def rule_filters(self) -> list[dict]:
        """The rules corpus's ``factions``/``phases`` filters, as the rules page offers them."""
        from .rules.factions import FACTION_IDS, faction_name
        from .rules.phases import phase_name
        from .state import PHASES
        return [{"name": "faction", "label": "Faction", "any": "any faction",
                 "choices": [(f, faction_name(f)) for f in FACTION_IDS]},
                {"name": "phase", "label": "Phase", "any": "any phase",
                 "choices": [(p, phase_name(p)) for p in PHASES]}]

    @staticmethod
    def rulesets(config: dict) -> str:
        """KISS, with the CHOAM & Richese add-on's rules when either add-on faction is at the table."""
        from .rules.factions import ADDON_FACTION_IDS
        return "kiss,choam-richese" if set(ADDON_FACTION_IDS) & set(config.get("factions") or []) else "kiss"

    def __init__(self):
        from .rules.board import load_board
        from .rules.errors import RuleViolation
        from .rules.factions import FACTION_IDS
        from .entries import load_all
        self.refusal = RuleViolation
        self.seat_ids = tuple(FACTION_IDS)  # every faction, the CHOAM & Richese add-on's included
        self.registry = load_all()
        self.board = load_board()

    # -- a new table ---------------------------------------------------------------------------
    @staticmethod
    def settings(factions, turns: int = 10, options: dict | None = None) -> dict:
        return {"factions": list(factions), "turns": turns, "options": dict(options or {})}

    def configure(self, body: dict) -> dict:
        from .rules.factions import FACTION_IDS, MAX_FACTIONS
        from .state import new_state
        factions = list(body.get("factions") or [])
        turns = body.get("turns", 10)
        options = body.get("options") or {}
        if not 2 <= len(factions) <= MAX_FACTIONS:
            raise ConfigError(f"A table has 2 to {MAX_FACTIONS} factions (9 KISS factions, plus CHOAM and Richese "
                              f"as an add-on).", "base-setup")
        bad = [f for f in factions if f not in FACTION_IDS]
        if bad:
            raise ConfigError(f"Unknown faction {bad[0]!r}: use {', '.join(FACTION_IDS)}.", "base-setup")
        if len(set(factions)) != len(factions):
            raise ConfigError("Each faction can be at the table only once.", "base-setup")
        if not 1 <= int(turns) <= MAX_TURNS:
            raise ConfigError("A game lasts 1 to 20 turns (the rules say 10).", "base-turn-sequence")
        config = {"factions": factions, "turns": int(turns), "options": dict(options)}
        try:
            new_state("CHECK", config["factions"], config["turns"], config["options"])  # refuses bad options
        except self.refusal as exc:
            raise ConfigError(exc.message, exc.rule) from None
        return config

    def seats(self, config: dict) -> list[str]:
        return list(config["factions"])

    def new_state(self, code: str, config: dict) -> dict:
        from .state import new_state
        return new_state(code, config["factions"], config.get("turns", 10), config.get("options"))

    def opening_entries(self, config: dict) -> list[dict]:
        return []

    # -- entries -------------------------------------------------------------------------------
    def context(self, actor: str, override: bool = False, reason: str | None = None):
        from .entries import Ctx
        return Ctx(actor=actor, board=self.board, override=override, reason=reason)

    def seat_name(self, role: str) -> str:
        from .rules.factions import faction_name
        return faction_name(role)

    def forbidden(self, role: str, at, payload, state: dict) -> str | None:
        if role == "host":
            return None
        if at.host_only:
            return "Only the host can make this entry."
        if at.seat_field:
            value = getattr(payload, at.seat_field)
            allowed = value if isinstance(value, list) else [value]
            if role not in allowed:
                who = " or ".join(self.seat_name(v) for v in allowed)
                return f"{self.seat_name(role)} cannot make an entry for {who}."
        from .entries.consent import consent_from
        other = consent_from(at.name, payload, role)
        if other:  # it uses another faction's resources: that faction agrees on its own phone
            return (f"This entry needs {self.seat_name(other)}'s consent: propose it to them "
                    f"(consent.request) and they confirm it on their phone.")
        return None

    def secret_for(self, at, payload, role: str) -> str | None:
        return getattr(payload, at.seat_field) if at.secret and at.seat_field else None

    def may_read(self, viewer: str, secret_for: str, state: dict, type_: str | None = None) -> bool:
        if type_ == "cards.seen":  # the Atreides' records: theirs alone, not the host's, while the game goes on
            from .entries.game_end import game_over
            return viewer == secret_for or (viewer == "host" and game_over(state))
        return viewer in ("host", secret_for)

    def invariants(self, state: dict) -> list[str]:
        from .state import conservation_errors
        return conservation_errors(state)

    def undoable(self, event: dict) -> str | None:
        return None

    def export_refused(self, state: dict) -> str | None:
        return None

    def export_event(self, event: dict, state: dict) -> dict:
        """An entry as the host's export carries it: the Atreides' notes are sealed while the game goes on."""
        from .entries.game_end import game_over
        if event["type"] == "cards.seen" and not game_over(state):
            return dict(event, payload=dict(event["payload"], card=None))
        return event

    # -- the story (after the game) -------------------------------------------------------------
    def story_open(self, state: dict) -> bool:
        from .entries.game_end import game_over
        return game_over(state)

    def story(self, code: str, config: dict, events: list[dict], undone: dict) -> dict:
        from .story import build_story
        return build_story(code, config, events, undone)

    # -- views ---------------------------------------------------------------------------------
    def view(self, state: dict, viewer: str, out: dict) -> None:
        views.compose(state, viewer, out)

    # -- import --------------------------------------------------------------------------------
    def parse_import(self, data: dict) -> tuple[dict, list[dict], str | None]:
        """(config, events, table code) of a checked export, or raise ConfigError saying what is wrong."""
        from ...table.export_format import parse_export
        from ...table.service import validation_message
        from .entries import TableConfig
        checked, problem = parse_export(data, config=TableConfig, seat_ids=self.seat_ids, seats=self._export_seats)
        if problem:
            raise ConfigError(problem if problem.startswith(("Not a table", "A table export")) else
                              f"Not a valid table export: {problem}")
        for e in checked.events:
            if e.type == "undo":
                continue
            entry = e.payload if e.type != "amend" else e.payload.get("entry")  # an amendment's own entry
            if entry is None:
                continue
            type_ = entry.get("type") if e.type == "amend" else e.type
            if type_ not in self.registry:
                raise ConfigError(f"Entry {e.seq} has an unknown type {type_!r}.")
            try:  # undone entries too: everything stored is well-formed
                self.registry[type_].model.model_validate(entry)
            except ValidationError as exc:
                message, _ = validation_message(exc)
                raise ConfigError(f"Entry {e.seq} ({type_}) is malformed: {message}") from None
        config = checked.config.model_dump()
        config["options"] = checked.config.options.model_dump(exclude_none=True)
        events = []
        for e in checked.events:
            event = e.model_dump()
            entry = e.payload.get("entry") if e.type == "amend" else e.payload
            at = self.registry.get(entry.get("type") if e.type == "amend" and entry else e.type)
            if e.type == "amend" and events[e.payload["target"] - 1]["secret_for"]:  # as secret as what it corrects
                event["secret_for"] = events[e.payload["target"] - 1]["secret_for"]
            elif at is not None and at.secret and at.seat_field:  # hidden as the entry says, not as the file says
                value = entry.get(at.seat_field)
                event["secret_for"] = value if value in config["factions"] else (
                    e.secret_for or (e.seat if e.seat != "host" else None))
            events.append(event)
        return config, events, checked.table

    @staticmethod
    def _export_seats(config) -> list[str]:
        """The seats of an export's checked config (a ``TableConfig``): each faction once."""
        if len(set(config.factions)) != len(config.factions):
            raise ValueError("config.factions: each faction at most once")
        return list(config.factions)


GAME = DuneGame()
__all__ = ["GAME", "DuneGame", "copy"]
