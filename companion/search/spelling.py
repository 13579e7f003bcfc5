"""Spelling correction against the corpus vocabulary: symmetric-delete candidates, ranked by
optimal string alignment distance, then by how often the word occurs. Pure Python."""
from __future__ import annotations

from collections import Counter


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
