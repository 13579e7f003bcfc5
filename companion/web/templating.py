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

An ``include`` of a list of names (most specific first) remembers which one it found, so the
names before it are not searched for again on every render.

A template's globals are a plain dict (Jinja's own are a ``ChainMap`` over the environment's): every
render, ``include`` and ``import`` made a set of them and took set differences through the
``ChainMap``'s pure-Python methods (about a tenth of a view's render). A change to the environment's
globals after templates were loaded drops the loaded ones, so they still see it.
"""
from __future__ import annotations

from flask.templating import Environment

DICT_ATTRIBUTES = frozenset(dir(dict))
SELECTED_KEPT = 4096  # lists of names whose found template is remembered (phase x seat: far fewer)


class _Globals(dict):
    """The environment's globals: a change drops the templates loaded (each holds a flat copy)."""

    def __init__(self, values, env):
        super().__init__(values)
        self._env = env

    def _changed(self):
        cache = self._env.cache
        if cache:
            cache.clear()

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self._changed()

    def __delitem__(self, key):
        super().__delitem__(key)
        self._changed()

    def update(self, *args, **kwargs):
        super().update(*args, **kwargs)
        self._changed()

    def setdefault(self, key, default=None):
        value = super().setdefault(key, default)
        self._changed()
        return value

    def pop(self, *args):
        value = super().pop(*args)
        self._changed()
        return value

    def popitem(self):
        item = super().popitem()
        self._changed()
        return item

    def clear(self):
        super().clear()
        self._changed()


class CompanionEnvironment(Environment):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.globals = _Globals(self.globals, self)
        self._selected: dict = {}  # (names, parent) -> the name select_template found

    def select_template(self, names, parent=None, globals=None):
        """Jinja's ``select_template`` (``{% include [a, b, c] %}``), remembering which name of a list
        was found: the names before it are not looked for again (each was a search of the template
        folders and an exception, on every render of the phase card). Not while templates reload."""
        if self.auto_reload or not isinstance(names, (list, tuple)) or not all(type(n) is str for n in names):
            return super().select_template(names, parent, globals)
        key = (tuple(names), parent)
        found = self._selected.get(key)
        if found is not None:
            return self.get_template(found, parent, globals)
        template = super().select_template(names, parent, globals)
        if len(self._selected) >= SELECTED_KEPT:
            self._selected.clear()
        self._selected[key] = template.name
        return template

    def make_globals(self, d):
        return {**self.globals, **d} if d else dict(self.globals)

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
