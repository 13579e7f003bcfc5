"""Dune's pages: the hooks the web shell calls for a Dune table (host, join, the phone's page and
its fragment, history, the board screen), the start page's form, and creating a table."""
from __future__ import annotations

import json

from flask import Blueprint, abort, current_app, has_request_context, make_response, redirect, render_template, request, url_for
from markupsafe import Markup

from .... import games
from ....table.service import EntryError
from ....table.views import view_for
from ....web import auth
from ....web.api import announce, join_url
from ....web.pages import lan_context, no_store, render_start, seat_or_join, tables
from ..rules.board import load_board
from ..rules.factions import KISS_FACTION_IDS, faction_name
from ..state import PHASES
from .guard import dune_table_or_404

bp = Blueprint("dune_pages", __name__)

START_FORM = "dune/new_table.html"


def start_context() -> dict:
    return {"factions": [(f, faction_name(f)) for f in KISS_FACTION_IDS]}


@bp.post("/tables")
def create():
    auth.require_csrf()
    chosen = [f for f in request.form.getlist("factions") if f]
    try:
        turns = int(request.form.get("turns") or 10)
    except ValueError:
        turns = -1
    options = {"discovery_tokens": request.form.get("discovery_tokens") == "on"}
    if request.form.get("kiss_cards_in_discard") == "on":  # KISS: the 5 added cards start in the discard pile
        options["kiss_cards_in_discard"] = True
    if request.form.get("card_records_everyone") == "on":  # a house rule: every seat keeps card records
        options["card_records"] = "everyone"
    for key in ("advanced", "leader_skills", "stronghold_cards"):  # the CHOAM & Richese add-on's modules
        if request.form.get(key) == "on":
            options[key] = True
    try:
        created = tables().create(chosen, turns, options)
    except EntryError as exc:
        return make_response(render_start(error=exc.message, chosen=chosen), 422)
    announce(join_url(created["code"]))
    response = redirect(url_for("pages.host", code=created["code"]))
    return auth.set_seat_cookie(response, created["code"], created["host_token"])


# -- hosting and joining -------------------------------------------------------------------------

def seat_list(t) -> dict:
    """The host's seat list: who joined, whose phone holds the live stream now."""
    presence = current_app.extensions["presence"]
    epoch = presence.epoch(t.code)  # read first: a change after this makes the page fetch again
    return {"seats": tables().store.seat_status(t.code), "connected": presence.connected(t.code),
            "seats_epoch": epoch, "factions_present": t.state["factions_present"]}


def host(t, url, qr):
    return no_store(make_response(render_template(
        "dune/host.html", code=t.code, url=url, qr=qr, state=view_for(t.state, "host"), **lan_context(t.code),
        **seat_list(t))))


def seats(t):
    return no_store(make_response(render_template("dune/seats.html", code=t.code, **seat_list(t))))


def join(t, role, error: str | None = None, status: int = 200):
    seats = tables().store.seat_status(t.code)
    return no_store(make_response(render_template("dune/join.html", code=t.code, seats=seats, role=role,
                                                  error=error), status))


# -- the phone ---------------------------------------------------------------------------------

def page_context(t, role: str, error: dict | None = None) -> dict:
    """Everything a table page or its live fragment needs, computed once per render."""
    from .fragments import deck_left, legal_choices
    s = view_for(t.state, role, shared=True)  # only read: no copy of the state
    return {"code": t.code, "role": role, "s": s, "error": error, "phases": PHASES, "amend_note": amend_note(t, role),
            "legal": legal_choices(t, role),
            "undo_target": tables().undo_target(t.code, role) if tables().table(t.code) is t else None,
            "blow": deck_left(s, t.state.get("spice_deck")) if s["phase"] == "spice_blow" else None,
            "open_folds": open_folds()}


LAZY_FOLDS = frozenset({"enter", "ship-box", "secrets", "leaders"})  # folds of the phone page whose content loads when opened


