"""Jinja filters and helpers shared by the templates: the shell's own, then each game's."""
from __future__ import annotations

import time


def clock(ts: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(ts))


def register(app) -> None:
    from .. import games
    for gid in games.game_ids():
        web = games.web_of(games.get(gid))
        app.jinja_env.globals.update(web.template_globals())
        app.jinja_env.filters.update(web.template_filters())
    app.jinja_env.filters["clock"] = clock
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
