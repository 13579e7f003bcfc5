"""Query understanding: each query word (or slang phrase) becomes a *concept* with weighted
alternatives — its stem; spelling corrections against the corpus vocabulary (symmetric-delete,
edit distance 1 for words of 4-5 letters, 2 from 6); slang/synonym expansions (the game's
``synonyms``, ``rules_corpus/vocabulary/``); a prefix for the word being typed.

Only what is misspelt is corrected: a word the ruleset does not know but that is an ordinary
English word (:func:`ordinary`, from the ``wordfreq`` package's English frequency list, shipped
with it) is kept as typed, never "corrected" into a game word. A synonym whose expansion only
qualifies an ordinary, known key with a name ("tanks" -> "<name> tanks") adds no name: the key
alone is the better reading. A true synonym (a different word for the same thing) still adds."""
from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field

from .analysis import STOPLIST, stem1, stems, words
from .spelling import Speller
from .vocabulary import SYNONYMS

# Zipf frequency (log10 of occurrences per billion words) from which a word is ordinary English.
ORDINARY_ZIPF = 3.0


@functools.lru_cache(maxsize=50000)
def ordinary(word: str) -> bool:
    """Is ``word`` an ordinary English word (wordfreq's English list, Zipf >= ORDINARY_ZIPF)?"""
    if not word.isalpha() or len(word) < 2:
        return False
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= ORDINARY_ZIPF

# A synonym key found in the query adds its values as alternatives of the same concept, at
# SYNONYM_WEIGHT; a spelling correction at CORRECTION_WEIGHT (both: the product).
SYNONYM_WEIGHT = 0.6
CORRECTION_WEIGHT = 0.9
# An ordinary English word this ruleset does not know is also searched as the word it is built
# from ("slowest" -> slow, "usable" -> use, "fairness" -> fair), at RELATIVE_WEIGHT.
RELATIVE_WEIGHT = 0.8
_SUFFIXES = ("ably", "ibly", "able", "ible", "ness", "est", "ful", "less", "ly", "er")


def relatives(word: str) -> list[str]:
    """The words ``word`` may be built from by an English suffix (comparative, -able, -ness,
    -ly...): the stem left, with a dropped "e" restored and a doubled consonant undone."""
    out = []
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 2:
            base = word[: -len(suf)]
            out += [base, base + "e"]
            if len(base) > 3 and base[-1] == base[-2]:
                out.append(base[:-1])
            if base.endswith("i"):
                out.append(base[:-1] + "y")
    return out


@dataclass
class Concept:
    """One query word or phrase. ``alts``: every stem that stands for it (highlighting, how
    telling it is); ``groups``: its readings, each a tuple of stems scored together (the
    phrase as typed, each expansion, each correction). A reading of several words scores the
    mean of its words' scores, so an entry must hold all of "family atomics" to count fully,
    not merely "family"."""
    raw: str  # the words of the query this concept stands for
    alts: dict[str, float] = field(default_factory=dict)  # stem -> weight
    prefix: str | None = None
    corrected: str | None = None  # replacement text for "did you mean"
    groups: dict[tuple[str, ...], float] = field(default_factory=dict)  # reading -> weight

    def add(self, stem: str, weight: float) -> None:
        if stem and weight > self.alts.get(stem, 0.0):
            self.alts[stem] = weight
        if stem and weight > self.groups.get((stem,), 0.0):
            self.groups[(stem,)] = weight

    def add_reading(self, reading, weight: float) -> None:
        """A reading of several stems, scored together; its stems also join ``alts``."""
        reading = tuple(dict.fromkeys(x for x in reading if x))
        if not reading:
            return
        for x in reading:
            if weight > self.alts.get(x, 0.0):
                self.alts[x] = weight
        if weight > self.groups.get(reading, 0.0):
            self.groups[reading] = weight


@dataclass
class Analysis:
    concepts: list[Concept]
    suggestion: str | None  # corrected query, when some word was corrected
    # the rulesets asked (sorted ids) when they are only part of the index's, else None: how
    # rare a word is (title and alias boosts) is counted among their entries only
    scope: tuple[str, ...] | None = None

    def highlight_stems(self) -> set[str]:
        return {s for c in self.concepts for s in c.alts}

    def prefixes(self) -> list[str]:
        return [c.prefix for c in self.concepts if c.prefix]


