"""The phones' forms land once too: a form's submit carries an ``Idempotency-Key`` header (added by
``static/idempotency.js``: one key per form as rendered and per body, reused by its retries), and
the form routes answer a repeat from the answer kept with the key (``companion.table.once``).

A form route hands ``run_form`` the request's fields and a function that makes the entry
(``once`` passed on to ``TableService.submit``/``undo``) and returns ``(status, outcome)``; the
route renders the outcome, the same way for a first answer and for a repeat (``replayed``): a
repeat of an entry that landed says so ("Already recorded"), it never asks to send it again.
"""
from __future__ import annotations

from flask import abort, make_response, request

from ..table.once import KeyRefused, Once, Outcome, fingerprint, parse_key, run_once


def recorded(state: dict, entry: dict) -> dict:
    """What a form's answer keeps of an entry that landed: its number and its history line."""
    return {"recorded": entry["seq"], "summary": entry["summary"]}


def form_fields() -> dict:
    """The form's fields as sent (repeated fields as lists), without the CSRF token."""
    return {k: request.form.getlist(k) for k in sorted(request.form) if k != "csrf_token"}


def run_form(service, code: str, role: str, kind: str, run, fields: dict | None = None) -> Outcome:
    """Run a form's write once per key. A malformed key is 422; a key reused for another form's
    body answers 422 with one sentence (``{"error": {"message"}}``), nothing changes."""
    try:
        key = parse_key(request.headers.get("Idempotency-Key"))
    except KeyRefused as exc:
        abort(make_response(exc.message, 422))
    once = None if key is None else Once(key, fingerprint(role, kind, form_fields() if fields is None else fields),
                                         recorded)
    try:
        return run_once(service, code, once, run)
    except KeyRefused as exc:
        return Outcome(422, {"error": {"message": exc.message, "rule": None}})
