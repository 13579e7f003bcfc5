"""Server-rendered pages and htmx fragments for the laptop (host) and the phones (seats)."""
from __future__ import annotations

import io
import json
import re

import qrcode
import qrcode.image.svg
from flask import (Blueprint, abort, current_app, make_response, redirect, render_template, request,
                   url_for)
from markupsafe import Markup

from ..games.dune.rules.board import load_board
from ..games.dune.rules.factions import FACTION_IDS, KISS_FACTION_IDS, faction_name, load_factions
from ..table.service import EntryError, Forbidden, Stale
from ..games.dune.state import PHASES
from ..table.views import view_for
from . import auth, security
from ..games.secret_harkonnen import web as sh_pages
from .api import announce, join_url, renders

bp = Blueprint("pages", __name__)


def tables():
    return current_app.extensions["tables"]


def table_or_404(code: str):
    t = tables().table(code)
    if t is None:
        abort(404)
    return t


def seat_or_join(code: str):
    """The phone's role at this table, or a redirect to the join page."""
    table_or_404(code)
    role, _ = auth.seat_role(code, api=False)
    return role


def qr_svg(data: str) -> Markup:
    img = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, box_size=10, border=2)
    buf = io.BytesIO()
    img.save(buf)
    svg = buf.getvalue().decode("utf-8")
    svg = svg[svg.index("<svg"):]
    return Markup(svg)


def no_store(response):
    """Private pages never go into the browser's cache or history snapshots."""
    response.headers["Cache-Control"] = "no-store"
    return response


# -- start and hosting -------------------------------------------------------------------------

def render_start(**extra) -> str:
    hosted = []
    for t in tables().store.list_tables()[:12]:
        role, _ = auth.seat_role(t["code"], api=False)
        if role:
            hosted.append({"code": t["code"], "role": role,
                           "factions": t["config"].get("factions") or t["config"].get("players") or []})
    extra.setdefault("error", None)
    return render_template("start.html", factions=[(f, faction_name(f)) for f in KISS_FACTION_IDS], hosted=hosted,
                           **extra)


@bp.get("/")
def start():
    return render_start()


CODE_SHAPE = re.compile(r"^[A-Z0-9]{5}$")


@bp.get("/join")
def join_by_code():
    """The start page's "Join a table" box: a typed code (any case, spaces ignored) -> its join page."""
    typed = request.args.get("code", "")
    code = re.sub(r"[\s-]+", "", typed).upper()
    if CODE_SHAPE.match(code) and tables().table(code) is not None:
        return redirect(url_for("pages.join", code=code))
    if not code:
        message, status = "Type the table's code: the 5 characters shown on the host's screen.", 422
    elif not CODE_SHAPE.match(code):
        message, status = (f"A table code has 5 letters or digits; {typed.strip()!r} has {len(code)}. "
                           f"Check the host's screen."), 422
    else:
        message, status = (f"There is no table {code} on this server. Check the code on the host's screen "
                           f"(or ask the host to read it out)."), 404
    return make_response(render_start(join_error=message, join_code=typed), status)


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
    for key in ("advanced", "leader_skills", "stronghold_cards"):  # the CHOAM & Richese add-on's modules
        if request.form.get(key) == "on":
            options[key] = True
    try:
        created = tables().create(chosen, turns, options)
    except EntryError as exc:
        html = render_template("start.html", factions=[(f, faction_name(f)) for f in KISS_FACTION_IDS], hosted=[],
                               error=exc.message, chosen=chosen)
        return make_response(html, 422)
    announce(join_url(created["code"]))
    response = redirect(url_for("pages.host", code=created["code"]))
    return auth.set_seat_cookie(response, created["code"], created["host_token"])


