"""Rules corpus search: our small interface (Whoosh stays inside ``whoosh_backend``).

    from companion.search import get_search
    rs = get_search(data_dir / "search-index")   # builds the index once, then reuses it
    for hit in rs.search("can the kh die", limit=5, faction="atreides"):
        hit.id, hit.title, hit.source, hit.snippet, hit.url, hit.score
    rs.get("atreides-kwisatz-haderach")          # Entry | None
    rs.entries()                                 # every Entry, sorted by id
    rs.suggest("kwisatz hadrach")                # "kwisatz haderach" (did you mean), or None

``Hit.snippet`` is HTML: the entry's text (Markdown stripped) html-escaped, with
``<mark>…</mark>`` around the matched words. ``search`` raises ValueError for a faction or
phase id that does not exist (see ``FACTIONS``/``PHASES``).

The index lives in ``index_dir/<fingerprint>/`` and is rebuilt only when the fingerprint
(sha256 of the corpus files' names and contents, plus the backend's version) changes: checked
when a RuleSearch is created, or when :meth:`RuleSearch.refresh` is called; never per request.
Queries run from memory (about 1-2 ms). A RuleSearch is safe to share between threads.
"""
from __future__ import annotations

import logging
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from .corpus import (
    FACTIONS,
    PHASES,
    Entry,
    corpus_dir,
    fingerprint,
    load_corpus,
    plain_text,
    snapshot,
    validate,
)

log = logging.getLogger(__name__)

__all__ = [
    "FACTIONS", "PHASES", "Entry", "Hit", "RuleSearch", "corpus_dir", "default_index_dir",
    "get_search", "load_corpus", "plain_text", "validate",
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
        self._backend = None
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
        backend = WhooshBackend(self.index_dir, fp, entries)
        old = self._backend
        self._entries = {e.id: e for e in entries}
        self._backend = backend  # one assignment: readers see the old or the new one
        self.built = backend.built
        self.builds += int(backend.built)
        if old is not None:
            old.close()

    @property
    def fingerprint(self) -> str:
        return self._backend.fp

    @property
    def index_path(self) -> Path:
        return self._backend.path

    def refresh(self) -> bool:
        """Re-read the corpus fingerprint; rebuild and swap the index if it changed."""
        fp = self._fingerprint()
        if fp == self._backend.fp:
            return False
        with self._lock:
            if fp != self._backend.fp:
                self._load()
                return True
        return False

    def close(self) -> None:
        self._backend.close()

    # -- queries
    def entries(self) -> list[Entry]:
        """Every entry, sorted by id."""
        return sorted(self._entries.values(), key=lambda e: e.id)

    def get(self, id: str) -> Entry | None:
        return self._entries.get(id)

    def search(self, q: str, limit: int = 10, faction: str | None = None,
               phase: str | None = None) -> list[Hit]:
        """Best entries for ``q``, best first. ``faction``/``phase`` keep only entries tagged
        with them (ValueError for an unknown id). Typos, slang and the word being typed
        (prefix of the last word) are handled."""
        if faction is not None:
            faction = faction.strip().lower() or None
            if faction is not None and faction not in FACTIONS:
                raise ValueError(f"unknown faction {faction!r}")
        if phase is not None:
            phase = phase.strip().lower() or None
            if phase is not None and phase not in PHASES:
                raise ValueError(f"unknown phase {phase!r}")
        limit = max(1, int(limit))
        if not q or not q.strip():
            return []
        backend = self._backend
        ranked, analysis = backend.search(q, limit, faction, phase)
        hits = []
        for entry_id, score in ranked:
            e = self._entries.get(entry_id)
            if e is None:  # pragma: no cover - index and entries come from the same read
                continue
            hits.append(Hit(e.id, e.title, e.source, backend.snippet(e.id, analysis), e.url,
                            round(score, 4), e.kind))
        return hits

    def suggest(self, q: str) -> str | None:
        """"Did you mean": ``q`` with misspelt words replaced by the closest corpus words,
        or None when every word is known (or nothing close exists)."""
        if not q or not q.strip():
            return None
        return self._backend.lexicon.analyse(q).suggestion


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
