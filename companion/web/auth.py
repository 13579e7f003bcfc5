"""Who is asking: bearer tokens for scripts, an HttpOnly cookie for phones; CSRF for cookies.

A phone's seat credential lives in the cookie ``seat_<CODE>`` (HttpOnly, SameSite=Lax, no Secure
flag because a table's LAN runs plain http). Cookie-authenticated writes must also carry the CSRF
token in the ``X-CSRF-Token`` header or the ``csrf_token`` form field. The token is bound to the
credential: it is an HMAC, with the app's secret key, of the seat credential this browser holds
for the table in the URL; where the browser holds no seat yet (the start page, the join page) it
is bound to the browser's random ``csrf`` cookie instead. A token taken from one seat's page is
refused for another seat, and a token cannot be planted by setting a cookie. Bearer-token API
calls are exempt: a browser never adds that header on its own.
"""
from __future__ import annotations

import hmac
import secrets

from flask import abort, current_app, g, jsonify, make_response, request

CSRF_COOKIE = "csrf"
CSRF_HEADER = "X-CSRF-Token"
SEAT_MAX_AGE = 3 * 24 * 3600


def seat_cookie(code: str) -> str:
    return f"seat_{code.upper()}"


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip() or None
    return None


def browser_id() -> str:
    """This browser's random id (the ``csrf`` cookie; created on first use, set after the request)."""
    value = getattr(g, "browser_id", None)
    if value is None:
        value = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)
        g.browser_id = value
    return value


def csrf_value(secret: str | bytes, credential: str) -> str:
    """The CSRF token bound to ``credential`` (a seat credential or a browser id)."""
    key = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(key, b"csrf:" + credential.encode(), "sha256").hexdigest()[:43]


def _table_code(code: str | None) -> str | None:
    if code:
        return code
    args = request.view_args or {}
    return args.get("code") or request.args.get("table") or None


def csrf_token(code: str | None = None) -> str:
    """The CSRF token for this browser at table ``code`` (default: the table in the URL)."""
    code = _table_code(code)
    seat = request.cookies.get(seat_cookie(code)) if code else None
    return csrf_value(current_app.config["SECRET_KEY"], seat or browser_id())


def set_csrf_cookie(response):
    value = getattr(g, "browser_id", None)
    if value and request.cookies.get(CSRF_COOKIE) != value:
        response.set_cookie(CSRF_COOKIE, value, httponly=True, samesite="Lax", secure=False, max_age=SEAT_MAX_AGE)
    return response


def require_csrf() -> None:
    """Refuse (403) a cookie-authenticated write without the token bound to its credential."""
    code = (request.view_args or {}).get("code")
    seat = request.cookies.get(seat_cookie(code)) if code else None
    credential = seat or request.cookies.get(CSRF_COOKIE)
    sent = request.headers.get(CSRF_HEADER) or request.form.get("csrf_token")
    expected = csrf_value(current_app.config["SECRET_KEY"], credential) if credential else None
    if not expected or not sent or not hmac.compare_digest(expected, sent):
        abort(make_response(jsonify(error={"message": "Missing or wrong CSRF token: reload the page.",
                                           "rule": None}), 403))


def seat_role(code: str, *, api: bool) -> tuple[str | None, str | None]:
    """(role, via) for this request at table ``code``; via is 'bearer' or 'cookie'."""
    tables = current_app.extensions["tables"]
    token = bearer_token()
    if token:
        return tables.role_for(code, token), "bearer"
    token = request.cookies.get(seat_cookie(code))
    if token:
        return tables.role_for(code, token), "cookie"
    return None, None


def set_seat_cookie(response, code: str, token: str):
    response.set_cookie(seat_cookie(code), token, httponly=True, samesite="Lax", secure=False,
                        max_age=SEAT_MAX_AGE, path="/")
    return response