@bp.post("/tables/import")
def import_table():
    """Restore an exported table (JSON file) as a new table hosted from this browser."""
    auth.require_csrf()
    upload = request.files.get("file")
    try:
        data = security.loads(upload.read()) if upload else None
        created = tables().import_table(data, check=renders)
    except security.JSONTooDeep as exc:
        created, message = None, f"That file is not a table export: {exc}"
    except (ValueError, UnicodeDecodeError):
        created, message = None, "That file is not a table export (JSON)."
    except EntryError as exc:
        created, message = None, exc.message
    if created is None:
        html = render_template("start.html", factions=[(f, faction_name(f)) for f in KISS_FACTION_IDS], hosted=[],
                               error=message)
        return make_response(html, 422)
    response = redirect(url_for("pages.host", code=created["code"]))
    return auth.set_seat_cookie(response, created["code"], created["host_token"])


@bp.get("/t/<code>/host")
def host(code):
    t = table_or_404(code)
    role = seat_or_join(code)
    if role != "host":
        return redirect(url_for("pages.join", code=t.code))
    url = join_url(t.code)
    if sh_pages.other_game(t):
        return sh_pages.host(t, url, qr_svg(url))
    return no_store(make_response(render_template("dune/host.html", code=t.code, url=url, qr=qr_svg(url), state=view_for(t.state, "host"),
        other_urls=[u.rstrip("/") + f"/t/{t.code}/join" for u in current_app.config.get("LAN_OTHER_URLS") or []],
        loopback_only=bool(current_app.config.get("LAN_LOOPBACK_ONLY")),
        lan_reason=current_app.config.get("LAN_REASON") or "", lan_advice=current_app.config.get("LAN_ADVICE") or [],
        **seat_list(t))))


def seat_list(t) -> dict:
    """The host's seat list: who joined, whose phone holds the live stream now."""
    presence = current_app.extensions["presence"]
    epoch = presence.epoch(t.code)  # read first: a change after this makes the page fetch again
    return {"seats": tables().store.seat_status(t.code), "connected": presence.connected(t.code),
            "seats_epoch": epoch, "factions_present": t.state["factions_present"]}


@bp.get("/t/<code>/seats")
def seats(code):
    """The host page's seat list, refreshed on the live stream's ``seats`` event."""
    t = table_or_404(code)
    if seat_or_join(code) != "host":
        abort(403)
    if sh_pages.other_game(t):
        abort(404)
    return no_store(make_response(render_template("dune/seats.html", code=t.code, **seat_list(t))))


@bp.post("/t/<code>/seats/<faction>/reissue")
def reissue(code, faction):
    t = table_or_404(code)
    auth.require_csrf()
    if seat_or_join(code) != "host":
        abort(403)
    try:
        tables().reissue(t.code, faction)
    except EntryError as exc:
        return make_response(exc.message, 404)
    current_app.extensions["presence"].bump(t.code)
    return redirect(url_for("pages.host", code=t.code))


# -- joining -----------------------------------------------------------------------------------

@bp.get("/t/<code>/join")
def join(code):
    t = table_or_404(code)
    role, _ = auth.seat_role(code, api=False)
    if sh_pages.other_game(t):
        return sh_pages.join(t, role)
    seats = tables().store.seat_status(t.code)
    return no_store(make_response(render_template("dune/join.html", code=t.code, seats=seats, role=role, error=None)))


@bp.post("/t/<code>/join")
def join_post(code):
    t = table_or_404(code)
    auth.require_csrf()
    if sh_pages.other_game(t):
        return sh_pages.join_post(t)
    choice = request.form.get("seat", "")
    if choice == "board":
        token = tables().spectator_token(t.code)
        return auth.set_seat_cookie(redirect(url_for("pages.board", code=t.code)), t.code, token)
    if choice not in t.config["factions"]:
        abort(400)
    seats = tables().store.seat_status(t.code)
    if seats.get(choice):
        html = render_template("dune/join.html", code=t.code, seats=seats, role=None,
                               error=f"{faction_name(choice)} is taken. Ask the host to re-issue it if that "
                                     f"phone is gone.")
        return make_response(html, 409)
    token = tables().new_token()  # a fresh credential: any older one is cancelled, atomically
    if not tables().store.take_seat(t.code, choice, token):
        seats = tables().store.seat_status(t.code)
        html = render_template("dune/join.html", code=t.code, seats=seats, role=None,
                               error=f"{faction_name(choice)} was just taken by another phone.")
        return make_response(html, 409)
    current_app.extensions["presence"].bump(t.code)  # the host page's seat list refreshes
    return auth.set_seat_cookie(redirect(url_for("pages.table", code=t.code)), t.code, token)


