"""Pages of the tables whose game is not Dune (today: Secret Harkonnen): start form, join by
name, each phone's private panel with its ``#now`` card, the public board and the host page.

The Dune routes in ``pages.py`` hand a table of another game to ``dispatch`` here."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, make_response, redirect, render_template, request, url_for

from ... import games
from ...table.service import EntryError, Forbidden, Stale
from ...table.views import view_for
from ...web import auth

bp = Blueprint("sh_pages", __name__)

POWER_NAMES = {"consult": "Consult the Spacing Guild", "trance": "Enter a Spice Trance",
               "special_election": "Special Election", "sardaukar": "Employ the Sardaukar"}
ROLE_NAMES = {"atreides": "Atreides", "imperial": "Imperial Family", "baron": "the Baron"}
POLICY_NAMES = {"landsraad": "Landsraad", "choam": "CHOAM"}


def tables():
    return current_app.extensions["tables"]


def no_store(response):
    response.headers["Cache-Control"] = "no-store"
    return response


def game_of(t) -> str:
    return games.of_config(t.config).id


def other_game(t) -> bool:
    return game_of(t) != games.DEFAULT_GAME


def context(t, role: str, error: str | None = None) -> dict:
    with t.lock:
        s = view_for(t.state, role)
    return {"code": t.code, "role": role, "s": s, "error": error, "POWER_NAMES": POWER_NAMES,
            "ROLE_NAMES": ROLE_NAMES, "POLICY_NAMES": POLICY_NAMES}


# -- creating --------------------------------------------------------------------------------------

@bp.post("/tables/secret-harkonnen")
def create():
    auth.require_csrf()
    typed = request.form.get("players", "")
    names = [" ".join(x.split()) for x in typed.splitlines() if x.strip()]
    if request.form.get("shuffle") == "on":  # seat order (and so the first Emperor) at random
        import secrets
        secrets.SystemRandom().shuffle(names)
    try:
        created = tables().create_table("secret-harkonnen", {"players": names})
    except EntryError as exc:
        from ...web.pages import render_start
        return make_response(render_start(sh_error=exc.message, sh_players=typed), 422)
    from ...web.api import announce, join_url
    announce(join_url(created["code"]))
    return auth.set_seat_cookie(redirect(url_for("pages.host", code=created["code"])), created["code"],
                                created["host_token"])


# -- pages the Dune routes hand over -----------------------------------------------------------------

def join(t, role, error=None, status=200):
    seats = tables().store.seat_status(t.code)
    return no_store(make_response(render_template("sh/join.html", code=t.code, seats=seats, role=role,
                                                  players=t.config["players"], error=error), status))


def join_post(t):
    choice = request.form.get("seat", "")
    if choice == "board":
        token = tables().spectator_token(t.code)
        return auth.set_seat_cookie(redirect(url_for("pages.board", code=t.code)), t.code, token)
    if choice not in t.config["players"]:
        abort(400)
    if tables().store.seat_status(t.code).get(choice):
        return join(t, None, f"{choice} is taken. Ask the host to re-issue it if that phone is gone.", 409)
    token = tables().new_token()
    if not tables().store.take_seat(t.code, choice, token):
        return join(t, None, f"{choice} was just taken by another phone.", 409)
    current_app.extensions["presence"].bump(t.code)
    return auth.set_seat_cookie(redirect(url_for("pages.table", code=t.code)), t.code, token)


def table(t, role):
    return no_store(make_response(render_template("sh/table.html", **context(t, role))))


def view(t, role, error=None, status=200):
    return no_store(make_response(render_template("sh/view.html", **context(t, role, error)), status))


def board(t, fragment: bool = False):
    name = "sh/board_view.html" if fragment else "sh/board.html"
    return no_store(make_response(render_template(name, **context(t, "board"))))


def host(t, url, qr):
    seats = tables().store.seat_status(t.code)
    return no_store(make_response(render_template("sh/host.html", url=url, qr=qr, seats=seats,
                                                  **context(t, "host"))))


def history(t, role):
    entries = tables().history(t.code, role)
    return no_store(make_response(render_template("sh/history.html", code=t.code, entries=entries, role=role)))


# -- entries from the phone's forms --------------------------------------------------------------------

@bp.post("/t/<code>/sh/act")
def act(code):
    t = tables().table(code)
    if t is None or not other_game(t):
        abort(404)
    auth.require_csrf()
    role, _ = auth.seat_role(t.code, api=False)
    if role is None:
        abort(401)
    form = request.form
    entry: dict = {"type": form.get("type", "")}
    for key in ("governor", "vote", "power", "target"):
        if form.get(key):
            entry[key] = form[key]
    for key in ("policy",):
        if form.get(key, "").isdigit():
            entry[key] = int(form[key])
    if form.get("agree") in ("yes", "no"):
        entry["agree"] = form["agree"] == "yes"
    try:
        entry["revision"] = int(form.get("revision", ""))
    except ValueError:
        entry["revision"] = None
    error = None
    try:
        tables().submit(t.code, role, entry)
    except Stale:
        error = "The table changed a moment ago: here it is now. Choose again."
    except Forbidden as exc:
        error = str(exc)
    except EntryError as exc:
        error = exc.message + (f" ({exc.rule})" if exc.rule else "")
    if request.headers.get("HX-Request") != "true":
        return redirect(url_for("pages.table", code=t.code))
    return view(t, role, error)


@bp.app_template_filter("sh_lookup")
def sh_lookup(values, names: dict) -> list:
    """Ids -> their display names (unknown ids as they are)."""
    return [names.get(v, v) for v in values or []]
