"""Print the layout figures of the code: modules outside ``companion/games/`` that name a game's
nouns, modules over 600 lines, and import circles between modules.

    python docs/tools/layout_report.py          # the three counts, then the names
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "companion"
# Dune's nouns (the spine test's list plus places and powers a newcomer would call Dune's)
DUNE_NOUNS = re.compile(r"faction|spice|forces|storm|leader|treachery|traitor|atreides|harkonnen|fremen|emperor|"
                        r"stronghold|karama|bidding|sietch|arrakeen|carthag|sandworm|shai.?hulud|kwisatz|"
                        r"sardaukar|fedaykin|bene.?gesserit|tleilaxu|moritani|ecaz|choam|richese", re.I)
LIMIT = 600


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def code_words(tree: ast.AST) -> list[str]:
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            out.append(n.id)
        elif isinstance(n, ast.Attribute):
            out.append(n.attr)
        elif isinstance(n, ast.arg):
            out.append(n.arg)
        elif isinstance(n, ast.alias):
            out.append(n.name)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings:
            out.append(n.value)
    return out


def imported(tree: ast.AST, mod: str, is_pkg: bool, known: set[str]) -> set[str]:
    package = mod if is_pkg else mod.rsplit(".", 1)[0]
    out = set()
    for n in ast.walk(tree):
        names = []
        if isinstance(n, ast.Import):
            names = [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            base = package.rsplit(".", n.level - 1)[0] if n.level > 1 else package
            base = f"{base}.{n.module}" if n.level and n.module else (n.module if not n.level else base)
            names = [base] + [f"{base}.{a.name}" for a in n.names]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != mod:
                out.add(name)
    return out


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    files = sorted(p for p in PKG.rglob("*.py") if "vendor" not in p.parts)
    trees = {p: ast.parse(p.read_text("utf-8")) for p in files}
    known = {module_name(p) for p in files}
    graph = {}
    for p, tree in trees.items():
        mod = module_name(p)
        # a package's __init__ importing its own submodules is how a package loads, not a circle
        deps = imported(tree, mod, p.name == "__init__.py", known)
        graph[mod] = {d for d in deps if not d.startswith(mod + ".")}
    naming = [str(p.relative_to(ROOT)) for p, t in trees.items()
              if not p.relative_to(PKG).parts[0] == "games" and any(DUNE_NOUNS.search(w) for w in code_words(t))]
    long = [(str(p.relative_to(ROOT)), n) for p in files if (n := len(p.read_text("utf-8").splitlines())) > LIMIT]
    circ = circles(graph)
    print(f"modules outside companion/games/ naming Dune nouns: {len(naming)}")
    print(f"modules under companion/games/dune/: {sum(1 for p in files if 'dune' in p.relative_to(PKG).parts[:2])}")
    print(f"modules over {LIMIT} lines: {len(long)}")
    print(f"import circles: {len(circ)}")
    for name in naming:
        print(f"  names Dune: {name}")
    for name, n in long:
        print(f"  over {LIMIT}: {name} ({n})")
    for c in circ:
        print(f"  circle: {' <-> '.join(c)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
