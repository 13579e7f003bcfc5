"""Whoosh behind our search interface: the backend RuleSearch asks (``WhooshBackend``), and
how it ranks. Whoosh is imported only here and by the modules this one assembles:

* :mod:`.analysis` — words, stop words and stems (index and queries alike);
* :mod:`.indexing` — schema, building the index on disk, opening it in memory;
* :mod:`.query` (with :mod:`.spelling`) — query understanding: concepts with alternatives
  (stem, spelling corrections, slang/synonyms from the corpus data, prefix being typed);
* :mod:`.snippets` — highlighted snippets;
* here — ranking: Whoosh's BM25F score of each word per field, times field boosts (title and
  aliases above body); per concept the best reading (a reading of several words — a phrase, an
  expansion — scores the mean of its words), a phrase weighing more than one word; summed;
  coordination factor; a tag group's ``unnamed_factor`` for an entry tagged only with tags the
  question does not name; a bonus when the query names an entry's whole title or an alias.
  How rare a word is (how far its title/alias match counts above a body match) is counted
  among the entries of the rulesets asked: an add-on's own words are common in the add-on
  even when they are rare in its base game's index.

The game's words (synonyms, tag ids and their spelled-out words, stop words) are data:
``rules_corpus/vocabulary/`` read by :mod:`.vocabulary`.
"""
from __future__ import annotations

import hashlib
import heapq
import itertools
import math
import threading
from collections import Counter
from pathlib import Path
from typing import Sequence

from whoosh.scoring import BM25F

from .analysis import stems, words
from .corpus import Entry
from .indexing import open_or_build
from .query import Analysis, Lexicon, synonym_words
from .snippets import _analyse_doc, _Doc, make_snippet
from .vocabulary import TAG_GROUPS, VOCABULARY, game_synonyms

# BM25F: weight of a word occurrence per field, and per-field length normalisation.
FIELD_BOOSTS = {"title": 2.5, "aliases": 3.0, "source": 1.2, "body": 1.0,
                "tags": 1.0}
FIELD_B = {"title": 0.3, "aliases": 0.3, "source": 0.3, "body": 0.75, "tags": 0.3}
K1 = 1.2
TEXT_FIELDS = tuple(FIELD_BOOSTS)

PREFIX_WEIGHT = 0.7
PHRASE_EXPONENT = 0.5  # a concept of n query words (a phrase) weighs n ** PHRASE_EXPONENT
COORD_SCALE = 0.5  # share of the score that depends on how many query concepts an entry matches
DISMAX_TIEBREAK = 0.1  # a concept's other matching alternatives add this share of their score
NAME_BONUS = 0.5  # score x1.5 when the query contains all words of an entry's title or an alias
# A word is rare (full title/alias boost) in at most RARE_SHARE of the game's entries, common (no
# boost: scored like a body word) from COMMON_SHARE; in between the boost shrinks linearly.
RARE_SHARE, COMMON_SHARE = 0.03, 0.20
RARITY_FLOOR = 0.45  # the share of the title/alias boost (and naming bonus) a common word keeps
NAME_FIELDS = ("title", "aliases")
# "these two rules together": the second entry scores at least this share of the first, each
# matches a concept the other does not, and they share at most this share of their concepts
PAIR_SCORE_SHARE = 0.5
PAIR_CANDIDATES = 4  # how far down the list the second half is looked for
PAIR_MAX_OVERLAP = 0.5
PAIR_MATCH_SHARE = 0.35
PAIR_MIN_RARITY = 0.5  # each half's own words: at least this rare (rarity)

SCHEMA_VERSION = "1"
# the modules whose code shapes the index or the answers (their sources are fingerprinted)
_SOURCES = ("vocabulary.py", "corpus.py", "analysis.py", "indexing.py", "spelling.py", "query.py",
            "snippets.py", "whoosh_backend.py")


def backend_fingerprint() -> str:
    """Changes whenever the backend's code (schema, analysis, ranking) or the corpus data's
    vocabulary changes: part of the index fingerprint."""
    h = hashlib.sha256(VOCABULARY.fingerprint.encode())
    here = Path(__file__).resolve().parent
    for name in _SOURCES:
        try:
            h.update(b"\0" + (here / name).read_bytes())
        except OSError:  # pragma: no cover - zipped install
            h.update(b"\0" + SCHEMA_VERSION.encode())
    return "whoosh-" + SCHEMA_VERSION + "-" + h.hexdigest()[:16]


