"""Learn-by-playing lessons: data files ``companion/data/lessons/<ruleset>.json``.

A lesson set (one file per ruleset)::

    {"ruleset": "imperium", "title": "...", "intro": "...",
     "lessons": [{"id": "water-before-harvest", "title": "...", "situation": "...",
                  "choices": [{"label": "...", "verdict": "good", "explanation": "...",
                               "rules": ["imp-harvesting", "imp-costs"]}, ...],
                  "takeaway": "..."}, ...]}

Each lesson has 2 or 3 choices; every choice has a verdict (``VERDICTS``), an explanation and
at least one rule id of the same ruleset (checked against the corpus by :func:`check_rules`).
:func:`load_lesson_sets` validates the shape of every file as it loads it: a malformed file
is reported as a problem and left out, never half-loaded. No third-party dependencies.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from .corpus import RULESETS, Entry

VERDICTS: dict[str, str] = {
    "good": "Good choice",
    "ok": "Legal — a trade-off",
    "weak": "Legal, but weaker",
    "illegal": "Not allowed by the rules",
    "wrong": "That is not how the rules work",
}
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class LessonError(ValueError):
    """A lesson file that does not follow the format."""


@dataclass(frozen=True)
class Choice:
    label: str
    verdict: str
    explanation: str
    rules: tuple[str, ...]

    @property
    def verdict_text(self) -> str:
        return VERDICTS[self.verdict]


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    situation: str
    choices: tuple[Choice, ...]
    takeaway: str = ""


@dataclass(frozen=True)
class LessonSet:
    ruleset: str
    title: str
    intro: str
    lessons: tuple[Lesson, ...]
    filename: str = ""

    def get(self, lesson_id: str) -> Lesson | None:
        return next((x for x in self.lessons if x.id == lesson_id), None)

    def next_after(self, lesson_id: str) -> Lesson | None:
        ids = [x.id for x in self.lessons]
        i = ids.index(lesson_id) if lesson_id in ids else -1
        return self.lessons[i + 1] if 0 <= i < len(ids) - 1 else None


def lessons_dir() -> Path:
    """``companion/data/lessons`` (``COMPANION_LESSONS`` overrides it)."""
    env = os.environ.get("COMPANION_LESSONS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "data" / "lessons"


def _text(obj: dict, key: str, where: str, required: bool = True) -> str:
    v = obj.get(key, "")
    if not isinstance(v, str) or (required and not v.strip()):
        raise LessonError(f"{where}: '{key}' must be a non-empty string")
    return v.strip()


def parse_lesson_set(data: object, filename: str = "") -> LessonSet:
    """One lesson set from parsed JSON; LessonError names the first problem."""
    where = filename or "lesson set"
    if not isinstance(data, dict):
        raise LessonError(f"{where}: the file must hold one JSON object")
    ruleset = _text(data, "ruleset", where)
    if ruleset not in RULESETS:
        raise LessonError(f"{where}: unknown ruleset {ruleset!r} (one of {', '.join(RULESETS)})")
    if filename and Path(filename).stem != ruleset:
        raise LessonError(f"{where}: file name must be {ruleset}.json")
    raw = data.get("lessons")
    if not isinstance(raw, list) or not raw:
        raise LessonError(f"{where}: 'lessons' must be a non-empty list")
    lessons, seen = [], set()
    for n, item in enumerate(raw, 1):
        lw = f"{where} lesson {n}"
        if not isinstance(item, dict):
            raise LessonError(f"{lw}: must be an object")
        lid = _text(item, "id", lw)
        if not _ID.match(lid):
            raise LessonError(f"{lw}: id {lid!r} must be lowercase words joined by hyphens")
        if lid in seen:
            raise LessonError(f"{lw}: duplicate id {lid!r}")
        seen.add(lid)
        lw = f"{where} lesson {lid!r}"
        choices_raw = item.get("choices")
        if not isinstance(choices_raw, list) or not 2 <= len(choices_raw) <= 3:
            raise LessonError(f"{lw}: needs 2 or 3 choices")
        choices = []
        for k, c in enumerate(choices_raw, 1):
            cw = f"{lw} choice {k}"
            if not isinstance(c, dict):
                raise LessonError(f"{cw}: must be an object")
            verdict = _text(c, "verdict", cw)
            if verdict not in VERDICTS:
                raise LessonError(f"{cw}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
            rules = c.get("rules")
            if not isinstance(rules, list) or not rules or not all(isinstance(r, str) and r for r in rules):
                raise LessonError(f"{cw}: 'rules' must list at least one rule id")
            choices.append(Choice(_text(c, "label", cw), verdict, _text(c, "explanation", cw), tuple(rules)))
        if len({c.label for c in choices}) != len(choices):
            raise LessonError(f"{lw}: two choices have the same label")
        lessons.append(Lesson(lid, _text(item, "title", lw), _text(item, "situation", lw), tuple(choices),
                              _text(item, "takeaway", lw, required=False)))
    return LessonSet(ruleset, _text(data, "title", where), _text(data, "intro", where, required=False),
                     tuple(lessons), filename)


def load_lesson_sets(directory: str | os.PathLike | None = None) -> tuple[dict[str, LessonSet], list[str]]:
    """Every valid lesson set of the folder by ruleset (in RULESETS order), plus one problem
    line per file that could not be loaded."""
    d = lessons_dir() if directory is None else Path(directory)
    sets: dict[str, LessonSet] = {}
    problems: list[str] = []
    for path in sorted(d.glob("*.json")) if d.is_dir() else []:
        try:
            s = parse_lesson_set(json.loads(path.read_text(encoding="utf-8")), path.name)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, LessonError) as exc:
            problems.append(f"{path.name}: {exc}" if not str(exc).startswith(path.name) else str(exc))
            continue
        sets[s.ruleset] = s
    return {r: sets[r] for r in RULESETS if r in sets}, problems


def check_rules(sets: Iterable[LessonSet], entries: Iterable[Entry]) -> list[str]:
    """Rule links that do not resolve to a corpus entry of the lesson set's own ruleset."""
    by_id = {e.id: e for e in entries}
    out = []
    for s in sets:
        for lesson in s.lessons:
            for c in lesson.choices:
                for r in c.rules:
                    e = by_id.get(r)
                    if e is None:
                        out.append(f"{s.ruleset}/{lesson.id}: rule {r!r} does not exist")
                    elif e.ruleset != s.ruleset:
                        out.append(f"{s.ruleset}/{lesson.id}: rule {r!r} belongs to {e.ruleset!r}")
    return out
