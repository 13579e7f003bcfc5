"""Whoosh behind our search interface. The only module of the app that imports whoosh.

* Index: one Whoosh index per corpus fingerprint, in ``<index_dir>/<fingerprint>/``, built
  into a temporary folder and renamed into place (atomic; concurrent builders do not clash),
  then loaded into memory (RamStorage) for querying.
* Fields: title, aliases, source, tags (faction/phase tags spelled out), body (plain text);
  StemmingAnalyzer (Porter) with English + question stop words.
* Query analysis: each query word (or slang phrase) becomes a *concept* with alternatives:
  its stem; spelling corrections against the corpus vocabulary (symmetric-delete, edit distance
  1 for words of 4-5 letters, 2 from 6); slang/synonym expansions (SYNONYMS); a prefix for the
  word being typed.
* Ranking (see WhooshBackend): Whoosh's BM25F score of each word per field, times field boosts
  (title and aliases above body); per concept the best alternative; summed; coordination
  factor; a bonus when the query names an entry's whole title or an alias.
* Snippets: our own highlighter over the entry's plain text, html-escaped, ``<mark>`` around
  the matched words.
"""
from __future__ import annotations

import functools
import hashlib
import heapq
import html
import itertools
import logging
import os
import re
import shutil
import threading
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from whoosh import index as windex
from whoosh.analysis import STOP_WORDS, StemmingAnalyzer
from whoosh.fields import ID, KEYWORD, TEXT, Schema
from whoosh.filedb.filestore import RamStorage
from whoosh.scoring import BM25F

from .corpus import Entry, plain_text

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# analysis

# Words players put around the real question; dropped like stop words.
QUESTION_WORDS = frozenset("""
    what whats how does do did doing done i im my me mine who whom which there their they them
    he she his her its it's our ours any some much many does doesn't don't can't cannot could
    would should shall must get gets got happen happens happened exactly really just also
    about into onto than then so still ever anyway else rule rules rulebook kiss
    is are was were been being has had having am
""".split())
STOPLIST = frozenset(STOP_WORDS) | QUESTION_WORDS

# Index side (schema, snippets): the corpus vocabulary is finite, so an unbounded stem cache
# (plain dict reads and writes, safe between threads). Query side: no Whoosh cache (its LFU
# eviction is not thread-safe) but functools.lru_cache around whole query words.
ANALYZER = StemmingAnalyzer(stoplist=STOPLIST, minsize=2, cachesize=-1)
QUERY_ANALYZER = StemmingAnalyzer(stoplist=STOPLIST, minsize=2, cachesize=0)

# BM25F: weight of a word occurrence per field, and per-field length normalisation.
FIELD_BOOSTS = {"title": 2.5, "aliases": 3.0, "source": 1.2, "body": 1.0,
                "tags": 1.0}
FIELD_B = {"title": 0.3, "aliases": 0.3, "source": 0.3, "body": 0.75, "tags": 0.3}

# The faction and phase tags of an entry, spelled out as players name them ("tags" field).
TAG_WORDS = {
    "atreides": "atreides", "harkonnen": "harkonnen", "fremen": "fremen", "emperor": "emperor",
    "guild": "spacing guild", "bg": "bene gesserit", "ecaz": "ecaz", "moritani": "moritani",
    "tleilaxu": "tleilaxu bene tleilax",
    "storm": "storm", "spice_blow": "spice blow nexus", "charity": "charity choam",
    "bidding": "bidding", "revival": "revival", "shipment_movement": "shipment movement",
    "battle": "battle", "collection": "collection", "mentat_pause": "mentat pause",
}
K1 = 1.2

