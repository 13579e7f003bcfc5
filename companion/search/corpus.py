"""Rules corpus: one Markdown file per entry with a small front matter.

Format (docs/design.md, "Rules corpus format")::

    ---
    id: fremen-wormriders
    title: Fremen — Wormriders
    kind: faction
    source: KISS · Fremen · Wormriders
    ruleset: kiss
    factions: [fremen]
    phases: [storm, spice_blow]
    aliases: [wormriding, worm riders]
    related: [base-storm, fremen-vulnerable]
    ---
    Body in Markdown.

One ``key: value`` per line; list values in brackets, comma separated, no quotes.
A `` # comment`` after a value (space, ``#``, space) is ignored, as in the design example.
The rulesets, kinds and tag groups (the lists of ids such as ``phases:``) are corpus data, read
by :mod:`.vocabulary` from ``rules_corpus/rulesets.json`` and ``rules_corpus/vocabulary/``;
this module names no game. It has no third-party dependencies.
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import field, make_dataclass
from pathlib import Path
from typing import Iterable

from .vocabulary import (  # RULESET_NAMES is re-exported (the web reads it from here)
    KINDS,
    RULESET_GAME,
    RULESET_NAMES,
    RULESETS,
    TAG_CONSTANTS,
    TAG_GROUPS,
    VOCABULARY,
    shipped_dir,
)

log = logging.getLogger(__name__)

# The games on the shelf, their entry kinds and tag groups come from the corpus data
# (rules_corpus/rulesets.json, vocabulary/<ruleset>.json): every entry belongs to exactly one
# ruleset (front matter ``ruleset:``); rulesets of one game (an add-on and its base game) share a
# search index, may link to each other's entries and carry that game's tags.
globals().update(TAG_CONSTANTS)  # one tuple of ids per tag group, named after it (e.g. PHASES)
QA_SECTIONS: tuple[str, ...] = ("Question", "Answer", "Example")

LIST_KEYS = (*(g.key for g in TAG_GROUPS), "aliases", "related")
SCALAR_KEYS = ("id", "title", "kind", "source", "ruleset")

_COMMENT = re.compile(r"\s+#\s.*$|\s+#$")
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s?(.*)$")
_SECTION = re.compile(r"^##\s+(.+?)\s*#*\s*$", re.M)


class CorpusError(ValueError):
    """A corpus file that cannot be parsed."""


def _url(self) -> str:
    return f"/rules/{self.id}"


def _sections(self) -> dict[str, str]:
    """``## Heading`` sections of the body (Q&A: Question / Answer / Example)."""
    return split_sections(self.text)


# One corpus entry. A frozen dataclass whose fields are id, title, kind, source, one tuple of tag
# ids per tag group of the corpus data (front matter lists, in TAG_GROUPS order), aliases,
# related, text (the Markdown body), filename ("<id>.md" as found on disk, not compared) and
# ruleset (one of RULESETS; required in files); ``url`` is "/rules/<id>".
Entry = make_dataclass(
    "Entry",
    [("id", str), ("title", str), ("kind", str), ("source", str),
     *((g.key, tuple, field(default=())) for g in TAG_GROUPS),
     ("aliases", tuple, field(default=())),
     ("related", tuple, field(default=())),
     ("text", str, field(default="")),
     ("filename", str, field(default="", compare=False)),
     ("ruleset", str, field(default=RULESETS[0]))],
    frozen=True,
    namespace={"url": property(_url), "sections": _sections, "__module__": __name__},
)


# ---------------------------------------------------------------------------------------------
# parsing


def _parse_value(key: str, raw: str) -> str | tuple[str, ...]:
    value = _COMMENT.sub("", raw).strip()
    if key in LIST_KEYS:
        if value.startswith("[") and value.endswith("]"):
            value = value[1:-1]
        items = [v.strip() for v in value.split(",")]
        return tuple(v for v in items if v)
    return value


