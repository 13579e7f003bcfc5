"""``companion rules "query" [--limit N] [--<tag filter> ID ...] [--ruleset R]``: rules search in a terminal.

One ``--<filter>`` option per tag group of the corpus data (``--faction``, ``--phase`` for the
Dune tags); the description and example come from ``rules_corpus/rulesets.json``."""
from __future__ import annotations

import argparse
import html
import os
import re
import sys
import textwrap
from typing import TextIO

from .corpus import RULESETS
from .vocabulary import TAG_GROUPS, VOCABULARY

_MARK = re.compile(r"</?mark>")


def plain_snippet(snippet_html: str) -> str:
    """The snippet as plain terminal text (marks removed, entities decoded)."""
    return html.unescape(_MARK.sub("", snippet_html))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="companion rules", description=VOCABULARY.cli_description)
    example = VOCABULARY.cli_example
    p.add_argument("query", nargs="+",
                   help=f"words to look for, e.g. \"{example}\"" if example else "words to look for")
    p.add_argument("--limit", "-n", type=int, default=5, help="how many answers (default 5)")
    for g in TAG_GROUPS:
        p.add_argument(f"--{g.filter}", choices=g.values, help=f"only entries about this {g.filter}")
    p.add_argument("--ruleset", choices=RULESETS, help="only this game's entries (default: every game)")
    p.add_argument("--index-dir", default=os.environ.get("COMPANION_SEARCH_INDEX"),
                   help="index folder (default: the user cache folder)")
    return p


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command; ``argv`` are the arguments after ``rules``. Returns the exit status:
    0 with answers, 1 when nothing matches, 2 for bad arguments."""
    out = out or sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage/error
        return int(exc.code or 0)
    if args.limit < 1:
        print("companion rules: --limit must be at least 1", file=sys.stderr)
        return 2
    from . import get_search

    rs = get_search(args.index_dir)
    q = " ".join(args.query)
    tags = {g.filter: getattr(args, g.filter.replace("-", "_")) for g in TAG_GROUPS}
    hits = rs.search(q, limit=args.limit, ruleset=args.ruleset, **tags)
    if not hits:
        print(f'No rule matches "{q}".', file=out)
        hint = rs.suggest(q, ruleset=args.ruleset)
        if hint:
            print(f'Did you mean: companion rules "{hint}"', file=out)
        return 1
    bold = hasattr(out, "isatty") and out.isatty() and not os.environ.get("NO_COLOR")
    hint = rs.suggest(q, ruleset=args.ruleset)
    if hint:
        print(f'(searched with corrections: "{hint}")', file=out)
    for n, h in enumerate(hits, 1):
        print(f"{n}. {h.title}  [{h.id}]", file=out)
        print(f"   {h.source}", file=out)
        for line in textwrap.wrap(plain_snippet(h.snippet), width=92):
            print("   " + (plain_snippet_bold(line, h.snippet) if bold else line), file=out)
        print(f"   {h.url}", file=out)
        if n < len(hits):
            print(file=out)
    return 0


def plain_snippet_bold(line: str, snippet_html: str) -> str:
    """Bold, in a wrapped line, the words that the snippet marks."""
    marked = {html.unescape(m) for m in re.findall(r"<mark>(.*?)</mark>", snippet_html)}
    if not marked:
        return line
    pat = re.compile(r"\b(" + "|".join(re.escape(m) for m in sorted(marked, key=len, reverse=True)) + r")\b")
    return pat.sub(lambda m: "\x1b[1m" + m.group(0) + "\x1b[0m", line)


if __name__ == "__main__":  # python -m companion.search.cli "query"
    sys.exit(main(sys.argv[1:]))