# -- the phone ---------------------------------------------------------------------------------

def page_context(t, role: str, error: dict | None = None) -> dict:
    """Everything a table page or its live fragment needs, computed once per render."""
    s = view_for(t.state, role)
    return {"code": t.code, "role": role, "s": s, "error": error, "phases": PHASES,
            "legal": legal_choices(t, role),
            "blow": deck_left(s, t.state.get("spice_deck")) if s["phase"] == "spice_blow" else None}


def legal_choices(t, role: str) -> dict:
    """The seat's legal shipments right now (territory, sectors, cost), from the reach rules,
    so the phone offers buttons instead of a territory to type."""
    if role in ("host", "board") or role not in t.state["factions_present"]:
        return {}
    if t.state["phase"] not in ("shipment_movement",):
        return {}
    from ..games.dune.rules.errors import RuleViolation
    from ..games.dune.entries.moves import where_can_i_go
    try:
        with t.lock:
            return where_can_i_go(t.state, load_board(), role, None, None)
    except RuleViolation:
        return {}


def render_view(code: str, role: str, error: dict | None = None, status: int = 200, toast: str | None = None):
    t = tables().table(code)
    html = render_template("dune/view.html", **page_context(t, role, error))
    response = no_store(make_response(html, status))
    if toast:
        response.headers["HX-Trigger"] = json.dumps({"entry-done": {"text": toast}})
    return response


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


@bp.get("/t/<code>")
def table(code):
    t = table_or_404(code)
    role = seat_or_join(code)
    if role is None:
        return redirect(url_for("pages.join", code=t.code))
    if role == "board":
        return redirect(url_for("pages.board", code=t.code))
    if sh_pages.other_game(t):
        return sh_pages.table(t, role)
    return no_store(make_response(render_template("dune/table.html", **page_context(t, role))))


@bp.get("/t/<code>/view")
def view(code):
    t = table_or_404(code)
    role = seat_or_join(code)
    if role is None:
        abort(401)
    if sh_pages.other_game(t):
        return sh_pages.board(t, fragment=True) if role == "board" else sh_pages.view(t, role)
    if role == "board":
        return no_store(make_response(render_template("dune/board_page.html", code=t.code, role="board",
                                                      s=view_for(t.state, "board"))))
    return render_view(t.code, role)


@bp.get("/t/<code>/proposals")
def proposals(code):
    """The pending proposals this seat answers or waits on (partials/proposals.html)."""
    t = table_or_404(code)
    role = seat_or_join(code)
    if role in (None, "board"):
        abort(401)
    return no_store(make_response(render_template("dune/proposals.html", code=t.code, role=role,
                                                  s=view_for(t.state, role), proposals_only=True)))


LIST_FIELDS = ("factions", "cards", "traitors", "ambassadors", "tokens", "winners")
ROW_FIELD = re.compile(r"^([a-z_]+)-(\d+)-([a-z_]+)$")


def writing_seat(code: str):
    """(table, role) for a phone's write: CSRF checked, a seat required, the board view refused."""
    t = table_or_404(code)
    auth.require_csrf()
    role = seat_or_join(code)
    if role is None:
        abort(401)
    if role == "board":
        abort(make_response("The board view can only watch.", 403))
    return t, role


