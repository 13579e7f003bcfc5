"""The phase card (``dune/now.html``, "what this phase asks of this seat") of a phone's view,
rendered again only when something it could show changed.

Most entries leave most seats' cards as they were (a bribe between two factions changes nothing
on a third seat's card but the revision its forms carry). The card is rendered from this seat's
view ``s`` (with a mark for the revision), the spice deck's preview, the open folds and, when the
card reads them, the seat's legal shipments. A seat's latest render is reused when its view,
apart from the revision, is *equal* to the one it was rendered from (and the legal shipments too,
if that render read them). The table's state is replaced, never changed in place, by every entry
(``TableService`` folds each one into a deep copy), so the kept view keeps the values it had.

Not sent twice either (``X-Have-Parts: now=<etag>``, as for the seat's panel): the page keeps the
card it shows, what is typed in it included, its forms set to the new revision. A card that holds
the battle panel (which loads by itself into it) is always sent whole.

Private by construction: the key is (table, seat, open folds), and what is compared is that
seat's own view. ``app.config["NOW_PART_CACHE"] = False`` renders every time (the tests compare both).
"""
from __future__ import annotations

from flask import current_app, render_template
from markupsafe import Markup, escape

from ....web.part_cache import MARK, SeatParts, kept_or_sent, with_revision

NOT_COMPARED = ("revision",)


class _Kept(SeatParts):
    """SeatParts whose inputs may say "and the legal shipments were read": then they are worked
    out for the new view too, and compared."""

    def get(self, key, inputs, render, legal=None):
        with self._lock:
            kept = self._parts.get(key)
        if kept is not None and kept[0]["view"] == inputs["view"] and kept[0]["blow"] == inputs["blow"]:
            read = kept[0].get("legal", _UNREAD)
            if read is _UNREAD or (legal is not None and legal._get() == read):
                with self._lock:
                    self.hits += 1
                    self._parts.move_to_end(key)
                return kept[1]
        html = render()
        if legal is not None and legal._done:
            inputs = {**inputs, "legal": legal._get()}
        return self.keep(key, inputs, html)


_UNREAD = object()


def kept(app) -> _Kept:
    m = app.extensions.get("dune_now_part")
    if m is None:
        m = app.extensions.setdefault("dune_now_part", _Kept())
    return m


def now_part(s: dict, role: str, code: str, open_folds, blow, legal, phases) -> Markup:
    """The phase card for seat ``role`` of view ``s`` (a Jinja global)."""
    app = current_app._get_current_object()
    view = {k: v for k, v in s.items() if k not in NOT_COMPARED}

    def render() -> str:
        return render_template("dune/now.html", s={**view, "revision": MARK}, role=role, code=code,
                               open_folds=open_folds, blow=blow, legal=legal, phases=phases)
    if not app.config.get("NOW_PART_CACHE", True):
        html = render()
    else:
        html = kept(app).get((code, role, frozenset(open_folds)), {"view": view, "blow": blow}, render, legal)
    if 'id="battle"' in html:  # a card holding the battle panel (it loads by itself): always sent whole
        return with_revision(html, s["revision"])
    return kept_or_sent(html, "now", "section", s["revision"], f' class="card now-card f-{escape(role)}"')
