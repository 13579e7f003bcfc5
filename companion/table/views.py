"""Per-seat views of a table's state: a strict allowlist.

A view holds only the top-level state keys the table's game declares public, copied as they
are, plus what the game composes for that seat from the keys it declares private (its own
secrets, never another seat's). A key declared neither way is never sent: it is dropped and
recorded in ``UNDECLARED`` (the test suite fails on it), so a new piece of state cannot reach a
phone until its game says who may see it.
"""
from __future__ import annotations

import copy
import logging

from .. import games

log = logging.getLogger(__name__)

# (game id, key) of every undeclared state key a view met (tests/conftest.py fails a test on it)
UNDECLARED: set[tuple[str, str]] = set()


def undeclared_keys(state: dict, game=None) -> list[str]:
    game = game or games.of_state(state)
    return [k for k in state if k not in game.public_keys and k not in game.private_keys
            and not k.startswith(game.public_prefixes)]


def view_for(state: dict, viewer: str) -> dict:
    """``viewer`` is 'host', 'board' or one of the game's seats."""
    game = games.of_state(state)
    out = {}
    for key, value in state.items():
        if key in game.public_keys or (game.public_prefixes and key.startswith(game.public_prefixes)):
            out[key] = copy.deepcopy(value)
        elif key not in game.private_keys:
            if (game.id, key) not in UNDECLARED:
                log.error("game %s: state key %r is declared neither public nor private; not shown", game.id, key)
            UNDECLARED.add((game.id, key))
    out["viewer"] = viewer
    out["game"] = game.id
    game.view(state, viewer, out)
    return out
