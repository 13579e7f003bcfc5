"""Who is asking: bearer tokens for scripts, an HttpOnly cookie for phones; CSRF for cookies.

A phone's seat credential lives in the cookie ``seat_<CODE>`` (HttpOnly, SameSite=Lax, no Secure
flag because a table's LAN runs plain http). Cookie-authenticated writes must also carry the CSRF
token (double submit: the ``csrf`` cookie and the ``X-CSRF-Token`` header or ``csrf_token`` form
field must match). Bearer-token API calls are exempt: a browser never adds that header on its own.
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


def csrf_token() -> str:
    """The CSRF token for this browser (created on first use, set as a cookie after the request)."""
    token = getattr(g, "csrf_token", None)
    if token is None:
        token = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)
        g.csrf_token = token
    return token


def set_csrf_cookie(response):
    token = getattr(g, "csrf_token", None)
    if token and request.cookies.get(CSRF_COOKIE) != token:
        response.set_cookie(CSRF_COOKIE, token, httponly=True, samesite="Lax", secure=False, max_age=SEAT_MAX_AGE)
    return response


def require_csrf() -> None:
    cookie = request.cookies.get(CSRF_COOKIE)
    sent = request.headers.get(CSRF_HEADER) or request.form.get("csrf_token")
    if not cookie or not sent or not hmac.compare_digest(cookie, sent):
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
