"""Rules search on phones and in the API; permanent pages /rules/<id>; "show to table";
learn-by-playing lessons at /learn, /learn/<ruleset>, /learn/<ruleset>/<lesson>."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, make_response, render_template, request
from markupsafe import Markup

from .. import games
from ..search.corpus import RULESET_NAMES, RULESETS, TAG_GROUPS
from ..search.vocabulary import RULESET_SHORT
from . import auth
from .markdown import render_markdown

bp = Blueprint("rules", __name__)

MAX_LIMIT = 50

def search():
    return current_app.extensions["search"].get()


def _ruleset() -> str | None:
    """``ruleset=`` (``all`` or empty: every ruleset); without it, the table's game when asked
    from a table context (``table=``), else every ruleset."""
    if "ruleset" in request.args:
        r = (request.args.get("ruleset") or "").strip().lower()
        if r in ("", "all"):
            return None
        if any(x.strip() not in RULESETS for x in r.split(",")):
            abort(make_response(jsonify(error={
                "message": f"Unknown ruleset {r!r}: use {', '.join(RULESETS)} or all.", "rule": None}), 422))
        return r
    code = request.args.get("table")
    if not code:
        return None
    t = current_app.extensions["tables"].table(code)
    if t is None:  # an unknown table: the default game's rules
        return games.get(None).rulesets({})
    return games.of_config(t.config).rulesets(t.config)


def facets() -> list[dict]:
    """The search filters the games' entries carry (each game's ``rule_filters``), e.g. Dune's
    ``faction`` and ``phase``: ``[{"name", "label", "any", "choices": [(id, label)]}]``."""
    out: dict = {}
    for gid in games.game_ids():
        for f in games.get(gid).rule_filters:
            out.setdefault(f["name"], f)
    return list(out.values())


def _filters() -> dict:
    """The filters asked for (``?faction=atreides``...), each checked against its facet's ids."""
    chosen = {}
    for f in facets():
        value = request.args.get(f["name"]) or None
        ids = [c for c, _ in f["choices"]]
        if value and value not in ids:
            abort(make_response(jsonify(error={"message": f"Unknown {f['name']} {value!r}: use {', '.join(ids)}.",
                                               "rule": None}), 422))
        chosen[f["name"]] = value
    return chosen


def _limit(default: int) -> int:
    try:
        n = int(request.args.get("limit", default))
    except ValueError:
        abort(make_response(jsonify(error={"message": "limit: a whole number from 1 to 50.", "rule": None}), 422))
    return max(1, min(MAX_LIMIT, n))


def hit_dict(h) -> dict:
    return {"id": h.id, "title": h.title, "snippet": h.snippet, "source": h.source, "url": h.url,
            "ruleset": h.ruleset, "ruleset_name": RULESET_NAMES.get(h.ruleset, h.ruleset)}


@bp.get("/api/rules/search")
def api_search():
    q = (request.args.get("q") or "").strip()
    chosen = _filters()
    ruleset = _ruleset()
    limit = _limit(10)
    s = search()
    hits, together = s.answer(q, limit=limit, ruleset=ruleset, **chosen) if q else ([], None)
    body = {"query": q, "ruleset": ruleset or "all", "results": [hit_dict(h) for h in hits],
            "together": [hit_dict(h) for h in together] if together else []}
    if q and not hits:
        body["did_you_mean"] = s.suggest(q, ruleset=ruleset)
    return jsonify(body)


def entry_dict(e) -> dict:
    return {"id": e.id, "title": e.title, "source": e.source, "kind": e.kind,
            **{g.key: list(getattr(e, g.key)) for g in TAG_GROUPS},  # the corpus's tag lists, e.g. "phases"
            "aliases": list(e.aliases), "text": e.text, "related": list(e.related),
            "url": f"/rules/{e.id}", "ruleset": e.ruleset,
            "ruleset_name": RULESET_NAMES.get(e.ruleset, e.ruleset)}


@bp.get("/api/rules/<rule_id>")
def api_rule(rule_id):
    e = search().get(rule_id)
    if e is None:
        return make_response(jsonify(error={"message": f"No rule entry {rule_id!r}.", "rule": None}), 404)
    return jsonify(entry_dict(e))