def parse_entry(text: str, filename: str = "") -> Entry:
    """Parse one corpus file's text. Raises CorpusError when the front matter is malformed."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise CorpusError(f"{filename or 'entry'}: missing front matter (first line must be ---)")
    meta: dict[str, object] = {}
    end = None
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            end = i
            break
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _KEY_LINE.match(line.strip())
        if not m:
            raise CorpusError(f"{filename or 'entry'}: line {i + 1} is not 'key: value': {line!r}")
        key = m.group(1).lower()
        meta[key] = _parse_value(key, m.group(2))
    if end is None:
        raise CorpusError(f"{filename or 'entry'}: front matter is not closed with ---")
    body = "\n".join(lines[end + 1:]).strip()

    def scalar(key: str) -> str:
        v = meta.get(key, "")
        return ", ".join(v) if isinstance(v, tuple) else str(v)

    def listv(key: str) -> tuple[str, ...]:
        v = meta.get(key, ())
        return v if isinstance(v, tuple) else ((v,) if v else ())

    ruleset = scalar("ruleset").strip().lower()
    if not ruleset:
        raise CorpusError(f"{filename or 'entry'}: missing 'ruleset:' (one of {', '.join(RULESETS)})")
    if ruleset not in RULESETS:
        raise CorpusError(f"{filename or 'entry'}: unknown ruleset {ruleset!r} (one of {', '.join(RULESETS)})")
    return Entry(
        id=scalar("id"),
        title=scalar("title"),
        kind=scalar("kind"),
        source=scalar("source"),
        **{g.key: tuple(t.lower() for t in listv(g.key)) for g in TAG_GROUPS},
        aliases=listv("aliases"),
        related=listv("related"),
        text=body,
        filename=filename,
        ruleset=ruleset,
    )


def corpus_files(directory: str | os.PathLike) -> list[Path]:
    """The entry files of a corpus folder, sorted by name (hidden/temp files skipped)."""
    d = Path(directory)
    if not d.is_dir():
        return []
    return sorted(p for p in d.glob("*.md") if p.is_file() and not p.name.startswith((".", "_")))


def snapshot(directory: str | os.PathLike | None = None,
             extra: str = "") -> tuple[list[Entry], list[str], str]:
    """Read the corpus once: (entries, parse problems, fingerprint of exactly those bytes).

    The fingerprint is a sha256 over ``extra`` and every file's name and contents (the same
    value :func:`fingerprint` gives), so an index built from these entries is labelled with
    the state it was really built from, even while files are being edited.
    """
    directory = corpus_dir() if directory is None else Path(directory)
    h = hashlib.sha256(extra.encode("utf-8"))
    entries: list[Entry] = []
    problems: list[str] = []
    for path in corpus_files(directory):
        try:
            data = path.read_bytes()
        except OSError as exc:  # vanished between listing and reading
            problems.append(f"{path.name}: {exc}")
            continue
        h.update(b"\0" + path.name.encode("utf-8") + b"\0")
        h.update(data)
        try:
            entries.append(parse_entry(data.decode("utf-8"), path.name))
        except (CorpusError, UnicodeDecodeError) as exc:
            problems.append(f"{path.name}: {exc}")
    return entries, problems, h.hexdigest()


def read_corpus(directory: str | os.PathLike | None = None) -> tuple[list[Entry], list[str]]:
    """Load every entry; files that cannot be parsed are skipped and reported as problems."""
    entries, problems, _ = snapshot(directory)
    return entries, problems


def load_corpus(directory: str | os.PathLike | None = None) -> list[Entry]:
    """All parseable entries of the corpus folder (default: :func:`corpus_dir`), sorted by file name.

    A malformed file is logged and skipped, so a half-written entry never takes the app down;
    :func:`read_corpus` returns the parse problems as well, and :func:`validate` checks the rest.
    """
    entries, problems = read_corpus(directory)
    for p in problems:
        log.warning("rules corpus: %s", p)
    return entries


def fingerprint(directory: str | os.PathLike | None = None, extra: str = "") -> str:
    """sha256 over the names and contents of the corpus files (plus ``extra``)."""
    directory = corpus_dir() if directory is None else Path(directory)
    h = hashlib.sha256(extra.encode("utf-8"))
    for path in corpus_files(directory):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        h.update(b"\0" + path.name.encode("utf-8") + b"\0")
        h.update(data)
    return h.hexdigest()


def corpus_dir() -> Path:
    """Where the corpus lives.

    Installed: ``companion/rules_corpus`` (pyproject's package-dir maps it into the package).
    Source checkout: ``<repo>/rules_corpus`` next to the ``companion`` package.
    ``COMPANION_RULES_CORPUS`` overrides both.
    """
    env = os.environ.get("COMPANION_RULES_CORPUS")
    if env:
        return Path(env)
    return shipped_dir()


# ---------------------------------------------------------------------------------------------
# body helpers


def split_sections(text: str) -> dict[str, str]:
    """``{"Question": "...", "Answer": "...", ...}`` from ``## Heading`` lines."""
    out: dict[str, str] = {}
    matches = list(_SECTION.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        out[m.group(1).strip()] = text[m.end():end].strip()
    return out


_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_MD_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MD_EMPH = re.compile(r"(\*\*|__|\*|`)")
_MD_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def plain_text(markdown: str) -> str:
    """A one-paragraph plain-text rendering of a Markdown body (for snippets and terminals).

    Headings become ``Heading:``, list items are joined with `` · ``, table cells with `` | ``.
    """
    parts: list[str] = []
    for line in markdown.splitlines():
        s = line.strip()
        if not s or _MD_TABLE_RULE.match(s) and "-" in s:
            continue
        m = _MD_HEADING.match(s)
        if m:
            parts.append(m.group(1).rstrip(":") + ":")
            continue
        if s.startswith(">"):
            s = s.lstrip("> ").strip()
        s = _MD_BULLET.sub("", s)
        if s.startswith("|"):
            cells = [c.strip() for c in s.strip("|").split("|")]
            s = " | ".join(c for c in cells if c)
        s = _MD_LINK.sub(r"\1", s)
        s = _MD_EMPH.sub("", s)
        if s:
            parts.append(s)
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------
# validation


def validate(entries: Iterable[Entry], problems: Iterable[str] = ()) -> list[str]:
    """Every problem of the corpus as one readable line each (empty list = valid).

    Checks: missing/duplicate ids, unknown ruleset, related links across rulesets, KISS
    faction/phase tags on another ruleset's entry, id != file name, missing title/source, unknown kind,
    unknown faction/phase tags, unknown or self ``related`` ids, Q&A entries (``kind: qa``)
    with id ``qa-*`` and non-empty Question / Answer / Example sections.
    ``problems`` (e.g. parse errors from :func:`read_corpus`) are prepended.
    """
    entries = list(entries)
    out = list(problems)
    seen: dict[str, str] = {}
    ruleset_of = {e.id: e.ruleset for e in entries if e.id}
    for e in entries:
        where = e.filename or e.id or "<entry>"
        if not e.id:
            out.append(f"{where}: missing id")
            continue
        if e.id in seen:
            out.append(f"{where}: duplicate id {e.id!r} (also in {seen[e.id]})")
        else:
            seen[e.id] = where
        if e.filename and e.filename != f"{e.id}.md":
            out.append(f"{where}: id {e.id!r} does not match the file name (expected {e.id}.md)")
    ids = set(seen)
    for e in entries:
        if not e.id:
            continue
        where = e.filename or e.id
        if not e.title.strip():
            out.append(f"{where}: missing title")
        if not e.source.strip():
            out.append(f"{where}: missing source")
        if e.kind not in KINDS:
            out.append(f"{where}: unknown kind {e.kind!r} (one of {', '.join(KINDS)})")
        for g in TAG_GROUPS:
            for t in getattr(e, g.key):
                if t not in g.values:
                    out.append(f"{where}: unknown {g.filter} {t!r}")
        for r in e.related:
            if r == e.id:
                out.append(f"{where}: related lists the entry itself")
            elif r not in ids:
                out.append(f"{where}: related id {r!r} does not exist")
            elif RULESET_GAME.get(ruleset_of.get(r)) != RULESET_GAME.get(e.ruleset):
                out.append(f"{where}: related id {r!r} belongs to another game "
                           f"({ruleset_of.get(r)!r}, not {e.ruleset!r})")
        if e.ruleset not in RULESETS:
            out.append(f"{where}: unknown ruleset {e.ruleset!r} (one of {', '.join(RULESETS)})")
        game = RULESET_GAME.get(e.ruleset)
        if any(getattr(e, g.key) and game not in g.games for g in TAG_GROUPS):
            out.append(f"{where}: {VOCABULARY.foreign_tags_problem}")
        if not e.text.strip():
            out.append(f"{where}: empty body")
        if e.kind == "qa" or e.id.startswith("qa-"):
            if e.kind != "qa":
                out.append(f"{where}: id starts with qa- but kind is {e.kind!r}")
            if not e.id.startswith("qa-"):
                out.append(f"{where}: Q&A id must start with qa-")
            sections = e.sections()
            for name in QA_SECTIONS:
                if not sections.get(name, "").strip():
                    out.append(f"{where}: Q&A needs a non-empty '## {name}' section")
    return out
