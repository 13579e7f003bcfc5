"""The web shell's pages: start, join by code, restore, and the routes every table has (host,
join, the phone's page and its live fragment, history, the board screen, undo, showing a rule),
each handed to the table's game (``companion.games.web_of``): the shell knows no game."""
from __future__ import annotations

import io
import json
import re

import qrcode
import qrcode.image.svg
from flask import Blueprint, abort, current_app, make_response, redirect, render_template, request, url_for
from markupsafe import Markup

from .. import games
from ..table.service import EntryError, Forbidden, Stale
from . import auth, security
from .form_keys import run_form
from .api import join_url, renders

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


def web(t):
    """The web part of the table's game (its page hooks and routes)."""
    return games.web_of(games.of_config(t.config))


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
    """The start page: join by code, each game's "host a table" form, restore, my tables."""
    hosted = []
    for t in tables().store.list_tables()[:12]:
        role, _ = auth.seat_role(t["code"], api=False)
        if role:
            game = games.of_config(t["config"])
            hosted.append({"code": t["code"], "role": role, "seats": game.seats(t["config"])})
    extra.setdefault("error", None)
    forms = []
    for gid in games.game_ids():
        w = games.web_of(games.get(gid))
        forms.append(w.START_FORM)
        for key, value in w.start_context().items():
            extra.setdefault(key, value)
    return render_template("start.html", hosted=hosted, game_forms=forms, **extra)


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
        return make_response(render_start(error=message), 422)
    response = redirect(url_for("pages.host", code=created["code"]))
    return auth.set_seat_cookie(response, created["code"], created["host_token"])


@bp.get("/t/<code>/host")
def host(code):
    t = table_or_404(code)
    role = seat_or_join(code)
    if role != "host":
        return redirect(url_for("pages.join", code=t.code))
    url = join_url(t.code)
    return web(t).host(t, url, qr_svg(url))


def lan_context(code: str) -> dict:
    """What the host page says about the addresses phones can use (from the terminal's start)."""
    return {"other_urls": [u.rstrip("/") + f"/t/{code}/join" for u in current_app.config.get("LAN_OTHER_URLS") or []],
            "loopback_only": bool(current_app.config.get("LAN_LOOPBACK_ONLY")),
            "lan_reason": current_app.config.get("LAN_REASON") or "",
            "lan_advice": current_app.config.get("LAN_ADVICE") or []}


@bp.get("/t/<code>/seats")
def seats(code):
    """The host page's seat list, refreshed on the live stream's ``seats`` event."""
    t = table_or_404(code)
    if seat_or_join(code) != "host":
        abort(403)
    return web(t).seats(t)


@bp.post("/t/<code>/seats/<seat>/reissue")
def reissue(code, seat):
    t = table_or_404(code)
    auth.require_csrf()
    if seat_or_join(code) != "host":
        abort(403)
    try:
        tables().reissue(t.code, seat)
    except EntryError as exc:
        return make_response(exc.message, 404)
    current_app.extensions["presence"].bump(t.code)
    return redirect(url_for("pages.host", code=t.code))


@bp.post("/t/<code>/host/reissue")
def reissue_host(code):
    """A new host credential for this browser: the old one (and every page or stream it holds) dies."""
    t = table_or_404(code)
    auth.require_csrf()
    if seat_or_join(code) != "host":
        abort(403)
    token = tables().reissue_host(t.code)
    current_app.extensions["presence"].bump(t.code)  # the old credential's streams end
    return auth.set_seat_cookie(redirect(url_for("pages.host", code=t.code, reissued=1)), t.code, token)


# -- joining -----------------------------------------------------------------------------------

@bp.get("/t/<code>/join")
def join(code):
    t = table_or_404(code)
    role, _ = auth.seat_role(code, api=False)
    return web(t).join(t, role)


