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
This module has no third-party dependencies.
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

log = logging.getLogger(__name__)

FACTIONS: tuple[str, ...] = (
    "atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu", "choam", "richese",
)
PHASES: tuple[str, ...] = (
    "storm", "spice_blow", "charity", "bidding", "revival", "shipment_movement", "battle",
    "collection", "mentat_pause",
)
# The games on the shelf: every entry belongs to exactly one ruleset (front matter ``ruleset:``).
RULESETS: tuple[str, ...] = ("kiss", "choam-richese", "war-for-arrakis", "imperium", "secret-harkonnen")
RULESET_NAMES: dict[str, str] = {
    "kiss": "Dune (KISS)",
    "choam-richese": "Dune: CHOAM & Richese add-on (not KISS)",
    "war-for-arrakis": "Dune: War for Arrakis",
    "imperium": "Dune: Imperium",
    "secret-harkonnen": "Secret Harkonnen (hidden roles, 5-10 players)",
}
# The game (and search index) each ruleset belongs to: the CHOAM & Richese add-on is played on a
# KISS Dune table, so its entries share the KISS index (filtered by ruleset), may link to KISS
# entries and carry Dune faction and phase tags (and the other way round).
RULESET_GAME: dict[str, str] = {"kiss": "kiss", "choam-richese": "kiss", "war-for-arrakis": "war-for-arrakis",
                                "imperium": "imperium", "secret-harkonnen": "secret-harkonnen"}
KINDS: tuple[str, ...] = ("kiss-change", "faction", "karama", "discovery", "procedure", "qa")
QA_SECTIONS: tuple[str, ...] = ("Question", "Answer", "Example")

LIST_KEYS = ("factions", "phases", "aliases", "related")
SCALAR_KEYS = ("id", "title", "kind", "source", "ruleset")

_COMMENT = re.compile(r"\s+#\s.*$|\s+#$")
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s?(.*)$")
_SECTION = re.compile(r"^##\s+(.+?)\s*#*\s*$", re.M)


class CorpusError(ValueError):
    """A corpus file that cannot be parsed."""


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    kind: str
    source: str
    factions: tuple[str, ...] = ()
    phases: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    text: str = ""  # Markdown body (front matter removed)
    filename: str = field(default="", compare=False)  # "<id>.md" as found on disk
    ruleset: str = "kiss"  # one of RULESETS (front matter ``ruleset:``, required in files)

    @property
    def url(self) -> str:
        return f"/rules/{self.id}"

    def sections(self) -> dict[str, str]:
        """``## Heading`` sections of the body (Q&A: Question / Answer / Example)."""
        return split_sections(self.text)


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
        factions=tuple(f.lower() for f in listv("factions")),
        phases=tuple(p.lower() for p in listv("phases")),
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
    package = Path(__file__).resolve().parent.parent  # .../companion
    try:  # the package's own __file__, in case this module is imported from elsewhere
        import companion

        if getattr(companion, "__file__", None):
            package = Path(companion.__file__).resolve().parent
    except ImportError:  # pragma: no cover
        pass
    candidates = [package / "rules_corpus", package.parent / "rules_corpus"]
    for c in candidates:
        if c.is_dir():
            return c
    return candidates[-1]


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
        for f in e.factions:
            if f not in FACTIONS:
                out.append(f"{where}: unknown faction {f!r}")
        for p in e.phases:
            if p not in PHASES:
                out.append(f"{where}: unknown phase {p!r}")
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
        if RULESET_GAME.get(e.ruleset) != "kiss" and (e.factions or e.phases):
            out.append(f"{where}: faction and phase tags are Dune ids; leave them [] outside the Dune rulesets")
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