def open_folds() -> frozenset:
    """The lazy folds the phone has open (``X-Open-Folds: enter``, sent by app.js with a refresh or
    an entry): those are rendered open and whole, so a refresh keeps them as the player left them
    without a second request; closed ones are rendered empty and load when opened."""
    if not has_request_context():
        return frozenset()
    asked = request.headers.get("X-Open-Folds", "")[:200]
    return LAZY_FOLDS & {part.strip() for part in asked.split(",")}


def amend_note(t, role: str) -> dict | None:
    """The latest correction this seat may read (every phone toasts it once, live)."""
    game = games.of_config(t.config)
    for e in reversed(t.events[-50:]):
        if e["type"] == "amend" and (e["secret_for"] is None or game.may_read(role, e["secret_for"], t.state, e["type"])):
            return {"seq": e["seq"], "text": e["summary"]}
    return None


def table(t, role):
    return no_store(make_response(render_template("dune/table.html", **page_context(t, role))))


def render_view(code: str, role: str, error: dict | None = None, status: int = 200, toast: str | None = None):
    t = tables().table(code)
    oob = request.headers.get("HX-Request") == "true"  # the proposals ride along, out of band (one request)
    from .board_part import phone_shows_board
    phone_shows_board()  # a board the phone already shows is not sent again
    html = render_template("dune/view.html", **page_context(t, role, error), oob_proposals=oob)
    response = no_store(make_response(html, status))
    if toast:
        response.headers["HX-Trigger"] = json.dumps({"entry-done": {"text": toast}})
    return response


def view(t, role, error: dict | None = None):
    return render_view(t.code, role, error)


def render_refusal(code: str, role: str, error: dict):
    """A refusal lands in the sheet beside the form: the form (and what was entered) stays as it was."""
    t = tables().table(code)
    if request.headers.get("HX-Request") != "true":
        return render_view(code, role, error)
    html = render_template("dune/refusal.html", code=t.code, role=role, error=error,
                           s={"revision": t.revision})
    response = no_store(make_response(html, 200))
    response.headers["HX-Retarget"] = "#sheet"
    response.headers["HX-Reswap"] = "innerHTML"
    return response


def correctable(e: dict, role: str) -> bool:
    """The entries a seat may correct from History: its own (the host's: every one)."""
    return (e["type"] not in ("undo", "amend") and not e["undone_by"] and e["payload"] is not None
            and (role == "host" or e["seat"] == role))


def history(t, role):
    entries = list(reversed(tables().history(t.code, role)))
    for e in entries:  # "Correct…" and "Strike" on my entries (the host's: every entry)
        e["correctable"] = role != "board" and correctable(e, role)
    return no_store(make_response(render_template("dune/history.html", code=t.code, role=role, entries=entries)))


# -- the board screen ----------------------------------------------------------------------------

BOARD_ENTRIES = 6


def board_context(t) -> dict:
    """Everything the board screen shows: the public view and the last public history lines.
    Public by construction: no cookie, no credential, no seat is read here."""
    with t.lock:
        s = view_for(t.state, "board", shared=True)
    lines = [e for e in tables().history(t.code, "board") if e["payload"] is not None]
    rule_text = None
    if s.get("banner"):
        from ....web.markdown import render_markdown
        entry = current_app.extensions["search"].get().get(s["banner"]["rule"])
        rule_text = Markup(render_markdown(entry.text)) if entry else None
    from .board_svg import map_abbreviations
    from ..announce import announcements
    return {"code": t.code, "s": s, "recent": list(reversed(lines[-BOARD_ENTRIES:])), "rule_text": rule_text,
            "map_abbrevs": map_abbreviations(), "announcements": announcements(s)}


def board_seat(t):
    """The live fragment of a phone that joined as the board: the phone-sized board page."""
    return no_store(make_response(render_template("dune/board_page.html", code=t.code, role="board",
                                                  s=view_for(t.state, "board", shared=True))))


