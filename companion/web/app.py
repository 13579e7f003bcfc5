"""The Flask app: configuration, the table service, search, blueprints."""
from __future__ import annotations

import logging
import threading
from pathlib import Path

from flask import Flask, jsonify, render_template, request
from flask.sessions import SessionInterface

from ..paths import PACKAGE, default_data_dir, shipped_dir
from ..table.presence import Presence
from ..table.service import TableService
from ..table.store import StorageUnavailable, open_store
from . import auth, security
from .routing import CompanionFlask

log = logging.getLogger("companion")


class LazySearch:
    """Builds (or opens) the rules index once, on first use or when the server starts."""

    def __init__(self, index_dir: Path):
        self.index_dir = index_dir
        self._search = None
        self._lock = threading.Lock()

    def get(self):
        if self._search is None:
            with self._lock:
                if self._search is None:
                    from ..search import get_search
                    self._search = get_search(index_dir=self.index_dir)
        return self._search

    def warm(self) -> None:
        threading.Thread(target=self.get, name="search-index", daemon=True).start()


def storage_unavailable(exc: StorageUnavailable):
    """A storage fault answers 503 with one sentence and whether a retry can help: JSON for the
    API, a small partial for htmx (the phone shows it in place, its form untouched, with a Retry
    button), a short page otherwise. Nothing was saved, so retrying is always safe."""
    retry = bool(getattr(exc, "retry", True))
    body = {"message": exc.message, "retry": retry}
    headers = {"Cache-Control": "no-store", "Retry-After": "2"} if retry else {"Cache-Control": "no-store"}
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    if request.path.startswith("/api/") or (best == "application/json" and not request.headers.get("HX-Request")):
        return jsonify(body), 503, headers
    template = "partials/storage_error.html" if request.headers.get("HX-Request") else "storage_error.html"
    return render_template(template, method=request.method, **body), 503, headers


class NoSession(SessionInterface):
    """Nothing is kept in Flask's signed-cookie session: a seat is a bearer token (its own cookie or
    header, ``auth.py``) and the CSRF token has its own cookie. Flask's default interface still
    built a signing serializer for every request; this one opens the same empty, unwritable session
    Flask gives an app without a secret key, and saves nothing."""

    def open_session(self, app, request):
        return self.make_null_session(app)

    def save_session(self, app, session, response) -> None:
        return None


def build_app(config: dict | None = None) -> Flask:
    app = CompanionFlask(  # routes remembered: no reference cycle per request (routing.py)
        "companion",
        template_folder=str(shipped_dir("templates")),
        static_folder=str(PACKAGE / "static"),
        static_url_path="/static",
    )
    from . import templating
    templating.install(app)  # dicts read by key first: no exception per lookup
    app.session_interface = NoSession()  # seats are tokens in their own cookies: no signed session to open
    app.config.update(DATA_DIR=None, DATABASE=None, TESTING=False, PUBLIC_URL=None, SECRET_KEY=None,
                      SEND_FILE_MAX_AGE_DEFAULT=3600, JSON_SORT_KEYS=False)
    if config:
        app.config.update(config)
    data_dir = Path(app.config["DATA_DIR"] or default_data_dir())
    data_dir.mkdir(parents=True, exist_ok=True)
    app.config["DATA_DIR"] = str(data_dir)

    store = open_store(app.config["DATABASE"] or data_dir / "companion.sqlite3")
    for line in store.report:  # start-up findings (a damaged file moved aside, ...): one sentence each
        log.warning("%s", line)
    app.extensions["store_report"] = list(store.report)
    app.extensions["tables"] = TableService(store, snapshot_dir=data_dir / "snapshots")
    app.extensions["search"] = LazySearch(data_dir / "search-index")
    app.extensions["presence"] = Presence()  # who holds a live stream (CONTRACTS 3)

    from .. import games
    from . import api, live, metrics, pages, rules_web
    app.register_blueprint(api.bp)
    app.register_blueprint(metrics.bp)
    metrics.install(app)
    app.register_blueprint(live.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(rules_web.bp)
    for gid in games.game_ids():  # each game's own routes, through the game registry
        for blueprint in games.web_of(games.get(gid)).blueprints():
            app.register_blueprint(blueprint)

    security.install(app)  # body limits, bounded JSON, security headers, the persistent secret key
    app.register_error_handler(StorageUnavailable, storage_unavailable)
    app.after_request(auth.set_csrf_cookie)
    app.jinja_env.globals["csrf_token"] = auth.csrf_token
    # how a table came back from a damaged store (the host page says so), or None
    app.jinja_env.globals["store_recovery"] = lambda code: store.recovery.get(code)
    from . import filters
    filters.register(app)
    pages.setup(app)  # compression, styled 404
    return app
