"""Learn-by-playing lessons: the data files, the pages, and a phone journey through a lesson."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from markupsafe import escape

from companion import create_app
from companion.search.corpus import read_corpus
from companion.search.lessons import (
    VERDICTS,
    LessonError,
    check_rules,
    lessons_dir,
    load_lesson_sets,
    parse_lesson_set,
)
from conftest import CHROMIUM, PHONE, LiveServer

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))


@pytest.fixture(scope="module")
def sets():
    got, problems = load_lesson_sets()
    assert problems == []
    return got


@pytest.fixture(scope="module")
def entries():
    return read_corpus(ROOT / "rules_corpus")[0]


# ---------------------------------------------------------------------------------------------
# the data


def test_lesson_files_load_for_imperium_and_kiss(sets):
    assert list(sets) == ["kiss", "imperium"]
    assert len(sets["kiss"].lessons) >= 8
    assert len(sets["imperium"].lessons) >= 8
    assert sorted(p.name for p in lessons_dir().glob("*.json")) == ["imperium.json", "kiss.json"]


def test_every_choice_explains_itself_and_links_rules_that_resolve(sets, entries):
    assert check_rules(sets.values(), entries) == []
    by_id = {e.id: e for e in entries}
    for ls in sets.values():
        for lesson in ls.lessons:
            assert 2 <= len(lesson.choices) <= 3, lesson.id
            for c in lesson.choices:
                assert len(c.explanation) > 20 and c.verdict in VERDICTS, (lesson.id, c.label)
                assert c.rules and all(by_id[r].ruleset == ls.ruleset for r in c.rules)


def test_kiss_lessons_cover_what_newcomers_get_wrong(sets):
    rules = {r for lesson in sets["kiss"].lessons for c in lesson.choices for r in c.rules}
    assert {"kiss-simple-dialing", "base-storm-movement", "guild-payment", "fremen-shipment",
            "kiss-karama", "base-spice-blow"} <= rules


def test_each_lesson_has_a_choice_the_rules_refuse_or_a_trade_off(sets):
    # a lesson where every choice is "good" teaches nothing
    for ls in sets.values():
        for lesson in ls.lessons:
            assert any(c.verdict != "good" for c in lesson.choices), lesson.id


def _good_set() -> dict:
    return {"ruleset": "kiss", "title": "T", "intro": "",
            "lessons": [{"id": "a-b", "title": "A", "situation": "S",
                         "choices": [{"label": "x", "verdict": "good", "explanation": "because", "rules": ["base-storm"]},
                                     {"label": "y", "verdict": "illegal", "explanation": "no", "rules": ["base-storm"]}]}]}


@pytest.mark.parametrize("breakage, message", [
    (lambda d: d["lessons"][0]["choices"].pop(), "2 or 3 choices"),
    (lambda d: d["lessons"][0]["choices"][0].update(explanation=""), "'explanation'"),
    (lambda d: d["lessons"][0]["choices"][0].update(rules=[]), "'rules'"),
    (lambda d: d["lessons"][0]["choices"][1].update(verdict="maybe"), "verdict 'maybe'"),
    (lambda d: d.update(ruleset="monopoly"), "unknown ruleset"),
    (lambda d: d["lessons"].append(dict(d["lessons"][0])), "duplicate id"),
    (lambda d: d["lessons"][0].update(id="Has Spaces"), "lowercase words"),
])
def test_malformed_lesson_data_is_refused_with_the_reason(breakage, message):
    d = _good_set()
    parse_lesson_set(d, "kiss.json")
    breakage(d)
    with pytest.raises(LessonError, match=re.escape(message)):
        parse_lesson_set(d, "kiss.json")


def test_bad_file_is_reported_and_left_out(tmp_path, entries):
    (tmp_path / "kiss.json").write_text(json.dumps(_good_set()))
    (tmp_path / "imperium.json").write_text("{not json")
    got, problems = load_lesson_sets(tmp_path)
    assert list(got) == ["kiss"] and len(problems) == 1 and "imperium.json" in problems[0]
    d = _good_set()
    d["lessons"][0]["choices"][0]["rules"] = ["imp-costs"]  # another game's rule
    assert "belongs to 'imperium'" in check_rules([parse_lesson_set(d)], entries)[0]


# ---------------------------------------------------------------------------------------------
# the pages


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return create_app({"DATA_DIR": str(tmp_path_factory.mktemp("learn")), "TESTING": True}).test_client()


def test_index_lists_both_sets(client):
    html = client.get("/learn").get_data(as_text=True)
    assert 'href="/learn/imperium"' in html and 'href="/learn/kiss"' in html


def test_lesson_page_before_and_after_a_tap(client, sets):
    lesson = sets["imperium"].get("water-before-harvest")
    html = client.get("/learn/imperium/water-before-harvest").get_data(as_text=True)
    assert str(escape(lesson.situation)) in html
    assert html.count('class="button big choice"') == len(lesson.choices)
    assert "Not allowed" not in html  # no verdicts before the tap
    r = client.get("/learn/imperium/water-before-harvest?pick=2")
    html = r.get_data(as_text=True)
    assert r.status_code == 200
    for c in lesson.choices:  # every choice explained, with its rule links
        assert str(escape(c.explanation)) in html
        for rule in c.rules:
            assert f'href="/rules/{rule}"' in html
    assert re.search(r'class="choice-item picked verdict-illegal"', html)
    assert 'id="next-lesson" href="/learn/imperium/deploy-troops"' in html
    for rule in {r for c in lesson.choices for r in c.rules}:
        assert client.get(f"/rules/{rule}").status_code == 200


def test_htmx_tap_returns_only_the_lesson(client):
    r = client.get("/learn/kiss/simple-dialing?pick=1", headers={"HX-Request": "true", "HX-Target": "lesson"})
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "<html" not in html and html.lstrip().startswith('<section id="lesson"')


def test_bad_pick_and_unknown_lessons(client):
    r = client.get("/learn/kiss/simple-dialing?pick=7")
    assert r.status_code == 400 and "tap one below" in r.get_data(as_text=True)
    assert client.get("/learn/kiss/simple-dialing?pick=x").status_code == 400
    assert client.get("/learn/kiss/no-such-lesson").status_code == 404
    assert client.get("/learn/monopoly").status_code == 404


def test_lesson_pages_have_no_inline_scripts(client):
    for url in ("/learn", "/learn/kiss", "/learn/kiss/karama-once", "/learn/kiss/karama-once?pick=1"):
        html = client.get(url).get_data(as_text=True)
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), url
        assert not re.search(r"\son[a-z]+=|hx-on", html), url


# ---------------------------------------------------------------------------------------------
# a newcomer's phone


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian chromium is not installed at {CHROMIUM}")
def test_phone_journey_through_an_imperium_lesson(tmp_path_factory, browser):
    from playwright.sync_api import expect

    srv = LiveServer(tmp_path_factory.mktemp("learn-browser") / "data").start()
    try:
        ctx = browser.new_context(**PHONE)
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.url + "/learn")
        page.get_by_role("link", name="Dune: Imperium").click()
        page.get_by_role("link", name=re.compile("Pay water before harvesting")).click()
        expect(page.locator(".situation")).to_contain_text("You have 1 water")
        choices = page.locator("a.choice")
        expect(choices).to_have_count(3)
        for i in range(3):  # thumb-sized, inside the 390 px screen
            box = choices.nth(i).bounding_box()
            assert box["height"] >= 44 and box["width"] >= 300 and box["x"] + box["width"] <= 390
        page.screenshot(path=str(SHOTS / "learn-imperium-before.png"))
        url_before = page.url
        page.get_by_role("link", name="The Great Flat").click()
        picked = page.locator(".choice-item.picked")
        expect(picked).to_contain_text("Not allowed by the rules")
        expect(picked).to_contain_text("2 water")
        expect(page.locator(".explanation")).to_have_count(3)
        assert page.url.endswith("?pick=2") and url_before != page.url
        page.screenshot(path=str(SHOTS / "learn-imperium-after.png"), full_page=True)
        # the rule link leads to the entry, from the Imperium ruleset
        page.locator(".choice-item.picked .rule-links a").first.click()
        expect(page.locator("h1")).to_contain_text("Harvesting spice")
        expect(page.locator(".source")).to_contain_text("Dune: Imperium")
        page.go_back()
        page.locator("#next-lesson").click()
        expect(page.locator("h1")).to_contain_text("Deploy new and garrisoned troops")
        # and a KISS lesson the same way
        page.goto(srv.url + "/learn/kiss/spice-blow-on-troops")
        page.get_by_role("link", name="14 spice, forces unharmed").click()
        expect(page.locator(".choice-item.picked")).to_contain_text("Good choice")
        page.screenshot(path=str(SHOTS / "learn-kiss-after.png"), full_page=True)
        assert errors == []
        ctx.close()
    finally:
        srv.stop()