def form_entry() -> dict:
    """Form fields -> an entry: empty fields dropped, repeated fields become lists,
    ``rows-N-field`` fields become a list of objects (rows with no forces are dropped)."""
    body: dict = {}
    rows: dict = {}
    for key in request.form:
        if key == "csrf_token":
            continue
        values = [v for v in request.form.getlist(key)]
        if key in LIST_FIELDS:
            body[key] = [x.strip() for v in values for x in v.splitlines() if x.strip()]
            continue
        value = values[-1]
        if value == "":
            continue
        if "@" in key:  # a tapped place: name="to@sector" value="Arrakeen@9" (Polar Sink has no sector)
            first, _, second = key.partition("@")
            where, _, sector = value.partition("@")
            body[first] = where
            if sector:
                body[second] = sector
            continue
        m = ROW_FIELD.match(key)
        if m:
            rows.setdefault(m.group(1), {}).setdefault(int(m.group(2)), {})[m.group(3)] = value
            continue
        body[key] = value
    for name, numbered in rows.items():
        body[name] = [row for _, row in sorted(numbered.items())
                      if any(k in ("forces", "starred") and v not in ("0", "") for k, v in row.items())]
    if "revision" in body:
        try:
            body["revision"] = int(body["revision"])
        except ValueError:
            pass
    if body.get("override") in ("on", "true", "1"):
        body["override"] = True
    return body


def typed_entry(body: dict, role: str) -> dict:
    """A form's strings converted to the entry's types (entries are checked strictly); an entry
    that needs another faction's consent becomes a proposal to that faction (``consent.request``)."""
    from pydantic import ValidationError

    from ..games.dune.entries import form_types
    from ..games.dune.entries.consent import as_proposal
    from ..table.service import validation_message
    at = tables().registry.get(body.get("type")) if isinstance(body.get("type"), str) else None
    try:
        typed = form_types(at.model, body) if at else body
    except ValidationError as exc:
        message, fields = validation_message(exc)
        raise EntryError(message, fields=fields) from None
    return as_proposal(typed, role)


@bp.post("/t/<code>/act")
def act(code):
    t, role = writing_seat(code)
    return submit_form_entry(t, role, form_entry())


def submit_form_entry(t, role, body: dict):
    """Submit an entry built from a form and answer with the fresh view (or the refusal sheet)."""
    try:
        tables().submit(t.code, role, typed_entry(body, role))
    except Stale:
        # the table moved on while this phone was typing: show the fresh table and offer the same
        # entry again in one tap (nothing is merged without the player seeing the new state)
        return render_view(t.code, role, {"message": "The table changed while you were typing: check the new "
                                                     "state, then send your entry again.",
                                          "rule": None, "entry": body, "resend": True}, 200)
    except Forbidden as exc:
        return render_refusal(t.code, role, {"message": str(exc), "rule": None})
    except EntryError as exc:
        err = exc.to_dict()
        err["entry"] = body
        return render_refusal(t.code, role, err)
    with t.lock:
        done = t.events[-1]["summary"] if t.events else None
    return render_view(t.code, role, toast=done)


@bp.get("/t/<code>/reach")
def reach(code):
    t = table_or_404(code)
    role = seat_or_join(code)
    if role in (None, "board"):
        abort(401)
    faction = request.args.get("faction") or role
    if faction == "host" or faction not in t.state["factions_present"]:
        return "<p class=muted>Choose a faction's stack.</p>"
    if role not in ("host", faction):
        abort(403)
    try:
        sector = int(request.args.get("sector") or 0) or None
    except ValueError:
        sector = None
    from ..games.dune.rules.errors import RuleViolation
    from ..games.dune.entries.moves import where_can_i_go
    try:
        with t.lock:
            info = where_can_i_go(t.state, load_board(), faction, request.args.get("territory"), sector)
    except RuleViolation as exc:
        return render_template("dune/reach.html", info=None, error=exc.message, code=t.code, s=None, role=role)
    held = {"forces": 0, "starred": 0, "advisors": 0}
    if info.get("move"):
        from ..games.dune.rules.board import piece_id
        piece = piece_id(info["move"]["from"], info["move"]["from_sector"])
        held = dict(t.state["board"]["forces"].get(piece, {}).get(faction, held))
    return render_template("dune/reach.html", info=info, error=None, code=t.code, held=held,
                           only=request.args.get("only"), s=view_for(t.state, role), role=role)


