"""The app's Jinja environment reads dicts by key first (no exception per lookup) without changing
what any template means: dict methods stay methods, missing keys stay undefined."""
from __future__ import annotations

from flask import render_template_string


def test_dicts_read_by_key_and_methods_keep_their_meaning(app):
    with app.test_request_context("/"):
        out = render_template_string(
            "{{ d.revision }}|{{ d.get('x', 7) }}|{% for k, v in d.items() %}{{ k }}{% endfor %}|"
            "{{ d.missing is defined }}|{{ d.items is callable }}|{{ d.values is callable }}",
            d={"revision": 3, "items": "not the method", "values": 1})
    assert out == "3|7|revisionitemsvalues|False|True|True"


def test_objects_keep_jinja_rules(app):
    class Thing:
        x = 5

    with app.test_request_context("/"):
        assert render_template_string("{{ t.x }} {{ t.y is defined }}", t=Thing()) == "5 False"
