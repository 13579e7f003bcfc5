"""A seat's own panel (``dune/my_panel.html``: spice, reserves, tanks, cards, stacks, leaders and the
"My secrets" fold), rendered again only when what it shows changed.

Most entries change one or two factions (a bribe: the payer's and the payee's spice), so at each
revision most seats' panels are what they were. The panel is rendered from ``inputs`` alone (this
seat's faction, its own stacks on the board, the alliances, the phase, its card records, the
factions and the game length, and which of its folds are open), and the seat's latest render is
reused when those inputs are equal (``SeatParts``). Its forms carry the revision shown: the kept
render has a mark in its place and gets the current revision on the way out.

Not sent twice either: the panel carries ``data-etag`` (a hash of its render with the mark, so the
same panel at a later revision has the same etag); when the phone says it shows that very panel
(``X-Have-Parts: my-panel=<etag>``), the answer carries an empty ``data-same`` section with the
revision, and the page keeps its own panel (what is typed in it too), its forms set to that revision.

Private by construction: the key is (table, seat, its open folds), so a render is only ever reused for the same
seat, from inputs read from that seat's own view. ``app.config["PANEL_PART_CACHE"] = False``
renders every time (the tests compare both).
"""
from __future__ import annotations

from flask import current_app, render_template
from markupsafe import Markup, escape

from ....web.part_cache import MARK, SeatParts, kept_or_sent

SAME_FOR_EVERY_REVISION = ("alliances", "phase", "records", "factions_present", "last_turn")
PANEL_FOLDS = frozenset({"secrets", "leaders"})  # the panel's lazy folds (rendered whole while open)


def memo(app) -> SeatParts:
    m = app.extensions.get("dune_panel_part")
    if m is None:
        m = app.extensions.setdefault("dune_panel_part", SeatParts())
    return m


def inputs(s: dict, role: str, open_folds) -> dict:
    """Exactly what the panel reads, from the seat's view ``s``."""
    mine = {}
    for name, t in s["board"]["territories"].items():
        if role in t["forces"]:
            mine[name] = {"forces": {role: t["forces"][role]}}
    view = {k: s.get(k) for k in SAME_FOR_EVERY_REVISION}
    view["board"] = {"territories": mine}
    view["revision"] = MARK
    return {"s": view, "me": s["factions"][role], "open": PANEL_FOLDS & frozenset(open_folds)}


def panel_part(s: dict, role: str, code: str, open_folds) -> Markup:
    """The panel for seat ``role`` of view ``s`` (a Jinja global)."""
    app = current_app._get_current_object()
    given = inputs(s, role, open_folds)

    def render() -> str:
        return render_template("dune/my_panel.html", s=given["s"], me=given["me"], role=role, code=code,
                               open_folds=given["open"])
    html = (render() if not app.config.get("PANEL_PART_CACHE", True)
            else memo(app).get((code, role, given["open"]), given, render))
    return kept_or_sent(html, "my-panel", "section", s["revision"], f' class="card mine f-{escape(role)}"')