@bp.get("/t/<code>/battle")
def battle(code):
    """The seat's battle panel: its battles, a live dial control and its karama options."""
    t = table_or_404(code)
    role = seat_or_join(code)
    if role in (None, "board", "host"):
        abort(403)
    from ..games.dune.rules.errors import RuleViolation
    from ..games.dune.battles import battles_for, dial_for, karama_for
    with t.lock:
        state = t.state
        battles = battles_for(state, load_board(), role)
        territory = request.args.get("territory") or (battles[0]["territory"] if battles else None)
        here = next((b for b in battles if b["territory"] == territory), None)
        dial = None
        error = None
        if here:
            opponent = request.args.get("opponent") or here["opponents"][0]
            try:
                forces = int(request.args.get("forces") or 0)
                starred = int(request.args.get("starred") or 0)
                want = request.args.get("want")
                want = int(want) if want not in (None, "", "0") else None  # 0: no strength asked for
            except ValueError:
                forces = starred = 0
                want = None
                error = "Dial whole numbers."
            if error is None:
                try:
                    if forces > here["forces"] or starred > here["starred"]:
                        raise RuleViolation(f"You have {here['forces']} forces and {here['starred']} starred in "
                                            f"{here['territory']}.", "kiss-simple-dialing")
                    if want is not None:  # the cheapest mix of the forces PRESENT that reaches it
                        dial = dial_for(state, role, opponent, here["forces"], here["starred"], want,
                                        here["ecaz_forces"])
                    else:
                        dial = dial_for(state, role, opponent, forces, starred, None, here["ecaz_forces"])
                except RuleViolation as exc:
                    error = exc.message
        else:
            opponent = None
        options = karama_for(state, role)
        in_phase = state["phase"] == "battle"
        # once this seat has a battle open, its plan builder on the phase card has the dial: fold this away
        fighting = any(b["turn"] == state["turn"] and role in b["sides"] and b["status"] != "applied"
                       for b in state.get("battles", []))
    html = render_template("dune/battle.html", code=t.code, role=role, battles=battles, here=here, in_phase=in_phase, fighting=fighting,
                           opponent=opponent, dial=dial, error=error, karama=options, args=request.args)
    return no_store(make_response(html))


@bp.post("/t/<code>/battle/act")
def battle_act(code):
    """The battle buttons' entries: the plan builder's one ``fighter`` choice (a leader's name,
    ``cheap-hero`` or nothing) becomes the plan's ``leader``/``cheap_hero``; the host's dispute
    form's ``adj-*`` figures become the ``battle.apply`` entry's ``adjust``."""
    t, role = writing_seat(code)
    body = form_entry()
    fighter = body.pop("fighter", None)
    if body.get("type") == "battle.plan":
        # a sealed plan does not rest on what the other phones did meanwhile (the other side sealing,
        # typically): it is checked against the table as it is now, so it is never refused as stale
        with t.lock:
            body["revision"] = t.revision
        body.pop("leader", None), body.pop("cheap_hero", None)
        if fighter == "cheap-hero":
            body["cheap_hero"] = "true"
        elif fighter:
            body["leader"] = fighter
    adjust: dict = {}
    for key in [k for k in body if k.startswith("adj-")]:
        value = body.pop(key)
        parts = key.split("-")  # adj-forces-F, adj-starred-F, adj-spice-F, adj-to_winner
        if parts[1] in ("forces", "starred") and len(parts) == 3:
            adjust.setdefault("forces_lost", {}).setdefault(parts[2], {})[parts[1]] = value
        elif parts[1] == "spice" and len(parts) == 3:
            adjust.setdefault("spice_paid", {})[parts[2]] = value
        elif parts[1] == "to_winner":
            adjust["spice_to_winner"] = value
    if adjust and body.get("type") == "battle.apply" and body.get("override"):
        body["adjust"] = adjust
    return submit_form_entry(t, role, body)


@bp.get("/t/<code>/preview/blow")
def preview_blow(code):
    """What turning this spice card on this pile would do, before anyone applies it."""
    t = table_or_404(code)
    role = seat_or_join(code)
    if role is None:
        abort(401)
    from ..games.dune.rules.errors import RuleViolation
    from ..games.dune.entries.turn import preview_blow as preview
    card, pile = request.args.get("card", ""), request.args.get("pile", "A")
    pile = pile if pile in ("A", "B") else "A"
    try:
        with t.lock:
            b = preview(load_board(), t.state, card, pile)
            revision = t.revision
    except RuleViolation as exc:
        return render_template("dune/blow_preview.html", b=None, error=exc.message)
    apply = {"card": card, "pile": pile} if role != "board" else None
    return render_template("dune/blow_preview.html", b=b, error=None, apply=apply, code=t.code,
                           s={"revision": revision})


