"""Dune's web part, as the web shell sees it (``companion.games.web_of``): the blueprints of its own
routes, and the hooks the shell's routes every table has hand a Dune table to."""
from __future__ import annotations

from .api import API_BODY_HINT, renders, settings_from_api
from .pages import (START_FORM, board, board_seat, history, host, story, join, seats, start_context, table,
                    template_filters, template_globals, view)


def blueprints() -> list:
    from . import api, battle_api, correct, forms, fragments, pages
    return [pages.bp, fragments.bp, forms.bp, api.bp, battle_api.bp, correct.bp]


__all__ = ["API_BODY_HINT", "START_FORM", "blueprints", "board", "board_seat", "history", "host", "story", "join", "renders", "seats",
           "settings_from_api", "start_context", "table", "template_filters", "template_globals", "view"]
