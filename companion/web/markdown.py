"""A small, safe Markdown renderer for our own rules corpus (headings, lists, tables, bold,
italics, code, links to other entries). Everything is HTML-escaped first."""
from __future__ import annotations

import re
from html import escape

_INLINE = [
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<!\*)\*(?!\s)(.+?)(?<!\s)\*(?!\*)"), r"<em>\1</em>"),
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\[([^\]]+)\]\((/rules/[a-z0-9-]+)\)"), r'<a href="\2">\1</a>'),
]


def inline(text: str) -> str:
    out = escape(text, quote=False)
    for pattern, repl in _INLINE:
        out = pattern.sub(repl, out)
    return out


def render_markdown(text: str) -> str:
    html: list[str] = []
    lines = text.splitlines()
    i = 0
    para: list[str] = []

    def flush():
        if para:
            html.append("<p>" + inline(" ".join(para)) + "</p>")
            para.clear()

    while i < len(lines):
        line = lines[i].rstrip()
        if not line.strip():
            flush()
            i += 1
            continue
        m = re.match(r"^(#{1,4})\s+(.*)$", line)
        if m:
            flush()
            level = min(len(m.group(1)) + 1, 5)
            html.append(f"<h{level}>{inline(m.group(2))}</h{level}>")
            i += 1
            continue
        if re.match(r"^\s*[-*•]\s+", line) or re.match(r"^\s*\d+[.)]\s+", line):
            flush()
            ordered = bool(re.match(r"^\s*\d+[.)]\s+", line))
            tag = "ol" if ordered else "ul"
            items = []
            while i < len(lines) and (re.match(r"^\s*([-*•]|\d+[.)])\s+", lines[i])):
                items.append("<li>" + inline(re.sub(r"^\s*([-*•]|\d+[.)])\s+", "", lines[i])) + "</li>")
                i += 1
            html.append(f"<{tag}>" + "".join(items) + f"</{tag}>")
            continue
        if line.lstrip().startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(re.match(r"^:?-{2,}:?$", c) for c in cells if c):
                    rows.append(cells)
                i += 1
            if rows:
                head = "".join(f"<th>{inline(c)}</th>" for c in rows[0])
                body = "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
                html.append(f'<table class="md"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')
            continue
        para.append(line.strip())
        i += 1
    flush()
    return "\n".join(html)
