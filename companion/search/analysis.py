"""Text analysis shared by the index and the queries: words, stop words, Porter stems.

The stop list is Whoosh's English stop words, the words players put around a question
(``QUESTION_WORDS``) and the corpus data's own stop words; the tokenizer keeps the data's
``tokens`` whole (words with punctuation inside). Both come from ``rules_corpus/vocabulary/``.
"""
from __future__ import annotations

import functools
import re

from whoosh.analysis import STOP_WORDS, StemmingAnalyzer

from .vocabulary import VOCABULARY

# Words players put around the real question; dropped like stop words.
QUESTION_WORDS = frozenset("""
    what whats how does do did doing done i im my me mine who whom which there their they them
    he she his her its it's our ours any some much many does doesn't don't can't cannot could
    would should shall must get gets got happen happens happened exactly really just also
    about into onto than then so still ever anyway else rule rules rulebook
    is are was were been being has had having am
""".split())
STOPLIST = frozenset(STOP_WORDS) | QUESTION_WORDS | VOCABULARY.stop_words

# Index side (schema, snippets): the corpus vocabulary is finite, so an unbounded stem cache
# (plain dict reads and writes, safe between threads). Query side: no Whoosh cache (its LFU
# eviction is not thread-safe) but functools.lru_cache around whole query words.
ANALYZER = StemmingAnalyzer(stoplist=STOPLIST, minsize=2, cachesize=-1)
QUERY_ANALYZER = StemmingAnalyzer(stoplist=STOPLIST, minsize=2, cachesize=0)

# a word: one of the data's tokens, else letters and digits (with an 's or 't ending)
_WORD = re.compile("|".join([*(re.escape(t) for t in VOCABULARY.tokens), r"[a-z0-9]+(?:'[a-z]+)?"]))


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
    """Lowercase raw words (hyphens and punctuation split words; the data's tokens, such as
    "s&m", are kept whole)."""
    text = text.lower().replace("’", "'")
    out = []
    for w in _WORD.findall(text):
        if w.endswith("'s"):
            w = w[:-2]
        out.append(w)
    return out