@bp.post("/t/<code>/join")
def join_post(code):
    t = table_or_404(code)
    auth.require_csrf()
    choice = request.form.get("seat", "")
    if choice == "board":
        token = tables().spectator_token(t.code)
        return auth.set_seat_cookie(redirect(url_for("pages.board", code=t.code)), t.code, token)
    if choice not in games.of_config(t.config).seats(t.config):
        abort(400)
    name = games.of_config(t.config).seat_name(choice)
    if tables().store.seat_status(t.code).get(choice):
        return web(t).join(t, None, f"{name} is taken. Ask the host to re-issue it if that phone is gone.", 409)
    token = tables().new_token()  # a fresh credential: any older one is cancelled, atomically
    if not tables().store.take_seat(t.code, choice, token):
        return web(t).join(t, None, f"{name} was just taken by another phone.", 409)
    current_app.extensions["presence"].bump(t.code)  # the host page's seat list refreshes
    return auth.set_seat_cookie(redirect(url_for("pages.table", code=t.code)), t.code, token)


# -- the phone ---------------------------------------------------------------------------------

@bp.get("/t/<code>")
def table(code):
    t = table_or_404(code)
    role = seat_or_join(code)
    if role is None:
        return redirect(url_for("pages.join", code=t.code))
    if role == "board":
        return redirect(url_for("pages.board", code=t.code))
    return web(t).table(t, role)


@bp.get("/t/<code>/view")
def view(code):
    t = table_or_404(code)
    role = seat_or_join(code)
    if role is None:
        abort(401)
    if role == "board":
        return web(t).board_seat(t)
    return web(t).view(t, role)


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


@bp.post("/t/<code>/undo")
def undo(code):
    """Undo the latest entry; sent again with the same key, nothing more is undone."""
    t, role = writing_seat(code)

    def run(once):
        try:
            tables().undo(t.code, role, once=once)
        except (EntryError, Forbidden, Stale) as exc:
            return 422, {"error": {"message": getattr(exc, "message", str(exc)), "rule": None}}
        return 200, {"recorded": t.revision}

    outcome = run_form(tables(), t.code, role, "undo", run)
    if outcome.status != 200:
        return web(t).view(t, role, outcome.body["error"])
    return web(t).view(t, role)


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
    return web(t).history(t, role)


@bp.get("/t/<code>/story")
def story(code):
    """The game's story, for the room (the board screen) and the phones: once the game is over its
    secrets are no secret, so any browser may look; before that, 403."""
    t = table_or_404(code)
    role, _ = auth.seat_role(t.code, api=False)
    return web(t).story(t, role)


@bp.get("/t/<code>/board")
def board(code):
    """The board screen for a TV or laptop: any browser, whatever cookie it holds, sees the public table."""
    t = table_or_404(code)
    return web(t).board(t)


@bp.get("/t/<code>/board/view")
def board_fragment(code):
    """The board screen's live refresh: the same public fragment for everyone."""
    t = table_or_404(code)
    return web(t).board(t, fragment=True)


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


# -- app-wide: compression and the styled 404 ---------------------------------------------------------

def setup(app) -> None:
    """Compress text answers (never the live stream: text/event-stream is not in the list, so
    it passes through unbuffered) and answer unknown pages with a styled 404."""
    from flask_compress import Compress
    app.config.setdefault("COMPRESS_MIMETYPES", ["text/html", "text/css", "text/plain", "text/javascript",
                                                 "application/javascript", "application/json", "image/svg+xml"])
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    # brotli quality 3, not flask-compress's 4: on a mid-game phone view (55 KB) 0.3 ms instead of
    # 0.8 ms of the server's CPU per answer, for some 4% more bytes (9.7 KB instead of 9.3 KB)
    app.config.setdefault("COMPRESS_BR_LEVEL", 3)
    Compress(app)

    @app.errorhandler(404)
    def not_found(exc):
        if request.path.startswith("/api/"):
            return {"message": "Not found.", "rule": None}, 404
        return make_response(render_template("not_found.html", path=request.path), 404)
