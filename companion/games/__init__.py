"""Games: what the table spine plays.

The spine (``companion/table``: events, revisions, undo, secrets filtering, storage, live
streams) knows no game. A game is a module that gives the spine a ``Game`` object: its entry
types, how a new table is configured and its first state built, the invariants every entry
must keep, which top-level state keys are public and which are per-seat private, and how one
seat's view is composed. The spine finds a table's game by ``config["game"]`` (a table stored
before games existed has none: it is the default game).

Games are imported lazily, by id, so importing the spine imports no game.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Protocol

DEFAULT_GAME = "dune"
# game id -> the module whose ``GAME`` attribute is the game
GAME_MODULES = {
    "dune": "companion.games.dune",
    "secret-harkonnen": "companion.games.secret_harkonnen",
}


class ConfigError(Exception):
    """A new table's settings are refused (one sentence, with a rule id)."""

    def __init__(self, message: str, rule: str | None = None):
        super().__init__(message)
        self.message, self.rule = message, rule


class Game(Protocol):
    id: str
    name: str
    templates: str            # folder of the game's templates (relative to companion/templates)
    public_keys: frozenset    # top-level state keys every seat sees as they are
    public_prefixes: tuple    # ... and keys starting with one of these
    private_keys: frozenset   # top-level keys the game filters per seat itself (``view``)
    refusal: type             # the exception its entry handlers raise (``.message``, ``.rule``, ``.overridable``)
    registry: dict            # entry type -> ActionType (model, handler, summary, ...)

    def settings(self, *args, **kwargs) -> dict: ...        # ``TableService.create``'s arguments as a body
    def configure(self, body: dict) -> dict: ...           # the table's config, or raise ConfigError
    def seats(self, config: dict) -> list[str]: ...        # the seat roles (besides host and board)
    def new_state(self, code: str, config: dict) -> dict: ...
    def opening_entries(self, config: dict) -> list[dict]: ...  # entries stored with the new table (the deal)
    def context(self, actor: str, override: bool, reason: str | None) -> Any: ...
    def forbidden(self, role: str, at, payload, state: dict) -> str | None: ...
    def secret_for(self, at, payload, role: str) -> str | None: ...
    def may_read(self, viewer: str, secret_for: str, state: dict) -> bool: ...
    def seat_name(self, role: str) -> str: ...
    def invariants(self, state: dict) -> list[str]: ...
    def view(self, state: dict, viewer: str, out: dict) -> None: ...
    def undoable(self, event: dict) -> str | None: ...    # None, or why that entry cannot be undone
    def export_refused(self, state: dict) -> str | None: ...  # None, or why the host cannot export now
    def parse_import(self, data: dict) -> tuple[dict, list[dict], str | None]: ...  # config, events, code


_LOADED: dict[str, Game] = {}


def game_ids() -> list[str]:
    return list(GAME_MODULES)


def get(game_id: str | None) -> Game:
    gid = game_id or DEFAULT_GAME
    if gid not in GAME_MODULES:
        raise ConfigError(f"Unknown game {str(gid)[:40]!r}: this server plays {', '.join(GAME_MODULES)}.")
    if gid not in _LOADED:
        _LOADED[gid] = importlib.import_module(GAME_MODULES[gid]).GAME
    return _LOADED[gid]


def of_config(config: dict) -> Game:
    return get(config.get("game") if isinstance(config, dict) else None)


def of_state(state: dict) -> Game:
    return get(state.get("game"))


Summary = Callable[[Any], str]
