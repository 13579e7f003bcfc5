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

    def __init__(self, message: str, rule: str | None = None, fields: list | None = None):
        super().__init__(message)
        self.message, self.rule, self.fields = message, rule, fields


class Game(Protocol):
    id: str
    name: str
    templates: str            # folder of the game's templates (relative to companion/templates)
    public_keys: frozenset    # top-level state keys every seat sees as they are
    public_prefixes: tuple    # ... and keys starting with one of these
    private_keys: frozenset   # top-level keys the game filters per seat itself (``view``)
    refusal: type             # the exception its entry handlers raise (``.message``, ``.rule``, ``.overridable``)
    registry: dict            # entry type -> ActionType (model, handler, summary, ...)
    seat_ids: tuple | None    # every seat role a table of this game can have (None: players name their seats)
    web: str                  # the module of the game's web part (``web_of``)
    seat_field: str           # the JSON field naming a seat in the API's answers ("faction")
    rule_filters: list        # rules-search filters its entries carry: [{"name", "label", "any", "choices"}]

    def settings(self, *args, **kwargs) -> dict: ...        # ``TableService.create``'s arguments as a body
    def configure(self, body: dict) -> dict: ...           # the table's config, or raise ConfigError
    def seats(self, config: dict) -> list[str]: ...        # the seat roles (besides host and board)
    def new_state(self, code: str, config: dict) -> dict: ...
    def opening_entries(self, config: dict) -> list[dict]: ...  # entries stored with the new table (the deal)
    def context(self, actor: str, override: bool, reason: str | None) -> Any: ...
    def forbidden(self, role: str, at, payload, state: dict) -> str | None: ...
    def secret_for(self, at, payload, role: str) -> str | None: ...
    def may_read(self, viewer: str, secret_for: str, state: dict, type_: str | None = None) -> bool: ...
    def seat_name(self, role: str) -> str: ...
    def invariants(self, state: dict) -> list[str]: ...
    def view(self, state: dict, viewer: str, out: dict) -> None: ...
    def undoable(self, event: dict) -> str | None: ...    # None, or why that entry cannot be undone
    def export_refused(self, state: dict) -> str | None: ...  # None, or why the host cannot export now
    def parse_import(self, data: dict) -> tuple[dict, list[dict], str | None]: ...  # config, events, code
    def rulesets(self, config: dict) -> str: ...           # the rules-corpus rulesets a table of it searches
    def story_open(self, state: dict) -> bool: ...         # whether the game is over (its story may be told)
    def story(self, code: str, config: dict, events: list[dict], undone: dict) -> dict: ...  # the whole story
    # optional: export_event(event, state) -> the entry as an export carries it (a secret sealed)


class GameWeb(Protocol):
    """A game's web part: its own routes, and the hooks the shell's routes hand its tables to."""
    START_FORM: str           # the start page's "host a table" form (a template)
    API_BODY_HINT: str        # the sentence answering a ``POST /api/tables`` that is not an object

    def blueprints(self) -> list: ...
    def start_context(self) -> dict: ...
    def settings_from_api(self, body: dict) -> dict: ...   # or raise ConfigError
    def renders(self, state: dict, config: dict) -> None: ...  # render every seat's pages (import check)
    def host(self, t, url: str, qr) -> Any: ...
    def seats(self, t) -> Any: ...
    def join(self, t, role: str | None, error: str | None = None, status: int = 200) -> Any: ...
    def table(self, t, role: str) -> Any: ...
    def view(self, t, role: str, error=None) -> Any: ...
    def history(self, t, role: str) -> Any: ...
    def story(self, t, role: str | None) -> Any: ...       # the story page (after the game)
    def board(self, t, fragment: bool = False) -> Any: ...
    def board_seat(self, t) -> Any: ...
    def template_globals(self) -> dict: ...
    def template_filters(self) -> dict: ...


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


def web_of(game: Game) -> GameWeb:
    """The game's web part (imported on first use, so the spine imports no web code)."""
    return importlib.import_module(game.web)


def of_config(config: dict) -> Game:
    return get(config.get("game") if isinstance(config, dict) else None)


def of_state(state: dict) -> Game:
    return get(state.get("game"))


Summary = Callable[[Any], str]
