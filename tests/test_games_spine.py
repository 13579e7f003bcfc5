"""The table spine plays no particular game, and its views are a strict allowlist."""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from companion import games
from companion.table import views

# the layout report (docs/tools/layout_report.py) is the one reading of a module's words and nouns
_spec = importlib.util.spec_from_file_location(
    "layout_report", Path(__file__).resolve().parents[1] / "docs" / "tools" / "layout_report.py")
layout_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(layout_report)

ROOT = Path(__file__).resolve().parents[1] / "companion"
# The spine (events, stores, views, live updates, the export format), the web shell and the search:
# every module of companion/table/, companion/web/ and companion/search/, and the top-level modules
SPINE = sorted(str(p.relative_to(ROOT)) for folder in ("table", "web", "search")
               for p in (ROOT / folder).rglob("*.py")) + ["cli.py", "paths.py", "netaddr.py", "__init__.py"]
# Dune's nouns (layout_report's list): none of them may appear in the spine's code (docstrings aside)
DUNE_NOUNS = layout_report.DUNE_NOUNS
# a game's own modules: the registry (companion.games) is the one way in, and it loads games by id
GAME_MODULES = ("companion.games.", "companion.rules", "companion.table.actions")


def code_names(path: Path) -> list[str]:
    """Every identifier, attribute and string constant in the module's code (docstrings excluded),
    read as ``docs/tools/layout_report.py`` reads it."""
    return layout_report.code_words(ast.parse(path.read_text("utf-8")))


def imports(path: Path, package: str) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out += [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            base = package.rsplit(".", n.level - 1)[0] if n.level else ""
            mod = f"{base}.{n.module}" if n.level and n.module else (n.module or base)
            out += [mod] + [f"{mod}.{a.name}" for a in n.names]
    return out


def test_the_spine_list_holds_the_web_shell_and_the_search():
    assert {"web/pages.py", "web/api.py", "web/rules_web.py", "search/__init__.py", "table/service.py",
            "table/store/sqlite.py"} <= set(SPINE)


@pytest.mark.parametrize("rel", SPINE)
def test_the_spine_imports_no_game_and_uses_none_of_its_nouns(rel):
    path = ROOT / rel
    package = "companion." + ".".join(Path(rel).with_suffix("").parts[:-1])
    bad_imports = [m for m in imports(path, package) if m.startswith(GAME_MODULES)]
    assert bad_imports == [], f"{rel} imports a game: {bad_imports}"
    nouns = sorted({w for w in code_names(path) if DUNE_NOUNS.search(w)})
    assert nouns == [], f"{rel} uses a game's nouns: {nouns}"


def test_the_checker_would_catch_an_import_and_a_noun(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from ..rules.factions import faction_name\nx = state['spice']\n")
    assert imports(bad, "companion.table") == ["companion.rules.factions", "companion.rules.factions.faction_name"]
    assert {"faction_name", "spice"} <= set(code_names(bad))


@pytest.mark.parametrize("game_id", games.game_ids())
def test_every_new_state_key_is_declared_public_or_private(game_id):
    game = games.get(game_id)
    config = game.configure(game.settings(["atreides", "fremen"]) if game_id == "dune"
                            else game.settings(["A", "B", "C", "D", "E"]))
    state = game.new_state("ABCDE", config)
    assert views.undeclared_keys(state, game) == []


def test_a_key_declared_neither_public_nor_private_is_not_shown_and_is_reported():
    game = games.get("dune")
    state = game.new_state("ABCDE", game.configure(game.settings(["atreides", "fremen"])))
    state["sneaky"] = {"secret": 42}
    views.UNDECLARED.clear()
    v = views.view_for(state, "board")
    assert "sneaky" not in v and ("dune", "sneaky") in views.UNDECLARED
    assert views.undeclared_keys(state) == ["sneaky"]
    views.UNDECLARED.clear()  # (the suite's autouse check would fail this test otherwise)
    state.pop("sneaky")
    v = views.view_for(state, "fremen")
    # Fremen gets its own private part and no other faction's
    assert v["factions"]["fremen"]["private"] and "private" not in v["factions"]["atreides"]
    assert "private" not in v


def test_the_secret_harkonnen_host_is_not_everything():
    game = games.get("secret-harkonnen")
    config = game.configure(game.settings(["A", "B", "C", "D", "E"]))
    state = game.new_state("ABCDE", config)
    entry = game.opening_entries(config)[0]
    game.registry["sh.deal"].handler(game.context("host"), state,
                                     game.registry["sh.deal"].model.model_validate(entry["payload"]))
    host = views.view_for(state, "host")
    assert "me" not in host and "roles" not in host and "secret" not in host
    assert views.view_for(state, "C")["me"]["role"] == entry["payload"]["roles"]["C"]
