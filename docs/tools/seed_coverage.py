"""Seed coverage: every heading and card name of each seed maps to at least one rules entry.

    python docs/tools/seed_coverage.py [--seeds /work/shared/seeds] [--corpus rules_corpus] [-v]

For each seed (``SEEDS`` below: the file, the ruleset whose entries answer it, and how its names
are found), prints how many names it holds, how many map to an entry, the exceptions listed on
purpose (``EXCEPTIONS`` and ``EXCEPTION_PATTERNS``, with the reason; ``MAPPED_BY_HAND`` for the
few whose entry the words cannot show) and any name that maps to nothing. A name maps to an
entry of its ruleset (or its game) when the name, lowercased and with punctuation dropped, is
found in the entry's title, aliases, source or text, or when every word of it is in the entry's
title, aliases and source. Exit status 1 when a name maps to nothing and is not an exception
(tests/test_seed_coverage.py runs the same check).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_SEEDS = Path("/work/shared/seeds")


def _caps_headings(text: str) -> list[str]:
    """KISS rules: the ALL-CAPS heading lines."""
    return [ln.strip() for ln in text.splitlines()
            if re.fullmatch(r"[A-Z][A-Z0-9 &'’:/-]{2,60}", ln.strip()) and len(ln.strip().split()) <= 8]


def _title_lines(text: str) -> list[str]:
    """Rule summaries and forum rules: short heading lines (no full stop, at most 6 words),
    and bold headings (``**1. The Election**``)."""
    out = []
    for ln in text.splitlines():
        s = ln.strip()
        m = re.fullmatch(r"\*\*(?:\d+\.\s*)?(.+?):?\*\*", s)
        if m:
            out.append(m.group(1))
            continue
        if re.fullmatch(r"[A-Z][A-Za-z0-9 &'’—–()/-]{2,60}:?", s) and len(s.split()) <= 6:
            out.append(s.rstrip(":"))
    return out


def _triple_names(text: str) -> list[str]:
    """The Imperium guide: each board space, card, leader and component is a name printed
    three times (a heading and two captions) before its description."""
    lines = text.split("\n")
    out = []
    for i in range(len(lines) - 3):
        a = lines[i].strip()
        if a and not lines[i + 1].strip() and lines[i + 2].strip() == a and lines[i + 3].strip() == a:
            out.append(a)
    return out


def _named_terms(text: str) -> list[str]:
    """The add-on text has no headings: its capitalised names of two to four words (cards,
    tokens, modules, powers) that occur at least twice."""
    found = re.findall(r"\b((?:[A-Z][a-z]+|No-Field)(?:[ -](?:to |of |the )?[A-Z][a-z]+){1,3})\b", text)
    counts: dict[str, int] = {}
    for f in found:
        counts[f] = counts.get(f, 0) + 1
    return [f for f, n in counts.items() if n >= 2]


# seed file -> (the ruleset whose game answers it, how to find its names)
SEEDS = {
    "kiss-rules.txt": ("kiss", _caps_headings),
    "choam-richese.txt": ("choam-richese", _named_terms),
    "war-for-arrakis.txt": ("war-for-arrakis", _title_lines),
    "dune-imperium-howto.txt": ("imperium", _triple_names),
    "secret-harkonnen-forum-game.txt": ("secret-harkonnen", _title_lines),
}

# names whose entry the matching cannot see by words, mapped by hand (checked to exist)
MAPPED_BY_HAND: dict[str, dict[str, str]] = {
    "war-for-arrakis.txt": {
        "free actions no die turn needed": "wfa-free-actions",
        "other effects of prescience": "wfa-prescience",
    },
    "dune-imperium-howto.txt": {
        "agents per color": "imp-swordmaster",  # two Agents, the third is the Swordmaster
    },
}

# names no entry is meant to answer, on purpose: a pattern (regular expression) per reason
EXCEPTION_PATTERNS: dict[str, dict[str, str]] = {
    "kiss-rules.txt": {
        r"\bq a\b": "a faction's Q&A heading: the seed gives no answers under it (seeds README)",
        r"^the (noble|evil|neutral|enlightened|exquisite|sadistic) ": "a faction's lore text, no rules",
        r"^and nerfs$": "the tail of a heading broken over two lines",
    },
    "dune-imperium-howto.txt": {
        r"^(cubes|discs|control markers|combat marker) per color$": "a component count per player colour (how many pieces), no rule to look up",
        r"^base game (board|components)$": "an image caption of the guide",
    },
}

# names no entry is meant to answer, on purpose (the reason each)
EXCEPTIONS: dict[str, dict[str, str]] = {
    "kiss-rules.txt": {},
    "choam-richese.txt": {},
    "war-for-arrakis.txt": {
        "table of contents": "the summary's own table of contents",
    },
    "dune-imperium-howto.txt": {},
    "secret-harkonnen-forum-game.txt": {
        "players signed up": "the forum thread's roster, not a rule",
        "richese hecklers": "the forum thread's spectators, not a rule",
    },
}


def _sing(w: str) -> str:
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def exception_reason(fname: str, name: str) -> str:
    if name in EXCEPTIONS.get(fname, {}):
        return EXCEPTIONS[fname][name]
    return next(r for p, r in EXCEPTION_PATTERNS.get(fname, {}).items() if re.search(p, name))


def norm(s: str) -> str:
    s = s.lower().replace("’", "'").replace("“", "").replace("”", "").replace('"', "")
    return " ".join(re.findall(r"[a-z0-9']+", s))


def entry_texts(corpus: Path, ruleset: str):
    from companion.search import load_corpus, plain_text
    from companion.search.corpus import RULESET_GAME

    game = RULESET_GAME[ruleset]
    out = []
    for e in load_corpus(corpus):
        if RULESET_GAME[e.ruleset] != game:
            continue
        names = norm(" ".join((e.title, " ; ".join(e.aliases), e.source)))
        out.append((e.id, names, norm(plain_text(e.text))))
    return out


def check(seeds: Path, corpus: Path):
    """Per seed: (ruleset, names found, {name: entry id}, exceptions met, names unmapped)."""
    report = {}
    for fname, (ruleset, finder) in SEEDS.items():
        path = seeds / fname
        if not path.exists():
            continue
        names = list(dict.fromkeys(n for n in (norm(x) for x in finder(path.read_text(encoding="utf-8"))) if n))
        names = [n for n in names if not n.endswith("jpg")]  # the guide's image captions
        texts = entry_texts(corpus, ruleset)
        mapped, excepted, missing = {}, [], []
        exc = EXCEPTIONS.get(fname, {})
        pats = EXCEPTION_PATTERNS.get(fname, {})
        by_hand = MAPPED_BY_HAND.get(fname, {})
        ids = {i for i, _, _ in texts}
        for n in names:
            words = {_sing(w) for w in n.split()}
            hit = by_hand.get(n) if by_hand.get(n) in ids else None
            if hit is None:
                hit = next((i for i, nm, body in texts if n in nm or n in body), None)
            if hit is None:
                hit = next((i for i, nm, _ in texts if words <= {_sing(w) for w in nm.split()}), None)
            if hit is not None:
                mapped[n] = hit
            elif n in exc or any(re.search(p, n) for p in pats):
                excepted.append(n)
            else:
                missing.append(n)
        report[fname] = (ruleset, names, mapped, excepted, missing)
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=Path, default=DEFAULT_SEEDS)
    ap.add_argument("--corpus", type=Path, default=ROOT / "rules_corpus")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every name and its entry")
    args = ap.parse_args(argv)
    report = check(args.seeds, args.corpus)
    if not report:
        print(f"no seed found in {args.seeds}")
        return 0
    bad = 0
    for fname, (ruleset, names, mapped, excepted, missing) in report.items():
        print(f"{fname} ({ruleset}): {len(names)} names, {len(mapped)} mapped, "
              f"{len(excepted)} exceptions, {len(missing)} unmapped")
        for n in excepted:
            print(f"  exception: {n!r} — {exception_reason(fname, n)}")
        for n in missing:
            print(f"  UNMAPPED: {n!r}")
        if args.verbose:
            for n, i in mapped.items():
                print(f"  {n!r} -> {i}")
        bad += len(missing)
    print(f"total: {sum(len(r[1]) for r in report.values())} names, {bad} unmapped")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
