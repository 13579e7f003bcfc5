"""Secret Harkonnen's web part: its start form, join by name, each phone's private panel with its
``#now`` card, the public board and the host page (the hooks the web shell's routes hand a Secret
Harkonnen table to), and its own routes (creating a table, the phones' entries)."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, make_response, redirect, render_template, request, url_for

from ... import games
from ...table.service import EntryError, Forbidden, Stale
from ...table.views import view_for
from ...web import auth
from ...web.form_keys import run_form

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


START_FORM = "sh/new_table.html"
API_BODY_HINT = "Send a JSON object: {\"game\": \"secret-harkonnen\", \"players\": [...]}."


def blueprints() -> list:
    return [bp]


def start_context() -> dict:
    return {}


def settings_from_api(body: dict) -> dict:
    return {k: v for k, v in body.items() if k != "game"}


def renders(state: dict, config: dict) -> None:
    """An import's render check: the replay already checks every Secret Harkonnen entry."""
    return None


def template_globals() -> dict:
    return {}


def template_filters() -> dict:
    return {"sh_lookup": sh_lookup}


def seats(t):
    abort(404)


def board_seat(t):
    return board(t, fragment=True)


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


def table(t, role):
    return no_store(make_response(render_template("sh/table.html", **context(t, role))))


def view(t, role, error=None, status=200):
    if isinstance(error, dict):  # the shell's refusals (undo) come as {"message", "rule"}
        error = error.get("message")
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


def story(t, role):
    """After the game: every role, every vote, every policy hand, what the powers showed."""
    try:
        data = tables().story(t.code)
    except Forbidden as exc:
        return make_response(render_template("sh/story.html", code=t.code, closed=str(exc), d=None), 403)
    return no_store(make_response(render_template("sh/story.html", code=t.code, d=data, closed=None,
                                                  ROLE_NAMES=ROLE_NAMES, POLICY_NAMES=POLICY_NAMES,
                                                  POWER_NAMES=POWER_NAMES)))


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
    def run(once):
        try:
            tables().submit(t.code, role, entry, once=once)
        except Stale:
            return 409, {"error": "The table changed a moment ago: here it is now. Choose again."}
        except Forbidden as exc:
            return 403, {"error": str(exc)}
        except EntryError as exc:
            return 422, {"error": exc.message + (f" ({exc.rule})" if exc.rule else "")}
        return 200, {"recorded": t.revision}

    # sent again with the same key (a retry after a lost answer): the first answer, nothing more
    outcome = run_form(tables(), t.code, role, "sh", run)
    error = outcome.body.get("error")
    if isinstance(error, dict):  # the key was used for another request
        error = error.get("message")
    if request.headers.get("HX-Request") != "true":
        return redirect(url_for("pages.table", code=t.code))
    return view(t, role, error)


def sh_lookup(values, names: dict) -> list:
    """Ids -> their display names (unknown ids as they are)."""
    return [names.get(v, v) for v in values or []]