# The table's slang. Keys and values are lowercase word sequences; a key found in the query
# adds its values as alternatives of the same concept (weight SYNONYM_WEIGHT).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "kh": ("kwisatz haderach",),
    "kwisatz": ("kwisatz haderach",),
    "bg": ("bene gesserit",),
    "bene": ("bene gesserit",),
    "gesserit": ("bene gesserit",),
    "eome": ("enemy of my enemy",),
    "enemy of my enemy": ("eome",),
    "thopter": ("ornithopter",),
    "thopters": ("ornithopters",),
    "ornithopter": ("thopter",),
    "ornithopters": ("thopters",),
    "worm": ("shai hulud", "sandworm"),
    "worms": ("shai hulud", "sandworms"),
    "shai hulud": ("worm", "sandworm"),
    "shai": ("shai hulud",),
    "hulud": ("shai hulud",),
    "sandworm": ("worm", "shai hulud"),
    "sandworms": ("worms", "shai hulud"),
    "maker": ("shai hulud", "worm"),
    "dial": ("dialing",),
    "dialling": ("dialing",),
    "dialled": ("dialed",),
    "wheel": ("battle wheel", "dial"),
    "tanks": ("tleilaxu tanks",),
    "tank": ("tleilaxu tanks",),
    "hms": ("hidden mobile stronghold",),
    "hidden mobile stronghold": ("hms",),
    "sardukar": ("sardaukar",),
    "sardaukars": ("sardaukar",),
    "fedaykins": ("fedaykin",),
    "fedayken": ("fedaykin",),
    "fedaikin": ("fedaykin",),
    "karma": ("karama",),
    "karamas": ("karama",),
    "tt": ("truthtrance",),
    "truth trance": ("truthtrance",),
    "choam": ("charity",),
    "atomics": ("family atomics",),
    "nukes": ("family atomics",),
    "nuke": ("family atomics",),
    "s&m": ("shipment movement",),
    "harkos": ("harkonnen",),
    "harko": ("harkonnen",),
    "harks": ("harkonnen",),
    "emp": ("emperor",),
    "sg": ("spacing guild",),
    "bt": ("tleilaxu", "tleilax"),
    "tleilax": ("tleilaxu",),
    "tleilaxu": ("tleilax",),
    "tleilaxi": ("tleilaxu", "tleilax"),
    "face dancer": ("facedancer",),
    "face dancers": ("facedancers",),
    "facedancer": ("face dancer",),
    "facedancers": ("face dancers",),
    "ally": ("alliance",),
    "allies": ("alliance",),
    "allied": ("alliance",),
    "allying": ("alliance",),
    "fight": ("battle",),
    "fights": ("battle",),
    "combat": ("battle",),
    "attack": ("battle",),
    "ship": ("shipment",),
    "ships": ("shipment",),
    "shipping": ("shipment",),
    "move": ("movement",),
    "moves": ("movement",),
    "moving": ("movement",),
    "win": ("victory",),
    "wins": ("victory",),
    "winning": ("victory",),
    "won": ("victory",),
    "pay": ("payment",),
    "melange": ("spice",),
    "revive": ("revival",),
    "revives": ("revival",),
    "reviving": ("revival",),
    "rez": ("revival",),
    "buy": ("bidding",),
    "auction": ("bidding",),
    "troops": ("forces",),
    "troop": ("forces",),
    "units": ("forces",),
    "tokens": ("forces",),
    "cards": ("card",),
    "adviser": ("advisor",),
    "advisers": ("advisors",),
    "money": ("spice",),
    "cash": ("spice",),
    "home": ("reserves",),
    "send": ("ship",),
    "stack": ("group",),
    "stacks": ("groups",),
    "blow": ("spice blow",),
    "thru": ("through",),
}
SYNONYM_WEIGHT = 0.6
CORRECTION_WEIGHT = 0.9
PREFIX_WEIGHT = 0.7
COORD_SCALE = 0.5  # share of the score that depends on how many query concepts an entry matches
DISMAX_TIEBREAK = 0.1  # a concept's other matching alternatives add this share of their score
NAME_BONUS = 0.5  # score x1.5 when the query contains all words of an entry's title or an alias

SCHEMA_VERSION = "1"


@functools.lru_cache(maxsize=20000)
def _stems(text: str) -> tuple[str, ...]:
    return tuple(t.text for t in QUERY_ANALYZER(text))


def stems(text: str) -> list[str]:
    """The index terms of ``text`` (lowercased, stop words dropped, Porter-stemmed)."""
    return list(_stems(text))


def stem1(word: str) -> str | None:
    s = stems(word)
    return s[0] if s else None