@bp.post("/t/<code>/undo")
def undo(code):
    t, role = writing_seat(code)
    try:
        tables().undo(t.code, role)
    except (EntryError, Forbidden, Stale) as exc:
        return render_view(t.code, role, {"message": getattr(exc, "message", str(exc)), "rule": None})
    return render_view(t.code, role)


@bp.post("/t/<code>/show-rule")
def show_rule(code):
    """Push a rules entry to every phone of the table as a banner (logged in the history)."""
    t = table_or_404(code)
    auth.require_csrf()
    role = seat_or_join(code)
    if role in (None, "board"):
        abort(403)
    rule = request.form.get("rule", "")
    entry = current_app.extensions["search"].get().get(rule)
    if entry is None:
        abort(404)
    with t.lock:
        tables().submit(t.code, role, {"type": "rule.show", "rule": rule, "title": entry.title[:120],
                                       "revision": t.revision})
    return ("", 204)


@bp.get("/t/<code>/history")
def history(code):
    t = table_or_404(code)
    role = seat_or_join(code)
    if role is None:
        return redirect(url_for("pages.join", code=t.code))
    if sh_pages.other_game(t):
        return sh_pages.history(t, role)
    entries = list(reversed(tables().history(t.code, role)))
    return no_store(make_response(render_template("dune/history.html", code=t.code, role=role, entries=entries)))


BOARD_ENTRIES = 6


def board_context(t) -> dict:
    """Everything the board screen shows: the public view and the last public history lines.
    Public by construction: no cookie, no credential, no seat is read here."""
    with t.lock:
        s = view_for(t.state, "board")
    lines = [e for e in tables().history(t.code, "board") if e["payload"] is not None]
    rule_text = None
    if s.get("banner"):
        from .markdown import render_markdown
        entry = current_app.extensions["search"].get().get(s["banner"]["rule"])
        rule_text = Markup(render_markdown(entry.text)) if entry else None
    return {"code": t.code, "s": s, "recent": list(reversed(lines[-BOARD_ENTRIES:])), "rule_text": rule_text}


@bp.get("/t/<code>/board")
def board(code):
    """The board screen for a TV or laptop: any browser, whatever cookie it holds, sees the public table."""
    t = table_or_404(code)
    if sh_pages.other_game(t):
        return sh_pages.board(t)
    return no_store(make_response(render_template("dune/board.html", **board_context(t))))


@bp.get("/t/<code>/board/view")
def board_fragment(code):
    """The board screen's live refresh: the same public fragment for everyone."""
    t = table_or_404(code)
    if sh_pages.other_game(t):
        return sh_pages.board(t, fragment=True)
    return no_store(make_response(render_template("dune/board_screen.html", **board_context(t))))


# -- the phone as an app: manifest and icons ---------------------------------------------------------

THEME = "#15110c"


def manifest(start_url: str, name: str, short: str):
    icons = [{"src": url_for("static", filename=f"icons/icon-{n}.png"), "sizes": f"{n}x{n}", "type": "image/png",
              "purpose": "any"} for n in (192, 512)]
    icons.append({"src": url_for("static", filename="icons/icon-maskable-512.png"), "sizes": "512x512",
                  "type": "image/png", "purpose": "maskable"})
    body = {"name": name, "short_name": short, "start_url": start_url, "scope": "/", "id": start_url,
            "display": "fullscreen", "display_override": ["fullscreen", "standalone"],
            "orientation": "any", "background_color": THEME, "theme_color": THEME, "icons": icons}
    response = make_response(json.dumps(body, indent=1))
    response.headers["Content-Type"] = "application/manifest+json"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/manifest.webmanifest")
def app_manifest():
    return manifest("/", "Dune Table Companion", "Dune Table")


