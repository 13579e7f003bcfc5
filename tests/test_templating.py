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


def test_globals_are_flat_and_a_late_global_still_reaches_loaded_templates(app):
    env = app.jinja_env
    with app.test_request_context("/"):
        page = env.from_string("{{ csrf_token is defined }}")
        assert type(page.globals) is dict  # no ChainMap walked in Python on every render
        assert page.render() == "True"
        env.get_template("dune/view.html")  # a template loaded from the cache, then a global added
        assert env.cache
        env.globals["late_greeting"] = lambda: "hello"
        assert not env.cache  # the loaded templates are dropped: they load again with it
        assert render_template_string("{{ late_greeting() }}") == "hello"
        del env.globals["late_greeting"]
        assert render_template_string("{{ late_greeting is defined }}") == "False"


def test_an_include_of_a_list_looks_for_the_names_before_the_one_found_only_once(app):
    """The phase card includes the most specific file first (``<phase>-<seat>.html``, then
    ``<phase>.html``, then ``default.html``): which one was found is remembered, so the missing
    names are not searched for again on every render; the page is the same."""
    env = app.jinja_env
    looked: list[str] = []
    real = env.loader.get_source

    def spy(environment, name):
        looked.append(name)
        return real(environment, name)

    env.loader.get_source = spy
    try:
        source = ('{% include ["dune/phases/nowhere-x.html", "dune/phases/also-nowhere.html", '
                  '"dune/phases/default.html"] %}')
        with app.test_request_context("/"):
            first = env.from_string(source).render(s={"phase": "storm"}, role="x", code="C")
            again = [env.from_string(source).render(s={"phase": "storm"}, role="x", code="C") for _ in range(3)]
    finally:
        env.loader.get_source = real
    assert again == [first] * 3
    assert looked.count("dune/phases/nowhere-x.html") == 1 and looked.count("dune/phases/also-nowhere.html") == 1
