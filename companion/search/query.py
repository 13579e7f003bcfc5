"""Query understanding: each query word (or slang phrase) becomes a *concept* with weighted
alternatives — its stem; spelling corrections against the corpus vocabulary (symmetric-delete,
edit distance 1 for words of 4-5 letters, 2 from 6); slang/synonym expansions (the corpus
data's ``synonyms``, ``rules_corpus/vocabulary/``); a prefix for the word being typed."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .analysis import STOPLIST, stem1, stems, words
from .spelling import Speller
from .vocabulary import SYNONYMS

# A synonym key found in the query adds its values as alternatives of the same concept, at
# SYNONYM_WEIGHT; a spelling correction at CORRECTION_WEIGHT (both: the product).
SYNONYM_WEIGHT = 0.6
CORRECTION_WEIGHT = 0.9


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
_SYN_MAXLEN = max((len(k) for k in _SYN_KEYS), default=0)


def synonym_words() -> Counter:
    """Every word of the synonym table (keys and values), counted: known words for spelling."""
    vocab: Counter = Counter()
    for k, vs in SYNONYMS.items():
        for w in words(k + " " + " ".join(vs)):
            vocab[w] += 1
    return vocab


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
