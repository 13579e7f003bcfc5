"""Shared fixtures and helpers for the table server tests.

Fixtures: ``app`` (a fresh app on a tmp data folder), ``client``, ``table6`` (a six-faction table
created through the API), ``phone`` (a factory for browser-like test clients that joined a seat
through the join page), ``live_server`` (a factory starting the real server as a subprocess),
``backend`` / ``database`` (which store the app and the live servers use, see below).

Backends: every test runs on the embedded SQLite store. With ``COMPANION_TEST_DATABASE`` set to
a PostgreSQL URL (``.ci/run`` sets it), the store-interface tests (``test_store*.py``) and the
API, restart and concurrency tests run on BOTH backends in the same run (ids ``[sqlite]`` and
``[postgresql]``), each test in a fresh schema of that database that is dropped afterwards.
``COMPANION_TEST_BACKEND=postgresql`` runs every other test on PostgreSQL too. Without a
PostgreSQL URL the ``[postgresql]`` cases are skipped, except under ``CI=true``, where a missing
PostgreSQL fails them.

Helpers (import them with ``from conftest import act, create_table, ...``):
``create_table``, ``bearer``, ``state``, ``act``, ``join_seat``, ``csrf``, ``free_port``,
``LiveServer``.
"""
from __future__ import annotations

import json
import re
import os
import uuid
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from companion import create_app

ROOT = Path(__file__).resolve().parents[1]
SIX = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]
ALL_NINE = SIX + ["ecaz", "moritani", "tleilaxu"]


# -- which store: SQLite (default) or PostgreSQL -----------------------------------------------------

PG_URL = os.environ.get("COMPANION_TEST_DATABASE", "").strip() or None
DEFAULT_BACKEND = os.environ.get("COMPANION_TEST_BACKEND", "sqlite").strip() or "sqlite"
BACKENDS = ("sqlite", "postgresql")
# modules whose tests run on both backends in one run (the store interface, the API, restarts)
BOTH_BACKENDS = ("test_store", "test_api", "test_restart", "test_concurrency", "test_streams")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames and metafunc.module.__name__.startswith(BOTH_BACKENDS):
        metafunc.parametrize("backend", BACKENDS, indirect=True)


def with_schema(url: str, schema: str) -> str:
    return url + ("&" if "?" in url else "?") + f"schema={schema}"


@pytest.fixture()
def backend(request) -> str:
    """'sqlite' or 'postgresql' (skipped without a PostgreSQL server, failed under CI)."""
    name = getattr(request, "param", DEFAULT_BACKEND)
    if name == "postgresql" and not PG_URL:
        message = "no PostgreSQL server: set COMPANION_TEST_DATABASE=postgresql://... (.ci/run does)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return name


@pytest.fixture()
def database(backend):
    """The ``DATABASE`` setting for the app and ``--database`` for live servers: None (SQLite in
    the data folder) or a PostgreSQL URL with a fresh schema, dropped after the test."""
    if backend == "sqlite":
        yield None
        return
    url = with_schema(PG_URL, "t_" + uuid.uuid4().hex[:16])
    yield url
    from companion.table.store import open_store
    store = open_store(url)
    try:
        store.drop_schema()
    finally:
        store.close()


def close_app(app) -> None:
    tables = app.extensions.get("tables")
    store = getattr(tables, "store", None)
    if store is not None and hasattr(store, "close"):
        store.close()


# -- the app and its test client ------------------------------------------------------------------

@pytest.fixture()
def app(tmp_path, database):
    application = create_app({"DATA_DIR": str(tmp_path / "data"), "DATABASE": database, "TESTING": True})
    yield application
    close_app(application)


@pytest.fixture()
def client(app):
    return app.test_client()


# -- API helpers ----------------------------------------------------------------------------------

@dataclass
class TableInfo:
    code: str
    host: str                       # the host token
    seats: dict[str, str]           # faction -> seat token
    join_url: str
    body: dict = field(default_factory=dict)

    @property
    def factions(self) -> list[str]:
        return list(self.seats)

    def token(self, role: str) -> str:
        return self.host if role == "host" else self.seats[role]


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def create_table(client, factions=None, turns=10, options=None) -> TableInfo:
    body = {"factions": list(factions or SIX), "turns": turns, "options": options or {}}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.get_data(as_text=True)
    d = r.get_json()
    return TableInfo(d["table"], d["host_token"], d["seats"], d["join_url"], d)


def state(client, code: str, token: str) -> dict:
    r = client.get(f"/api/tables/{code}/state", headers=bearer(token))
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()


def revision(client, code: str, token: str) -> int:
    return state(client, code, token)["revision"]


def act(client, code: str, credential: str, /, *, expect: int | None = 200, **entry):
    """Make an entry through the JSON API with the current revision (read first, unless the entry
    gives one). ``expect`` asserts the status (None: no check). Returns the response.
    Use ``**{"from": "tanks"}`` for field names that are Python keywords."""
    if "revision" not in entry:
        entry["revision"] = revision(client, code, credential)
    r = client.post(f"/api/tables/{code}/actions", json=entry, headers=bearer(credential))
    if expect is not None:
        assert r.status_code == expect, r.get_data(as_text=True)
    return r


def undo(client, code: str, token: str, *, expect: int | None = 200):
    r = client.post(f"/api/tables/{code}/undo", json={}, headers=bearer(token))
    if expect is not None:
        assert r.status_code == expect, r.get_data(as_text=True)
    return r