def board(t, fragment: bool = False):
    name = "dune/board_screen.html" if fragment else "dune/board.html"
    return no_store(make_response(render_template(name, **board_context(t))))


def story(t, role):
    """The story page (after the game): story_page.py."""
    from .story_page import story as story_page
    return story_page(t, role)


# -- what every template may use --------------------------------------------------------------------

def template_globals() -> dict:
    """Names every Dune template (and every imported macro) can use."""
    from ..rules.factions import FACTION_IDS, load_factions
    from .board_part import board_part
    from .board_svg import board_svg
    from .now_part import now_part
    from .panel_part import panel_part
    from .fragments import spice_cards
    return {"board_svg": board_svg, "board_part": board_part, "panel_part": panel_part, "now_part": now_part, "faction_name": faction_name, "FACTION_IDS": FACTION_IDS,
            "faction_data": load_factions()["factions"],
            "territory_names": sorted(load_board().territories), "spice_cards": spice_cards(),
            "board_pieces": sorted(load_board().all_pieces()),
            "known_ambassadors": list(load_factions().get("ambassadors", [])),
            "leader_skill_names": _leader_skill_names(), "addon_karamas": _addon_karamas,
            "card_name_groups": _card_name_groups, "revival_limits": _revival_limits}


def _revival_limits(faction: str, turn: int, ally: str | None):
    """This turn's free and paid force revival of a faction (the card shows the cost before the tap)."""
    from ..rules.economy import revival_limits
    try:
        return revival_limits(faction, turn, ally)
    except Exception:  # noqa: BLE001 - a seat the economy does not price: no preview, the server still judges
        return None


def template_filters() -> dict:
    from ..rules.phases import phase_name
    return {"phase_name": phase_name}


def _card_name_groups(kiss_added: bool = True) -> list:
    from ..rules.treachery import name_choices
    return name_choices([], [], kiss_added)  # every Treachery card name (the KISS ones once added), by kind


def _addon_karamas(s: dict, role: str) -> dict:
    from ..views import addon_karamas
    return addon_karamas(s, role)


def _leader_skill_names() -> list[str]:
    from ..rules.choam import skill_names  # the CHOAM & Richese Leader Skill deck (data/leader_skills.json)
    return skill_names()


@bp.get("/t/<code>/enter")
def enter(code):
    """The forms under "Enter by hand" (corrections, rare entries), loaded when the fold is opened."""
    t = dune_table_or_404(code)
    role = seat_or_join(code)
    if role in (None, "board"):
        abort(403)
    html = render_template("dune/entries.html", **page_context(t, role))
    return no_store(make_response(html))


def _seat_fold(code: str, template: str, **extra):
    """A lazy fold's inside for a faction seat (403 for the host, the board or no seat)."""
    t = dune_table_or_404(code)
    role = seat_or_join(code)
    if role in (None, "board", "host") or role not in t.state["factions_present"]:
        abort(403)
    if extra.pop("shipment", False) and t.state["phase"] != "shipment_movement":
        return no_store(make_response('<p class="muted">Shipping is over: this is no longer Shipment &amp; Movement.</p>'))
    ctx = page_context(t, role)
    return no_store(make_response(render_template(template, me=ctx["s"]["factions"][role], **ctx)))


@bp.get("/t/<code>/secrets")
def secrets_fold(code):
    """The inside of "My secrets" (this seat's own traitors, cards and faction secrets, with the
    forms that record them), loaded when the fold is opened."""
    return _seat_fold(code, "dune/secrets.html")


@bp.get("/t/<code>/leaders")
def leaders_fold(code):
    """The inside of "Leaders" in the seat's panel (its leaders, with → tanks / revive), loaded when opened."""
    return _seat_fold(code, "dune/leaders.html")


@bp.get("/t/<code>/ship")
def ship_fold(code):
    """The shipment form (how many forces, a button per legal place), loaded when a seat opens the
    folded "Ship from reserves" of the Shipment & Movement card before its turn."""
    return _seat_fold(code, "dune/ship_form.html", shipment=True)
