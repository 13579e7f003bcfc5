"""Request bounds and response headers: what any browser or script may send, and what every
answer tells the browser.

- **Body size.** ``MAX_CONTENT_LENGTH`` (default 1 MiB) bounds every request body; a table import
  may be larger (``MAX_IMPORT_LENGTH``, default 32 MiB). Beyond it: 413 with a JSON message on the
  API, a short HTML page elsewhere, before the body is read.
- **JSON nesting.** Every JSON body (``request.get_json`` and the import upload) is parsed by
  :func:`loads`, which refuses nesting deeper than ``MAX_JSON_DEPTH`` (32) *before* parsing, so a
  deeply nested body answers 400, never a RecursionError.
- **Headers.** Every response gets ``X-Content-Type-Options: nosniff``, a Content-Security-Policy
  (``script-src 'self'``: no inline script, no inline handlers; ``frame-ancestors 'none'``),
  ``X-Frame-Options: DENY`` and ``Referrer-Policy: same-origin``.
- **Secret key.** Unless the configuration gives ``SECRET_KEY`` (or the environment
  ``COMPANION_SECRET_KEY``: give every process behind one address the same), it is kept in the data
  folder (``secret-key``, readable by its owner only), so the CSRF tokens bound to it survive a restart.
"""
from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path

from flask import Flask, jsonify, make_response, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge

MAX_CONTENT_LENGTH = 1024 * 1024
MAX_IMPORT_LENGTH = 32 * 1024 * 1024
MAX_JSON_DEPTH = 32
IMPORT_ENDPOINTS = ("api.import_table", "pages.import_table")

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
       "frame-ancestors 'none'")
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


class JSONTooDeep(ValueError):
    """A JSON text nested deeper than allowed (refused before it is parsed)."""

    def __init__(self, limit: int):
        super().__init__(f"The JSON is nested too deeply (more than {limit} levels of lists and objects).")
        self.limit = limit


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.S)  # closing quote optional: never backtracks
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str) -> int:
    """The deepest nesting of lists/objects in a JSON text, strings ignored (no parsing)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = deepest = 0
    for ch in brackets:
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def loads(s, limit: int = MAX_JSON_DEPTH, **kwargs):
    """``json.loads`` that refuses deep nesting before parsing (ValueError subclasses only)."""
    if isinstance(s, (bytes, bytearray)):
        s = bytes(s).decode("utf-8")  # UnicodeDecodeError is a ValueError
    if s.count("[") + s.count("{") > limit and json_depth(s) > limit:
        raise JSONTooDeep(limit)
    try:
        return json.loads(s, **kwargs)
    except RecursionError:  # belt and braces: never a 500
        raise JSONTooDeep(limit) from None


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON provider with the depth check on every parsed request body."""

    def loads(self, s, **kwargs):
        return loads(s, **kwargs)


def wants_json() -> bool:
    path = request.path or ""
    return path.startswith("/api/") or request.is_json or (
        request.accept_mimetypes.best == "application/json")


def too_large(exc: RequestEntityTooLarge):
    limit = request.max_content_length or 0
    message = (f"That request is too large: the server accepts up to {limit // 1024} KB"
               + (" for an import." if request.endpoint in IMPORT_ENDPOINTS else "."))
    if wants_json():
        response = make_response(jsonify(error={"message": message, "rule": None}), 413)
    else:
        response = make_response(f"<!doctype html><title>Too large</title><p>{message}</p>", 413)
        response.headers["Content-Type"] = "text/html; charset=utf-8"
    return response


def bad_json(exc: JSONTooDeep):
    if wants_json():
        return make_response(jsonify(error={"message": str(exc), "rule": None}), 400)
    return make_response(f"<!doctype html><title>Bad request</title><p>{exc}</p>", 400)


def bound_body() -> None:
    """Imports may be larger; any body announced larger than allowed is refused at once (413),
    before credentials are looked at or a byte of it is read."""
    if request.endpoint in IMPORT_ENDPOINTS:
        from flask import current_app
        request.max_content_length = current_app.config["MAX_IMPORT_LENGTH"]
        request.max_form_memory_size = current_app.config["MAX_IMPORT_LENGTH"]
    limit = request.max_content_length
    if limit is not None and (request.content_length or 0) > limit:
        raise RequestEntityTooLarge()


def add_headers(response):
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def secret_key(data_dir: Path) -> str:
    """The app's secret, kept in the data folder so CSRF tokens survive a restart."""
    path = Path(data_dir) / "secret-key"
    try:
        key = path.read_text().strip()
        if len(key) >= 32:
            return key
    except OSError:
        pass
    key = secrets.token_hex(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(key)
    except OSError:  # a read-only folder: a per-process secret still works until a restart
        pass
    return key


def install(app: Flask) -> None:
    """Bounds, the JSON provider, the headers and the secret key for ``app``."""
    app.config.setdefault("MAX_CONTENT_LENGTH", MAX_CONTENT_LENGTH)
    if app.config.get("MAX_CONTENT_LENGTH") is None:
        app.config["MAX_CONTENT_LENGTH"] = MAX_CONTENT_LENGTH
    app.config.setdefault("MAX_IMPORT_LENGTH", MAX_IMPORT_LENGTH)
    if not app.config.get("MAX_FORM_MEMORY_SIZE"):
        app.config["MAX_FORM_MEMORY_SIZE"] = app.config["MAX_CONTENT_LENGTH"]
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ.get("COMPANION_SECRET_KEY") or secret_key(app.config["DATA_DIR"])
    app.json = BoundedJSONProvider(app)
    app.before_request(bound_body)
    app.register_error_handler(RequestEntityTooLarge, too_large)
    app.register_error_handler(JSONTooDeep, bad_json)
    app.after_request(add_headers)


def read_json():
    """The request's JSON body (None when absent, not JSON or malformed); too deep: 400."""
    if not request.is_json:
        return None
    data = request.get_data(cache=True)
    if not data:
        return None
    try:
        return loads(data)
    except JSONTooDeep:
        raise
    except ValueError:
        return None