@bp.get("/t/<code>/manifest.webmanifest")
def table_manifest(code):
    """Added to the home screen from a table's page, the icon opens that table (the phone's seat)."""
    t = table_or_404(code)
    return manifest(f"/t/{t.code}", f"Dune table {t.code}", f"Dune {t.code}")


@bp.get("/favicon.ico")
def favicon():
    return current_app.send_static_file("icons/favicon.ico")


def template_globals() -> dict:
    """Names every template (and every imported macro) can use."""
    from ..games.dune.web.board_svg import board_svg
    return {"board_svg": board_svg, "faction_name": faction_name, "FACTION_IDS": FACTION_IDS, "faction_data": load_factions()["factions"],
            "territory_names": sorted(load_board().territories), "spice_cards": _spice_cards(),
            "board_pieces": sorted(load_board().all_pieces()),
            "known_ambassadors": list(load_factions().get("ambassadors", [])),
            "leader_skill_names": _leader_skill_names(), "addon_karamas": _addon_karamas,
            "card_name_groups": _card_name_groups}


def _card_name_groups() -> list:
    from ..games.dune.rules.treachery import name_choices
    return name_choices([], [], True)  # every Treachery card name, grouped by kind


def _addon_karamas(s: dict, role: str) -> dict:
    from ..games.dune.views import addon_karamas
    return addon_karamas(s, role)


def _leader_skill_names() -> list[str]:
    from ..games.dune.rules.choam import skill_names  # the CHOAM & Richese Leader Skill deck (data/leader_skills.json)
    return skill_names()


def deck_left(s: dict, raw_deck: dict | None) -> dict:
    """The spice blow as a phone shows it: the cards still in the deck (each once, with how many
    copies are left) and the pile the next card goes on (A until a territory card lands there).
    Uses the phase helper's ``view["spice_blow"]`` when it is there."""
    from ..games.dune.rules.spice import SHAI_HULUD, card_name, deck_cards
    sb = s.get("spice_blow") or {}
    board = load_board()
    discovery = (s.get("options") or {}).get("discovery_tokens", True)
    counts: dict[str, int] = {}
    for c in deck_cards(board, discovery):
        counts[c.name] = counts.get(c.name, 0) + 1
    total = sum(counts.values())
    seen = list(s.get("spice_deck_seen") or [])
    drawn = 0
    left = dict(counts)
    for raw in seen:
        if drawn == total:
            left, drawn = dict(counts), 0
        name = card_name(board, raw)
        if left.get(name):
            left[name] -= 1
        drawn += 1
    if drawn == total:
        left = dict(counts)
    if "cards_left" in sb:
        left = {c: left.get(c, 1) for c in sb["cards_left"]}
    this_phase = list((raw_deck or {}).get("this_phase") or sb.get("this_phase") or [])
    pile = sb.get("next_pile") or sb.get("pile") or ("B" if any(card_name(board, c) != SHAI_HULUD for c in this_phase)
                                                      else "A")
    cards = [(name, n) for name, n in sorted(left.items(), key=lambda x: (x[0] != SHAI_HULUD, x[0])) if n > 0]
    return {"cards": cards, "pile": pile if pile in ("A", "B") else "A"}


def _spice_cards() -> list[str]:
    from ..games.dune.rules.spice import SHAI_HULUD, deck_cards
    names = sorted({c.name for c in deck_cards(load_board(), True) if c.name != SHAI_HULUD})
    return [SHAI_HULUD] + names


# -- app-wide: compression and the styled 404 ---------------------------------------------------------

def setup(app) -> None:
    """Compress text answers (never the live stream: text/event-stream is not in the list, so
    it passes through unbuffered) and answer unknown pages with a styled 404."""
    from flask_compress import Compress
    app.config.setdefault("COMPRESS_MIMETYPES", ["text/html", "text/css", "text/plain", "text/javascript",
                                                 "application/javascript", "application/json", "image/svg+xml"])
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    Compress(app)

    @app.errorhandler(404)
    def not_found(exc):
        if request.path.startswith("/api/"):
            return {"message": "Not found.", "rule": None}, 404
        return make_response(render_template("not_found.html", path=request.path), 404)