def words(text: str) -> list[str]:
    """Lowercase raw words (hyphens and punctuation split words; "&" kept in "s&m")."""
    text = text.lower().replace("’", "'")
    out = []
    for w in re.findall(r"s&m|[a-z0-9]+(?:'[a-z]+)?", text):
        if w.endswith("'s"):
            w = w[:-2]
        out.append(w)
    return out


def backend_fingerprint() -> str:
    """Changes whenever this module changes (schema, analysis): part of the index fingerprint."""
    try:
        src = Path(__file__).read_bytes()
    except OSError:  # pragma: no cover - zipped install
        src = SCHEMA_VERSION.encode()
    return "whoosh-" + SCHEMA_VERSION + "-" + hashlib.sha256(src).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------
# building


def make_schema() -> Schema:
    return Schema(
        id=ID(stored=True, unique=True),
        kind=ID(stored=True),
        title=TEXT(analyzer=ANALYZER, phrase=True),
        aliases=TEXT(analyzer=ANALYZER, phrase=True),
        source=TEXT(analyzer=ANALYZER, phrase=False),
        tags=TEXT(analyzer=ANALYZER, phrase=False),
        body=TEXT(analyzer=ANALYZER, phrase=False),
        factions=KEYWORD(commas=True, lowercase=True),
        phases=KEYWORD(commas=True, lowercase=True),
    )


def _alias_text(e: Entry) -> str:
    # aliases are separated by a full stop so they do not form phrases across each other
    return " . ".join(e.aliases)


def _write(ix, entries: Sequence[Entry]) -> None:
    w = ix.writer(procs=1, limitmb=64)
    try:
        for e in entries:
            w.add_document(
                id=e.id,
                kind=e.kind,
                title=e.title,
                aliases=_alias_text(e),
                source=e.source,
                tags=" . ".join(TAG_WORDS.get(t, t) for t in (*e.factions, *e.phases)),
                body=plain_text(e.text),
                factions=",".join(e.factions),
                phases=",".join(e.phases),
            )
    except BaseException:
        w.cancel()
        raise
    w.commit(optimize=True)


def build_index(path: Path, entries: Sequence[Entry]) -> None:
    """Write a fresh index of ``entries`` into the (new, empty) folder ``path``."""
    path.mkdir(parents=True, exist_ok=True)
    _write(windex.create_in(str(path), make_schema()), entries)


def open_or_build(index_dir: Path, fp: str, entries: Sequence[Entry]) -> tuple[object, bool]:
    """Open the index for fingerprint ``fp`` under ``index_dir``, building it if missing.

    Returns (whoosh index, built?). Old indexes of other fingerprints are removed. When the
    folder cannot be written, the index is built in memory (and rebuilt at every start).
    """
    try:
        return _open_or_build_on_disk(index_dir, fp, entries)
    except OSError as exc:
        log.warning("search index folder %s unusable (%s): index kept in memory", index_dir, exc)
        ix = RamStorage().create_index(make_schema())
        _write(ix, entries)
        return ix, True


def _open_or_build_on_disk(index_dir: Path, fp: str, entries: Sequence[Entry]):
    index_dir.mkdir(parents=True, exist_ok=True)
    final = index_dir / fp[:32]
    built = False
    if not (final / "READY").exists():
        tmp = index_dir / f".tmp-{uuid.uuid4().hex}"
        try:
            build_index(tmp, entries)
            (tmp / "READY").write_text(fp + "\n", encoding="utf-8")
            try:
                os.rename(tmp, final)
                built = True
            except OSError:
                if not (final / "READY").exists():  # a broken leftover: replace it
                    shutil.rmtree(final, ignore_errors=True)
                    os.rename(tmp, final)
                    built = True
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    for other in index_dir.iterdir():
        if other != final and other.is_dir() and re.fullmatch(r"[0-9a-f]{32}", other.name):
            shutil.rmtree(other, ignore_errors=True)
    return _open_in_ram(final), built


def _open_in_ram(path: Path):
    """Open the index from a copy in memory: queries never touch the disk, and the folder
    can be replaced or removed while the index is in use."""
    ram = RamStorage()
    for p in path.iterdir():
        if p.is_file() and p.name != "READY":
            ram.files[p.name] = p.read_bytes()
    return ram.open_index()


