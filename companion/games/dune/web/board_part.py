"""The board part of a view (``dune/board_view.html``: the map and the board table), rendered once
per table and what it shows, and reused by every seat and the board phone, and by the next
revisions while the board stays as it was (a bribe, a card bought, a vote leave it so).

The part is rendered from only the pieces of the view it reads (``INPUTS``), never from the rest
of the seat's view, and a rendered part is reused only for a view whose pieces are *equal* to the
ones it was rendered from. So a seat whose board differs (its own No-Field token shows its number,
say) gets its own render, and no seat's private data can reach another seat's page through the
cache: what is shared is a pure function of data that was the same for both.

Bounded: the ``MAX_TABLES`` latest tables, their ``MAX_VARIANTS`` latest boards each (LRU).
``app.config["BOARD_PART_CACHE"] = False`` renders every time (the tests compare both).

Not sent twice: a rendered part carries ``data-etag`` (a hash of its HTML). A phone's refresh or
entry says which board it shows (``X-Have-Board: <etag>``, app.js); when the part it would get is
that same one, the answer carries an empty ``<section id="board" data-same>`` and the phone keeps
the board it has (with its zoom). The etag is a hash of public HTML the phone already holds.
"""
from __future__ import annotations

import hashlib

from flask import current_app, g, has_request_context, render_template, request
from markupsafe import Markup

from ....web.part_cache import PartCache

INPUTS = ("board", "storm", "shield_wall", "last_revealed", "alliances")
MAX_TABLES = 600         # tables whose latest boards are kept
MAX_VARIANTS = 8         # their latest boards (a No-Field owner's and the others' at each revision)


def cache(app) -> PartCache:
    c = app.extensions.get("dune_board_part")
    if c is None:
        c = app.extensions.setdefault("dune_board_part", PartCache(MAX_TABLES, MAX_VARIANTS))
    return c


def tagged(html: str) -> Markup:
    """The rendered part with its etag on the section (``data-etag``)."""
    etag = hashlib.blake2s(html.encode("utf-8"), digest_size=8).hexdigest()
    return Markup(html.replace('id="board"', f'id="board" data-etag="{etag}"', 1))


def etag_of(part: Markup) -> str | None:
    at = part.find('data-etag="')
    return part[at + 11:at + 27] if at >= 0 else None


def phone_shows_board() -> None:
    """Called by the view fragment's answer (a refresh or an entry's answer, htmx only): the board
    the phone says it shows, which ``board_part`` then leaves out if it is the same."""
    if request.headers.get("HX-Request") == "true":
        g.board_shown = request.headers.get("X-Have-Board", "")[:16] or None


def board_part(s: dict) -> Markup:
    """The board part for view ``s`` (a Jinja global: ``{{ board_part(s) }}``), or the empty
    ``data-same`` section when the phone asking already shows this very part."""
    app = current_app._get_current_object()
    if not app.config.get("BOARD_PART_CACHE", True):
        part = tagged(render_template("dune/board_view.html", s=s))
    else:
        inputs = {k: s.get(k) for k in INPUTS}
        part = cache(app).get((s.get("table"),), inputs,
                              lambda: tagged(render_template("dune/board_view.html", s=inputs)))
    etag = etag_of(part)
    if etag and has_request_context() and g.get("board_shown") == etag:
        return Markup(f'<section class="card board-view" id="board" data-etag="{etag}" data-same></section>')
    return part
