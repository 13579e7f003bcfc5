"""Jinja filters and helpers shared by the templates."""
from __future__ import annotations

import time


def clock(ts: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(ts))


def phase_name(phase: str) -> str:
    from ..games.dune.rules.phases import phase_name as name
    return name(phase)


def register(app) -> None:
    from .pages import template_globals
    app.jinja_env.globals.update(template_globals())
    app.jinja_env.filters["clock"] = clock
    app.jinja_env.filters["phase_name"] = phase_name
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