# ---------------------------------------------------------------------------------------------
# spelling


def damerau(a: str, b: str, limit: int = 3) -> int:
    """Optimal string alignment distance (adjacent transpositions count 1)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _deletes(word: str, depth: int) -> set[str]:
    out = {word}
    frontier = {word}
    for _ in range(depth):
        nxt = set()
        for w in frontier:
            for i in range(len(w)):
                nxt.add(w[:i] + w[i + 1:])
        out |= nxt
        frontier = nxt
    return out


def max_edits(word: str) -> int:
    n = len(word)
    if n <= 3:
        return 0
    return 1 if n <= 5 else 2


class Speller:
    """Symmetric-delete spelling correction against the corpus vocabulary (raw words)."""

    def __init__(self, vocabulary: Counter):
        self.freq = vocabulary
        index: dict[str, list[str]] = {}
        for w in vocabulary:
            if len(w) < 4 or not w.isalpha():
                continue
            for d in _deletes(w, max_edits(w) if len(w) > 5 else 1):
                index.setdefault(d, []).append(w)
        # str -> str (space-separated words): a dict the garbage collector does not track
        self._index: dict[str, str] = {d: " ".join(ws) for d, ws in index.items()}

    def known(self, word: str) -> bool:
        return word in self.freq

    def correct(self, word: str) -> list[str]:
        """The closest vocabulary words within the edit budget (best first, at most 2)."""
        k = max_edits(word)
        if not k or not word.isalpha():
            return []
        cands: set[str] = set()
        for d in _deletes(word, k):
            found = self._index.get(d)
            if found:
                cands.update(found.split())
        scored = []
        for c in cands:
            if c == word:
                continue
            dist = damerau(word, c, k)
            if dist <= min(k, max_edits(c) or 1):
                scored.append((dist, -self.freq[c], c))
        scored.sort()
        if not scored:
            return []
        best = scored[0][0]
        return [c for dist, _, c in scored if dist == best][:2]


# ---------------------------------------------------------------------------------------------
# query analysis


@dataclass
class Concept:
    raw: str  # the words of the query this concept stands for
    alts: dict[str, float] = field(default_factory=dict)  # stem -> weight
    prefix: str | None = None
    corrected: str | None = None  # replacement text for "did you mean"

    def add(self, stem: str, weight: float) -> None:
        if stem and weight > self.alts.get(stem, 0.0):
            self.alts[stem] = weight


@dataclass
class Analysis:
    concepts: list[Concept]
    suggestion: str | None  # corrected query, when some word was corrected

    def highlight_stems(self) -> set[str]:
        return {s for c in self.concepts for s in c.alts}

    def prefixes(self) -> list[str]:
        return [c.prefix for c in self.concepts if c.prefix]


_SYN_KEYS = {tuple(k.split()): v for k, v in SYNONYMS.items()}
_SYN_MAXLEN = max(len(k) for k in _SYN_KEYS)


class Lexicon:
    """What the index knows: stemmed terms (for matching) and raw words (for spelling)."""

    def __init__(self, stems_known: set[str], vocabulary: Counter):
        self.stems = stems_known
        self.speller = Speller(vocabulary)

    def analyse(self, q: str, typing: bool = True) -> Analysis:
        toks = words(q)
        concepts: list[Concept] = []
        suggestion_parts: list[str] = []
        changed = False
        i = 0
        while i < len(toks):
            # longest slang phrase first
            match = None
            for n in range(min(_SYN_MAXLEN, len(toks) - i), 0, -1):
                key = tuple(toks[i:i + n])
                if key in _SYN_KEYS:
                    match = (n, _SYN_KEYS[key])
                    break
            if match:
                n, expansions = match
                raw = " ".join(toks[i:i + n])
                c = Concept(raw)
                for s in stems(raw):
                    c.add(s, 1.0)
                for exp in expansions:
                    for s in stems(exp):
                        c.add(s, SYNONYM_WEIGHT)
                if c.alts:
                    concepts.append(c)
                suggestion_parts.append(raw)
                i += n
                continue
            w = toks[i]
            i += 1
            suggestion_parts.append(w)
            if w in STOPLIST or len(w) < 2:
                continue
            c = Concept(w)
            s = stem1(w)
            if s is None:
                continue
            is_last = i == len(toks)
            if s in self.stems:
                c.add(s, 1.0)
            else:
                fixes = [] if w.isdigit() else self.speller.correct(w)
                for fx in fixes:
                    if tuple([fx]) in _SYN_KEYS:
                        for exp in _SYN_KEYS[(fx,)]:
                            for es in stems(exp):
                                c.add(es, SYNONYM_WEIGHT * CORRECTION_WEIGHT)
                    fs = stem1(fx)
                    if fs:
                        c.add(fs, CORRECTION_WEIGHT)
                if fixes:
                    c.corrected = fixes[0]
                    suggestion_parts[-1] = fixes[0]
                    changed = True
                c.add(s, 1.0)  # harmless when unknown; keeps highlighting consistent
                if typing and is_last and len(w) >= 3 and w.isalpha():
                    c.prefix = w
            concepts.append(c)
        suggestion = " ".join(suggestion_parts) if changed else None
        return Analysis(concepts, suggestion)


# ---------------------------------------------------------------------------------------------
# snippets


@dataclass
class _Doc:
    plain: str
    tokens: tuple[tuple[str, int, int], ...]  # (stem, start, end)


def _analyse_doc(text: str) -> _Doc:
    plain = plain_text(text)
    toks = tuple((t.text, t.startchar, t.endchar)
                 for t in ANALYZER(plain, chars=True, positions=True))
    return _Doc(plain, toks)


def make_snippet(doc: _Doc, hl: set[str], prefixes: Sequence[str], width: int = 220) -> str:
    """HTML: a window of the text around the most matched words, ``<mark>`` around matches."""
    text = doc.plain
    def hit(stem: str) -> bool:
        return stem in hl or any(stem.startswith(p) for p in prefixes)

    matches = [(s, a, b) for (s, a, b) in doc.tokens if hit(s)]
    if not matches:
        start, end = 0, min(len(text), width)
    else:
        best = (-1, 0.0, 0)
        for k, (_, a, _) in enumerate(matches):
            seen = set()
            for s, a2, b2 in matches[k:]:
                if b2 - a > width:
                    break
                seen.add(s)
            score = (len(seen), -a)
            if score > best[:2]:
                best = (len(seen), -a, k)
        first = matches[best[2]][1]
        # center the matched run in the window, starting at a word boundary
        start = max(0, first - width // 4)
        if start > 0:
            sp = text.rfind(" ", 0, start)
            start = sp + 1 if sp >= 0 and first - sp < width // 2 else start
        end = min(len(text), start + width)
    if end < len(text):
        sp = text.rfind(" ", start, end)
        if sp > start + width // 2:
            end = sp
    out = []
    if start > 0:
        out.append("… ")
    pos = start
    for s, a, b in matches:
        if a < start or b > end:
            continue
        out.append(html.escape(text[pos:a], quote=False))
        out.append("<mark>" + html.escape(text[a:b], quote=False) + "</mark>")
        pos = b
    out.append(html.escape(text[pos:end], quote=False))
    if end < len(text):
        out.append(" …")
    return "".join(out).strip()


# ---------------------------------------------------------------------------------------------
# the backend

TEXT_FIELDS = tuple(FIELD_BOOSTS)


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

    def __init__(self, index_dir: Path, fp: str, entries: Sequence[Entry]):
        self.ix, self.built = open_or_build(Path(index_dir), fp, entries)
        self.path = Path(index_dir) / fp[:32]
        self.fp = fp
        self._entries = {e.id: e for e in entries}
        self._docs: dict[str, _Doc] = {}
        self._lock = threading.Lock()
        self._scores: dict[tuple[str, tuple[str, ...]], dict[int, float]] = {}
        self._prefixes: dict[tuple[str, str], tuple[str, ...]] = {}
        self._searcher = self.ix.searcher(weighting=make_weighting())
        reader = self._searcher.reader()
        n = reader.doc_count_all()
        self._n = n
        self._ids: list[str | None] = [None] * n
        self._tags: list[tuple[frozenset, frozenset]] = [(frozenset(), frozenset())] * n
        for docnum, stored in reader.iter_docs():
            self._ids[docnum] = stored["id"]
            e = self._entries.get(stored["id"])
            if e is not None:
                self._tags[docnum] = (frozenset(e.factions), frozenset(e.phases))
        known: set[str] = set()
        for fname in TEXT_FIELDS:
            for t in reader.lexicon(fname):
                known.add(t.decode("utf-8") if isinstance(t, bytes) else t)
        vocab: Counter = Counter()
        for e in entries:
            vocab.update(set(words(" ".join((e.title, e.source, " ".join(e.aliases), e.text)))))
        for k, vs in SYNONYMS.items():
            for w in words(k + " " + " ".join(vs)):
                vocab[w] += 1
        self.lexicon = Lexicon(known, vocab)
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
    def word_scores(self, stem: str, fields: tuple[str, ...] = TEXT_FIELDS) -> dict[int, float]:
        """docnum -> score of ``stem``: Whoosh's BM25F score in each field, times the field
        boost, summed over ``fields``."""
        key = (stem, fields)
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
                for f in fields:
                    if (f, stem) not in s.reader():
                        continue
                    boost = FIELD_BOOSTS[f]
                    scorer = s.weighting.scorer(s, f, stem)
                    m = s.postings(f, stem)
                    while m.is_active():
                        d = m.id()
                        got[d] = got.get(d, 0.0) + boost * scorer.score(m)
                        m.next()
                self._scores[key] = got
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
            alts: list[tuple[str, float, tuple[str, ...]]] = [
                (stem, weight, TEXT_FIELDS) for stem, weight in c.alts.items()]
            if c.prefix:
                seen = set(c.alts)
                for f in ("title", "aliases"):
                    for t in self.expand_prefix(f, c.prefix):
                        if t not in seen:
                            seen.add(t)
                            alts.append((t, PREFIX_WEIGHT, ("title", "aliases")))
            if not alts:
                continue
            n += 1
            best: dict[int, float] = {}
            sums: dict[int, float] = {}
            for stem, weight, fields in alts:
                for d, v in self.word_scores(stem, fields).items():
                    v *= weight
                    sums[d] = sums.get(d, 0.0) + v
                    if v > best.get(d, 0.0):
                        best[d] = v
            for d, v in best.items():
                totals[d] = totals.get(d, 0.0) + v + DISMAX_TIEBREAK * (sums[d] - v)
                matched[d] += 1
        if n > 1 and COORD_SCALE:
            for d in totals:
                totals[d] *= (1 - COORD_SCALE) + COORD_SCALE * matched[d] / n
        if NAME_BONUS and n:
            # the query names the entry: all words of its title or of one alias are in the query
            qstems = analysis.highlight_stems()
            cover: dict[int, float] = {}
            for x in qstems:
                for d, st in self._names.get(x, ()):
                    if d in totals and st <= qstems:
                        cover[d] = max(cover.get(d, 0.0), min(1.0, len(st) / n))
            for d, c in cover.items():
                totals[d] *= 1 + NAME_BONUS * c
        return totals

    def search(self, q: str, limit: int, faction: str | None, phase: str | None,
               typing: bool = True) -> tuple[list[tuple[str, float]], Analysis]:
        analysis = self.lexicon.analyse(q, typing=typing)
        scores = self._score(analysis)
        if faction or phase:
            scores = {d: v for d, v in scores.items()
                      if (not faction or faction in self._tags[d][0])
                      and (not phase or phase in self._tags[d][1])}
        ranked = heapq.nlargest(limit, scores.items(), key=lambda kv: (kv[1], -kv[0]))
        return [(self._ids[d], v) for d, v in ranked if self._ids[d]], analysis

    def snippet(self, entry_id: str, analysis: Analysis, width: int = 220) -> str:
        doc = self._docs.get(entry_id)
        if doc is None:
            e = self._entries[entry_id]
            doc = self._docs[entry_id] = _analyse_doc(e.text)
        return make_snippet(doc, analysis.highlight_stems(), analysis.prefixes(), width)
