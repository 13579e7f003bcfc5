"""Per-seat views of a table's state: a strict allowlist.

A view holds only the top-level state keys the table's game declares public, copied as they
are, plus what the game composes for that seat from the keys it declares private (its own
secrets, never another seat's). A key declared neither way is never sent: it is dropped and
recorded in ``UNDECLARED`` (the test suite fails on it), so a new piece of state cannot reach a
phone until its game says who may see it.
"""
from __future__ import annotations

import contextvars
import copy
import logging

from .. import games

log = logging.getLogger(__name__)

# (game id, key) of every undeclared state key a view met (tests/conftest.py fails a test on it)
UNDECLARED: set[tuple[str, str]] = set()
_SHARED = contextvars.ContextVar("shared_view", default=False)


def _same(value):
    return value


def copier():
    """How a game's ``view`` copies the state's parts into a view: deep copies, or none at all when
    the view being built is ``shared`` (see ``view_for``)."""
    return _same if _SHARED.get() else copy.deepcopy


def undeclared_keys(state: dict, game=None) -> list[str]:
    game = game or games.of_state(state)
    return [k for k in state if k not in game.public_keys and k not in game.private_keys
            and not k.startswith(game.public_prefixes)]


def view_for(state: dict, viewer: str, *, shared: bool = False) -> dict:
    """``viewer`` is 'host', 'board' or one of the game's seats.

    ``shared``: the view holds the state's own parts instead of copies (a published state is never
    changed: every entry folds into a copy), for a reader that only reads it, such as a page being
    rendered; what is left out of a seat's view is left out all the same. Default: deep copies,
    which the caller may change."""
    token = _SHARED.set(shared)
    try:
        return _view_for(state, viewer, shared)
    finally:
        _SHARED.reset(token)


def _view_for(state: dict, viewer: str, shared: bool) -> dict:
    game = games.of_state(state)
    out = {}
    for key, value in state.items():
        if key in game.public_keys or (game.public_prefixes and key.startswith(game.public_prefixes)):
            out[key] = value if shared else copy.deepcopy(value)
        elif key not in game.private_keys:
            if (game.id, key) not in UNDECLARED:
                log.error("game %s: state key %r is declared neither public nor private; not shown", game.id, key)
            UNDECLARED.add((game.id, key))
    out["viewer"] = viewer
    out["game"] = game.id
    game.view(state, viewer, out)
    return out