def synonym_words(synonyms: dict[str, tuple[str, ...]] | None = None) -> Counter:
    """Every word of the synonym table (keys and values), counted: known words for spelling."""
    vocab: Counter = Counter()
    for k, vs in (SYNONYMS if synonyms is None else synonyms).items():
        for w in words(k + " " + " ".join(vs)):
            vocab[w] += 1
    return vocab


def _once_each(concepts: list[Concept]) -> list[Concept]:
    """A word (or phrase) the question repeats counts once: "the emperor picks the next
    emperor", "a worm in blow A and in blow B" ask about the emperor, the blow, not twice as
    much about them. Concepts with the same readings are merged into the first."""
    out: list[Concept] = []
    seen: dict[tuple, Concept] = {}
    for c in concepts:
        key = tuple(sorted(c.groups))
        first = seen.get(key)
        if first is None:
            seen[key] = c
            out.append(c)
        elif c.prefix and not first.prefix:
            first.prefix = c.prefix  # the word being typed still expands
    return out


class Lexicon:
    """What the index knows: stemmed terms (for matching) and raw words (for spelling), and the
    game's synonyms (default: every ruleset's)."""

    def __init__(self, stems_known: set[str], vocabulary: Counter,
                 synonyms: dict[str, tuple[str, ...]] | None = None):
        self.stems = stems_known
        self.speller = Speller(vocabulary)
        table = SYNONYMS if synonyms is None else synonyms
        self.syn_keys = {tuple(k.split()): v for k, v in table.items()}
        self.syn_maxlen = max((len(k) for k in self.syn_keys), default=0)

    def _expansion_stems(self, key: str, expansion: str) -> list[str]:
        """The stems an expansion adds: all of them, unless the key is an ordinary word the
        ruleset already knows (then names, the expansion's words that are not ordinary English,
        are left out: the key has a better reading of its own)."""
        key_words = [w for w in words(key) if w not in STOPLIST]
        expanded = list(dict.fromkeys(stems(expansion)))  # in order: readings are stable
        # the expansion only qualifies the key with a name ("tanks" -> "<name> tanks"), and the
        # key is an ordinary word this ruleset knows: the key alone is the better reading
        qualifies = key_words and all(stem1(w) in expanded for w in key_words)
        better = qualifies and all(ordinary(w) and stem1(w) in self.stems for w in key_words)
        if not better:
            return list(expanded)
        return [s for w in words(expansion) if ordinary(w) for s in stems(w)]

    def analyse(self, q: str, typing: bool = True) -> Analysis:
        toks = words(q)
        concepts: list[Concept] = []
        suggestion_parts: list[str] = []
        changed = False
        i = 0
        while i < len(toks):
            # longest slang phrase first
            match = None
            for n in range(min(self.syn_maxlen, len(toks) - i), 0, -1):
                key = tuple(toks[i:i + n])
                if key in self.syn_keys:
                    match = (n, self.syn_keys[key])
                    break
            if match:
                n, expansions = match
                raw = " ".join(toks[i:i + n])
                c = Concept(raw)
                c.add_reading(stems(raw), 1.0)
                for exp in expansions:
                    c.add_reading(self._expansion_stems(raw, exp), SYNONYM_WEIGHT)
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
                # an ordinary English word is not a misspelling, only unknown to this ruleset:
                # it may be a form of a word the ruleset knows
                fixes = [] if w.isdigit() or ordinary(w) else self.speller.correct(w)
                if not fixes and ordinary(w):
                    for base in relatives(w):
                        bs = stem1(base)
                        if bs and bs in self.stems:
                            c.add(bs, RELATIVE_WEIGHT)
                for fx in fixes:
                    if (fx,) in self.syn_keys:
                        for exp in self.syn_keys[(fx,)]:
                            c.add_reading(stems(exp), SYNONYM_WEIGHT * CORRECTION_WEIGHT)
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
        return Analysis(_once_each(concepts), suggestion)
