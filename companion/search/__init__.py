"""Rules corpus search: our small interface (Whoosh stays inside ``whoosh_backend``).

    from companion.search import get_search
    rs = get_search(data_dir / "search-index")   # builds the index once, then reuses it
    for hit in rs.search("can the kh die", limit=5, faction="atreides", ruleset="kiss"):
        hit.id, hit.title, hit.source, hit.snippet, hit.url, hit.score, hit.ruleset
    rs.get("atreides-kwisatz-haderach")          # Entry | None
    rs.entries()                                 # every Entry, sorted by id
    rs.suggest("kwisatz hadrach")                # "kwisatz haderach" (did you mean), or None
    hits, together = rs.answer("storm over the sink, and can we fight there", ruleset="kiss")
    # together: (hit, hit) when the best two answer different halves of the question, else None

``Hit.snippet`` is HTML: the entry's text (Markdown stripped) html-escaped, with
``<mark>…</mark>`` around the matched words. ``search`` takes one keyword filter per tag group
of the corpus data (``TAG_GROUPS``: ``faction=``, ``phase=`` for the Dune tags) and raises
ValueError for a tag id that does not exist (the group's constant, e.g. ``PHASES``), or a
ruleset not in ``RULESETS``. The rulesets, tag groups and search vocabulary are corpus data
(``rules_corpus/rulesets.json``, ``rules_corpus/vocabulary/``, read by ``.vocabulary``): this
package names no game.

Several rulesets (KISS Dune, War for Arrakis, Dune: Imperium) share one corpus folder, but each
ruleset gets its own index (``index_dir/<ruleset>/<fingerprint>/``), vocabulary and spelling
lexicon: a KISS question is scored exactly as if the other games were not on the shelf, so KISS
answers never drown in the others' (nor the other way round). ``ruleset=None`` searches every
ruleset and merges the hits by score.

The index lives in ``index_dir/<fingerprint>/`` and is rebuilt only when the fingerprint
(sha256 of the corpus files' names and contents, plus the backend's version) changes: checked
when a RuleSearch is created, or when :meth:`RuleSearch.refresh` is called; never per request.
Queries run from memory (about 1-2 ms). A RuleSearch is safe to share between threads.
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from .corpus import (
    RULESET_GAME,
    RULESET_NAMES,
    RULESETS,
    Entry,
    corpus_dir,
    fingerprint,
    load_corpus,
    plain_text,
    snapshot,
    validate,
)
from .vocabulary import TAG_CONSTANTS, TAG_GROUPS

log = logging.getLogger(__name__)

globals().update(TAG_CONSTANTS)  # each tag group's ids, named after the group (e.g. PHASES)

__all__ = [
    *TAG_CONSTANTS, "RULESETS", "RULESET_NAMES", "TAG_GROUPS", "Entry", "Hit", "RuleSearch", "corpus_dir",
    "default_index_dir", "get_search", "load_corpus", "plain_text", "validate",
]


@dataclass(frozen=True)
class Hit:
    id: str
    title: str
    source: str
    snippet: str  # HTML: escaped text with <mark>…</mark> around the matched words
    url: str  # "/rules/<id>"
    score: float
    kind: str = ""
    ruleset: str = RULESETS[0]

    def to_dict(self) -> dict:
        return asdict(self)


def default_index_dir() -> Path:
    """A per-user cache folder (``$XDG_CACHE_HOME/dune-companion/search-index``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dune-companion" / "search-index"


class RuleSearch:
    """Search over the rules corpus.

    ``index_dir``: where the index files go (the app passes ``DATA_DIR/search-index``);
    default :func:`default_index_dir`. ``corpus``: the corpus folder; default
    :func:`corpus_dir`.
    """

    def __init__(self, index_dir: str | os.PathLike | None = None,
                 corpus: str | os.PathLike | None = None):
        self.index_dir = Path(index_dir) if index_dir is not None else default_index_dir()
        self.corpus = Path(corpus) if corpus is not None else corpus_dir()
        self._lock = threading.Lock()
        self._backends: dict = {}
        self._fp = ""
        self._entries: dict[str, Entry] = {}
        self.built = False  # did the last (re)load build the index?
        self.builds = 0  # how many times this object built an index
        self._load()

    # -- lifecycle
    def _fingerprint(self) -> str:
        from .whoosh_backend import backend_fingerprint

        return fingerprint(self.corpus, extra=backend_fingerprint())

    def _load(self) -> None:
        from .whoosh_backend import WhooshBackend, backend_fingerprint

        entries, problems, fp = snapshot(self.corpus, extra=backend_fingerprint())
        for p in problems:
            log.warning("rules corpus: %s", p)
        _drop_single_index_leftovers(self.index_dir)
        backends: dict[str, WhooshBackend] = {}  # one index per game (an add-on shares its game's)
        for game in dict.fromkeys(RULESET_GAME[r] for r in RULESETS):
            part = [e for e in entries if RULESET_GAME[e.ruleset] == game]
            if not part:
                continue
            sub_fp = hashlib.sha256(f"{fp}\0{game}".encode()).hexdigest()
            backends[game] = WhooshBackend(self.index_dir / game, sub_fp, part, game)
        old = self._backends
        self._entries = {e.id: e for e in entries}
        self._fp = fp
        self._backends = backends  # one assignment: readers see the old or the new ones
        self.built = any(b.built for b in backends.values())
        self.builds += int(self.built)
        for b in old.values():
            b.close()

    @property
    def fingerprint(self) -> str:
        return self._fp

    @property
    def index_path(self) -> Path:
        """The first ruleset's index folder (each game has its own, see :meth:`index_paths`)."""
        b = self._backends.get(RULESET_GAME[RULESETS[0]]) or next(iter(self._backends.values()))
        return b.path

    def index_paths(self) -> dict[str, Path]:
        return {k: b.path for k, b in self._backends.items()}

    def rulesets(self) -> list[str]:
        """The rulesets that have entries, in RULESETS order."""
        present = {e.ruleset for e in self._entries.values()}
        return [r for r in RULESETS if r in present]

    def refresh(self) -> bool:
        """Re-read the corpus fingerprint; rebuild and swap the index if it changed."""
        fp = self._fingerprint()
        if fp == self._fp:
            return False
        with self._lock:
            if fp != self._fp:
                self._load()
                return True
        return False

    def close(self) -> None:
        for b in self._backends.values():
            b.close()

    # -- queries
    def entries(self, ruleset: str | None = None) -> list[Entry]:
        """Every entry (of ``ruleset``, when given), sorted by id."""
        return sorted((e for e in self._entries.values() if ruleset is None or e.ruleset == ruleset),
                      key=lambda e: e.id)

    def get(self, id: str) -> Entry | None:
        return self._entries.get(id)

    @staticmethod
    def check_ruleset(ruleset: str | None) -> tuple[str, ...] | None:
        """``ruleset`` normalised: None/"" = every ruleset, else the ids it names (one id, or several
        separated by commas, e.g. ``"kiss,choam-richese"`` for a KISS table with the add-on);
        ValueError when one is unknown."""
        if ruleset is None:
            return None
        ids = tuple(dict.fromkeys(r.strip().lower() for r in ruleset.split(",") if r.strip()))
        for r in ids:
            if r not in RULESETS:
                raise ValueError(f"unknown ruleset {r!r}")
        return ids or None

    def _games(self, rulesets: tuple[str, ...] | None) -> list[str]:
        """The indexes to ask: the games of ``rulesets`` (None: every game)."""
        if rulesets is None:
            return list(self._backends)
        return list(dict.fromkeys(RULESET_GAME[r] for r in rulesets))

    @staticmethod
    def check_tags(filters: dict[str, str | None]) -> tuple[str | None, ...]:
        """Tag filters (``{group filter name: id}``, e.g. ``{"phase": ...}``) normalised, one
        per group in TAG_GROUPS order (None: not filtered); ValueError for an unknown id,
        TypeError for a name that is no group's."""
        for name in filters:
            if not any(g.filter == name for g in TAG_GROUPS):
                raise TypeError(f"search() got an unexpected keyword argument {name!r}")
        out = []
        for g in TAG_GROUPS:
            value = filters.get(g.filter)
            if value is not None:
                value = value.strip().lower() or None
                if value is not None and value not in g.values:
                    raise ValueError(f"unknown {g.filter} {value!r}")
            out.append(value)
        return tuple(out)

    def search(self, q: str, limit: int = 10, *, ruleset: str | None = None,
               **tags: str | None) -> list[Hit]:
        """Best entries for ``q``, best first. ``ruleset`` keeps only that game's entries
        (ValueError for an unknown id; None = every ruleset, merged by score). One keyword per
        tag group (``TAG_GROUPS``, named by the group's ``filter``) keeps only entries tagged
        with that id. Typos, slang and the word being typed (prefix of the last word) are
        handled."""
        return self._search(q, limit, ruleset, tags)[0]

    def answer(self, q: str, limit: int = 10, *, ruleset: str | None = None,
               **tags: str | None) -> tuple[list[Hit], tuple[Hit, Hit] | None]:
        """:meth:`search`, plus "these two rules together": the best hit and a hit close below
        it when the two answer different halves of the question (each matches telling words of
        the question the other does not, they share few, and between them they answer all of
        it), else None."""
        hits, found = self._search(q, max(limit, 5), ruleset, tags)
        together = None
        if len(hits) >= 2:
            backend, analysis = found[0]
            same = [h for h, b in zip(hits, found) if b[0] is backend][:5]
            pair = backend.pair([(h.id, h.score) for h in same], analysis)
            if pair is not None:
                together = (hits[0], next(h for h in same if h.id == pair[1]))
        return hits[:max(1, int(limit))], together

    def _search(self, q: str, limit: int, ruleset: str | None, tags: dict) -> tuple[list[Hit], list]:
        """The hits, and for each the (backend, query analysis) that found it."""
        wanted = self.check_tags(tags)
        rulesets = self.check_ruleset(ruleset)
        limit = max(1, int(limit))
        if not q or not q.strip():
            return [], []
        backends = self._backends
        games = self._games(rulesets)
        found = []
        for game in games:
            backend = backends.get(game)
            if backend is None:
                continue
            # a game's index may hold rulesets that were not asked for (KISS and its add-on)
            partial = rulesets is not None and any(RULESET_GAME[r] == game and r not in rulesets for r in RULESETS)
            ranked, analysis = backend.search(q, limit * 4 if partial else limit, wanted, rulesets=rulesets)
            for entry_id, score in ranked:
                e = self._entries.get(entry_id)
                if e is None:  # pragma: no cover - index and entries come from the same read
                    continue
                if rulesets is not None and e.ruleset not in rulesets:
                    continue
                found.append((e, round(score, 4), backend, analysis))
        if len(games) > 1:
            found.sort(key=lambda x: -x[1])
        found = found[:limit]  # snippets only for the hits returned
        return ([Hit(e.id, e.title, e.source, b.snippet(e.id, a), e.url, score, e.kind, e.ruleset)
                 for e, score, b, a in found], [(b, a) for _, _, b, a in found])

    def suggest(self, q: str, ruleset: str | None = None) -> str | None:
        """"Did you mean": ``q`` with misspelt words replaced by the closest corpus words
        (of ``ruleset``, or of any ruleset), or None when every word is known (or nothing
        close exists)."""
        if not q or not q.strip():
            return None
        rulesets = self.check_ruleset(ruleset)
        backends = self._backends
        suggestions = []
        for game in self._games(rulesets):
            backend = backends.get(game)
            if backend is None:
                continue
            hint = backend.lexicon.analyse(q).suggestion
            if hint is None:
                return None  # every word is known in this ruleset
            suggestions.append(hint)
        return suggestions[0] if suggestions else None


def _drop_single_index_leftovers(index_dir: Path) -> None:
    """Remove ``index_dir/<fingerprint>/`` folders left by versions that kept one index for the
    whole corpus (each ruleset now lives in ``index_dir/<ruleset>/``)."""
    try:
        for other in index_dir.iterdir():
            if other.is_dir() and re.fullmatch(r"[0-9a-f]{32}", other.name):
                shutil.rmtree(other, ignore_errors=True)
    except OSError:
        pass


_instances: dict[tuple[str, str], RuleSearch] = {}
_instances_lock = threading.Lock()


def get_search(index_dir: str | os.PathLike | None = None,
               corpus: str | os.PathLike | None = None) -> RuleSearch:
    """The shared RuleSearch for this index folder and corpus (built or opened once per process)."""
    idx = Path(index_dir) if index_dir is not None else default_index_dir()
    cor = Path(corpus) if corpus is not None else corpus_dir()
    key = (str(idx.resolve()), str(cor.resolve()))
    with _instances_lock:
        rs = _instances.get(key)
        if rs is None:
            rs = _instances[key] = RuleSearch(idx, cor)
        return rs