@pytest.fixture()
def table6(client) -> TableInfo:
    """A six-faction table (atreides harkonnen fremen emperor guild bg), made through the API."""
    return create_table(client, SIX)


# -- phones (cookie-authenticated browser-like clients) ---------------------------------------------

def csrf(client, code: str | None = None) -> str:
    """The CSRF token of a test client, as its pages carry it: bound to its seat credential at
    table ``code`` (default: its only seat), else to its ``csrf`` cookie (set by any page)."""
    from companion.web.auth import csrf_value
    seats = {key[2][5:]: c.value for key, c in client._cookies.items() if key[2].startswith("seat_")}
    if code is None and len(seats) == 1:
        code = next(iter(seats))
    credential = seats.get(code.upper()) if code else None
    if credential is None:
        cookie = client.get_cookie("csrf")
        assert cookie is not None, "no csrf cookie yet: GET a page first"
        credential = cookie.value
    return csrf_value(client.application.config["SECRET_KEY"], credential)


def join_seat(app, code: str, seat: str):
    """A new phone (test client) that opens the join page and takes ``seat`` (a faction or
    'board'). Returns the client; its seat cookie is set."""
    phone = app.test_client()
    r = phone.get(f"/t/{code}/join")
    assert r.status_code == 200
    r = phone.post(f"/t/{code}/join", data={"seat": seat, "csrf_token": csrf(phone)})
    assert r.status_code == 302, r.get_data(as_text=True)
    assert phone.get_cookie(f"seat_{code}") is not None
    return phone


def seat_clients(app, code: str, seats: dict) -> dict:
    """A test client per seat, each carrying that seat's credential cookie (no join page)."""
    out = {}
    for role, token in seats.items():
        c = app.test_client()
        c.set_cookie(f"seat_{code}", token)
        out[role] = c
    return out


@pytest.fixture()
def phone(app):
    """``phone(code, seat)`` -> a test client that joined that seat through the join page."""
    return lambda code, seat: join_seat(app, code, seat)


# -- the real server as a subprocess ------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """``python -m companion --host 127.0.0.1 --port P --data DIR`` in a subprocess."""

    def __init__(self, data_dir: Path, port: int | None = None, database: str | None = None,
                 args: tuple[str, ...] = ()):
        self.data_dir = Path(data_dir)
        self.args = tuple(args)
        self.port = port or free_port()
        self.database = database
        self.proc: subprocess.Popen | None = None
        self.log_path = self.data_dir.parent / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> "LiveServer":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        log = open(self.log_path, "ab")
        env.pop("COMPANION_DATABASE", None)
        extra = ["--database", self.database] if self.database else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "--host", "127.0.0.1", "--port", str(self.port),
             "--data", str(self.data_dir), *self.args] + extra,
            cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log_path.read_text()}")
            try:
                with urllib.request.urlopen(self.url + "/api/board", timeout=1) as r:
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"server did not start in {timeout}s:\n{self.log_path.read_text()}")

    def kill9(self) -> None:
        """SIGKILL at once (no clean shutdown)."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.kill9()

    # tiny HTTP client (stdlib only)
    def request(self, method: str, path: str, body=None, token: str | None = None, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")


@pytest.fixture()
def live_server(tmp_path, database):
    """``live_server(data_dir=None)`` -> a started LiveServer on the test's backend (every one
    shares the test's database); every one is stopped at teardown."""
    started: list[LiveServer] = []

    def start(data_dir: Path | None = None, port: int | None = None, args: tuple[str, ...] = ()) -> LiveServer:
        s = LiveServer(data_dir or tmp_path / "server-data", port, database, args).start()
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


def shows_number(text: str, n: int) -> bool:
    """``n`` as a number of its own in page text: not inside another number, nor the minutes of a
    clock time (the latest entries are stamped 17:53), nor a piece of a token (hex ``a53f`` or
    URL-safe ``Xq53_b``: after a letter, digit, ``_`` or ``-``, or before a lower-case letter). A
    capital right after it is a next word run together by ``inner_text`` ("Atreides 17CHOAM 23").
    Secret-number checks use it."""
    return re.search(rf"(?<![\w.#:-]){n}(?![\da-z_.:])", text) is not None


# -- headless Chromium (Debian's package, driven by Playwright; never a downloaded browser) ---------

CHROMIUM = "/usr/bin/chromium"
# the marks of a browser journey module: ``pytestmark = BROWSER``
BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian chromium is not installed at {CHROMIUM}"),
]
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True,
             user_agent="Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
                        "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")


def seat_phone(browser, server, factions, seat: str = "atreides"):
    """A new table of ``factions`` on a live ``server`` and ``seat``'s phone for it (390x844, the seat's
    cookie set): (the table as created, the browser context, a page not yet opened)."""
    status, made = server.request("POST", "/api/tables", {"factions": list(factions)})
    assert status == 201, made
    ctx = browser.new_context(**PHONE)
    ctx.add_cookies([{"name": f"seat_{made['table']}", "value": made["seats"][seat], "url": server.url}])
    return made, ctx, ctx.new_page()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


# -- the per-seat views are a strict allowlist: a state key no game declared fails the test ---------

@pytest.fixture(autouse=True)
def _no_undeclared_state_keys():
    from companion.table import views
    views.UNDECLARED.clear()
    yield
    found = sorted(views.UNDECLARED)
    views.UNDECLARED.clear()
    if found:
        pytest.fail(f"state keys declared neither public nor private by their game (add them to the game's "
                    f"public_keys or private_keys): {found}")
