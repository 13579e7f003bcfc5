"""What the corpus data says about its games: the rulesets, the entry kinds, the tag groups and
the search vocabulary (synonyms, stop words, tokens, the words indexed for each tag).

The search code names no game; every game word it uses is read here, once, at import, from the
shipped corpus folder (the package's ``rules_corpus``):

* ``rules_corpus/rulesets.json``: the rulesets (id, display name, game), the entry kinds, the
  tag groups (front matter lists such as ``phases: [...]``) and a few sentences;
* ``rules_corpus/vocabulary/<ruleset>.json``: that ruleset's tag ids and search words (fields:
  ``rules_corpus/vocabulary/README.md``). A ruleset without a file has no words of its own.

Each ruleset keeps its own synonyms (``Vocabulary.ruleset_synonyms``); a game's index uses the
synonyms of its own rulesets (:func:`game_synonyms`: an add-on's words join its base game's), so
one game's slang never rewrites another game's question. Stop words and tokens are merged. A corpus folder given to RuleSearch (or ``COMPANION_RULES_CORPUS``) changes the
entries searched, not the vocabulary. No third-party dependencies.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

RULESETS_FILE = "rulesets.json"
VOCABULARY_DIR = "vocabulary"


class VocabularyError(ValueError):
    """A rulesets or vocabulary file that does not follow the format."""


@dataclass(frozen=True)
class TagGroup:
    """A front matter list of tag ids (``key``, also the Entry attribute), e.g. ``phases``."""

    key: str
    filter: str  # the singular: search filter keyword, CLI option, problem messages
    values: tuple[str, ...]  # the ids every ruleset declares, in ruleset order
    games: frozenset[str]  # the games whose entries may carry these tags
    # ranking: an entry carrying tags of this group, none of which the question names (by the
    # tag's words), scores this much of its score (1.0: no effect)
    unnamed_factor: float = 1.0

    @property
    def constant(self) -> str:
        """The module constant that lists the ids (``corpus.<KEY>``, e.g. ``corpus.PHASES``)."""
        return self.key.upper()


@dataclass(frozen=True)
class Vocabulary:
    rulesets: tuple[str, ...]
    names: dict[str, str]  # ruleset id -> display name
    shorts: dict[str, str]  # ruleset id -> short name (the name when the file gives none)
    games: dict[str, str]  # ruleset id -> game (and search index)
    kinds: tuple[str, ...]
    tag_groups: tuple[TagGroup, ...]
    tag_words: dict[str, str]  # tag id -> the words indexed for it
    synonyms: dict[str, tuple[str, ...]]  # every ruleset's, merged (first declaration wins)
    ruleset_synonyms: dict[str, dict[str, tuple[str, ...]]]  # ruleset id -> its own synonyms
    stop_words: frozenset[str]
    tokens: tuple[str, ...]
    foreign_tags_problem: str
    cli_description: str
    cli_example: str
    fingerprint: str  # sha256 of the files read


def shipped_dir() -> Path:
    """The shipped corpus folder.

    Installed: ``companion/rules_corpus`` (pyproject's package-dir maps it into the package).
    Source checkout: ``<repo>/rules_corpus`` next to the ``companion`` package.
    """
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


def _read(path: Path, h) -> dict:
    try:
        data = path.read_bytes()
        obj = json.loads(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VocabularyError(f"{path}: {exc}") from exc
    if not isinstance(obj, dict):
        raise VocabularyError(f"{path}: must hold one JSON object")
    h.update(b"\0" + path.name.encode("utf-8") + b"\0" + data)
    return obj


def _strings(obj: object, where: str) -> tuple[str, ...]:
    if not isinstance(obj, list) or not all(isinstance(x, str) and x for x in obj):
        raise VocabularyError(f"{where}: must be a list of non-empty strings")
    return tuple(obj)


def load(directory: str | Path | None = None) -> Vocabulary:
    """Read ``rulesets.json`` and ``vocabulary/*.json`` of ``directory`` (default: the shipped
    corpus folder). VocabularyError names the first problem."""
    d = shipped_dir() if directory is None else Path(directory)
    h = hashlib.sha256()
    top = _read(d / RULESETS_FILE, h)
    rulesets, names, shorts, games = [], {}, {}, {}
    for n, r in enumerate(top.get("rulesets") or []):
        where = f"{RULESETS_FILE} rulesets[{n}]"
        if not isinstance(r, dict) or not all(isinstance(r.get(k), str) and r.get(k) for k in ("id", "name", "game")):
            raise VocabularyError(f"{where}: needs 'id', 'name' and 'game' strings")
        if r["id"] in names:
            raise VocabularyError(f"{where}: duplicate ruleset {r['id']!r}")
        rulesets.append(r["id"])
        names[r["id"]] = r["name"]
        shorts[r["id"]] = str(r.get("short") or r["name"])
        games[r["id"]] = r["game"]
    if not rulesets:
        raise VocabularyError(f"{RULESETS_FILE}: 'rulesets' must list at least one ruleset")
    kinds = _strings(top.get("kinds", []), f"{RULESETS_FILE} kinds")
    groups = []
    for n, g in enumerate(top.get("tag_groups") or []):
        if not isinstance(g, dict) or not all(isinstance(g.get(k), str) and g.get(k) for k in ("key", "filter")):
            raise VocabularyError(f"{RULESETS_FILE} tag_groups[{n}]: needs 'key' and 'filter' strings")
        factor = g.get("unnamed_factor", 1.0)
        if not isinstance(factor, (int, float)) or not 0 < factor <= 1:
            raise VocabularyError(f"{RULESETS_FILE} tag_groups[{n}]: 'unnamed_factor' must be a number in (0, 1]")
        groups.append((g["key"], g["filter"], float(factor)))
    cli = top.get("cli") or {}

    values: dict[str, list[str]] = {key: [] for key, _, _ in groups}
    users: dict[str, set[str]] = {key: set() for key, _, _ in groups}
    tag_words: dict[str, str] = {}
    synonyms: dict[str, tuple[str, ...]] = {}
    per_ruleset: dict[str, dict[str, tuple[str, ...]]] = {}
    stop_words: set[str] = set()
    tokens: list[str] = []
    for ruleset in rulesets:
        path = d / VOCABULARY_DIR / f"{ruleset}.json"
        if not path.is_file():
            continue
        v = _read(path, h)
        where = f"{VOCABULARY_DIR}/{path.name}"
        tags = v.get("tags") or {}
        if not isinstance(tags, dict):
            raise VocabularyError(f"{where}: 'tags' must be an object")
        for key, ids in tags.items():
            if key not in values:
                raise VocabularyError(f"{where}: tag group {key!r} is not in {RULESETS_FILE} tag_groups")
            if not isinstance(ids, dict) or not all(isinstance(w, str) for w in ids.values()):
                raise VocabularyError(f"{where}: tags {key!r} must map ids to words")
            for tag, spelled in ids.items():
                if tag in values[key]:
                    raise VocabularyError(f"{where}: tag {tag!r} of {key!r} is declared twice")
                if tag_words.get(tag, spelled) != spelled:
                    raise VocabularyError(f"{where}: tag {tag!r} is spelled two ways")
                values[key].append(tag)
                tag_words[tag] = spelled
            if ids:
                users[key].add(games[ruleset])
        syn = v.get("synonyms") or {}
        if not isinstance(syn, dict):
            raise VocabularyError(f"{where}: 'synonyms' must be an object")
        own: dict[str, tuple[str, ...]] = {}
        for key, alts in syn.items():
            if key.strip().lower() != key or not key.strip():
                raise VocabularyError(f"{where}: synonym key {key!r} must be lowercase words")
            own[key] = _strings(alts, f"{where} synonyms {key!r}")
            synonyms.setdefault(key, own[key])
        per_ruleset[ruleset] = own
        stop_words.update(_strings(v.get("stop_words", []), f"{where} stop_words"))
        tokens.extend(t for t in _strings(v.get("tokens", []), f"{where} tokens") if t not in tokens)
    return Vocabulary(
        rulesets=tuple(rulesets),
        names=names,
        shorts=shorts,
        games=games,
        kinds=kinds,
        tag_groups=tuple(TagGroup(key, flt, tuple(values[key]), frozenset(users[key]), factor)
                         for key, flt, factor in groups),
        tag_words=tag_words,
        synonyms=synonyms,
        ruleset_synonyms=per_ruleset,
        stop_words=frozenset(stop_words),
        tokens=tuple(tokens),
        foreign_tags_problem=str(top.get("foreign_tags_problem") or "tags of another game"),
        cli_description=str(cli.get("description") or "Search the rules corpus."),
        cli_example=str(cli.get("example") or ""),
        fingerprint=h.hexdigest(),
    )


VOCABULARY = load()
RULESETS: tuple[str, ...] = VOCABULARY.rulesets
RULESET_NAMES: dict[str, str] = VOCABULARY.names
RULESET_SHORT: dict[str, str] = VOCABULARY.shorts
RULESET_GAME: dict[str, str] = VOCABULARY.games
KINDS: tuple[str, ...] = VOCABULARY.kinds
TAG_GROUPS: tuple[TagGroup, ...] = VOCABULARY.tag_groups
# every tag group's ids by constant name (``corpus`` and the package export them under it)
TAG_CONSTANTS: dict[str, tuple[str, ...]] = {g.constant: g.values for g in TAG_GROUPS}
TAG_WORDS: dict[str, str] = VOCABULARY.tag_words
SYNONYMS: dict[str, tuple[str, ...]] = VOCABULARY.synonyms


def game_synonyms(game: str, vocabulary: Vocabulary | None = None) -> dict[str, tuple[str, ...]]:
    """The synonyms a game's index uses: those of the rulesets of that game, in ruleset order
    (a key two of them declare keeps both lists' values)."""
    v = vocabulary or VOCABULARY
    out: dict[str, tuple[str, ...]] = {}
    for r in v.rulesets:
        if v.games[r] != game:
            continue
        for key, alts in v.ruleset_synonyms.get(r, {}).items():
            out[key] = tuple(dict.fromkeys(out.get(key, ()) + alts))
    return out
