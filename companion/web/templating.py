"""The app's Jinja environment: templates write ``s.revision`` on plain dicts (a seat's view is
JSON-like data), and Jinja's own ``getattr`` tries the attribute first, so every such lookup
raised and caught an ``AttributeError`` before reading the key. Here a dict is read by key first.

A name that is also a dict method (``x.items``, ``s.get`` ...) keeps Jinja's meaning (the method),
so no template changes meaning; a missing key falls back to Jinja's rules (attribute, then
undefined), exactly as before.

Templates are kept in a plain dict (``cache_size=-1``), not Jinja's default LRU of 400: there are
far fewer template files than that, and the LRU takes a lock and walks a deque on every
``get_template`` (every ``include`` and ``import``, in loops too), which under a busy server's
worker threads was the largest single cost of a render.
"""
from __future__ import annotations

from flask.templating import Environment

DICT_ATTRIBUTES = frozenset(dir(dict))


class CompanionEnvironment(Environment):
    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return Environment.getattr(self, obj, attribute)


def install(app) -> None:
    """Before anything touches ``app.jinja_env`` (it is made on first use)."""
    assert "jinja_env" not in app.__dict__, "install the environment before the first template"
    app.jinja_environment = CompanionEnvironment
    app.jinja_options = {**app.jinja_options, "cache_size": -1}
