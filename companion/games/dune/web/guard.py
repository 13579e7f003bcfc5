"""A Dune route asked about a table of another game answers 404, never a bare 500."""
from __future__ import annotations

from flask import abort

from ....web.pages import tables


def dune_table_or_404(code: str):
    t = tables().table(code)
    if t is None or (t.config.get("game") or "dune") != "dune":
        abort(404)
    return t