@bp.get("/rules")
def rules_page():
    q = (request.args.get("q") or "").strip()
    chosen = _filters()
    ruleset = _ruleset()
    s = search()
    hits, together = s.answer(q, limit=15, ruleset=ruleset, **chosen) if q else ([], None)
    suggestion = s.suggest(q, ruleset=ruleset) if q and not hits else None
    ctx = dict(q=q, hits=hits, together=together, suggestion=suggestion, facets=facets(), chosen=chosen,
               code=request.args.get("table"), ruleset=ruleset, rulesets=s.rulesets(),
               ruleset_names=RULESET_NAMES, ruleset_short=RULESET_SHORT)
    if request.headers.get("HX-Request") and request.headers.get("HX-Target") == "results":
        return render_template("partials/rule_results.html", **ctx)
    return render_template("rules.html", **ctx)


@bp.get("/rules/<rule_id>")
def rule_page(rule_id):
    s = search()
    e = s.get(rule_id)
    if e is None:
        abort(404)
    related = [r for r in (s.get(x) for x in e.related) if r is not None]
    backlinks = [x for x in s.entries() if e.id in x.related and x.id not in e.related][:12]
    code = request.args.get("table")
    can_push = False
    if code:
        role, _ = auth.seat_role(code, api=False)
        can_push = role not in (None, "board")
    return render_template("rule.html", e=e, body=Markup(render_markdown(e.text)), related=related,
                           backlinks=backlinks, code=code, can_push=can_push,
                           ruleset_name=RULESET_NAMES.get(e.ruleset, e.ruleset))


# ---------------------------------------------------------------------------------------------
# learn by playing: /learn, /learn/<ruleset>, /learn/<ruleset>/<lesson>[?pick=N]


def lesson_sets() -> dict:
    """The lesson sets (companion/data/lessons/*.json), loaded and validated once per app:
    a malformed file or a rule link that does not resolve is logged and that set left out."""
    got = current_app.extensions.get("lessons")
    if got is None:
        from ..search.lessons import check_rules, load_lesson_sets

        sets, problems = load_lesson_sets(current_app.config.get("LESSONS_DIR"))
        entries = search().entries()
        for rs_id, ls in list(sets.items()):
            bad = check_rules([ls], entries)
            if bad:
                problems += bad
                del sets[rs_id]
        for p in problems:
            current_app.logger.error("lessons: %s", p)
        got = current_app.extensions["lessons"] = sets
    return got


@bp.get("/learn")
def learn_index():
    return render_template("learn.html", sets=list(lesson_sets().values()), ruleset_names=RULESET_NAMES)


@bp.get("/learn/<ruleset>")
def learn_set(ruleset):
    ls = lesson_sets().get(ruleset)
    if ls is None:
        abort(404)
    return render_template("learn_set.html", ls=ls, ruleset_name=RULESET_NAMES.get(ruleset, ruleset))


@bp.get("/learn/<ruleset>/<lesson_id>")
def learn_lesson(ruleset, lesson_id):
    ls = lesson_sets().get(ruleset)
    lesson = ls.get(lesson_id) if ls else None
    if lesson is None:
        abort(404)
    pick = None
    raw = request.args.get("pick")
    if raw is not None:
        try:
            pick = int(raw)
        except ValueError:
            pick = None
        if pick is None or not 1 <= pick <= len(lesson.choices):
            abort(make_response(render_template(
                "learn_lesson.html", ls=ls, lesson=lesson, pick=None, number=ls.lessons.index(lesson) + 1,
                next_lesson=ls.next_after(lesson.id), ruleset_name=RULESET_NAMES.get(ruleset, ruleset),
                titles=_rule_titles(lesson),
                error=f"Choice {raw!r} is not one of this lesson's {len(lesson.choices)} choices: tap one below."),
                400))
    ctx = dict(ls=ls, lesson=lesson, pick=pick, number=ls.lessons.index(lesson) + 1,
               next_lesson=ls.next_after(lesson.id), ruleset_name=RULESET_NAMES.get(ruleset, ruleset),
               titles=_rule_titles(lesson), error=None)
    if request.headers.get("HX-Request") and request.headers.get("HX-Target") == "lesson":
        return render_template("learn_lesson_part.html", **ctx)
    return render_template("learn_lesson.html", **ctx)


def _rule_titles(lesson) -> dict:
    s = search()
    out = {}
    for c in lesson.choices:
        for r in c.rules:
            e = s.get(r)
            out[r] = e.title if e else r
    return out
