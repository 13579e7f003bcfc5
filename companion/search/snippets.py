"""Snippets: our own highlighter over an entry's plain text, html-escaped, ``<mark>`` around
the matched words (stems of the query's concepts, or a prefix of the word being typed)."""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Sequence

from .analysis import ANALYZER
from .corpus import plain_text


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
    if prefixes:
        prefixes = tuple(prefixes)
        matches = [t for t in doc.tokens if t[0] in hl or t[0].startswith(prefixes)]
    else:
        matches = [t for t in doc.tokens if t[0] in hl]
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