def make_weighting() -> BM25F:
    """Whoosh's BM25F (BM25 per field, with a length-normalisation B per field)."""
    return BM25F(B=FIELD_B["body"], K1=K1, **{f"{f}_B": b for f, b in FIELD_B.items()})


class WhooshBackend:
    """An opened index plus everything needed to query it; safe to share between threads.

    Whoosh builds and holds the index (analysis, lexicon, postings, stored fields, prefix
    expansion) and scores every word with its BM25F model (BM25 per field with per-field
    length normalisation). A word's score for an entry is the sum over fields of Whoosh's score
    times the field boost (title and aliases above body). Those per-word scores are computed
    once and kept, and a query combines them the way a Whoosh ``Or`` of ``DisjunctionMax``
    concepts would: per concept the best alternative (plus a small tie-break for the others),
    summed over concepts, times a coordination factor for the share of concepts matched.
    Building Whoosh matcher trees for every request costs 5-20 ms per query on this corpus
    (pure-Python matchers); the cached combination costs about a millisecond.
    """

    def __init__(self, index_dir: Path, fp: str, entries: Sequence[Entry], game: str | None = None):
        self.ix, self.built = open_or_build(Path(index_dir), fp, entries)
        self.path = Path(index_dir) / fp[:32]
        self.fp = fp
        self.game = game
        self._entries = {e.id: e for e in entries}
        self._docs: dict[str, _Doc] = {}
        self._scope_docs: dict[tuple[str, ...], frozenset[int]] = {}
        self._lock = threading.RLock()
        self._scores: dict[tuple, dict[int, float]] = {}
        self._prefixes: dict[tuple[str, str], tuple[str, ...]] = {}
        self._readings: dict[tuple, dict[int, float]] = {}
        self._searcher = self.ix.searcher(weighting=make_weighting())
        reader = self._searcher.reader()
        n = reader.doc_count_all()
        self._n = n
        self._ids: list[str | None] = [None] * n
        # per document: one frozenset of tag ids per tag group (TAG_GROUPS order)
        self._tags: list[tuple[frozenset, ...]] = [tuple(frozenset() for _ in TAG_GROUPS)] * n
        self._ruleset_of: list[str | None] = [None] * n
        for docnum, stored in reader.iter_docs():
            self._ids[docnum] = stored["id"]
            e = self._entries.get(stored["id"])
            if e is not None:
                self._tags[docnum] = tuple(frozenset(getattr(e, g.key)) for g in TAG_GROUPS)
                self._ruleset_of[docnum] = e.ruleset
        self.rulesets = frozenset(r for r in self._ruleset_of if r)
        known: set[str] = set()
        for fname in TEXT_FIELDS:
            for t in reader.lexicon(fname):
                known.add(t.decode("utf-8") if isinstance(t, bytes) else t)
        vocab: Counter = Counter()
        for e in entries:
            vocab.update(set(words(" ".join((e.title, e.source, " ".join(e.aliases), e.text)))))
        synonyms = game_synonyms(game) if game is not None else None
        vocab.update(synonym_words(synonyms))
        self.lexicon = Lexicon(known, vocab, synonyms)
        self._rarity: dict[str, float] = {}
        # per tag group that weighs entries whose tags the question does not name: its index,
        # its factor and each tag's stems (its id's and its words')
        self._tag_stems = [
            (k, g.unnamed_factor, {t: frozenset(stems(VOCABULARY.tag_words.get(t, t)) + stems(t)) for t in g.values})
            for k, g in enumerate(TAG_GROUPS) if g.unnamed_factor != 1.0]
        # title and aliases as stem sets, found by any of their stems
        self._names: dict[str, list[tuple[int, frozenset]]] = {}
        for d, entry_id in enumerate(self._ids):
            e = self._entries.get(entry_id or "")
            if e is None:
                continue
            for name in (e.title, *e.aliases):
                st = frozenset(stems(name))
                if st:
                    for x in st:
                        self._names.setdefault(x, []).append((d, st))

    def close(self) -> None:
        with self._lock:
            self._searcher.close()
            self.ix.close()

    # -- per-word scores (computed by Whoosh once, then kept in memory)
    def scope(self, rulesets) -> tuple[str, ...] | None:
        """The rulesets asked, as the scope of a word's statistics (:meth:`rarity`, IDF) when
        they are add-ons only (a question of an add-on's own table, e.g. ``choam-richese``
        alone): its few entries share words (its factions' names) that are rare in the base
        game. None when the game's base ruleset is asked (or every ruleset): the whole
        index's statistics."""
        if rulesets is None or self.game is None:
            return None
        asked = self.rulesets & set(rulesets)
        return tuple(sorted(asked)) if asked and self.game not in asked else None

    def word_scores(self, stem: str, fields: tuple[str, ...] = TEXT_FIELDS,
                    scope: tuple[str, ...] | None = None) -> dict[int, float]:
        """docnum -> score of ``stem``: Whoosh's BM25F score in each field, times the field
        boost (title and aliases: as far as the word is rare in ``scope``), summed over
        ``fields``."""
        key = (stem, fields, scope)
        got = self._scores.get(key)
        if got is not None:
            return got
        if stem not in self.lexicon.stems:  # unknown words are not cached (the cache stays
            return {}  # bounded by the corpus vocabulary)
        with self._lock:
            got = self._scores.get(key)
            if got is None:
                got = {}
                s = self._searcher
                rare = self.rarity(stem, scope)
                for f in fields:
                    if (f, stem) not in s.reader():
                        continue
                    boost = FIELD_BOOSTS[f]
                    if f in NAME_FIELDS:  # the title/alias boost counts as far as the word is rare
                        boost = 1.0 + (boost - 1.0) * (RARITY_FLOOR + (1 - RARITY_FLOOR) * rare)
                    if scope is not None:  # the word's IDF among the rulesets asked, not the index's
                        boost *= self._scope_idf(f, stem, scope) / s.idf(f, stem)
                    scorer = s.weighting.scorer(s, f, stem)
                    m = s.postings(f, stem)
                    while m.is_active():
                        d = m.id()
                        got[d] = got.get(d, 0.0) + boost * scorer.score(m)
                        m.next()
                self._scores[key] = got
        return got

    def reading_scores(self, reading: tuple[str, ...], fields: tuple[str, ...] = TEXT_FIELDS,
                       scope: tuple[str, ...] | None = None) -> dict[int, float]:
        """docnum -> score of a reading: one stem's :meth:`word_scores`, or for several stems
        the mean of theirs (an entry holding only some of the words gets that share)."""
        if len(reading) == 1:
            return self.word_scores(reading[0], fields, scope)
        key = (" ".join(reading), fields, scope)
        got = self._readings.get(key)
        if got is None:
            got = {}
            for x in reading:
                for d, v in self.word_scores(x, fields, scope).items():
                    got[d] = got.get(d, 0.0) + v / len(reading)
            if len(self._readings) > 20000:
                self._readings.clear()
            self._readings[key] = got
        return got

    def _scope_docs_of(self, scope: tuple[str, ...]) -> frozenset[int]:
        within = self._scope_docs.get(scope)
        if within is None:
            within = self._scope_docs[scope] = frozenset(
                d for d, r in enumerate(self._ruleset_of) if r in scope)
        return within

    def _scope_idf(self, field: str, stem: str, scope: tuple[str, ...]) -> float:
        """Whoosh's IDF of ``stem`` in ``field`` (log(N / (df + 1)) + 1), counted among the
        entries of ``scope`` only."""
        within = self._scope_docs_of(scope)
        df = sum(1 for d in self._searcher.reader().postings(field, stem).all_ids() if d in within)
        return math.log(max(1, len(within)) / (df + 1)) + 1

    def rarity(self, stem: str, scope: tuple[str, ...] | None = None) -> float:
        """1.0 for a word found in few of the entries of ``scope`` (rulesets; None: the whole
        index) — at most RARE_SHARE of them, and always for a word of one entry —, 0.0 from
        COMMON_SHARE, linear in between: how much a title or alias match of this word may
        count above a body match."""
        key = (stem, scope)
        got = self._rarity.get(key)
        if got is None:
            docs: set[int] = set()
            with self._lock:
                r = self._searcher.reader()
                for f in TEXT_FIELDS:
                    if (f, stem) in r:
                        docs.update(r.postings(f, stem).all_ids())
            n = max(1, self._n)
            if scope is not None:
                within = self._scope_docs_of(scope)
                docs &= within
                n = max(1, len(within))
            lo = max(RARE_SHARE, 1.0 / n)
            hi = max(COMMON_SHARE, 3.0 / n)
            share = len(docs) / n
            got = 1.0 if share <= lo else 0.0 if share >= hi else (hi - share) / (hi - lo)
            if len(self._rarity) < 50000:
                self._rarity[key] = got
        return got

    def expand_prefix(self, fieldname: str, prefix: str) -> tuple[str, ...]:
        key = (fieldname, prefix)
        got = self._prefixes.get(key)
        if got is None:
            if len(self._prefixes) > 20000:
                self._prefixes.clear()
            with self._lock:
                terms = self._searcher.reader().expand_prefix(fieldname, prefix)
                got = tuple(t.decode("utf-8") if isinstance(t, bytes) else t
                            for t in itertools.islice(terms, 20))
            self._prefixes[key] = got
        return got

    # -- query
    def _score(self, analysis: Analysis) -> dict[int, float]:
        totals: dict[int, float] = {}
        matched: Counter = Counter()
        n = 0
        for c in analysis.concepts:
            readings: list[tuple[tuple[str, ...], float, tuple[str, ...]]] = [
                (reading, weight, TEXT_FIELDS) for reading, weight in c.groups.items()]
            if c.prefix:
                seen = set(c.alts)
                for f in ("title", "aliases"):
                    for t in self.expand_prefix(f, c.prefix):
                        if t not in seen:
                            seen.add(t)
                            readings.append(((t,), PREFIX_WEIGHT, ("title", "aliases")))
            if not readings:
                continue
            n += 1
            best: dict[int, float] = {}
            sums: dict[int, float] = {}
            # a phrase stands for several of the query's words: it weighs more than one word
            span = max(1, len(stems(c.raw))) ** PHRASE_EXPONENT
            for reading, weight, fields in readings:
                for d, v in self.reading_scores(reading, fields, analysis.scope).items():
                    v *= weight * span
                    sums[d] = sums.get(d, 0.0) + v
                    if v > best.get(d, 0.0):
                        best[d] = v
            for d, v in best.items():
                totals[d] = totals.get(d, 0.0) + v + DISMAX_TIEBREAK * (sums[d] - v)
                matched[d] += 1
        if n > 1 and COORD_SCALE:
            for d in totals:
                totals[d] *= (1 - COORD_SCALE) + COORD_SCALE * matched[d] / n
        if self._tag_stems and n:
            # an entry about tags (e.g. one faction's) the question does not name: less likely
            qst = analysis.highlight_stems()
            for k, factor, tag_stems in self._tag_stems:
                named = {t for t, st in tag_stems.items() if st & qst}
                for d in totals:
                    tg = self._tags[d][k]
                    if tg and not (tg & named):
                        totals[d] *= factor
        if NAME_BONUS and n:
            # the query names the entry: all words of its title or of one alias are in the query
            qstems = analysis.highlight_stems()
            cover: dict[int, float] = {}
            for x in qstems:
                for d, st in self._names.get(x, ()):
                    if d in totals and st <= qstems:
                        rare = max(self.rarity(y, analysis.scope) for y in st)  # generic words: less bonus
                        rare = RARITY_FLOOR + (1 - RARITY_FLOOR) * rare
                        cover[d] = max(cover.get(d, 0.0), min(1.0, len(st) / n) * rare)
            for d, c in cover.items():
                totals[d] *= 1 + NAME_BONUS * c
        return totals

    def search(self, q: str, limit: int, tags: Sequence[str | None] = (),
               typing: bool = True, rulesets=None) -> tuple[list[tuple[str, float]], Analysis]:
        """The ``limit`` best (entry id, score) for ``q``, and the query's analysis. ``tags``:
        per tag group (TAG_GROUPS order) an id the entries must carry, or None. ``rulesets``:
        the rulesets asked (None: all), whose entries decide how rare a word is."""
        analysis = self.lexicon.analyse(q, typing=typing)
        analysis.scope = self.scope(rulesets)
        scores = self._score(analysis)
        if analysis.scope is not None:  # only the rulesets asked (their statistics were used)
            within = self._scope_docs_of(analysis.scope)
            scores = {d: v for d, v in scores.items() if d in within}
        wanted = [(k, t) for k, t in enumerate(tags) if t]
        if wanted:
            scores = {d: v for d, v in scores.items()
                      if all(t in self._tags[d][k] for k, t in wanted)}
        ranked = heapq.nlargest(limit, scores.items(), key=lambda kv: (kv[1], -kv[0]))
        return [(self._ids[d], v) for d, v in ranked if self._ids[d]], analysis

    def concepts_matched(self, entry_id: str, analysis: Analysis) -> frozenset[int]:
        """The indexes of the query's concepts that the entry answers: its best alternative
        scores at least PAIR_MATCH_SHARE of that concept's best score in the game (a word
        merely mentioned in passing does not count)."""
        d = self._docnums().get(entry_id)
        if d is None:
            return frozenset()
        out = set()
        for k, c in enumerate(analysis.concepts):
            here = best = 0.0
            for reading, weight in c.groups.items():
                scores = self.reading_scores(reading, scope=analysis.scope)
                if scores:
                    best = max(best, weight * max(scores.values()))
                    here = max(here, weight * scores.get(d, 0.0))
            if best > 0 and here >= PAIR_MATCH_SHARE * best:
                out.add(k)
        return frozenset(out)

    def pair(self, ranked: Sequence[tuple[str, float]], analysis: Analysis) -> tuple[str, str] | None:
        """The best entry and, among the next PAIR_CANDIDATES, the best-ranked one that answers
        the other half of the question: each answers a concept the other does not
        (:meth:`concepts_matched`), each half holds a telling word (PAIR_MIN_RARITY), together
        they answer every concept any entry of the game answers (the first does not alone),
        they share at most PAIR_MAX_OVERLAP of those concepts, and the second scores at least
        PAIR_SCORE_SHARE of the first. Else None."""
        if len(ranked) < 2 or len(analysis.concepts) < 2:
            return None
        a, sa = ranked[0]
        if sa <= 0:
            return None
        answerable = {k for k, c in enumerate(analysis.concepts)
                      if any(self.word_scores(x, scope=analysis.scope) for x in c.alts)}
        ca = self.concepts_matched(a, analysis) & answerable
        if ca == answerable:
            return None
        for b, sb in ranked[1:1 + PAIR_CANDIDATES]:
            if sb < PAIR_SCORE_SHARE * sa:
                break
            cb = self.concepts_matched(b, analysis) & answerable
            union = ca | cb
            if not (ca - cb) or not (cb - ca) or union != answerable:
                continue
            if len(ca & cb) > PAIR_MAX_OVERLAP * len(union):
                continue
            if min(self._concept_rarity(analysis, ca - cb), self._concept_rarity(analysis, cb - ca)) < PAIR_MIN_RARITY:
                continue
            return a, b
        return None

    def _concept_rarity(self, analysis: Analysis, concepts) -> float:
        """How telling the most telling of these concepts is (its rarest alternative)."""
        return max((self.rarity(x, analysis.scope) for k in concepts for x in analysis.concepts[k].alts),
                   default=0.0)

    def _docnums(self) -> dict[str, int]:
        got = getattr(self, "_docnum_of", None)
        if got is None:
            got = self._docnum_of = {i: d for d, i in enumerate(self._ids) if i}
        return got

    def snippet(self, entry_id: str, analysis: Analysis, width: int = 220) -> str:
        doc = self._docs.get(entry_id)
        if doc is None:
            e = self._entries[entry_id]
            doc = self._docs[entry_id] = _analyse_doc(e.text)
        return make_snippet(doc, analysis.highlight_stems(), analysis.prefixes(), width)
