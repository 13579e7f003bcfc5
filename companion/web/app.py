"""The Flask app: configuration, the table service, search, blueprints."""
from __future__ import annotations

import secrets
import threading
from pathlib import Path

from flask import Flask

from ..paths import PACKAGE, default_data_dir, shipped_dir
from ..table.service import TableService
from ..table.store import Store
from . import auth


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


def build_app(config: dict | None = None) -> Flask:
    app = Flask(
        "companion",
        template_folder=str(shipped_dir("templates")),
        static_folder=str(PACKAGE / "static"),
        static_url_path="/static",
    )
    app.config.update(DATA_DIR=None, TESTING=False, PUBLIC_URL=None, SECRET_KEY=secrets.token_hex(32),
                      SEND_FILE_MAX_AGE_DEFAULT=3600, JSON_SORT_KEYS=False)
    if config:
        app.config.update(config)
    data_dir = Path(app.config["DATA_DIR"] or default_data_dir())
    data_dir.mkdir(parents=True, exist_ok=True)
    app.config["DATA_DIR"] = str(data_dir)

    app.extensions["tables"] = TableService(Store(data_dir / "companion.sqlite3"))
    app.extensions["search"] = LazySearch(data_dir / "search-index")

    from . import api, battle_api, live, pages, rules_web
    app.register_blueprint(api.bp)
    app.register_blueprint(battle_api.bp)
    app.register_blueprint(live.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(rules_web.bp)

    app.after_request(auth.set_csrf_cookie)
    app.jinja_env.globals["csrf_token"] = auth.csrf_token
    from . import filters
    filters.register(app)
    pages.setup(app)  # compression, styled 404
    return app
